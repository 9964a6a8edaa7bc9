// Single-GPU executor suite (issue 32): the interpreter's LL, LL128 and Simple per threadblock pair
// (`validate --suite osu bw/latency`, ranks 0 and 1 on one GPU) next to what the same GPU does without
// it: a vectorised copy by one block, a producer/consumer pair with the interpreter's slot sizes, an LL
// line pair, cudaMemcpyAsync, and the per-step costs (flag hop, fences, barrier) in ns. The interpreter
// runs in three shapes (CCFORGE_CUDA_DATA_PATH / CCFORGE_CUDA_MAX_THREADS) so one run shows what the
// wide data path and the larger block each buy. Runs in well under 2 minutes on an H100/H200.
// Usage: executor_gpu_bench OUT_DIR   (writes OUT_DIR/executor_gpu_bench.csv and OUT_DIR/command.txt)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/core.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"
#include "ccforge/ir/executor_facts.hpp"
#include "ccforge/validate/validate.hpp"
#include "reference_kernels.hpp"

namespace {

using ccforge::ByteCount;
namespace gpu = ccforge::bench::gpu;

constexpr int kReps = 5;
constexpr ByteCount kPairBytes = ByteCount{1} << 27;  // 128 MiB through each reference pair

struct Csv {
  std::string text = "test,variant,protocol,threads,bytes,us,GBps,note\n";
  void row(const std::string& test, const std::string& variant, const std::string& protocol, int threads, ByteCount bytes, double us,
           double gbps, const std::string& note) {
    text += fmt::format("{},{},{},{},{},{:.3f},{:.2f},{}\n", test, variant, protocol, threads, bytes, us, gbps, note);
    std::printf("%-22s %-12s %-7s %4d thr %11llu B %11.3f us %8.2f GB/s  %s\n", test.c_str(), variant.c_str(), protocol.c_str(), threads,
                static_cast<unsigned long long>(bytes), us, gbps, note.c_str());
    std::fflush(stdout);
  }
};

double gbps(ByteCount bytes, double us) { return us > 0 ? static_cast<double>(bytes) / us / 1000.0 : 0.0; }

// The interpreter through `validate --suite osu`: bw at 2 and 8 MB (window 64), latency at 8 B.
void interpreter_rows(Csv& csv, const std::string& variant, const char* data_path, const char* max_threads) {
  setenv("CCFORGE_CUDA_DATA_PATH", data_path, 1);
  setenv("CCFORGE_CUDA_MAX_THREADS", max_threads, 1);
  auto backend = ccforge::executor::make_cuda_backend();
  ccforge::validate::OsuOptions bw;
  bw.test = ccforge::validate::OsuTest::Bandwidth;
  bw.sizes = {ByteCount{2} << 20, ByteCount{8} << 20};
  bw.iterations = kReps;
  bw.warmup = 1;
  for (const auto& r : ccforge::validate::run_osu(*backend, bw))
    csv.row("interpreter_osu_bw", variant, r.protocol, std::atoi(max_threads), r.size_bytes, r.latency_us, r.bandwidth_mbps / 1000.0,
            "payload per pair, window 64");
  ccforge::validate::OsuOptions lat;
  lat.test = ccforge::validate::OsuTest::Latency;
  lat.sizes = {8};
  lat.iterations = 200;
  lat.warmup = 20;
  for (const auto& r : ccforge::validate::run_osu(*backend, lat))
    csv.row("interpreter_osu_latency", variant, r.protocol, std::atoi(max_threads), r.size_bytes, r.latency_us, 0.0, "one way, launch included");
}

void reference_rows(Csv& csv) {
  for (ByteCount bytes : {ByteCount{4} << 20, ByteCount{256} << 20}) {
    const double us = gpu::time_memcpy(static_cast<std::int64_t>(bytes), kReps);
    csv.row("memcpy", "cudaMemcpyAsync", "-", 0, bytes, us, gbps(bytes, us), "device to device, bytes copied once");
  }
  for (int threads : {512, 640}) {
    const double us = gpu::time_copy(1, threads, static_cast<std::int64_t>(kPairBytes), kReps);
    csv.row("copy16_one_block", "reference", "-", threads, kPairBytes, us, gbps(kPairBytes, us), "16-byte loads, 4 in flight per thread");
  }
  // The interpreter's slots: Simple one 4-step tile (2 MiB) x 2 transfers in flight, LL128 one step x 8
  // (executor_facts.hpp); LL one step of 32 KiB payload x 8.
  const auto simple_slot = static_cast<std::int64_t>(ccforge::ir::tile_bytes(ccforge::ir::Protocol::Simple));
  const auto ll128_slot = static_cast<std::int64_t>(ccforge::ir::tile_bytes(ccforge::ir::Protocol::LL128));
  const auto ll_slot = static_cast<std::int64_t>(ccforge::ir::tile_bytes(ccforge::ir::Protocol::LL));
  const int simple_slots = ccforge::ir::kNcclSteps / ccforge::ir::steps_per_tile(ccforge::ir::Protocol::Simple);
  for (int threads : {512, 640}) {
    const ByteCount s = kPairBytes / static_cast<ByteCount>(simple_slot) * static_cast<ByteCount>(simple_slot);
    double us = gpu::time_pair_fifo(threads, simple_slot, simple_slots, static_cast<std::int64_t>(s), kReps);
    csv.row("pair_fifo", "reference", "Simple", threads, s, us, gbps(s, us), fmt::format("slot {} B x {}", simple_slot, simple_slots));
    const ByteCount l = kPairBytes / static_cast<ByteCount>(ll128_slot) * static_cast<ByteCount>(ll128_slot);
    us = gpu::time_pair_fifo(threads, ll128_slot, ccforge::ir::kNcclSteps, static_cast<std::int64_t>(l), kReps);
    csv.row("pair_fifo", "reference", "LL128", threads, l, us, gbps(l, us), fmt::format("slot {} B x {}", ll128_slot, ccforge::ir::kNcclSteps));
    const ByteCount p = kPairBytes / 2;
    us = gpu::time_pair_ll(threads, ll_slot, ccforge::ir::kNcclSteps, static_cast<std::int64_t>(p), kReps);
    csv.row("pair_ll_lines", "reference", "LL", threads, p, us, gbps(p, us), fmt::format("payload slot {} B x {}", ll_slot, ccforge::ir::kNcclSteps));
  }
  constexpr int kHops = 100000;
  const char* fences[] = {"flag hop", "flag hop + __threadfence", "flag hop + __threadfence_system"};
  for (int f = 0; f < 3; ++f) {
    const double ns = gpu::time_pingpong_ns(f, kHops);
    csv.row("step_cost_ns", "reference", "-", 1, 0, ns / 1000.0, 0.0, fmt::format("{}: {:.0f} ns one way", fences[f], ns));
  }
  for (int threads : {512, 640}) {
    const double ns = gpu::time_barrier_ns(threads, 100000);
    csv.row("step_cost_ns", "reference", "-", threads, 0, ns / 1000.0, 0.0, fmt::format("__syncthreads: {:.0f} ns", ns));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: executor_gpu_bench OUT_DIR\n");
    return 2;
  }
  try {
    if (auto reason = ccforge::executor::cuda_unavailable_reason()) {
      std::fprintf(stderr, "executor_gpu_bench: %s\n", reason->c_str());
      return 2;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    const std::filesystem::path out = argv[1];
    std::filesystem::create_directories(out);
    Csv csv;
    reference_rows(csv);
    interpreter_rows(csv, "wide-640", "wide", "640");
    interpreter_rows(csv, "wide-512", "wide", "512");
    interpreter_rows(csv, "narrow-512", "narrow", "512");
    ccforge::write_file_atomically(out / "executor_gpu_bench.csv", csv.text);
    ccforge::write_file_atomically(out / "command.txt", fmt::format("device: {} ({} SMs)\ncommand: {} {}\n", prop.name, prop.multiProcessorCount, argv[0], argv[1]));
    return 0;
  } catch (const ccforge::DiagError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
