// Fuzzes the tune checkpoint reader (--resume): any journal either loads or is refused with one line,
// and what loads holds only entries the tune could have written: floors lists as long as the size list
// (or empty), times within range, a time for every NCCL result.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "tune/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ccforge;
  const std::vector<ByteCount> sizes{1024, 2048};
  const auto path = fuzz::write_input(data, size, "checkpoint.jsonl");
  try {
    const search::CheckpointJournal journal(path, "fp", true, sizes);
    for (const auto& [key, floors] : journal.floors())
      if (!floors.empty() && floors.size() != sizes.size()) std::abort();
    for (const auto& [key, sample] : journal.finished()) {
      if (sample.time && sample.time->ps < 1) std::abort();
      if (!sample.time && key.find("/NCCL/") != std::string::npos) std::abort();
    }
  } catch (const DiagError& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
