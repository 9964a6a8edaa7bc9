// NCCL baseline: parse the request, reproduce NCCL's choice with its tuning model, then run the
// chosen algorithm as data movement on the engine.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "ccforge/sim/nccl_numbering.hpp"
#include "ccforge/sim/sim.hpp"
#include "chunk_loop.hpp"
#include "costs.hpp"
#include "nccl_lowering.hpp"
#include "nccl_model.hpp"
#include "net/transport_costs.hpp"
#include "rccl_msccl.hpp"
#include "tuning_tables.hpp"

namespace ccforge::sim {
namespace {

constexpr NcclAlgo kAlgos[] = {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls,    NcclAlgo::NvlsTree,
                               NcclAlgo::Pat,  NcclAlgo::P2p,  NcclAlgo::AllPairs};
constexpr ir::Protocol kProtos[] = {ir::Protocol::LL, ir::Protocol::LL128, ir::Protocol::Simple};

bool p2p_collective(ir::Collective c) {
  return c == ir::Collective::AllToAll || c == ir::Collective::Gather || c == ir::Collective::Scatter;
}

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

int nccl_algo_index(NcclAlgo algo) {
  switch (algo) {
    case NcclAlgo::Tree: return CCF_NCCL_ALGO_TREE;
    case NcclAlgo::Ring: return CCF_NCCL_ALGO_RING;
    case NcclAlgo::Nvls: return CCF_NCCL_ALGO_NVLS;
    case NcclAlgo::NvlsTree: return CCF_NCCL_ALGO_NVLS_TREE;
    case NcclAlgo::Pat: return CCF_NCCL_ALGO_PAT;
    case NcclAlgo::P2p:
    case NcclAlgo::AllPairs: break;
  }
  return CCF_NCCL_ALGO_UNDEF;
}

int nccl_algo_row(NcclAlgo algo) {
  const int index = nccl_algo_index(algo);
  return index == CCF_NCCL_ALGO_UNDEF ? CCF_NCCL_ALGO_RING : index;
}

int nccl_proto_index(ir::Protocol proto) {
  switch (proto) {
    case ir::Protocol::LL: return CCF_NCCL_PROTO_LL;
    case ir::Protocol::LL128: return CCF_NCCL_PROTO_LL128;
    case ir::Protocol::Simple: return CCF_NCCL_PROTO_SIMPLE;
  }
  return CCF_NCCL_PROTO_SIMPLE;
}

std::string NcclChoice::name() const { return fmt::format("nccl:{}:{}", to_string(algo), ir::to_string(proto)); }

std::optional<NcclRequest> parse_nccl_request(std::string_view text) {
  const std::string s = lower_case(text);
  if (s == "nccl") return NcclRequest{};
  if (!s.starts_with("nccl:")) return std::nullopt;
  const std::string rest = s.substr(5);
  const auto colon = rest.find(':');
  const std::string algo_name = rest.substr(0, colon);
  NcclRequest req;
  req.algo = ir::nccl_algo_from_string(algo_name);
  if (!req.algo) return std::nullopt;
  if (colon != std::string::npos) {
    req.proto = ir::protocol_from_string(rest.substr(colon + 1));
    if (!req.proto) return std::nullopt;
  }
  return req;
}

NcclChoice nccl_choose(const topo::Topology& topo, ir::Collective coll, ByteCount bytes, const NcclRequest& request,
                       const SimParams& run_params) {
  SimParams params = run_params;  // with the variables the network plugin sets (net/transports.cpp)
  params.nccl = net::with_plugin_env(topo, run_params.nccl);
  const nccl::NcclView view = nccl::make_view(topo, params);
  if (p2p_collective(coll)) {
    // NCCL runs these as grouped send/recv, without a tuning model: each send's protocol follows its
    // size (p2p.cpp, NCCL_P2P_LL_THRESHOLD).
    const bool p2p_ok = (!request.algo || *request.algo == NcclAlgo::P2p) &&
                        (!request.proto || *request.proto != ir::Protocol::LL128);
    if (p2p_ok) {
      const double per_peer = static_cast<double>(bytes) / topo.num_gpus();
      const nccl::NcclCall call{coll, static_cast<double>(bytes), ir::Protocol::Simple, view.nchannels};
      const ir::Protocol proto =
          request.proto ? *request.proto : nccl::p2p_op(call, topo, params.constants.nccl_version, per_peer).proto;
      return NcclChoice{NcclAlgo::P2p, proto, view.nchannels, 0.0};
    }
  }
  // RCCL on an MI300X node runs its bundled MSCCL algorithm first, whatever NCCL_ALGO says (it is not
  // one of NCCL's algorithms); a request for another algorithm or protocol still gets that.
  const bool open_request = !request.algo || *request.algo == NcclAlgo::AllPairs;
  if (open_request) {
    const auto rccl = nccl::rccl_msccl_choice(topo, coll, static_cast<double>(bytes));
    if (rccl && (!request.proto || *request.proto == rccl->proto)) return *rccl;
  }
  NcclChoice best;
  best.model_us = std::numeric_limits<double>::infinity();
  for (NcclAlgo a : kAlgos) {
    if (a == NcclAlgo::P2p || a == NcclAlgo::AllPairs || (request.algo && *request.algo != a)) continue;
    if (params.nccl.algorithms && !params.nccl.algorithms->allows(coll, nccl_algo_row(a))) continue;
    for (ir::Protocol p : kProtos) {
      if (request.proto && *request.proto != p) continue;
      if (params.nccl.protocols && !params.nccl.protocols->allows(coll, nccl_proto_index(p))) continue;
      const auto t = nccl::model_time_us(view, coll, nccl_algo_row(a), nccl_proto_index(p), static_cast<double>(bytes));
      if (t && *t < best.model_us) best = NcclChoice{a, p, 0, *t};
    }
  }
  if (!std::isfinite(best.model_us)) {
    fail_at(topo.source_file(), 0,
         fmt::format("NCCL cannot run {} as {}{}{} here", ir::to_string(coll),
                     request.algo ? to_string(*request.algo) : "any algorithm", request.proto ? " with protocol " : "",
                     request.proto ? ir::to_string(*request.proto) : ""),
         "tree is allreduce only; allpairs is RCCL's MSCCL allreduce on one 8-GPU MI300X node up to 16 MiB; nvls needs Hopper+ NVSwitch and one node, nvlstree Hopper+ NVSwitch and 2+ "
         "nodes (allreduce); pat needs --nccl-version 2.23+ and one GPU per node (allgather/reducescatter); "
         "nvls, nvlstree and pat are Simple only; RCCL builds no LL128 on MI300X (gfx942); p2p serves alltoall/gather/scatter with Simple or LL; NCCL_ALGO, "
         "NCCL_PROTO, NCCL_NVLS_ENABLE and NCCL_PAT_ENABLE given with --env narrow the choice; use --algo nccl");
  }
  best.nchannels =
      nccl::channels_for_call(view, nccl_algo_row(best.algo), nccl_proto_index(best.proto), static_cast<double>(bytes));
  return best;
}

SimResult simulate_nccl(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                        const NcclRequest& request, const SimParams& params, Trace* trace) {
  return simulate_nccl_point(topo, coll, call, nccl_choose(topo, coll, call.bytes, request, params), params, trace);
}

SimResult simulate_nccl_point(const topo::Topology& topo, ir::Collective coll, const CallSpec& call,
                              const NcclChoice& choice, const SimParams& params, Trace* trace) {
  const nccl::NcclCall ncall{coll, static_cast<double>(call.bytes), choice.proto, choice.nchannels, call.root};
  SimTime base = protocol_costs(params.constants, choice.proto, topo.gpu(0).model->arch).base;
  if (choice.algo == NcclAlgo::Nvls || choice.algo == NcclAlgo::NvlsTree) {
    base = SimTime::from_us(params.constants.nvls_base_us);
  } else if (choice.algo == NcclAlgo::AllPairs) {
    base = msccl_runtime_costs(params.constants, ir::Runtime::Rccl).base;
  }
  // Lowers the call with its chunk loop cut to `chunks` (ring and tree; the others ignore it) and runs it.
  const auto lower_and_run = [&](std::uint64_t chunks) {
    Lowering low(topo, params.constants, trace);
    nccl::NcclCall cut = ncall;
    cut.chunks = chunks;
    switch (choice.algo) {
      case NcclAlgo::Ring:
        nccl::lower_ring(low, cut);
        break;
      case NcclAlgo::Tree:
        nccl::lower_tree(low, cut);
        break;
      case NcclAlgo::Nvls:
        nccl::lower_nvls(low, cut);
        break;
      case NcclAlgo::NvlsTree:
        nccl::lower_nvls_tree(low, cut);
        break;
      case NcclAlgo::Pat:
        nccl::lower_pat(low, cut);
        break;
      case NcclAlgo::P2p:
        nccl::lower_p2p(low, cut);
        break;
      case NcclAlgo::AllPairs:
        nccl::lower_all_pairs(low, cut);
        break;
    }
    return low.run();
  };
  // The chunk loop repeats: where the run provably becomes periodic, the rest is added in closed form
  // (engine.hpp run_extrapolated, exact). A trace shows every chunk.
  std::uint64_t chunks = 0;
  if (choice.algo == NcclAlgo::Tree) chunks = nccl::tree_chunks(ncall, topo, params.constants);
  if (choice.algo == NcclAlgo::Ring) chunks = nccl::ring_chunks(ncall, topo);
  const EngineStats stats = chunks > 0 ? run_extrapolated(chunks, trace == nullptr, lower_and_run)
                                       : lower_and_run(nccl::kAllChunks);
  if (stats.unfinished > 0) {
    fail_at(topo.source_file(), 0, fmt::format("{} stalled: {} transfers never finished", choice.name(), stats.unfinished),
         "a route crosses a link of zero bandwidth; check the topology or profile");
  }
  return SimResult{benchmark_iteration_time(stats.makespan + base, params), choice.name(), stats.events, stats.transfers};
}

}  // namespace ccforge::sim
