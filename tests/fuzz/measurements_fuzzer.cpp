// Fuzzes the measurement readers (nccl-tests logs and ccforge measured.csv, told apart by the header):
// any input must read or fail with one DiagError line.
#include <cstddef>
#include <cstdint>

#include "ccforge/validate/validate.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = ccforge::fuzz::write_input(data, size, "fuzz-measured.log");
  try {
    (void)ccforge::validate::read_measurements(path);
  } catch (const ccforge::DiagError& e) {
    ccforge::fuzz::check_one_line(e);
  }
  return 0;
}
