#pragma once
// Small inline-SVG charts for the HTML report: grouped bars with CI whiskers, and lines. Plain SVG
// elements with classes (bar, whisker, ref-bar, series, point, axis, tick), no script, no fonts to load.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace accelbench {

std::string xml_escape(const std::string& s);

struct BarItem {
  std::string group;    // x-axis category (workload)
  std::string series;   // bar within the group (device, or "article")
  double value = 0;
  double low = 0, high = 0;  // whisker; equal to value (or 0) for none
  bool reference = false;    // a published figure: drawn hatched, no whisker
  std::string text;          // the value as the tables write it ("17.19 s"); empty: BarChartSpec::value_format
};

struct BarChartSpec {
  std::string id, title, y_label;
  std::vector<BarItem> items;
  bool log_scale = false;
  std::optional<double> baseline;  // a horizontal rule (e.g. 1x)
  std::string value_format = "{:.2f}";
  // The value axis ends at this (linear scale): a whisker reaching beyond it is cut at the axis's
  // top and marked (class "clipped", an arrowhead, its real end in its <title>), and the chart says
  // so under the plot. None: the axis holds every value and whisker.
  std::optional<double> axis_max;
};
std::string render_bar_chart(const BarChartSpec& spec);

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

struct LineChartSpec {
  std::string id, title, x_label, y_label;
  std::vector<LineSeries> series;
  bool log_x = false;
};
std::string render_line_chart(const LineChartSpec& spec);

// Colour of the i-th series (colour-blind-safe palette).
const char* series_colour(std::size_t i);

}  // namespace accelbench
