// Model-independent check of the candidate set: on NDv5, for every published MSCCL algorithm file
// (msccl-scheduler's ndv5 files, which produced the msccl_us column of ndv5_msccl_vs_nccl_fp16.csv),
// the tuner's best time at sizes inside the file's band is no slower than the file itself, both
// simulated by the same model. Whatever the model's absolute accuracy, this says the candidates
// contain algorithms at least as good as the published ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "ccforge/search/search.hpp"
#include "ccforge/sim/sim.hpp"
#include "ccforge/topology/topology.hpp"
#include "source_dir.hpp"

namespace ccforge::search {
namespace {

namespace fs = std::filesystem;
using C = ir::Collective;

constexpr ByteCount KiB = 1024, MiB = KiB * 1024;

struct PublishedBand {
  const char* file;  // under tests/data/msccl
  C collective;
  std::vector<ByteCount> sizes;  // csv sizes inside the file's minBytes..maxBytes, a few per band
};

// Bands from formats.md §2.4 (each file's minBytes/maxBytes); r48ll is the ndv4 copy (byte-identical).
const std::vector<PublishedBand>& bands() {
  static const std::vector<PublishedBand> b{
      {"msccl_ndv5_ap-1pass.xml", C::AllReduce, {1 * KiB, 4 * KiB, 16 * KiB, 32 * KiB}},
      {"msccl_ndv5_ap4ll.xml", C::AllReduce, {64 * KiB, 128 * KiB, 256 * KiB}},
      {"msccl_ndv4_r48ll.xml", C::AllReduce, {512 * KiB, 1 * MiB}},
      {"msccl_ndv5_r48ll128.xml", C::AllReduce, {4 * MiB, 8 * MiB, 16 * MiB}},
      {"msccl_ndv5_ag-1k-512k.xml", C::AllGather, {1 * KiB, 16 * KiB, 128 * KiB, 512 * KiB}},
      {"msccl_ndv5_ag-1m.xml", C::AllGather, {1 * MiB}},
      {"msccl_ndv5_ag-2m.xml", C::AllGather, {2 * MiB}},
      {"msccl_ndv5_ag-4m.xml", C::AllGather, {4 * MiB}},
      {"msccl_ndv5_ag-8m.xml", C::AllGather, {8 * MiB}},
      {"msccl_ndv5_ag-16m.xml", C::AllGather, {16 * MiB}},
      {"msccl_ndv5_ag-32m-1g.xml", C::AllGather, {32 * MiB, 64 * MiB}},
  };
  return b;
}

TEST(SearchMscclParity, BestCandidateIsNoSlowerThanThePublishedFileInItsBand) {
  const fs::path root(CCFORGE_SOURCE_DIR);
  const topo::Topology ndv5 = topo::load_topology(root / "data/topologies/ndv5.xml");
  const sim::SimParams params;
  const sim::CallSpec half{0, DataType::Half};

  TuneOptions options;
  options.collectives = {C::AllReduce, C::AllGather};
  for (const PublishedBand& band : bands()) options.sizes.insert(options.sizes.end(), band.sizes.begin(), band.sizes.end());
  std::sort(options.sizes.begin(), options.sizes.end());
  options.sizes.erase(std::unique(options.sizes.begin(), options.sizes.end()), options.sizes.end());
  options.out_dir = fs::temp_directory_path() / fmt::format("ccforge_msccl_parity_{}", ::getpid());
  const TuneResult result = tune(ndv5, options, params);
  fs::remove_all(options.out_dir);

  fmt::print("{:<10} {:>9} {:>28} {:>10} {:>10} {:>8}  {}\n", "coll", "bytes", "published file", "file_us", "ours_us",
             "ours/file", "our best");
  for (const PublishedBand& band : bands()) {
    const ir::Algorithm file = ir::read_msccl_xml(root / "tests/data/msccl" / band.file);
    const auto tuned = std::find_if(result.collectives.begin(), result.collectives.end(),
                                    [&](const CollectiveTune& c) { return c.collective == band.collective; });
    ASSERT_NE(tuned, result.collectives.end());
    for (ByteCount bytes : band.sizes) {
      sim::CallSpec call = half;
      call.bytes = bytes;
      const SimTime published = sim::simulate(ndv5, file, call, params).time;
      const auto at = std::find_if(tuned->sizes.begin(), tuned->sizes.end(), [&](const SizeResult& s) { return s.bytes == bytes; });
      ASSERT_NE(at, tuned->sizes.end());
      // The tuner's best at this size: the fastest simulated candidate (pruned ones could not win), or
      // NCCL, which the tuner keeps where it is faster.
      SimTime ours = at->nccl;
      std::string name = at->nccl_choice.name();
      for (std::size_t i = 0; i < at->times.size(); ++i)
        if (at->times[i] && *at->times[i] < ours) {
          ours = *at->times[i];
          name = tuned->candidates.accepted[i].name;
        }
      fmt::print("{:<10} {:>9} {:>28} {:>10.2f} {:>10.2f} {:>8.3f}  {}\n", ir::to_string(band.collective), bytes, band.file,
                 published.us(), ours.us(), ours.us() / published.us(), name);
      EXPECT_LE(ours, published) << band.file << " at " << bytes << " B: ours " << name << " " << ours.us() << " us, file "
                                 << published.us() << " us";
    }
  }
}

}  // namespace
}  // namespace ccforge::search
