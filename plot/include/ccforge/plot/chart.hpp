// Charts of collective performance against message size, drawn by PLplot (Debian's libplplot-dev) as SVG
// or PNG: `tune` draws bus bandwidth per collective, `sim --plot` its rows, `validate` measured against
// predicted, `calibrate` the error per size before and after fitting.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ccforge::plot {

// None: markers only (points that are not a curve, e.g. errors of several algorithms at one size).
enum class LineStyle { Solid, Dashed, Dotted, None };

// One curve: points (x in bytes, y in the chart's unit) joined in order, and marked when `markers`.
struct Series {
  std::string label;
  std::vector<double> x, y;
  LineStyle style = LineStyle::Solid;
  bool markers = false;
};

// A size range shaded behind the curves (the bands where a tuned algorithm replaces NCCL).
struct Shade {
  double x_begin = 0, x_end = 0;
};

// The x axis is always message size in bytes on a log2 scale labelled 1K, 4M, ...; y is linear from zero
// (or from the data's minimum when it is negative), or log10 when `log_y`.
struct Chart {
  std::string title, y_label;
  std::string x_label = "message size";
  bool log_y = false;
  std::vector<Series> series;
  std::vector<Shade> shades;
  std::string shade_label;  // the legend entry for the shaded ranges
};

// Writes `chart` to `file` atomically (a temporary beside it, then renamed); the format follows the
// extension, .svg or .png. A chart without a point, a point that is not finite (or not positive on a log
// axis), or another extension is a DiagError naming the file.
void write_chart(const Chart& chart, const std::filesystem::path& file);

// The format check write_chart starts with, for callers to run before their work: a DiagError unless
// `file` ends in .svg or .png and this PLplot has that driver.
void check_chart_file(const std::filesystem::path& file);

}  // namespace ccforge::plot
