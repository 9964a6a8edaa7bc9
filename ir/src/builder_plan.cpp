#include "builder_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

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

// Which ops touch each chunk and use each connection, in program order, for O(log n) look-ups. Both
// are flat arrays (CSR) over dense ids: a std::map entry per chunk or connection dominated candidate
// building at 128 ranks.
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
    for (std::size_t i = 0; i < ops.size(); ++i) each_chunk(ops[i], [&](std::size_t id) { touches_[fill[id]++] = i; });
    index_connections(ops);
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

  // Dense id of transfer op i's connection (src rank, dst rank, channel); -1 for local ops.
  int connection(std::size_t i) const { return connection_of_[i]; }
  int connections() const { return static_cast<int>(conn_start_.size()) - 1; }

  // No transfer on `conn` strictly between ops i and j.
  bool connection_idle_between(std::size_t i, std::size_t j, int conn) const {
    const auto first = conn_ops_.begin() + static_cast<std::ptrdiff_t>(conn_start_[static_cast<std::size_t>(conn)]);
    const auto last = conn_ops_.begin() + static_cast<std::ptrdiff_t>(conn_start_[static_cast<std::size_t>(conn) + 1]);
    const auto after = std::upper_bound(first, last, i);
    return after == last || *after >= j;
  }

 private:
  // Transfers sorted by (connection, program order): each connection's ops form one run.
  void index_connections(const std::vector<PlannedOp>& ops) {
    using Use = std::pair<std::array<int, 3>, std::size_t>;  // ((src rank, dst rank, channel), op)
    std::vector<Use> uses;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (is_transfer(ops[i].kind)) uses.push_back({{ops[i].src.rank, ops[i].dst.rank, ops[i].channel}, i});
    std::sort(uses.begin(), uses.end());
    connection_of_.assign(ops.size(), -1);
    conn_ops_.reserve(uses.size());
    for (std::size_t u = 0; u < uses.size(); ++u) {
      if (u == 0 || uses[u].first != uses[u - 1].first) conn_start_.push_back(u);
      connection_of_[uses[u].second] = static_cast<int>(conn_start_.size()) - 1;
      conn_ops_.push_back(uses[u].second);
    }
    conn_start_.push_back(uses.size());
  }

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
  std::vector<int> connection_of_;       // op -> connection id, -1 for local ops
  std::vector<std::size_t> conn_start_;  // connection id -> first entry in conn_ops_ (one extra at the end)
  std::vector<std::size_t> conn_ops_;    // transfer op indices, ascending within each connection
};

// A receive whose chunk is next used as the source of a transfer of exactly that chunk on the same
// channel becomes rcs/rrcs/rrs (the transfer's sending half moves into it), provided the rank's tb for (send peer, recv peer, channel) can hold both.
void plan_fusion(const OpIndex& index, BuildPlan& plan) {
  auto& ops = plan.ops;
  // The fused tb of d.rank for (send to `to`, receive from `from`, channel c) is named by its two
  // connections: the outgoing one (d.rank -> to, c) is op j's, the incoming one (from -> d.rank, c)
  // op i's. Each connection joins at most one fused pair: partner peer per connection, -1 while free.
  std::vector<int> send_partner(static_cast<std::size_t>(index.connections()), -1);  // outgoing conn -> from
  std::vector<int> recv_partner(static_cast<std::size_t>(index.connections()), -1);  // incoming conn -> to
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!is_transfer(ops[i].kind)) continue;
    const ChunkRef& d = ops[i].dst;
    const std::size_t j = index.next_touch(i, d);
    if (j == SIZE_MAX || !is_transfer(ops[j].kind) || !same_run(ops[j].src, d) || ops[j].channel != ops[i].channel) continue;
    const int from = ops[i].src.rank, to = ops[j].dst.rank;
    const auto outgoing = static_cast<std::size_t>(index.connection(j));
    const auto incoming = static_cast<std::size_t>(index.connection(i));
    if (!index.connection_idle_between(i, j, index.connection(j))) continue;
    const bool send_taken = send_partner[outgoing] >= 0 && send_partner[outgoing] != from;
    const bool recv_taken = recv_partner[incoming] >= 0 && recv_partner[incoming] != to;
    if (send_taken || recv_taken) continue;
    send_partner[outgoing] = from;
    recv_partner[incoming] = to;
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

