#include "builder_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>

#include "aliasing.hpp"

namespace ccforge::ir {
namespace {

bool is_transfer(OpType k) { return k == OpType::Send || k == OpType::RecvReduceCopy; }

ChunkRef physical(const BuilderSpec& spec, ChunkRef c) {
  const Aliasing a = spec.inplace ? inplace_aliasing(spec.collective) : Aliasing::None;
  const Chunk p = physical_chunk(a, c.rank, {spec.input_chunks, spec.output_chunks}, {c.buf, c.index});
  return {c.rank, p.buf, p.index, c.count};
}

// Physical buffer sizes: an in-place call has one user buffer, so the aliased one has 0 chunks.
void size_buffers(const BuilderSpec& spec, BuildPlan& plan) {
  const auto n = static_cast<std::size_t>(spec.ngpus);
  const Aliasing a = spec.inplace ? inplace_aliasing(spec.collective) : Aliasing::None;
  plan.input_chunks.assign(n, a == Aliasing::InputInsideOutput ? 0 : spec.input_chunks);
  plan.output_chunks.assign(n, a == Aliasing::OutputIsInput || a == Aliasing::OutputInsideInput ? 0 : spec.output_chunks);
  plan.scratch_chunks.assign(n, 0);
  for (const PlannedOp& op : plan.ops)
    for (const ChunkRef& c : {op.src, op.dst})
      if (c.buf == BufferKind::Scratch) {
        int& s = plan.scratch_chunks[static_cast<std::size_t>(c.rank)];
        s = std::max(s, c.index + c.count);
      }
}

bool same_run(const ChunkRef& a, const ChunkRef& b) {
  return a.rank == b.rank && a.buf == b.buf && a.index == b.index && a.count == b.count;
}

// Which ops touch each chunk and use each connection, in program order, for O(log n) look-ups. The
// chunk lists are one flat array (CSR) over dense chunk ids: a std::map entry per chunk dominated
// candidate building at 128 ranks.
class OpIndex {
 public:
  explicit OpIndex(const std::vector<PlannedOp>& ops) {
    for (const PlannedOp& op : ops)
      for (const ChunkRef& c : {op.src, op.dst}) {
        ranks_ = std::max(ranks_, c.rank + 1);
        int& w = width_[static_cast<std::size_t>(c.buf)];
        w = std::max(w, c.index + c.count);
      }
    for (int w : width_) row_ += static_cast<std::size_t>(w);
    start_.assign(static_cast<std::size_t>(ranks_) * row_ + 1, 0);
    for (const PlannedOp& op : ops) each_chunk(op, [&](std::size_t id) { ++start_[id + 1]; });
    for (std::size_t id = 1; id < start_.size(); ++id) start_[id] += start_[id - 1];
    touches_.resize(start_.back());
    std::vector<std::size_t> fill(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      each_chunk(ops[i], [&](std::size_t id) { touches_[fill[id]++] = i; });
      if (is_transfer(ops[i].kind)) by_connection_[{ops[i].src.rank, ops[i].dst.rank, ops[i].channel}].push_back(i);
    }
  }

  // First op after i touching any chunk of `run`; SIZE_MAX if none.
  std::size_t next_touch(std::size_t i, const ChunkRef& run) const {
    std::size_t next = SIZE_MAX;
    for (int k = 0; k < run.count; ++k) {
      const std::size_t id = chunk_id(run.rank, run.buf, run.index + k);
      const auto first = touches_.begin() + static_cast<std::ptrdiff_t>(start_[id]);
      const auto last = touches_.begin() + static_cast<std::ptrdiff_t>(start_[id + 1]);
      const auto it = std::upper_bound(first, last, i);
      if (it != last) next = std::min(next, *it);
    }
    return next;
  }

  bool connection_idle_between(std::size_t i, std::size_t j, int from, int to, int channel) const {
    const auto it = by_connection_.find({from, to, channel});
    if (it == by_connection_.end()) return true;
    const auto after = std::upper_bound(it->second.begin(), it->second.end(), i);
    return after == it->second.end() || *after >= j;
  }

