#include "p2p_layout.hpp"

#include <algorithm>
#include <numeric>

namespace ccforge::sim::nccl {
namespace {

// NCCL_MAX_DEV_WORK_P2P_PER_BATCH (src/include/device.h): rounds per batch epoch, works per batch.
constexpr int kRoundsPerEpoch = 8;
constexpr int kWarps = 20;  // NCCL_MAX_NTHREADS 640 / 32

int pow2_up(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

int log2_of(int pow2) {
  int b = 0;
  while ((1 << b) < pow2) ++b;
  return b;
}

// The low `bits` bits of `v` in reverse order (src/include/bitops.h reverseBits).
int reverse_bits(int v, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((v >> b) & 1) << (bits - 1 - b);
  return r;
}

// The order in which the schedule visits deltas 0..n-1: (x*x+x)/2 mod pow2Up(n), those >= n skipped
// (init.cc ncclP2pSchedule). Returns delta -> its place.
std::vector<int> quadratic_ordinals(int n) {
  std::vector<int> ordinal(static_cast<std::size_t>(n), 0);
  const int n2 = pow2_up(n);
  int delta = 0, next = 0;
  for (int step = 1; step <= n2; ++step) {
    if (delta < n) ordinal[static_cast<std::size_t>(delta)] = next++;
    delta = (delta + step) & (n2 - 1);
  }
  return ordinal;
}

}  // namespace

P2pWarps p2p_warps(int works) {
  const int per_work = kWarps / std::max(1, works);
  P2pWarps w;
  w.recv = per_work <= 4 ? per_work / 2 : (per_work - 1) / 2;
  w.send = per_work <= 4 ? w.recv : w.recv + 1;
  return w;
}

P2pLayout::P2pLayout(const topo::Topology& topo, NcclVersion version, int p2p_channels, int parts)
    : nranks_(topo.num_gpus()),
      channels_(p2p_channels),
      parts_(std::min(parts, p2p_channels)),
      reversed_(version >= NcclVersion{2, 28}),
      batched_(version >= NcclVersion{2, 22}),
      multi_node_(topo.num_nodes() > 1) {
  const int per_node = topo.gpus_per_node();
  // Schedule groups: from v2.28.7-1 NCCL_P2P_SCHEDULE_GROUP_SIZE (8) ranks, or gcd(8, ranks per node)
  // where a node has fewer or not a multiple; before, a whole node (v2.26.2-1 init.cc).
  group_size_ = reversed_ ? (per_node % kRoundsPerEpoch == 0 ? kRoundsPerEpoch : std::gcd(kRoundsPerEpoch, per_node))
                          : per_node;
  group_ordinal_ = quadratic_ordinals(nranks_ / group_size_);
  // Within a group the deltas run in order from v2.28.7-1, in the quadratic order before.
  local_ordinal_.resize(static_cast<std::size_t>(group_size_));
  std::iota(local_ordinal_.begin(), local_ordinal_.end(), 0);
  if (!reversed_) local_ordinal_ = quadratic_ordinals(group_size_);
  const int epochs = (nranks_ + kRoundsPerEpoch - 1) / kRoundsPerEpoch;
  works_.assign(static_cast<std::size_t>(channels_ * epochs), 0);
  for (int r = 0; r < nranks_; ++r) {
    const int epoch = r / kRoundsPerEpoch;
    for (int p = 0; p < parts_; ++p) ++works_[static_cast<std::size_t>(channel(r, p) * epochs + epoch)];
  }
}

int P2pLayout::round(int src, int dst) const {
  const int g = group_size_;
  const int groups = nranks_ / g;
  const int group_delta = ((dst / g - src / g) % groups + groups) % groups;
  const int local_delta = ((dst % g - src % g) % g + g) % g;
  return group_ordinal_[static_cast<std::size_t>(group_delta)] * g + local_ordinal_[static_cast<std::size_t>(local_delta)];
}

int P2pLayout::base(int round) const {
  // On one node a round's own base; across nodes a group delta's rounds share one, stepping once per
  // batch epoch of 8 rounds.
  const int g = group_size_;
  const int b = multi_node_ ? (round / g) * ((g + kRoundsPerEpoch - 1) / kRoundsPerEpoch) + (round % g) / kRoundsPerEpoch : round;
  return reversed_ ? reverse_bits(b, log2_of(channels_)) : b & 0xff;
}

int P2pLayout::channel(int round, int part) const {
  // device.h ncclP2pChannelForPart: from 2.28 the parts follow the base; before, part k sits k
  // bit-reversed channels past it.
  const int offset = reversed_ ? part : reverse_bits(part, log2_of(channels_));
  return (base(round) + offset) & (channels_ - 1);
}

std::vector<int> P2pLayout::recv_warps(int src, int dst) const {
  const int r = round(src, dst);
  const int epochs = static_cast<int>(works_.size()) / channels_;
  std::vector<int> warps;
  warps.reserve(static_cast<std::size_t>(parts_));
  for (int p = 0; p < parts_; ++p) {
    const int works = batched_ ? works_[static_cast<std::size_t>(channel(r, p) * epochs + r / kRoundsPerEpoch)] : 1;
    warps.push_back(p2p_warps(works).recv);
  }
  return warps;
}

}  // namespace ccforge::sim::nccl
