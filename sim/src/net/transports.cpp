// Every transport's constants, each with its unit and source (read at the tags and commits named; no
// code copied). Values fitted on a measurement say so beside them, naming the one log and rows used.
#include "ccforge/sim/transports.hpp"

namespace ccforge::sim::net {
namespace {

constexpr const char* kIbProps = "NVIDIA/nccl v2.26.2-1 src/transport/net_ib.cc ncclIbGetProperties: props->latency = 0 (\"Not set\")";
constexpr const char* kSocketProps =
    "NVIDIA/nccl v2.26.2-1 src/transport/net_socket.cc ncclNetSocketGetProperties: props->latency = 0 (\"Not set\")";
constexpr const char* kIbFraming = "1: IB's framing is what sim.link.net.efficiency (NCCL NET_BW 12 of 12.5 GB/s) holds";
constexpr const char* kNoStripe = "0: the transport drives each node NIC as one device; no per-rail binding";
constexpr const char* kIbQps = "NVIDIA/nccl v2.26.2-1 src/transport/net_ib.cc NCCL_PARAM(IbQpsPerConn, \"IB_QPS_PER_CONNECTION\", 1)";
// GCP GPUDirect-TCPXO (A3 Mega): the variables of its NCCL profile (/var/lib/tcpxo/lib64/nccl-env-profile.sh),
// as GCP's own launch scripts export them (GoogleCloudPlatform/cluster-toolkit examples/machine-learning/
// a3-megagpu-8g, and GKE's TCPXO nccl-test manifests: NCCL_ALGO=Ring,Tree NCCL_PROTO=Simple
// NCCL_MIN_NCHANNELS=4 NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=8388608 NCCL_P2P_NET_CHUNKSIZE=524288).
// GCP's TCPXO tuner plugin (libnccl-tuner.so with a3plus_tuner_config.textproto) is loaded by the same profile;
// its table is not published. What it picks for allreduce is read off the one TCPXO log: at 256 MB-8 GB the run
// moves 114-181 GB/s per rank, above what a ring can (every byte crosses a node's 8 x 200 Gb/s twice: about
// 100 GB/s at NET_BW's share), so it ran the tree; ccforge carries that choice as the tuner's.
// TCPXO's per-message cost, fitted on its own log (kTcpxo below); TCPX and the socket transport, with no
// public log, take it.
constexpr double kTcpxoMessageUs = 19.0;
constexpr const char* kTcpxoTuner =
    "GCP TCPXO tuner plugin (a3plus_tuner_config, unpublished): allreduce on Tree, read off "
    "tests/data/nccl-tests/h100_16gpu_2node_tcpxo_allreduce.log (256 MB-8 GB above a ring's NIC bound); the profile's "
    "NCCL_ALGO=Ring,Tree elsewhere";
constexpr const char* kDefaultBuffsize =
    "0: NCCL's default, NVIDIA/nccl v2.26.2-1 src/init.cc DEFAULT_BUFFSIZE (1 << 22) with NCCL_STEPS 8 (src/include/device.h)";
constexpr const char* kTcpxoProfileBuffsize =
    "NCCL_BUFFSIZE=8388608 in GCP's TCPXO NCCL profile (nccl-env-profile.sh, as cluster-toolkit's a3-megagpu-8g scripts "
    "export it): 1 MiB Simple steps";
constexpr const char* kDefaultP2pNetChunk =
    "0: NCCL's default, NVIDIA/nccl v2.26.2-1 src/init.cc NCCL_PARAM(P2pNetChunkSize, \"P2P_NET_CHUNKSIZE\", (1 << 17))";
constexpr const char* kTcpxoProfileP2pChunk =
    "NCCL_P2P_NET_CHUNKSIZE=524288 in GCP's TCPXO NCCL profile (nccl-env-profile.sh, as cluster-toolkit's a3-megagpu-8g "
    "scripts export it)";
constexpr const char* kTcpxoProfile = "GCP GPUDirect-TCPXO nccl-env-profile.sh (A3 Mega), as cluster-toolkit's a3-megagpu-8g scripts export it";

const TransportConstants kIb{
    topo::TransportKind::Ib,
    "NCCL's internal IB verbs transport (src/transport/net_ib.cc), GPUDirect RDMA",
    {0.0, "us", "0: IB's message is the topology's NIC hops (link.ib.latency, half of NCCL hwLatencies[NET][Ring][LL] 2.7 us each way)"},
    {0.0, "us", kIbProps},
    {1.0, "ratio", kIbFraming},
    {1.0, "QPs", kIbQps},
    {0.0, "bytes", kNoStripe},
    {0.0, "bytes", kDefaultBuffsize},
    {0.0, "bytes", kDefaultP2pNetChunk},
    {},
};

// RoCEv2 runs the same verbs path (net_ib.cc; GCP's gIB plugin on A3 Ultra packages it), framed in
// Ethernet/IP/UDP instead of IB's local route header.
const TransportConstants kRoce{
    topo::TransportKind::Roce,
    "NCCL's IB verbs transport over RoCEv2 (src/transport/net_ib.cc; GCP A3 Ultra loads it as the gIB plugin)",
    {0.0, "us", "0: the same verbs path as IB; the Ethernet fabric's hops are the cluster's switch_latency_us"},
    {0.0, "us", kIbProps},
    {(4096.0 + 26.0) / (4096.0 + 82.0), "ratio",
     "4096-byte MTU framing, RoCEv2 over IB: IB 26 B/packet (LRH 8, BTH 12, ICRC 4, VCRC 2; IBTA spec vol. 1) against "
     "RoCEv2 82 B (Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4, preamble and gap 20; IBTA RoCEv2 annex A17)"},
    {1.0, "QPs", kIbQps},
    {0.0, "bytes", kNoStripe},
    {0.0, "bytes", kDefaultBuffsize},
    {0.0, "bytes", kDefaultP2pNetChunk},
    {},
};

// AWS EFA through aws-ofi-nccl (libfabric's efa provider, SRD).
const TransportConstants kEfa{
    topo::TransportKind::Efa,
    "aws-ofi-nccl (libfabric efa provider, SRD) with its platform defaults for p5.48xlarge",
    {22.3, "us",
     "fitted (least median |error|): the 1-8 KB rows of tests/data/nccl-tests/h100_p5_16gpu_2node_efa_allreduce.log "
     "(2 x p5.48xlarge, tree LL); "
     "its 16 KB-16 GB rows and every other log are held out (tests/validate/log_fidelity_test.cpp)"},
    {75.0, "us", "aws/aws-ofi-nccl v1.7.0-aws+ src/platform-aws.c platform_data_map p5.48xlarge .latency = 75.0 (commit d87d61e0)"},
    {1.0, "ratio", "1: no published SRD framing; EFA's 100 Gb/s ports are counted at NCCL's NET_BW share as IB's"},
    {4.0, "rails", "aws-ofi-nccl RDMA protocol: a GPU's 4 EFA NICs behind its PCIe switch are rails of one NCCL device (p5.48xlarge: 32 NICs, 8 GPUs)"},
    {131072.0, "bytes",
     "aws/aws-ofi-nccl v1.13.0-aws+ include/nccl_ofi_param.h OFI_NCCL_MIN_STRIPE_SIZE (128 * 1024); "
     "src/nccl_ofi_scheduler.c get_num_stripes: ceil(size / it) rails, at most all, the largest that divides "
     "them; a message up to 128 KiB goes on one 100 Gb/s rail (round-robin)"},
    {0.0, "bytes", kDefaultBuffsize},
    {0.0, "bytes", kDefaultP2pNetChunk},
    // configure_nccl_proto (aws/aws-ofi-nccl v1.7.2-aws src/platform-aws.c) sets NCCL_PROTO=simple only where the
    // endpoint lacks 128-byte in-order aligned writes (FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES); p5's RDMA-write
    // endpoint is taken to offer them, so LL and LL128 stay (the log's 8 B-64 KB rows rise with size as LL's do).
    {},
};

const TransportConstants kTcpxo{
    topo::TransportKind::Tcpxo,
    "GPUDirect-TCPXO (FasTrak) net plugin, nccl-plugin-gpudirecttcpx-dev v1.0.3 image (NCCL 2.21.5)",
    {kTcpxoMessageUs, "us",
     "fitted (least median |error|): the 1-8 KB rows of tests/data/nccl-tests/h100_16gpu_2node_tcpxo_allreduce.log "
     "(2 x a3-megagpu-8g, tree Simple); its "
     "16 KB-8 GB rows and every other log are held out (tests/validate/log_fidelity_test.cpp)"},
    {0.0, "us", "not published for the FasTrak plugin; 0 as NCCL's own transports report"},
    {1.0, "ratio", "1: TCP/IP framing at GCP's 8244-byte MTU is within 1 % of IB's"},
    {2.0, "flows", "NCCL_FASTRAK_NUM_FLOWS=2 in the TCPXO profile"},
    {0.0, "bytes", kNoStripe},
    {8388608.0, "bytes", kTcpxoProfileBuffsize},
    {524288.0, "bytes", kTcpxoProfileP2pChunk},
    {{"NCCL_ALGO=Ring,Tree;AllReduce:Tree", kTcpxoTuner},
     {"NCCL_PROTO=Simple", kTcpxoProfile},
     {"NCCL_MIN_NCHANNELS=4", kTcpxoProfile},
     {"NCCL_NVLS_ENABLE=0", kTcpxoProfile}},
};

// GCP GPUDirect-TCPX (A3 High): the earlier socket-based plugin; no public log to fit its message cost.
const TransportConstants kTcpx{
    topo::TransportKind::Tcpx,
    "GPUDirect-TCPX net plugin (google/nccl-plugin-gpudirecttcpx)",
    {kTcpxoMessageUs, "us", "assumed as tcpxo's fitted value (the same host TCP control path; no public TCPX log to fit)"},
    {0.0, "us", "not published for the TCPX plugin; 0 as NCCL's own transports report"},
    {1.0, "ratio", "1: TCP/IP framing at GCP's 8244-byte MTU is within 1 % of IB's"},
    {4.0, "sockets", "NCCL_NSOCKS_PERTHREAD=4 x NCCL_SOCKET_NTHREADS=1 in GCP's A3 High TCPX profile"},
    {0.0, "bytes", kNoStripe},
    {0.0, "bytes", kDefaultBuffsize},
    {0.0, "bytes", kDefaultP2pNetChunk},
    {{"NCCL_PROTO=Simple", "GCP GPUDirect-TCPX profile (A3 High): NCCL_PROTO=Simple"}},
};

// NCCL's own socket transport: host memory only, so data is staged through host buffers.
const TransportConstants kSocket{
    topo::TransportKind::Socket,
    "NCCL's internal socket transport (src/transport/net_socket.cc), host-staged (NCCL_PTR_HOST only)",
    {kTcpxoMessageUs, "us", "assumed as tcpxo (kernel TCP per message; no public socket-transport log to fit)"},
    {0.0, "us", kSocketProps},
    {1.0, "ratio", "1: TCP/IP framing at a 9000-byte MTU is within 1 % of IB's"},
    {1.0, "sockets",
     "NVIDIA/nccl v2.26.2-1 src/transport/net_socket.cc ncclNetSocketGetNsockNthread: 1 thread x 1 socket unless the NIC "
     "is AWS's (2 x 8) or GCP's (4 x 1); NCCL_NSOCKS_PERTHREAD / NCCL_SOCKET_NTHREADS override"},
    {0.0, "bytes", kNoStripe},
    {0.0, "bytes", kDefaultBuffsize},
    {0.0, "bytes", kDefaultP2pNetChunk},
    {},
};

}  // namespace

const TransportConstants& transport_constants(topo::TransportKind kind) {
  switch (kind) {
    case topo::TransportKind::Roce: return kRoce;
    case topo::TransportKind::Efa: return kEfa;
    case topo::TransportKind::Tcpxo: return kTcpxo;
    case topo::TransportKind::Tcpx: return kTcpx;
    case topo::TransportKind::Socket: return kSocket;
    case topo::TransportKind::Ib: break;
  }
  return kIb;
}

}  // namespace ccforge::sim::net
