// Deadlock freedom (the step graph has no cycle) and race freedom (every two steps that touch the
// same chunk, at least one writing it, are ordered by the step graph).
#include <string>
#include <vector>

#include "buffer_space.hpp"
#include "check_phases.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {

void check_deadlock(const StepGraph& graph, IssueSink& sink) {
  if (graph.acyclic()) return;
  const std::vector<int> cycle = graph.find_cycle();
  constexpr std::size_t kShown = 8;
  std::string path;
  for (std::size_t i = 0; i < cycle.size() && i < kShown; ++i) path += describe(graph.ref(cycle[i])) + " -> ";
  path += cycle.size() > kShown ? "... -> " : "";
  path += describe(graph.ref(cycle.front()));
  sink.add("deadlock.cycle", graph.ref(cycle.front()),
           "waits in a cycle of program order, dependencies and send/receive pairs: " + path);
}

namespace {

struct Access {
  int node;
  bool writes;
  char buf;   // as the step names it, for the message
  int index;
};

// Answers "does step a happen before step b?" for pos(a) < pos(b) by searching back from b; steps
// placed before a in the topological order cannot lie on a path from a, which bounds the search.
class HappensBefore {
 public:
  explicit HappensBefore(const StepGraph& graph) : graph_(graph), pos_(graph.size()), mark_(graph.size(), 0) {
    for (std::size_t i = 0; i < graph.topo_order().size(); ++i) pos_[static_cast<std::size_t>(graph.topo_order()[i])] = static_cast<int>(i);
  }

  bool operator()(int a, int b) {
    const StepRef& ra = graph_.ref(a);
    const auto same_tb_after = [&](int v) {
      const StepRef& r = graph_.ref(v);
      return r.rank == ra.rank && r.tb == ra.tb && r.step >= ra.step;
    };
    if (same_tb_after(b)) return true;
    ++epoch_;
    stack_.assign(1, b);
    while (!stack_.empty()) {
      const int v = stack_.back();
      stack_.pop_back();
      for (int p : graph_.preds(v)) {
        if (same_tb_after(p)) return true;
        auto& m = mark_[static_cast<std::size_t>(p)];
        if (pos_[static_cast<std::size_t>(p)] < pos_[static_cast<std::size_t>(a)] || m == epoch_) continue;
        m = epoch_;
        stack_.push_back(p);
      }
    }
    return false;
  }

 private:
  const StepGraph& graph_;
  std::vector<int> pos_;
  std::vector<unsigned> mark_;
  unsigned epoch_ = 0;
  std::vector<int> stack_;
};

// Accesses per chunk of memory, in topological order.
std::vector<std::vector<Access>> collect_accesses(const StepGraph& graph, const BufferSpace& space, IssueSink& sink) {
  std::vector<std::vector<Access>> by_chunk(static_cast<std::size_t>(space.size()));
  for (int v : graph.topo_order()) {
    const Step& st = graph.step(v);
    const OpTraits tr = traits(st.type);
    const int rank = graph.ref(v).rank;
    auto touch = [&](BufferKind buf, int off, bool writes) {
      for (int k = 0; k < st.count; ++k) {
        const int loc = space.locate(rank, buf, off + k);
        if (loc < 0) {
          sink.add("structure.alias", graph.ref(v), std::string("in-place, ") + to_char(buf) + "[" + std::to_string(off + k) + "] lies outside the rank's buffers");
          return;
        }
        auto& list = by_chunk[static_cast<std::size_t>(loc)];
        if (!list.empty() && list.back().node == v) list.back().writes |= writes;
        else list.push_back({v, writes, to_char(buf), off + k});
      }
    };
    if (tr.reads_src) touch(st.src_buf, st.src_off, false);
    if (tr.writes_dst) touch(st.dst_buf, st.dst_off, true);
  }
  return by_chunk;
}

void report_race(const StepGraph& graph, const Access& earlier, const Access& later, IssueSink& sink) {
  const std::string chunk = std::string(1, later.buf) + "[" + std::to_string(later.index) + "]";
  sink.add("race", graph.ref(later.node),
           std::string(later.writes ? "writes " : "reads ") + chunk + ", which " + describe(graph.ref(earlier.node)) +
               (earlier.writes ? " writes" : " reads") + " with no order between them (add a dependency)");
}

}  // namespace

void check_races(const Algorithm& algo, const StepGraph& graph, bool inplace, IssueSink& sink) {
  const BufferSpace space(algo, inplace);
  HappensBefore before(graph);
  constexpr std::size_t kMaxReported = 20;
  const std::size_t at_start = sink.count();
  for (const auto& accesses : collect_accesses(graph, space, sink)) {
    const Access* last_write = nullptr;
    std::vector<const Access*> reads_since;
    for (const Access& a : accesses) {
      if (sink.count() - at_start >= kMaxReported) return;
      if (last_write && !before(last_write->node, a.node)) {
        report_race(graph, *last_write, a, sink);
        break;
      }
      if (!a.writes) {
        reads_since.push_back(&a);
        continue;
      }
      for (const Access* r : reads_since)
        if (!before(r->node, a.node)) {
          report_race(graph, *r, a, sink);
          break;
        }
      last_write = &a;
      reads_since.clear();
    }
  }
}

}  // namespace ccforge::ir
