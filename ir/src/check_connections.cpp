// One NCCL connection per (src rank, dst rank, channel): exactly one sending and one receiving tb,
// and the k-th send pairs with the k-th receive with the same cnt (formats.md §1.4).
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "check_phases.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {
namespace {

using Connection = std::tuple<int, int, int>;  // (src rank, dst rank, channel)

std::string name(const Connection& c) {
  return "rank " + std::to_string(std::get<0>(c)) + " -> rank " + std::to_string(std::get<1>(c)) + " channel " + std::to_string(std::get<2>(c));
}

std::vector<StepRef> steps_where(const Algorithm& algo, int rank, int tb, bool sending) {
  std::vector<StepRef> out;
  const auto& steps = algo.gpus[static_cast<std::size_t>(rank)].tbs[static_cast<std::size_t>(tb)].steps;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const OpTraits tr = traits(steps[s].type);
    if (sending ? tr.sends : tr.receives) out.push_back({rank, tb, static_cast<int>(s)});
  }
  return out;
}

const Step& at(const Algorithm& algo, const StepRef& r) {
  return algo.gpus[static_cast<std::size_t>(r.rank)].tbs[static_cast<std::size_t>(r.tb)].steps[static_cast<std::size_t>(r.step)];
}

bool one_tb_per_direction(const Connection& c, const std::vector<int>& tbs, int rank, const char* direction, IssueSink& sink) {
  if (tbs.size() <= 1) return true;
  sink.add("structure.connection", rank, tbs[1], -1,
           std::string("tbs ") + std::to_string(tbs[0]) + " and " + std::to_string(tbs[1]) + " both " + direction + " on " + name(c) +
               " (one tb per peer, channel and direction)");
  return false;
}

bool check_pairing(const Algorithm& algo, const Connection& c, const std::vector<StepRef>& sends, const std::vector<StepRef>& recvs, IssueSink& sink) {
  bool ok = true;
  const std::size_t paired = std::min(sends.size(), recvs.size());
  for (std::size_t k = 0; k < paired; ++k) {
    const int sent = at(algo, sends[k]).count, received = at(algo, recvs[k]).count;
    if (sent == received) continue;
    sink.add("structure.cnt", recvs[k],
             "receives cnt=" + std::to_string(received) + " but the matching send " + std::to_string(k) + " on " + name(c) + " (" +
                 describe(sends[k]) + ") has cnt=" + std::to_string(sent));
    ok = false;
  }
  if (sends.size() > paired) {
    sink.add("deadlock.unmatched", sends[paired],
             "send " + std::to_string(paired) + " on " + name(c) + " has no matching receive (" + std::to_string(recvs.size()) +
                 " receives): it never completes");
    ok = false;
  } else if (recvs.size() > paired) {
    sink.add("deadlock.unmatched", recvs[paired],
             "receive " + std::to_string(paired) + " on " + name(c) + " has no matching send (" + std::to_string(sends.size()) +
                 " sends): it waits forever");
    ok = false;
  }
  return ok;
}

}  // namespace

bool check_connections(const Algorithm& algo, IssueSink& sink) {
  std::map<Connection, std::vector<int>> senders, receivers;
  for (const GpuProgram& gpu : algo.gpus)
    for (const ThreadBlock& tb : gpu.tbs) {
      if (tb.send_peer >= 0) senders[{gpu.rank, tb.send_peer, tb.channel}].push_back(tb.id);
      if (tb.recv_peer >= 0) receivers[{tb.recv_peer, gpu.rank, tb.channel}].push_back(tb.id);
    }
  std::map<Connection, bool> all;
  for (const auto& [c, tbs] : senders) all[c] = true;
  for (const auto& [c, tbs] : receivers) all[c] = true;
  bool ok = true;
  for (const auto& [c, unused] : all) {
    const auto& s_tbs = senders[c];
    const auto& r_tbs = receivers[c];
    // Both directions are checked (and reported) before deciding.
    const bool one_sender = one_tb_per_direction(c, s_tbs, std::get<0>(c), "send", sink);
    const bool one_receiver = one_tb_per_direction(c, r_tbs, std::get<1>(c), "receive", sink);
    const bool unique = one_sender && one_receiver;
    ok &= unique;
    if (!unique) continue;
    const auto sends = s_tbs.empty() ? std::vector<StepRef>{} : steps_where(algo, std::get<0>(c), s_tbs[0], true);
    const auto recvs = r_tbs.empty() ? std::vector<StepRef>{} : steps_where(algo, std::get<1>(c), r_tbs[0], false);
    ok &= check_pairing(algo, c, sends, recvs, sink);
  }
  return ok;
}

}  // namespace ccforge::ir