 private:
  static constexpr std::size_t kBuffers = 3;  // input, output, scratch

  std::size_t chunk_id(int rank, BufferKind buf, int index) const {
    std::size_t base = static_cast<std::size_t>(rank) * row_;
    for (std::size_t b = 0; b < static_cast<std::size_t>(buf); ++b) base += static_cast<std::size_t>(width_[b]);
    return base + static_cast<std::size_t>(index);
  }
  // Every chunk an op touches, once (a dst overlapping its src counts once).
  template <typename F>
  void each_chunk(const PlannedOp& op, F&& f) const {
    for (int k = 0; k < op.src.count; ++k) f(chunk_id(op.src.rank, op.src.buf, op.src.index + k));
    const bool same_buffer = op.dst.rank == op.src.rank && op.dst.buf == op.src.buf;
    for (int k = 0; k < op.dst.count; ++k) {
      const int index = op.dst.index + k;
      if (same_buffer && index >= op.src.index && index < op.src.index + op.src.count) continue;
      f(chunk_id(op.dst.rank, op.dst.buf, index));
    }
  }

  int ranks_ = 0;
  std::array<int, kBuffers> width_{};  // per buffer kind: highest chunk touched + 1, over all ranks
  std::size_t row_ = 0;                // chunk ids per rank
  std::vector<std::size_t> start_;    // chunk id -> first entry in touches_ (one extra at the end)
  std::vector<std::size_t> touches_;  // op indices, ascending within each chunk
  std::map<std::tuple<int, int, int>, std::vector<std::size_t>> by_connection_;
};

// A receive whose chunk is next used as the source of a transfer of exactly that chunk on the same
// channel becomes rcs/rrcs/rrs (the transfer's sending half moves into it), provided the rank's tb for (send peer, recv peer, channel) can hold both.
void plan_fusion(const OpIndex& index, BuildPlan& plan) {
  auto& ops = plan.ops;
  std::map<std::tuple<int, int, int>, int> send_pairs, recv_pairs;  // (rank, peer, channel) -> partner peer
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!is_transfer(ops[i].kind)) continue;
    const ChunkRef& d = ops[i].dst;
    const std::size_t j = index.next_touch(i, d);
    if (j == SIZE_MAX || !is_transfer(ops[j].kind) || !same_run(ops[j].src, d) || ops[j].channel != ops[i].channel) continue;
    const int from = ops[i].src.rank, to = ops[j].dst.rank, c = ops[i].channel;
    if (!index.connection_idle_between(i, j, d.rank, to, c)) continue;
    const auto s = send_pairs.find({d.rank, to, c});
    const auto r = recv_pairs.find({d.rank, from, c});
    if ((s != send_pairs.end() && s->second != from) || (r != recv_pairs.end() && r->second != to)) continue;
    send_pairs[{d.rank, to, c}] = from;
    recv_pairs[{d.rank, from, c}] = to;
    ops[i].fused_send = static_cast<int>(j);
    ops[j].sent_by_fusion = true;
    // Scratch is invisible to the caller, so a partial result only forwarded need not be stored.
    ops[i].result_unused = ops[i].kind == OpType::RecvReduceCopy && d.buf == BufferKind::Scratch && index.next_touch(j, d) == SIZE_MAX;
  }
}

// A local copy/reduce not pinned to a channel runs on the local tb of the channel whose transfer next
// uses its result, so the local work of different channels spreads over several tbs instead of
// overflowing one.
void plan_local_channels(const OpIndex& index, BuildPlan& plan) {
  auto& ops = plan.ops;
  for (std::size_t i = ops.size(); i-- > 0;) {
    if (is_transfer(ops[i].kind) || ops[i].channel >= 0) continue;  // transfers and pinned local ops
    const std::size_t next = index.next_touch(i, ops[i].dst);
    ops[i].channel = next == SIZE_MAX ? 0 : ops[next].channel;  // ops after i already carry their channel
  }
}

