#include "ccforge/plot/chart.hpp"

#include <plplot/plstream.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <system_error>

#include <unistd.h>

#include <fmt/core.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"

namespace ccforge::plot {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& file, const std::string& problem, const std::string& fix) {
  throw DiagError(Diag{{file.string(), 0}, problem, fix});
}

// PLplot's device for the file's extension; asking plinit for a device it lacks would prompt on stdin,
// so the device must be one this PLplot has (plgDevs), checked before drawing.
std::string device_for(const fs::path& file) {
  const std::string ext = file.extension().string();
  const char* device = ext == ".svg" ? "svg" : ext == ".png" ? "pngcairo" : nullptr;
  if (!device) fail(file, "unknown plot format '" + ext + "'", "name the file .svg or .png");
  // plgDevs fills caller-owned arrays of at most `count` entries and sets `count` to the number filled.
  std::array<const char*, 128> menus{}, names{};
  const char** menu_list = menus.data();
  const char** name_list = names.data();
  int count = static_cast<int>(names.size());
  plgDevs(&menu_list, &name_list, &count);
  for (int i = 0; i < count; ++i)
    if (std::strcmp(names[i], device) == 0) return device;
  fail(file, std::string("this PLplot has no '") + device + "' driver",
       ext == ".png" ? "install plplot-driver-cairo (scripts/install-deps.sh), or write .svg" : "install libplplot-dev");
}

void check_points(const Chart& chart, const fs::path& file) {
  bool any = false;
  for (const Series& s : chart.series) {
    if (s.x.size() != s.y.size()) fail(file, "series '" + s.label + "' has unequal x and y counts", "report this as a bug");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      const bool ok = std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && s.x[i] > 0 && (!chart.log_y || s.y[i] > 0);
      if (!ok) fail(file, fmt::format("series '{}' has point ({}, {}) that the axes cannot show", s.label, s.x[i], s.y[i]),
                    "report this as a bug");
    }
    any = any || !s.x.empty();
  }
  if (!any) fail(file, "nothing to plot", "give sizes that produce at least one result");
}

// "#" starts an escape sequence in PLplot text.
std::string plplot_text(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '#' ? std::string("##") : std::string(1, c);
  return out;
}

// Axis labels in the units nccl-tests prints sizes with (x holds log2 of bytes).
void size_label(PLINT axis, PLFLT value, char* label, PLINT length, PLPointer log_y) {
  if (axis == PL_X_AXIS) {
    double bytes = std::exp2(value);
    static const char* units[] = {"", "K", "M", "G", "T"};
    int unit = 0;
    while (bytes >= 1024 && unit < 4) bytes /= 1024, ++unit;
    std::snprintf(label, static_cast<std::size_t>(length), "%g%s", bytes, units[unit]);
  } else {
    std::snprintf(label, static_cast<std::size_t>(length), "%g", *static_cast<bool*>(log_y) ? std::pow(10.0, value) : value);
  }
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
};

// Colour map 0: background, axes, then the series' colours (a colour-blind-safe palette, Okabe and Ito
// 2008) and the shade.
constexpr int kAxisColour = 1, kFirstSeriesColour = 2, kSeriesColours = 7, kShadeColour = 9;
void set_palette(plstream& pls) {
  static const int rgb[][3] = {{255, 255, 255}, {0, 0, 0},     {0, 114, 178},  {230, 159, 0}, {0, 158, 115},
                               {213, 94, 0},    {204, 121, 167}, {86, 180, 233}, {120, 120, 120}, {240, 228, 66}};
  pls.scmap0n(10);
  for (int i = 0; i < 10; ++i) pls.scol0(i, rgb[i][0], rgb[i][1], rgb[i][2]);
  pls.scol0a(kShadeColour, 240, 228, 66, 0.35);
}

// The points' marker, drawn as a string so that the legend shows the same glyph (Hershey 840: a circle).
constexpr const char* kMarker = "#(840)";

PLINT line_style(LineStyle s) { return s == LineStyle::Solid ? 1 : s == LineStyle::Dashed ? 3 : 2; }

