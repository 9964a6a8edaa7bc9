// Deadlock freedom (the step graph has no cycle) and race freedom (every two steps that touch the
// same chunk, at least one writing it, are ordered by the step graph).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
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
// Answers are remembered per pair: a step moving n chunks asks the same question for each of them, so
// without it the searches grew with chunks x steps (~ranks^3 for rhd and hierarchical allreduce).
class HappensBefore {
 public:
  explicit HappensBefore(const StepGraph& graph) : graph_(graph), pos_(graph.size()), mark_(graph.size(), 0) {
    for (std::size_t i = 0; i < graph.topo_order().size(); ++i) pos_[static_cast<std::size_t>(graph.topo_order()[i])] = static_cast<int>(i);
  }

  bool operator()(int a, int b) {
    const auto key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
    const auto [it, fresh] = known_.try_emplace(key, false);
    if (fresh) it->second = search(a, b);
    return it->second;
  }

 private:
  bool search(int a, int b) {
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

  const StepGraph& graph_;
  std::unordered_map<std::uint64_t, bool> known_;
  std::vector<int> pos_;
  std::vector<unsigned> mark_;
  unsigned epoch_ = 0;
  std::vector<int> stack_;
};

// Per chunk of one rank's memory, what the next access must be ordered after: the last write and the
// reads since it. A chunk is no longer checked after a race with its last write.
struct ChunkState {
  std::optional<Access> last_write;
  std::vector<Access> reads_since;
  bool stopped = false;
  int touched_by = -1;  // the step whose touches are being gathered, when it touched this chunk
  int touch = 0;        // then: its index in the step's touches
};

struct Race {
  int loc;
  Access earlier, later;
};

struct AliasIssue {
  int pos;  // in topological order, the order they are reported in
  int node;
  std::string message;
};

// The race check one rank at a time: every access to a rank's memory is a step of that rank, so the
// sweep keeps state for one rank's chunks and never holds the whole program's accesses (at 1024 ranks
// those were gigabytes). Each chunk sees its accesses in topological order, as before; races are kept
// per chunk in access order, so sorting them by chunk gives the order a chunk-by-chunk pass reports.
class RaceSweep {
 public:
  RaceSweep(const StepGraph& graph, const BufferSpace& space) : graph_(graph), space_(space), before_(graph) {}

  void run() {
    std::vector<std::vector<int>> by_rank(static_cast<std::size_t>(space_.ranks()));
    std::vector<int> pos(static_cast<std::size_t>(graph_.size()));
    for (std::size_t i = 0; i < graph_.topo_order().size(); ++i) {
      const int v = graph_.topo_order()[i];
      by_rank[static_cast<std::size_t>(graph_.ref(v).rank)].push_back(v);
      pos[static_cast<std::size_t>(v)] = static_cast<int>(i);
    }
    for (int rank = 0; rank < space_.ranks(); ++rank) {
      base_ = space_.first(rank);
      chunks_.assign(static_cast<std::size_t>(space_.chunks(rank)), ChunkState{});
      const std::size_t races_before = races.size();
      for (int v : by_rank[static_cast<std::size_t>(rank)]) {
        gather_touches(v, pos[static_cast<std::size_t>(v)]);
        for (const auto& [loc, access] : touches_) visit(loc, access);
      }
      std::stable_sort(races.begin() + static_cast<std::ptrdiff_t>(races_before), races.end(),
                       [](const Race& a, const Race& b) { return a.loc < b.loc; });
    }
    std::stable_sort(aliases.begin(), aliases.end(), [](const AliasIssue& a, const AliasIssue& b) { return a.pos < b.pos; });
  }

  std::vector<AliasIssue> aliases;
  std::vector<Race> races;

 private:
  ChunkState& state(int loc) { return chunks_[static_cast<std::size_t>(loc - base_)]; }

  // The chunks step v touches, its src then its dst, one entry per chunk.
  void gather_touches(int v, int topo_pos) {
    touches_.clear();
    const Step& st = graph_.step(v);
    const OpTraits tr = traits(st.type);
    const int rank = graph_.ref(v).rank;
    auto touch = [&](BufferKind buf, int off, bool writes) {
      for (int k = 0; k < st.count; ++k) {
        const int loc = space_.locate(rank, buf, off + k);
        if (loc < 0) {
          aliases.push_back({topo_pos, v, std::string("in-place, ") + to_char(buf) + "[" + std::to_string(off + k) + "] lies outside the rank's buffers"});
          return;
        }
        ChunkState& c = state(loc);
        if (c.touched_by == v) {
          touches_[static_cast<std::size_t>(c.touch)].second.writes |= writes;
          continue;
        }
        c.touched_by = v;
        c.touch = static_cast<int>(touches_.size());
        touches_.push_back({loc, {v, writes, to_char(buf), off + k}});
      }
    };
    if (tr.reads_src) touch(st.src_buf, st.src_off, false);
    if (tr.writes_dst) touch(st.dst_buf, st.dst_off, true);
  }

  void visit(int loc, const Access& a) {
    ChunkState& c = state(loc);
    if (c.stopped) return;
    if (c.last_write && !before_(c.last_write->node, a.node)) {
      races.push_back({loc, *c.last_write, a});
      c.stopped = true;
      return;
    }
    if (!a.writes) {
      c.reads_since.push_back(a);
      return;
    }
    for (const Access& r : c.reads_since)
      if (!before_(r.node, a.node)) {
        races.push_back({loc, r, a});
        break;
      }
    c.last_write = a;
    c.reads_since.clear();
  }

  const StepGraph& graph_;
  const BufferSpace& space_;
  HappensBefore before_;
  int base_ = 0;                   // dense index of the swept rank's first chunk
  std::vector<ChunkState> chunks_;  // the swept rank's
  std::vector<std::pair<int, Access>> touches_;
};

void report_race(const StepGraph& graph, const Access& earlier, const Access& later, IssueSink& sink) {
  const std::string chunk = std::string(1, later.buf) + "[" + std::to_string(later.index) + "]";
  sink.add("race", graph.ref(later.node),
           std::string(later.writes ? "writes " : "reads ") + chunk + ", which " + describe(graph.ref(earlier.node)) +
               (earlier.writes ? " writes" : " reads") + " with no order between them (add a dependency)");
}

}  // namespace

void check_races(const Algorithm& algo, const StepGraph& graph, bool inplace, IssueSink& sink) {
  const BufferSpace space(algo, inplace);
  RaceSweep sweep(graph, space);
  sweep.run();
  for (const AliasIssue& a : sweep.aliases) sink.add("structure.alias", graph.ref(a.node), a.message);
  // At most this many issues from this phase, the alias issues included.
  constexpr std::size_t kMaxReported = 20;
  for (std::size_t i = 0; i < sweep.races.size() && sweep.aliases.size() + i < kMaxReported; ++i)
    report_race(graph, sweep.races[i].earlier, sweep.races[i].later, sink);
}

}  // namespace ccforge::ir
