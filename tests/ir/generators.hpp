// Hand-written correct algorithms for every collective, written with the builder. They exist to test
// the builder, the exporter and the checker; the search part owns the real generator library.
#pragma once

#include "ccforge/ir/builder.hpp"

namespace ccforge::ir::testgen {

// Ring reduce-scatter then ring all-gather; chunk k starts at rank k % n, on channel k % channels.
Algorithm ring_allreduce(int ngpus, int chunks_per_rank, int channels, bool inplace);
// Ring reduce-scatter: rank r ends with output chunk j = sum of everyone's input chunk r*c + j.
Algorithm ring_reducescatter(int ngpus, bool inplace);
// Ring all-gather; in-place keeps each rank's own chunk where it already is.
Algorithm ring_allgather(int ngpus, bool inplace);
// Every rank sends its chunk straight to every other rank.
Algorithm direct_allgather(int ngpus);
Algorithm direct_alltoall(int ngpus);
// Root 0 forwards along the chain 0 -> 1 -> ... -> n-1 (every rank relays with rcs).
Algorithm chain_broadcast(int ngpus, int chunks);
// Partial sums flow n-1 -> ... -> 0, each rank adds its input (rrcs relays), root 0 holds the sum.
Algorithm chain_reduce(int ngpus, int chunks);
// Root 0 collects (gather) or hands out (scatter) one chunk per rank directly.
Algorithm direct_gather(int ngpus);
Algorithm direct_scatter(int ngpus);
// All-pairs allreduce through scratch: reduce-scatter by direct copies + local `re`, then all-gather.
Algorithm allpairs_allreduce(int ngpus);

}  // namespace ccforge::ir::testgen
