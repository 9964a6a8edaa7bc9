// The chunk counts a file declares against the buffers the executor really passes for its
// nchunksperloop (formats.md §1.7): a program addressing fewer chunks than the executor's buffer
// leaves part of the result unwritten at run time, and one addressing more reads and writes past the
// user's buffer. The postcondition phase proves the collective over the declared counts, so this rule
// is what ties that proof to the executor's buffers.
#include <string>

#include "aliasing.hpp"
#include "check_phases.hpp"

namespace ccforge::ir {
namespace {

// Ranks whose input the result depends on, and ranks that must hold a result (root 0 for rooted ones).
bool input_matters(Collective c, int rank) { return rank == 0 || (c != Collective::Broadcast && c != Collective::Scatter); }
bool output_matters(Collective c, int rank) { return rank == 0 || (c != Collective::Reduce && c != Collective::Gather); }

std::string fix_for(const Algorithm& algo, const LogicalCounts& root) {
  const int suggested = chunks_per_loop(algo.collective, root.input, root.output);
  if (suggested != algo.nchunksperloop && suggested > 0 && executor_buffers(algo.collective, algo.ngpus, suggested))
    return "set nchunksperloop=\"" + std::to_string(suggested) + "\"";
  return "declare the chunk counts of the executor's buffers";
}

// The first buffer of `rank` that does not match the executor's, as a message; empty when all match.
std::string mismatch(const Algorithm& algo, int rank, const LogicalCounts& have, const ExecutorBuffers& exec) {
  const auto describe = [&](const char* buf, int declared, std::int64_t executor) {
    return "addresses " + std::to_string(declared) + " " + buf + " chunks but the executor's " + buf +
           " buffer holds " + std::to_string(executor) + " for " + to_string(algo.collective) + " with nchunksperloop=" +
           std::to_string(algo.nchunksperloop) + " on " + std::to_string(algo.ngpus) + " ranks";
  };
  const bool in_bad = have.input > exec.input_chunks || (input_matters(algo.collective, rank) && have.input != exec.input_chunks);
  if (in_bad) return describe("input", have.input, exec.input_chunks);
  const bool out_bad = have.output > exec.output_chunks || (output_matters(algo.collective, rank) && have.output != exec.output_chunks);
  if (out_bad) return describe("output", have.output, exec.output_chunks);
  return {};
}

}  // namespace

void check_executor_buffers(const Algorithm& algo, IssueSink& sink) {
  if (algo.collective == Collective::Send || algo.collective == Collective::Recv || algo.collective == Collective::AllToAllV) return;
  if (algo.gpus.empty()) return;
  const auto exec = executor_buffers(algo.collective, algo.ngpus, algo.nchunksperloop);
  if (!exec) {
    const bool per_rank_share = algo.collective == Collective::AllGather || algo.collective == Collective::ReduceScatter;
    sink.add("buffers", 0, -1, -1,  // on rank 0's <gpu> line: the IR keeps no line for <algo>
             "nchunksperloop=" + std::to_string(algo.nchunksperloop) + " does not split each rank's share of the " + to_string(algo.collective) +
                 " buffer into whole chunks (use a positive " +
                 (per_rank_share ? "multiple of " + std::to_string(algo.ngpus) : std::string("number")) + ")");
    return;
  }
  const bool neither = !algo.inplace && !algo.outofplace;  // check() proves it as out-of-place
  for (bool inplace : {false, true}) {
    if (inplace ? !algo.inplace : !(algo.outofplace || neither)) continue;
    const LogicalCounts root = logical_counts(algo, algo.gpus.front(), inplace);
    for (const GpuProgram& gpu : algo.gpus) {
      const std::string problem = mismatch(algo, gpu.rank, logical_counts(algo, gpu, inplace), *exec);
      if (problem.empty()) continue;
      sink.add("buffers", gpu.rank, -1, -1, (inplace ? "in place, " : "") + problem + " (" + fix_for(algo, root) + ")");
      return;  // the other ranks share the cause
    }
  }
}

}  // namespace ccforge::ir
