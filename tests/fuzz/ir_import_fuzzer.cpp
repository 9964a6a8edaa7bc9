// Fuzzes the MSCCL XML importer: any input must either import or fail with one DiagError line, and
// whatever imports must check without crashing and re-export to a fixed point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ccforge/ir/ir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ccforge::ir::Algorithm algo;
  try {
    algo = ccforge::ir::parse_msccl_xml(text, "fuzz.xml");
  } catch (const ccforge::DiagError& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();  // errors are one line
    return 0;
  }
  (void)ccforge::ir::check(algo);
  (void)ccforge::ir::compute_stats(algo);
  const std::string once = ccforge::ir::to_msccl_xml(algo);
  if (ccforge::ir::to_msccl_xml(ccforge::ir::parse_msccl_xml(once, "fuzz-export.xml")) != once) std::abort();
  return 0;
}
