#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace accelbench {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

const char* series_colour(std::size_t i) {
  static const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  return palette[i % 8];
}

namespace {

constexpr double kWidth = 640, kHeight = 360;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 70;

std::string fmt_tick(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.1e}", v);
  if (a >= 100 || (a >= 1 && std::fabs(v - std::round(v)) < 1e-9)) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

// "Nice" linear ticks from lo to hi.
std::vector<double> linear_ticks(double lo, double hi, int target = 5) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double a0 = 0, a1 = 1;  // pixel range
  double map(double v) const {
    double f;
    if (log) f = (std::log10(std::max(v, 1e-300)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    else f = (v - lo) / (hi - lo);
    return a0 + f * (a1 - a0);
  }
  std::vector<double> ticks() const {
    if (!log) return linear_ticks(lo, hi);
    std::vector<double> t;
    for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) t.push_back(d * m);
    return t;
  }
};

std::string svg_open(const std::string& id, const std::string& title, double height) {
  return fmt::format(
      "<svg class=\"chart-svg\" id=\"{0}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {1} {2}\" width=\"{1}\" "
      "height=\"{2}\" role=\"img\" aria-label=\"{3}\">\n<title>{3}</title>\n"
      "<text class=\"chart-title\" x=\"{4}\" y=\"22\" text-anchor=\"middle\">{3}</text>\n",
      xml_escape(id), kWidth, height, xml_escape(title), kWidth / 2);
}

std::string y_axis(const Axis& y, const std::string& label) {
  std::string out = fmt::format("<g class=\"axis y-axis\">\n<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                                kLeft, kTop, kHeight - kBottom);
  for (double t : y.ticks()) {
    const double py = y.map(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text class=\"tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, py, kWidth - kRight, kLeft - 6, py + 4, fmt_tick(t));
  }
  out += fmt::format("<text class=\"axis-label\" transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n</g>\n",
                     (kTop + kHeight - kBottom) / 2, xml_escape(label));
  return out;
}

// Legend entries laid out in rows from y0 down; returns the SVG and sets `bottom` to where it ends.
std::string legend(const std::vector<std::string>& names, const std::vector<std::string>& colours,
                   const std::vector<bool>& hatched, double y0, double& bottom) {
  std::string out = "<g class=\"legend\">\n";
  double x = kLeft, y = y0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double w = 28 + 6.5 * static_cast<double>(names[i].size());
    if (x > kLeft && x + w > kWidth - kRight) {
      x = kLeft;
      y += 16;
    }
    out += fmt::format("<rect class=\"legend-key\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#333\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       x, y - 10, hatched[i] ? "url(#hatch)" : colours[i], x + 16, y, xml_escape(names[i]));
    x += w;
  }
  bottom = y + 8;
  return out + "</g>\n";
}

// The value axis of a bar chart: from 0 (or, on a log scale, the decade below the smallest value) to
// above the highest value, whisker or baseline.
Axis bar_value_axis(const BarChartSpec& spec) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& it : spec.items) {
    for (double v : {it.value, it.high > 0 ? it.high : it.value, it.low > 0 ? it.low : it.value}) {
      if (v > 0) lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (spec.baseline) hi = std::max(hi, *spec.baseline);
  if (spec.axis_max && !spec.log_scale && *spec.axis_max > 0) hi = std::min(hi, *spec.axis_max / 1.12);
  Axis y;
  y.log = spec.log_scale && std::isfinite(lo) && lo > 0;
  y.a0 = kHeight - kBottom;
  y.a1 = kTop;
  if (y.log) {
    y.lo = std::pow(10.0, std::floor(std::log10(lo)));
    y.hi = std::pow(10.0, std::ceil(std::log10(hi > 0 ? hi : 1)));
  } else {
    y.lo = 0;
    y.hi = hi > 0 ? hi * 1.12 : 1;
  }
  return y;
}

// One bar at x (its value in its <title>), and its CI whisker where it has one (not on a reference bar).
std::string bar_with_whisker(const BarItem& item, double x, double bar_w, const Axis& y, double base_px,
                             const std::string& fill, const std::string& value_format) {
  const double top = y.map(std::max(item.value, y.log ? y.lo : 0.0));
  const std::string cls = item.reference ? "ref-bar" : "bar";
  std::string out = fmt::format(
      "<rect class=\"{}\" data-group=\"{}\" data-series=\"{}\" data-value=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
      "height=\"{:.1f}\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.5\"><title>{} {}: {}</title></rect>\n",
      cls, xml_escape(item.group), xml_escape(item.series), item.value, x + 1, std::min(top, base_px), bar_w - 2,
      std::fabs(base_px - top), fill, xml_escape(item.group), xml_escape(item.series),
      item.text.empty() ? fmt::format(fmt::runtime(value_format), item.value) : xml_escape(item.text));
  if (!item.reference && item.high > item.low && item.low > 0) {
    const bool clipped = !y.log && item.high > y.hi;
    const double cx = x + bar_w / 2, y0 = y.map(item.low), y1 = y.map(clipped ? y.hi : item.high);
    out += fmt::format(
        "<g class=\"whisker\"><line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\"/>"
        "<line x1=\"{3:.1f}\" y1=\"{1:.1f}\" x2=\"{4:.1f}\" y2=\"{1:.1f}\" stroke=\"#000\"/>",
        cx, y0, y1, cx - 5, cx + 5);
    if (clipped)
      out += fmt::format("<path class=\"clipped\" d=\"M{0:.1f} {2:.1f} L{1:.1f} {3:.1f} L{4:.1f} {2:.1f} Z\" fill=\"#c00\">"
                         "<title>{5} {6}: interval clipped at the axis, it reaches {7}</title></path></g>\n",
                         cx - 6, cx, y1 + 9, y1, cx + 6, xml_escape(item.group), xml_escape(item.series),
                         fmt::format(fmt::runtime(value_format), item.high));
    else
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#000\"/></g>\n",
                         cx - 5, y1, cx + 5);
  }
  return out;
}

// s with every `from` replaced by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

std::string render_bar_chart(const BarChartSpec& spec) {
  std::vector<std::string> groups, series;
  std::vector<bool> series_ref;
  for (const auto& it : spec.items) {
    if (std::find(groups.begin(), groups.end(), it.group) == groups.end()) groups.push_back(it.group);
    if (std::find(series.begin(), series.end(), it.series) == series.end()) {
      series.push_back(it.series);
      series_ref.push_back(it.reference);
    }
  }
  const Axis y = bar_value_axis(spec);
  std::vector<std::string> colours;
  for (std::size_t i = 0; i < series.size(); ++i) colours.push_back(series_colour(i));
  double bottom = 0;
  const std::string leg = legend(series, colours, series_ref, kHeight - kBottom + 40, bottom);
  const bool any_clipped = !y.log && std::any_of(spec.items.begin(), spec.items.end(), [&](const BarItem& it) {
    return !it.reference && it.high > it.low && it.low > 0 && it.high > y.hi;
  });
  const double note_y = bottom + 10;  // under the legend
  std::string out = svg_open(spec.id, spec.title, std::max(kHeight, any_clipped ? note_y + 8 : bottom));
  out += "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
         "<rect width=\"6\" height=\"6\" fill=\"#eee\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#777\" stroke-width=\"3\"/>"
         "</pattern></defs>\n";
  // ids inside one page must be unique: give this chart's pattern its own id
  const std::string hatch_id = "hatch-" + spec.id;
  out = replace_all(out, "id=\"hatch\"", "id=\"" + hatch_id + "\"");
  out += y_axis(y, spec.y_label);
  const double plot_w = kWidth - kLeft - kRight;
  const double group_w = groups.empty() ? plot_w : plot_w / static_cast<double>(groups.size());
  const double bar_w = std::min(40.0, group_w * 0.8 / std::max<std::size_t>(1, series.size()));
  const double base_px = y.log ? y.map(y.lo) : y.map(0);
  out += "<g class=\"bars\">\n";
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const double gx = kLeft + group_w * static_cast<double>(gi);
    out += fmt::format("<text class=\"tick group-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       gx + group_w / 2, kHeight - kBottom + 18, xml_escape(groups[gi]));
    std::vector<const BarItem*> in_group;
    for (const auto& it : spec.items)
      if (it.group == groups[gi]) in_group.push_back(&it);
    const double start = gx + (group_w - bar_w * static_cast<double>(series.size())) / 2;
    for (const auto* it : in_group) {
      const auto si = static_cast<std::size_t>(std::find(series.begin(), series.end(), it->series) - series.begin());
      const double x = start + bar_w * static_cast<double>(si);
      const std::string fill = it->reference ? "url(#" + hatch_id + ")" : series_colour(si);
      out += bar_with_whisker(*it, x, bar_w, y, base_px, fill, spec.value_format);
    }
  }
  out += "</g>\n";
  if (any_clipped)
    out += fmt::format("<text class=\"clipped-note\" x=\"{}\" y=\"{:.1f}\">red arrowhead: an interval beyond the axis, "
                       "clipped (its end in its tooltip and the table)</text>\n", kLeft, note_y);
  if (spec.baseline) {
    const double py = y.map(*spec.baseline);
    out += fmt::format("<line class=\"baseline\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n",
                       kLeft, py, kWidth - kRight, py);
  }
  out += replace_all(leg, "url(#hatch)", "url(#" + hatch_id + ")");
  out += "</svg>\n";
  return out;
}

std::string render_line_chart(const LineChartSpec& spec) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, yhi = 0, ylo = std::numeric_limits<double>::infinity();
  for (const auto& s : spec.series)
    for (auto [x, yv] : s.points) {
      xlo = std::min(xlo, x); xhi = std::max(xhi, x);
      ylo = std::min(ylo, yv); yhi = std::max(yhi, yv);
    }
  if (!std::isfinite(xlo)) { xlo = 0; xhi = 1; ylo = 0; yhi = 1; }
  Axis x, y;
  x.log = spec.log_x && xlo > 0;
  x.a0 = kLeft; x.a1 = kWidth - kRight;
  if (x.log) {
    x.lo = xlo / 1.3; x.hi = xhi * 1.3;
  } else {
    const double pad = xhi > xlo ? (xhi - xlo) * 0.04 : 1;
    x.lo = xlo - pad; x.hi = xhi + pad;
  }
  y.a0 = kHeight - kBottom; y.a1 = kTop;
  y.lo = ylo >= 0 ? 0 : ylo * 1.1;
  y.hi = yhi > y.lo ? yhi * 1.1 : y.lo + 1;
  std::vector<std::string> names, colours;
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    names.push_back(spec.series[i].name);
    colours.push_back(series_colour(i));
  }
  double bottom = 0;
  const std::string leg = legend(names, colours, std::vector<bool>(names.size(), false), kHeight - kBottom + 56, bottom);
  std::string out = svg_open(spec.id, spec.title, std::max(kHeight, bottom));
  out += y_axis(y, spec.y_label);
  out += fmt::format("<g class=\"axis x-axis\">\n<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>\n", kLeft,
                     kHeight - kBottom, kWidth - kRight);
  std::vector<double> xt;
  if (x.log) {
    for (const auto& s : spec.series)
      for (auto [px, py] : s.points)
        if (std::find(xt.begin(), xt.end(), px) == xt.end()) xt.push_back(px);
  } else {
    xt = linear_ticks(x.lo, x.hi);
  }
  for (double t : xt)
    out += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x.map(t),
                       kHeight - kBottom + 16, fmt_tick(t));
  out += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n</g>\n", (kLeft + kWidth - kRight) / 2,
                     kHeight - kBottom + 34, xml_escape(spec.x_label));
  for (std::size_t i = 0; i < spec.series.size(); ++i) {
    const auto& s = spec.series[i];
    std::string pts;
    for (auto [px, py] : s.points) pts += fmt::format("{:.1f},{:.1f} ", x.map(px), y.map(py));
    out += fmt::format("<g class=\"series-group\" data-series=\"{}\">\n<polyline class=\"series\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       xml_escape(s.name), pts, series_colour(i));
    if (s.points.size() <= 60)
      for (auto [px, py] : s.points)
        out += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {} -> {}</title></circle>\n",
                           x.map(px), y.map(py), series_colour(i), xml_escape(s.name), fmt_tick(px), fmt_tick(py));
    out += "</g>\n";
  }
  out += leg;
  out += "</svg>\n";
  return out;
}

}  // namespace accelbench
