// nccl-tests' -o,--op and -r,--root, shared by the verbs that run or simulate collectives (sim, tune,
// validate), and --coll's comma lists (every verb that takes collectives).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"
#include "ccforge/ir/ir.hpp"
#include "ccforge/ir/runtime.hpp"
#include "shared_flags.hpp"

namespace ccforge::cli {

// The largest root -r accepts before the topology is known: more ranks than ccforge models.
inline constexpr int kMaxRootRank = 65535;

struct ReductionFlags {
  std::string op = "sum";
  int root = 0;
};

// -o,--op; `effect`: the verb's note (what the op changes for it).
inline void add_op_flag(CLI::App& cmd, ReductionFlags& f, const std::string& effect) {
  cmd.add_option("-o,--op", f.op, "reduction of allreduce, reducescatter and reduce: " + executor::red_op_names() + verb_note(cmd, effect))
      ->capture_default_str();
}

// -r,--root; `meaning`: the verb's note (what the root means for it).
inline void add_root_flag(CLI::App& cmd, ReductionFlags& f, const std::string& meaning) {
  cmd.add_option("-r,--root", f.root, "root rank of broadcast, reduce, gather and scatter" + verb_note(cmd, meaning))
      ->check(CLI::Range(0, kMaxRootRank))
      ->capture_default_str();
}

inline executor::RedOp red_op_flag(const ReductionFlags& f) {
  const auto op = executor::red_op_from_string(f.op);
  if (!op) fail_at("-o", 0, fmt::format("unknown reduction '{}'", f.op), "use one of " + executor::red_op_names());
  return *op;
}

// -r must name one of `nranks` ranks.
inline void check_root_rank(const ReductionFlags& f, int nranks) {
  if (f.root >= nranks)
    fail_at("-r", 0, fmt::format("root {} is not one of the {} ranks", f.root, nranks), fmt::format("give 0 to {}", nranks - 1));
}

inline bool any_rooted(const std::vector<ir::Collective>& colls) {
  for (const ir::Collective c : colls)
    if (ir::is_rooted(c)) return true;
  return false;
}

inline const std::vector<ir::Collective> kEveryCollective = {ir::Collective::AllReduce, ir::Collective::AllGather,
                                                             ir::Collective::ReduceScatter, ir::Collective::AllToAll,
                                                             ir::Collective::Broadcast, ir::Collective::Reduce,
                                                             ir::Collective::Gather, ir::Collective::Scatter};

// "allreduce, allgather, ..., scatter": kEveryCollective as --coll spells them.
inline std::string every_collective_names() {
  std::string names;
  for (ir::Collective c : kEveryCollective) names += (names.empty() ? "" : ", ") + std::string(ir::to_string(c));
  return names;
}

// --coll, worded alike on every verb; `note`: the verb's own (its default, what a list does there).
inline CLI::Option* add_coll_flag(CLI::App& cmd, std::string& coll, const std::string& note) {
  return cmd.add_option("--coll", coll, "all, one collective or a comma list of " + every_collective_names() + verb_note(cmd, note));
}

// --coll's collectives: "all" (every one) or a comma list.
inline std::vector<ir::Collective> collectives_flag(const std::string& text) {
  if (text == "all") return kEveryCollective;
  std::vector<ir::Collective> colls;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    const auto c = ir::collective_from_string(name);
    if (!c)
      fail_at("--coll", 0, fmt::format("unknown collective '{}'", name),
              "use all or a comma list of " + every_collective_names());
    colls.push_back(*c);
  }
  if (colls.empty()) fail_at("--coll", 0, "no collective given", "e.g. --coll allreduce,allgather");
  return colls;
}

}  // namespace ccforge::cli
