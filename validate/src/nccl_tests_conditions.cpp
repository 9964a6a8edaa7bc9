// The conditions an nccl-tests (or rccl-tests) log records in its header: the launch mode, the NCCL
// version and the devices (nccl-tests src/common.cu prints "# nThread %d nGpus %d ...", "# nccl-tests
// version ... nccl-library=%d" and per rank "#  Rank %2d Group ... device %2d [%s] %s"; NCCL itself
// prints "NCCL version 2.26.2+cuda12.8" with NCCL_DEBUG=VERSION).
#include <fmt/core.h>

#include <sstream>
#include <string>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"
#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {
namespace {

// The integer after `key` in `line`, if any.
std::optional<int> number_after(const std::string& line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(line.substr(at + key.size()));
  int v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

// The bound of ccforge's own -t and -g: nccl-tests drives at most this many GPUs or threads per process.
constexpr int kMaxPerProcess = 1024;

// "# nThread 1 nGpus 0": a count nccl-tests cannot have run with is a forged or edited header.
int launch_count(int value, const char* name, const std::string& file, int line) {
  if (value < 1 || value > kMaxPerProcess)
    fail_at(file, line, fmt::format("{} {} is out of range", name, value),
            fmt::format("allowed: 1 to {}; use the unedited nccl-tests output, or give -t and -g", kMaxPerProcess));
  return value;
}

// NCCL_VERSION_CODE as nccl-tests prints it: major*10000 + minor*100 + patch since 2.9 (nccl.h).
std::string version_of_code(int code) { return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100); }

}  // namespace

LogConditions read_nccl_tests_conditions(const std::filesystem::path& log) {
  LogConditions c;
  c.file = log.string();
  std::istringstream text(read_file(log));
  int line_no = 0;
  for (std::string line; std::getline(text, line);) {
    ++line_no;
    if (const auto t = number_after(line, "# nThread")) c.threads = launch_count(*t, "nThread", c.file, line_no);
    if (const auto g = number_after(line, " nGpus")) c.gpus_per_thread = launch_count(*g, "nGpus", c.file, line_no);
    if (line.starts_with("NCCL version ")) {
      std::istringstream in(line.substr(13));
      std::string v;
      in >> v;
      c.nccl_version = v.substr(0, v.find('+'));
    } else if (const auto code = number_after(line, "nccl-library="); code && !c.nccl_version && *code >= 20900) {
      c.nccl_version = version_of_code(*code);
    }
    if (line.starts_with("#  Rank") && line.find(" device ") != std::string::npos) {
      const auto bracket = line.find("] ");
      c.devices.push_back(bracket == std::string::npos ? std::string() : line.substr(bracket + 2));
      if (c.devices_line == 0) c.devices_line = line_no;
    }
  }
  return c;
}

void check_log_matches_topology(const LogConditions& log, const topo::Topology& topology) {
  if (log.devices.empty()) return;  // the header's device list was not kept: nothing to compare
  const int gpus = topology.num_gpus();
  if (static_cast<int>(log.devices.size()) != gpus) {
    fail_at(log.file, log.devices_line,
            fmt::format("the log ran on {} GPUs (# Using devices) but the topology has {}", log.devices.size(), gpus),
            "calibrate against the topology of the machine the log was measured on");
  }
  const std::string model = topology.gpu(0).model->name;
  const std::string family = model.substr(0, model.find(' '));
  for (std::size_t r = 0; r < log.devices.size(); ++r) {
    if (log.devices[r].find(family) == std::string::npos) {
      fail_at(log.file, log.devices_line + static_cast<int>(r),
              fmt::format("rank {} ran on \"{}\", not the topology's {}", r, log.devices[r], model),
              "calibrate against the topology of the machine the log was measured on");
    }
  }
}

}  // namespace ccforge::validate