void draw(const Chart& chart, const std::string& device, const fs::path& target) {
  plstream pls;
  pls.sdev(device.c_str());
  pls.sfnam(target.c_str());
  pls.spage(0, 0, 960, 540, 0, 0);
  set_palette(pls);
  pls.init();
  pls.adv(0);
  pls.vpor(0.1, 0.97, 0.12, 0.9);

  Range xr, yr;
  for (const Series& s : chart.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) xr.add(std::log2(s.x[i])), yr.add(chart.log_y ? std::log10(s.y[i]) : s.y[i]);
  if (xr.hi - xr.lo < 1) xr.lo -= 1, xr.hi += 1;
  if (chart.log_y) {
    yr.lo = std::floor(yr.lo), yr.hi = std::max(std::ceil(yr.hi), yr.lo + 1);
  } else {
    yr.lo = std::min(0.0, yr.lo);
    const double span = std::max(yr.hi - yr.lo, std::abs(yr.hi) * 0.1 + 1e-9);
    yr.hi += 0.08 * span;
    if (yr.lo < 0) yr.lo -= 0.08 * span;
  }
  pls.wind(xr.lo, xr.hi, yr.lo, yr.hi);

  for (const Shade& shade : chart.shades) {
    PLFLT x[4] = {std::log2(shade.x_begin), std::log2(shade.x_end), std::log2(shade.x_end), std::log2(shade.x_begin)};
    PLFLT y[4] = {yr.lo, yr.lo, yr.hi, yr.hi};
    for (PLFLT& v : x) v = std::clamp(v, xr.lo, xr.hi);
    pls.col0(kShadeColour);
    pls.fill(4, x, y);
  }

  bool log_y = chart.log_y;
  pls.slabelfunc(size_label, &log_y);
  pls.col0(kAxisColour);
  const double x_step = std::max(1.0, std::ceil((xr.hi - xr.lo) / 11));
  pls.box("bcnsto", x_step, static_cast<PLINT>(x_step), chart.log_y ? "bcnstvol" : "bcnstvo", 0, 0);
  pls.lab(plplot_text(chart.x_label).c_str(), plplot_text(chart.y_label).c_str(), plplot_text(chart.title).c_str());

  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const Series& s = chart.series[k];
    std::vector<PLFLT> x, y;
    for (std::size_t i = 0; i < s.x.size(); ++i) x.push_back(std::log2(s.x[i])), y.push_back(chart.log_y ? std::log10(s.y[i]) : s.y[i]);
    pls.col0(kFirstSeriesColour + static_cast<int>(k) % kSeriesColours);
    pls.lsty(line_style(s.style));
    pls.width(2);
    if (s.style != LineStyle::None) pls.line(static_cast<PLINT>(x.size()), x.data(), y.data());
    if (s.markers || s.style == LineStyle::None) pls.string(static_cast<PLINT>(x.size()), x.data(), y.data(), kMarker);
  }
  pls.lsty(1);
  pls.width(1);

  // The legend: one entry per series, then the shade's.
  const bool shaded = !chart.shades.empty() && !chart.shade_label.empty();
  const std::size_t n = chart.series.size() + (shaded ? 1 : 0);
  std::vector<std::string> texts;
  std::vector<PLINT> options, text_colours, line_colours, line_styles, box_colours, box_patterns, symbol_colours, symbol_numbers;
  std::vector<PLFLT> line_widths, box_scales, box_widths, symbol_scales;
  std::vector<const char*> symbols;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const Series& s = chart.series[k];
    texts.push_back(plplot_text(s.label));
    options.push_back((s.style != LineStyle::None ? PL_LEGEND_LINE : 0) | (s.markers || s.style == LineStyle::None ? PL_LEGEND_SYMBOL : 0));
    line_colours.push_back(kFirstSeriesColour + static_cast<int>(k) % kSeriesColours);
    line_styles.push_back(line_style(s.style));
  }
  if (shaded) {
    texts.push_back(plplot_text(chart.shade_label));
    options.push_back(PL_LEGEND_COLOR_BOX);
    line_colours.push_back(kShadeColour);
    line_styles.push_back(1);
  }
  std::vector<const char*> text_ptrs;
  for (const std::string& t : texts) text_ptrs.push_back(t.c_str());
  text_colours.assign(n, kAxisColour);
  line_widths.assign(n, 2.0);
  box_colours = line_colours;
  box_patterns.assign(n, 0);
  box_scales.assign(n, 0.8);
  box_widths.assign(n, 1.0);
  symbol_colours = line_colours;
  symbol_scales.assign(n, 1.0);
  symbol_numbers.assign(n, 1);
  symbols.assign(n, kMarker);
  PLFLT width = 0, height = 0;
  // Inside the top-left corner, where bandwidth against size is lowest.
  pls.legend(&width, &height, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE,
             0.02, 0.02, 0.08, 0, kAxisColour, 1, 0, 0, static_cast<PLINT>(n), options.data(), 1.0, 1.0, 1.6, 0.0,
             text_colours.data(), text_ptrs.data(), box_colours.data(), box_patterns.data(), box_scales.data(),
             box_widths.data(), line_colours.data(), line_styles.data(), line_widths.data(), symbol_colours.data(),
             symbol_scales.data(), symbol_numbers.data(), symbols.data());
}

}  // namespace

void check_chart_file(const fs::path& file) {
  device_for(file);
  check_replaceable(file);
}

void write_chart(const Chart& chart, const fs::path& file) {
  const std::string device = device_for(file);
  check_replaceable(file);
  check_points(chart, file);
  // PLplot's state is global per process; one chart at a time.
  static std::mutex plplot_mutex;
  const std::lock_guard<std::mutex> lock(plplot_mutex);
  const fs::path temporary = file.string() + fmt::format(".tmp.{}", ::getpid());
  // PLplot ends the process when it cannot open its output, so the file is created here first.
  if (std::FILE* probe = std::fopen(temporary.c_str(), "wb"))
    std::fclose(probe);
  else
    fail(file, fmt::format("cannot create the file: {}", std::strerror(errno)), "check that the folder exists and is writable");
  draw(chart, device, temporary);
  std::error_code error;
  if (!fs::exists(temporary, error) || fs::file_size(temporary, error) == 0) {
    fs::remove(temporary, error);
    fail(file, "PLplot wrote nothing", "check that the folder is writable");
  }
  fs::rename(temporary, file, error);
  if (error) {
    const std::string reason = error.message();
    fs::remove(temporary, error);
    fail(file, "cannot replace file: " + reason, "check that the folder is writable");
  }
}

}  // namespace ccforge::plot