template <typename T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Threadblocks per rank: one per fused (send, recv, channel) pair, sends and receives with the same
// peer and channel share one, the rest get their own, plus a local tb per channel with local work.
// Sorted vectors rather than sets: a tree insert per op was a large part of building at 128 ranks.
void plan_threadblocks(int ngpus, BuildPlan& plan) {
  using PeerChannel = std::pair<int, int>;
  const auto n = static_cast<std::size_t>(ngpus);
  std::vector<std::vector<TbKey>> pairs(n);
  std::vector<std::vector<PeerChannel>> sends(n), recvs(n);
  std::vector<std::vector<int>> local(n);  // channels with local work
  for (const PlannedOp& op : plan.ops) {
    if (!is_transfer(op.kind)) {
      local[static_cast<std::size_t>(op.src.rank)].push_back(op.channel);
      continue;
    }
    sends[static_cast<std::size_t>(op.src.rank)].push_back({op.dst.rank, op.channel});
    recvs[static_cast<std::size_t>(op.dst.rank)].push_back({op.src.rank, op.channel});
    if (op.fused_send >= 0)
      pairs[static_cast<std::size_t>(op.dst.rank)].push_back({plan.ops[static_cast<std::size_t>(op.fused_send)].dst.rank, op.src.rank, op.channel});
  }
  plan.ranks.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    sort_unique(pairs[r]);
    sort_unique(sends[r]);
    sort_unique(recvs[r]);
    sort_unique(local[r]);
    std::vector<PeerChannel> fused_sends, fused_recvs;
    for (const TbKey& k : pairs[r]) {
      fused_sends.push_back({k.send_peer, k.channel});
      fused_recvs.push_back({k.recv_peer, k.channel});
    }
    sort_unique(fused_sends);
    sort_unique(fused_recvs);
    std::vector<PeerChannel> open_sends, open_recvs;  // not part of a fused pair
    std::set_difference(sends[r].begin(), sends[r].end(), fused_sends.begin(), fused_sends.end(), std::back_inserter(open_sends));
    std::set_difference(recvs[r].begin(), recvs[r].end(), fused_recvs.begin(), fused_recvs.end(), std::back_inserter(open_recvs));
    std::vector<TbKey> tbs = pairs[r];
    for (const auto& [peer, chan] : open_sends) {
      const bool shared = std::binary_search(open_recvs.begin(), open_recvs.end(), PeerChannel{peer, chan});
      tbs.push_back({peer, shared ? peer : -1, chan});
    }
    for (const PeerChannel& pc : open_recvs)
      if (!std::binary_search(open_sends.begin(), open_sends.end(), pc)) tbs.push_back({-1, pc.first, pc.second});
    for (int chan : local[r]) tbs.push_back({-1, -1, chan});
    sort_unique(tbs);
    RankLayout& layout = plan.ranks[r];
    layout.tbs = std::move(tbs);
    for (std::size_t t = 0; t < layout.tbs.size(); ++t) {
      const TbKey& k = layout.tbs[t];
      if (k.recv_peer >= 0) layout.receivers.push_back({k.recv_peer, k.channel, static_cast<int>(t)});
    }
    std::sort(layout.receivers.begin(), layout.receivers.end());
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
  const std::array<int, 3> key{peer, channel, -1};
  const auto it = std::lower_bound(receivers.begin(), receivers.end(), key);
  return it != receivers.end() && (*it)[0] == peer && (*it)[1] == channel ? (*it)[2] : -1;
}

// Local tbs (no peers) sort first, by channel.
int RankLayout::tb_local(int channel) const {
  const TbKey key{-1, -1, channel};
  const auto it = std::lower_bound(tbs.begin(), tbs.end(), key);
  return it != tbs.end() && *it == key ? static_cast<int>(it - tbs.begin()) : -1;
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
