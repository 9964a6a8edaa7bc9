// Tuning inside NCCL's own space (search/src/tune/nccl_tuner.cpp): per collective and size every
// algorithm x protocol x channel count NCCL can run (sim::explain_nccl), and the size bands where its
// fastest point beats NCCL's own pick by at least min_gain. Those bands become nccl-tuner.conf, which
// libnccl-tuner-ccforge.so (tuner/) applies to stock NCCL.
#pragma once

#include <string>
#include <vector>

#include "ccforge/common/units.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/tuner/tuner_conf.hpp"

namespace ccforge::search {

struct TuneResult;

struct NcclTunerBand {
  ByteCount min_bytes = 0;
  ByteCount max_bytes = 0;  // inclusive: one byte below the next tuned size (the last size itself at the end)
  sim::NcclChoice point;
  bool default_channels = false;  // the table says channels 0: NCCL's own count for that algorithm
  // Predicted gain over NCCL's pick across the band's tuned sizes: pick time / best time - 1.
  double min_gain = 0.0, max_gain = 0.0;
};

struct NcclSpaceTune {
  std::vector<sim::NcclExplanation> sizes;  // one per tuned size; no points for alltoall/gather/scatter
  std::vector<NcclTunerBand> bands;         // only where NCCL's pick loses by min_gain; the rest is NCCL's
};

// Adjacent sizes whose fastest point (algorithm, protocol, channels) is the same and beats NCCL's pick
// by min_gain form one band. `explanations` in ascending size order.
std::vector<NcclTunerBand> nccl_tuner_bands(const std::vector<sim::NcclExplanation>& explanations, double min_gain);

// sim::explain_nccl at every size, ascending, each size's points in parallel, except points pruned
// because their time at a smaller size (same algorithm, protocol and channels) already reaches NCCL's
// pick; then nccl_tuner_bands. The outcome does not depend on the thread count. Simulating LL points
// of large calls is what costs: each is simulated until its time at half the size exceeds NCCL's pick.
NcclSpaceTune tune_nccl_space(const topo::Topology& topo, ir::Collective coll, const std::vector<ByteCount>& sizes,
                              DataType dtype, const sim::SimParams& params, double min_gain);

// nccl-tuner.conf's rules: every band of every collective NCCL asks a tuner about, for the tuned
// topology's node count and ranks per node (channels 0 where the band keeps NCCL's own count).
std::vector<tuner_conf::Rule> nccl_tuner_rules(const TuneResult& result);

// "nccl:ring:LL128/16" (channels shown; "/nccl" where it is NCCL's own count for the call).
std::string point_name(const sim::NcclChoice& point, bool default_channels);

// The explanations as JSON (the "sizes" of report.json's "nccl_space"): per size every point with its
// simulated time and NCCL's model estimate, NCCL's choice (index 0), the fastest, the gain, whether the
// tuner overrides NCCL there.
std::string explanations_json_text(const std::vector<sim::NcclExplanation>& explanations, double min_gain);

}  // namespace ccforge::search
