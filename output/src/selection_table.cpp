// selection.csv and selection.md's tables: typed rows out and back in.
#include "ccforge/output/selection_table.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <sstream>

#include <fmt/core.h>

#include "ccforge/common/csv.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/common/diag.hpp"

namespace ccforge::output {

std::optional<double> SelectionRow::speedup() const {
  if (!nccl_us || !best_us || *best_us <= 0) return std::nullopt;
  return *nccl_us / *best_us;
}

std::optional<double> SelectionRow::lower_bound_pct() const {
  if (!lower_bound_us || !best_us || *best_us <= 0) return std::nullopt;
  return 100.0 * *lower_bound_us / *best_us;
}

namespace {

// The columns up to lower_bound_pct are those of every earlier version, which readers rely on.
constexpr std::array<const char*, 8> kFirstColumns{"collective", "size_bytes", "nccl_us",   "best_us",
                                                   "speedup",    "algorithm",  "protocol",  "lower_bound_pct"};
constexpr std::array<const char*, 4> kLaterColumns{"lower_bound_us", "nccl_algorithm", "nccl_channels", "expected_error_pct"};
// Bounds a reader accepts: 2^53 bytes (exact in a double; beyond any GPU memory) and NCCL's channel limit
// of 64 (MAXCHANNELS, NVIDIA/nccl src/include/device.h) with room to spare.
constexpr double kMaxSize = 9007199254740992.0;
constexpr double kMaxChannels = 1024;
constexpr const char* kMarkdownHeader =
    "| size | NCCL us | best us | speedup | algorithm | protocol | % of bound | NCCL algorithm | expected error % |";

std::string number(const std::optional<double>& v, int decimals, const char* suffix = "") {
  return v ? fmt::format("{:.{}f}{}", *v, decimals, suffix) : "";
}

// "nvls/Simple": what runs, without the channel count.
std::string nccl_text(const std::optional<NcclBaseline>& c) {
  return c ? fmt::format("{}/{}", ir::to_string(c->algo), ir::to_string(c->proto)) : "";
}

struct Cells {
  const std::string& file;
  int line;
  [[noreturn]] void fail(const std::string& problem) const {
    throw DiagError(Diag{{file, line}, problem, "use the table ccforge tune or ccforge validate wrote"});
  }
  std::optional<double> number(const std::string& text, const char* column) const {
    if (text.empty()) return std::nullopt;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) fail(fmt::format("{} '{}' is not a number", column, text));
    return value;
  }
  // A whole number in [lo, hi].
  std::optional<std::uint64_t> whole(const std::string& text, const char* column, double lo, double hi) const {
    const auto v = number(text, column);
    if (v && !(*v >= lo && *v <= hi && *v == static_cast<double>(static_cast<std::uint64_t>(*v))))
      fail(fmt::format("{} '{}' is not a whole number from {:.0f} to {:.0f}", column, text, lo, hi));
    return v ? std::optional(static_cast<std::uint64_t>(*v)) : std::nullopt;
  }
  ir::Collective collective(const std::string& text) const {
    const auto c = ir::collective_from_string(text);
    if (!c) fail(fmt::format("unknown collective '{}'", text));
    return *c;
  }
  std::optional<ir::Protocol> protocol(const std::string& text) const {
    if (text.empty()) return std::nullopt;
    const auto p = ir::protocol_from_string(text);
    if (!p) fail(fmt::format("unknown protocol '{}'", text));
    return p;
  }
  // The columns both forms hold in this order from `at`: NCCL and best time, speedup (derived, not read),
  // winner, protocol; returns the next, the bound's percentage.
  std::optional<double> shown(SelectionRow& r, const std::vector<std::string>& f, std::size_t at) const {
    r.nccl_us = number(f[at], "nccl_us");
    r.best_us = number(f[at + 1], "best_us");
    r.algorithm = f[at + 3];
    if (first_unprintable(r.algorithm))  // it is printed (compare) and written again (a re-tune)
      fail(fmt::format("algorithm '{}' holds a control character or malformed UTF-8", printable(r.algorithm)));
    r.protocol = protocol(f[at + 4]);
    return number(f[at + 5], "lower_bound_pct");
  }
  // "nvls/Simple" (either name in any case; ':' also separates them, as in `--algo nccl:nvls:simple`).
  std::optional<NcclBaseline> nccl(std::string text, const std::optional<std::uint64_t>& channels) const {
    if (text.empty()) return std::nullopt;
    std::replace(text.begin(), text.end(), '/', ':');
    const std::size_t colon = text.find(':');
    const auto algo = ir::nccl_algo_from_string(std::string_view(text).substr(0, colon));
    const auto proto = colon == std::string::npos ? std::nullopt : ir::protocol_from_string(std::string_view(text).substr(colon + 1));
    if (!algo || !proto) fail(fmt::format("NCCL algorithm '{}' is not algorithm/protocol", text));
    return NcclBaseline{*algo, *proto, channels ? static_cast<int>(*channels) : 0};
  }
};

// The cells of a table row "| a | b |", split at each '|' that markdown_text did not escape.
std::vector<std::string> markdown_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell.append(line, i++, 2);
    } else if (line[i] == '|') {
      cells.push_back(cell.size() >= 2 ? cell.substr(1, cell.size() - 2) : "");
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

}  // namespace