// Threadblocks per rank: one per fused (send, recv, channel) pair, sends and receives with the same
// peer and channel share one, the rest get their own, plus a local tb per channel with local work.
void plan_threadblocks(int ngpus, BuildPlan& plan) {
  std::vector<std::set<TbKey>> pairs(static_cast<std::size_t>(ngpus));
  std::vector<std::set<std::pair<int, int>>> sends(static_cast<std::size_t>(ngpus)), recvs(static_cast<std::size_t>(ngpus));
  std::vector<std::set<int>> local(static_cast<std::size_t>(ngpus));  // channels with local work
  for (const PlannedOp& op : plan.ops) {
    if (!is_transfer(op.kind)) {
      local[static_cast<std::size_t>(op.src.rank)].insert(op.channel);
      continue;
    }
    sends[static_cast<std::size_t>(op.src.rank)].insert({op.dst.rank, op.channel});
    recvs[static_cast<std::size_t>(op.dst.rank)].insert({op.src.rank, op.channel});
    if (op.fused_send >= 0)
      pairs[static_cast<std::size_t>(op.dst.rank)].insert({plan.ops[static_cast<std::size_t>(op.fused_send)].dst.rank, op.src.rank, op.channel});
  }
  plan.ranks.resize(static_cast<std::size_t>(ngpus));
  for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
    std::set<TbKey> tbs = pairs[r];
    for (const TbKey& k : pairs[r]) {
      sends[r].erase({k.send_peer, k.channel});
      recvs[r].erase({k.recv_peer, k.channel});
    }
    for (const auto& [peer, chan] : sends[r]) {
      const bool shared = recvs[r].erase({peer, chan}) > 0;
      tbs.insert({peer, shared ? peer : -1, chan});
    }
    for (const auto& [peer, chan] : recvs[r]) tbs.insert({-1, peer, chan});
    for (int chan : local[r]) tbs.insert({-1, -1, chan});
    plan.ranks[r].tbs.assign(tbs.begin(), tbs.end());
  }
}

}  // namespace

// tbs are sorted by send peer first, so only that peer's few tbs are scanned (all-pairs ranks have
// hundreds of tbs and this runs for every step).
int RankLayout::tb_sending(int peer, int channel) const {
  const auto first = std::lower_bound(tbs.begin(), tbs.end(), peer, [](const TbKey& k, int p) { return k.send_peer < p; });
  for (auto it = first; it != tbs.end() && it->send_peer == peer; ++it)
    if (it->channel == channel) return static_cast<int>(it - tbs.begin());
  return -1;
}

int RankLayout::tb_receiving(int peer, int channel) const {
  for (std::size_t t = 0; t < tbs.size(); ++t)
    if (tbs[t].recv_peer == peer && tbs[t].channel == channel) return static_cast<int>(t);
  return -1;
}

int RankLayout::tb_local(int channel) const {
  for (std::size_t t = 0; t < tbs.size(); ++t)
    if (tbs[t].send_peer < 0 && tbs[t].recv_peer < 0 && tbs[t].channel == channel) return static_cast<int>(t);
  return -1;
}

BuildPlan plan_build(const BuilderSpec& spec, const std::vector<PlannedOp>& recorded) {
  BuildPlan plan;
  plan.ops = recorded;
  for (PlannedOp& op : plan.ops) {
    op.src = physical(spec, op.src);
    op.dst = physical(spec, op.dst);
  }
  size_buffers(spec, plan);
  // Neither pass changes which chunks an op touches or a transfer's channel, so one index serves both.
  const OpIndex index(plan.ops);
  plan_fusion(index, plan);
  plan_local_channels(index, plan);
  plan_threadblocks(spec.ngpus, plan);
  return plan;
}

}  // namespace ccforge::ir
