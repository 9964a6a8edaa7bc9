// nccl-tests' -o,--op and -r,--root, shared by the verbs that run or simulate collectives (sim, tune,
// validate), and --coll's comma lists.
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

namespace ccforge::cli {

// The largest root -r accepts before the topology is known: more ranks than ccforge models.
inline constexpr int kMaxRootRank = 65535;

struct ReductionFlags {
  std::string op = "sum";
  int root = 0;
};

// -o,--op; `effect` ends the help (what the op changes for this verb).
inline void add_op_flag(CLI::App& cmd, ReductionFlags& f, const std::string& effect) {
  cmd.add_option("-o,--op", f.op, "reduction of allreduce, reducescatter and reduce: " + executor::red_op_names() + effect)
      ->capture_default_str();
}

// -r,--root; `meaning` ends the help (what the root means for this verb).
inline void add_root_flag(CLI::App& cmd, ReductionFlags& f, const std::string& meaning) {
  cmd.add_option("-r,--root", f.root, "root rank of broadcast, reduce, gather and scatter" + meaning)
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

// --coll: one collective or a comma list ("all" where `all` is given: every collective it names).
inline std::vector<ir::Collective> collectives_flag(const std::string& text, const std::vector<ir::Collective>& all = {}) {
  if (text == "all" && !all.empty()) return all;
  std::vector<ir::Collective> colls;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    const auto c = ir::collective_from_string(name);
    if (!c)
      fail_at("--coll", 0, fmt::format("unknown collective '{}'", name),
              std::string(all.empty() ? "" : "use all or ") +
                  "a comma list of allreduce, allgather, reducescatter, alltoall, broadcast, reduce, gather, scatter");
    colls.push_back(*c);
  }
  if (colls.empty()) fail_at("--coll", 0, "no collective given", "e.g. --coll allreduce,allgather");
  return colls;
}

}  // namespace ccforge::cli
