// Fuzzes the selection table readers (selection.csv, selection.md's tables): any input either reads or
// fails with one DiagError at a line, and whatever reads writes a table that reads back, and after one
// more round (the derived columns, speedup and bound percentage, are then computed from the printed
// times) writes the same text again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ccforge/common/diag.hpp"
#include "ccforge/output/selection_table.hpp"

namespace {

template <typename Read, typename Write>
void check(const std::string& text, Read read, Write write) {
  std::string once;
  try {
    once = write(read(text, "fuzz"));
  } catch (const ccforge::DiagError& e) {
    if (e.diag().loc.line < 1 || e.diag().problem.empty()) std::abort();
    return;
  }
  const std::string twice = write(read(once, "again"));
  if (write(read(twice, "third")) != twice) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace output = ccforge::output;
  const std::string text(reinterpret_cast<const char*>(data), size);
  check(text, output::read_selection_csv, output::selection_csv);
  check(text, output::read_selection_markdown, output::selection_markdown);
  return 0;
}