std::string selection_csv(const std::vector<SelectionRow>& rows) {
  std::string csv;
  for (const char* column : kFirstColumns) csv += std::string(csv.empty() ? "" : ",") + column;
  for (const char* column : kLaterColumns) csv += std::string(",") + column;
  csv += "\n";
  for (const SelectionRow& r : rows)
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", ir::to_string(r.collective), r.size_bytes, number(r.nccl_us, 3),
                       number(r.best_us, 3), number(r.speedup(), 3), csv_field(r.algorithm),
                       r.protocol ? ir::to_string(*r.protocol) : "", number(r.lower_bound_pct(), 1),
                       number(r.lower_bound_us, 3), nccl_text(r.nccl), r.nccl && r.nccl->nchannels > 0 ? std::to_string(r.nccl->nchannels) : "",
                       number(r.expected_error_pct, 1));
  return csv;
}

std::vector<SelectionRow> read_selection_csv(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  if (header.size() < kFirstColumns.size() || !std::equal(kFirstColumns.begin(), kFirstColumns.end(), header.begin()))
    Cells{file, 1}.fail("not a selection.csv header (collective,size_bytes,nccl_us,best_us,speedup,...)");
  std::vector<SelectionRow> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    const Cells cells{file, number};
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() != header.size()) cells.fail(fmt::format("{} fields where the header has {}", f.size(), header.size()));
    const auto column = [&](const char* name) {
      const auto at = std::find(header.begin(), header.end(), name);
      return at == header.end() ? std::string{} : f[static_cast<std::size_t>(at - header.begin())];
    };
    SelectionRow r;
    r.collective = cells.collective(f[0]);
    const auto size = cells.whole(f[1], "size_bytes", 1, kMaxSize);
    if (!size) cells.fail("size_bytes is empty");
    r.size_bytes = *size;
    const auto pct = cells.shown(r, f, 2);
    const bool has_bound_us = std::find(header.begin(), header.end(), "lower_bound_us") != header.end();
    r.lower_bound_us = has_bound_us ? cells.number(column("lower_bound_us"), "lower_bound_us")
                                    : (pct && r.best_us ? std::optional(*pct * *r.best_us / 100.0) : std::nullopt);
    r.nccl = cells.nccl(column("nccl_algorithm"), cells.whole(column("nccl_channels"), "nccl_channels", 1, kMaxChannels));
    r.expected_error_pct = cells.number(column("expected_error_pct"), "expected_error_pct");
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string selection_markdown(const std::vector<SelectionRow>& rows) {
  std::string md;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SelectionRow& r = rows[i];
    if (i == 0 || rows[i - 1].collective != r.collective)
      md += fmt::format("\n## {}\n\n{}\n|---:|---:|---:|---:|---|---|---:|---|---:|\n", ir::to_string(r.collective), kMarkdownHeader);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", format_size(r.size_bytes), number(r.nccl_us, 2),
                      number(r.best_us, 2), number(r.speedup(), 2, "x"), markdown_text(r.algorithm), r.protocol ? ir::to_string(*r.protocol) : "",
                      number(r.lower_bound_pct(), 1), nccl_text(r.nccl), number(r.expected_error_pct, 1));
  }
  return md;
}

std::vector<SelectionRow> read_selection_markdown(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  std::optional<ir::Collective> section;
  bool in_table = false;
  std::vector<SelectionRow> rows;
  for (int number = 1; std::getline(in, line); ++number) {
    const Cells cells{file, number};
    if (line.starts_with("#")) {
      section = line.starts_with("## ") ? ir::collective_from_string(line.substr(3)) : std::nullopt;
      in_table = false;
    } else if (line == kMarkdownHeader) {
      in_table = section.has_value();
    } else if (!in_table || !line.starts_with("| ")) {
      in_table = in_table && line.starts_with("|---");
    } else {
      const std::vector<std::string> f = markdown_cells(line);
      if (f.size() != 9) cells.fail(fmt::format("{} cells where the table has 9", f.size()));
      SelectionRow r;
      r.collective = *section;
      const auto size = parse_size(f[0]);
      if (!size) cells.fail(fmt::format("size '{}' is not a size", f[0]));
      r.size_bytes = *size;
      const auto pct = cells.shown(r, f, 1);
      r.algorithm = markdown_unescaped(r.algorithm);
      if (pct && r.best_us) r.lower_bound_us = *pct * *r.best_us / 100.0;
      r.nccl = cells.nccl(f[7], std::nullopt);
      r.expected_error_pct = cells.number(f[8], "expected error %");
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace ccforge::output
