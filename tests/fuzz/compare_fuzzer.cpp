// Fuzzes `ccforge compare`'s input readers: the input as a sim CSV, as a selection table, and as a tune
// folder (the same bytes as its selection.csv and its report.json). Any input reads or fails with one
// DiagError line; whatever reads holds only finite times > 0, a finite bus factor, and compares with
// itself as unchanged: every point in common, no change, no winner moved.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ccforge/validate/compare.hpp"
#include "fuzz_input.hpp"

namespace {

using ccforge::validate::TimedTable;

void check_table(const TimedTable& t) {
  for (const auto& p : t.points)
    if (!std::isfinite(p.time_us) || p.time_us <= 0 || p.size_bytes == 0) std::abort();
  if (t.bus_factor && !(std::isfinite(*t.bus_factor) && *t.bus_factor >= 0)) std::abort();
  try {
    const auto c = ccforge::validate::compare_tables(t, t);
    if (c.points.size() != t.points.size() || !c.moved.empty() || !c.only_before.empty() || !c.only_after.empty()) std::abort();
    for (const auto& p : c.points)
      if (p.change_pct() != 0) std::abort();
  } catch (const ccforge::DiagError& e) {
    if (!t.points.empty()) std::abort();  // only an empty table has nothing in common with itself
    ccforge::fuzz::check_one_line(e);
  }
}

template <typename Read>
void read_and_check(Read read) {
  TimedTable table;
  try {
    table = read();
  } catch (const ccforge::DiagError& e) {
    ccforge::fuzz::check_one_line(e);
    return;
  }
  check_table(table);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace validate = ccforge::validate;
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_and_check([&] { return validate::parse_sim_csv(text, "fuzz.csv"); });
  read_and_check([&] { return validate::parse_selection_csv(text, "selection.csv"); });
  const std::filesystem::path folder = ccforge::fuzz::work_dir() / "tuned";
  std::filesystem::create_directories(folder);
  for (const char* name : {"selection.csv", "report.json"})
    std::ofstream(folder / name, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  read_and_check([&] { return validate::read_timed_table(folder); });
  return 0;
}
