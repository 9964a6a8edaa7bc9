#include "ccforge/plot/chart.hpp"

#include <gtest/gtest.h>
#include <pugixml.hpp>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "ccforge/common/diag.hpp"

namespace ccforge::plot {
namespace {

namespace fs = std::filesystem;

// One folder per test process: ctest runs each test in its own process, in parallel, and gtest's
// random seed (milliseconds since start of epoch mod 99999) is shared by processes started together.
struct ChartTest : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("ccforge_plot_test_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

Chart two_series() {
  Chart c;
  c.title = "allreduce on ndv5 (8 GPUs)";
  c.y_label = "bus bandwidth (GB/s)";
  c.series.push_back({"NCCL", {1024, 1 << 20, 1 << 30}, {0.1, 50, 360}, LineStyle::Solid, true});
  c.series.push_back({"lower bound", {1024, 1 << 20, 1 << 30}, {1, 200, 450}, LineStyle::Dashed, false});
  c.shades.push_back({700, 1500});
  c.shade_label = "tuned algorithm";
  return c;
}

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(ChartTest, SvgIsXmlWithTheTitleAndLegend) {
  const fs::path file = dir / "chart.svg";
  write_chart(two_series(), file);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file(file.c_str()));
  EXPECT_STREQ(doc.document_element().name(), "svg");
  // PLplot's SVG driver writes each string as one <text> element (characters as entities in <tspan>s).
  std::set<std::string> strings;
  for (const pugi::xpath_node& node : doc.select_nodes("//text")) {
    std::string s;
    for (const pugi::xpath_node& piece : node.node().select_nodes(".//text()")) s += piece.node().value();
    strings.insert(s);
  }
  for (const char* s : {"allreduce on ndv5 (8 GPUs)", "NCCL", "lower bound", "tuned algorithm", "1K", "1M", "1G"})
    EXPECT_TRUE(strings.count(s)) << s;
  // The only files in the folder: the chart (no temporary left).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST_F(ChartTest, PngHasThePngSignature) {
  const fs::path file = dir / "chart.png";
  write_chart(two_series(), file);
  EXPECT_EQ(contents(file).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST_F(ChartTest, LogAxisAndNegativeValuesDraw) {
  Chart c = two_series();
  c.log_y = true;
  write_chart(c, dir / "log.svg");
  Chart errors;
  errors.y_label = "error (%)";
  errors.series.push_back({"before", {1024, 4096}, {-30, 12}, LineStyle::Solid, true});
  write_chart(errors, dir / "errors.svg");
  EXPECT_TRUE(fs::exists(dir / "log.svg"));
  EXPECT_TRUE(fs::exists(dir / "errors.svg"));
}

void expect_refused(const Chart& c, const fs::path& file, const std::string& problem) {
  try {
    write_chart(c, file);
    FAIL() << "accepted " << file;
  } catch (const DiagError& e) {
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(ChartTest, RefusesWhatItCannotDraw) {
  expect_refused(two_series(), dir / "chart.jpg", "unknown plot format '.jpg'");
  expect_refused(Chart{}, dir / "empty.svg", "nothing to plot");
  Chart nan = two_series();
  nan.series[0].y[1] = std::nan("");
  expect_refused(nan, dir / "nan.svg", "cannot show");
  Chart log = two_series();
  log.log_y = true;
  log.series[0].y[0] = 0;
  expect_refused(log, dir / "zero.svg", "cannot show");
  // PLplot would end the process on a file it cannot open; the chart refuses it first.
  expect_refused(two_series(), dir / "no_such_folder" / "chart.png", "cannot create");
  EXPECT_FALSE(fs::exists(dir / "no_such_folder"));
}

}  // namespace
}  // namespace ccforge::plot
