// The Markdown report: the article's table (model | CPU | accelerator | speed-up) of this run, one
// line per case, then the article's published figures in their own section.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/durations.h"
#include "report/article_reference.h"
#include "report/reports.h"

namespace accelbench {

namespace {
std::string md_cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out.empty() ? "-" : out;
}

std::string md_table(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns = 1) {
  if (rows.empty()) return "";
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "|";
    for (const auto& c : rows[r]) {
      out += ' ';  // appended piece by piece: "x" + std::string trips a GCC 12 -Wrestrict false positive
      out += md_cell(c);
      out += " |";
    }
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t i = 0; i < rows[0].size(); ++i) out += i < left_columns ? "---|" : "---:|";
      out += "\n";
    }
  }
  return out;
}

std::string speedup_text(const Speedup& s, bool published) {
  if (published) return fmt::format("{:.2f}x", s.ratio);
  return speedup_ratio_text(s);
}

// Each accelerator case's speed-up over the CPU's fastest measured precision, where that is another
// precision: a table of its own, each row naming its baseline precision.
std::string md_over_fastest_cpu_table(const RunResult& run, bool published) {
  const auto t = over_fastest_cpu_rows(run, published);
  if (t.empty()) return "";
  return "### Speed-up over the CPU's fastest precision\n\n" + md_table(t, 3) + "\n" + kOverFastestCpuNote + "\n\n";
}

// The title, the published-figures note, the context table and the run's warnings.
std::string md_context_section(const ReportSource& src, bool published) {
  const auto& run = src.run;
  const auto& ctx = run.context;
  std::string out = fmt::format("# accelbench report: {}\n\n", src.name.empty() ? "run" : src.name);
  if (published)
    out += "> **Published figures, not measurements.** " + ctx.settings.value("note", std::string()) + " (" +
           ctx.settings.value("source", std::string()) + "; " + ctx.settings.value("method", std::string()) + ")\n\n";
  std::vector<std::vector<std::string>> meta{{"context", "value"}};
  meta.push_back({"command", run.command});
  if (!ctx.timestamp_utc.empty()) meta.push_back({"when (UTC)", ctx.timestamp_utc});
  meta.push_back({"machine", machine_description(ctx, false)});
  if (!ctx.os.empty()) meta.push_back({"system", fmt::format("{} {} {}", ctx.os, ctx.kernel, ctx.arch)});
  meta.push_back({"PyTorch", ctx.torch_version});
  if (const auto p = ctx.settings.find("python_measurer"); p != ctx.settings.end() && p->is_object())
    meta.push_back({"Python cases", fmt::format("{} (Python {}, torch {})", p->value("interpreter", ""), p->value("python", ""),
                                                p->value("torch", ""))});
  meta.push_back({"accelbench", fmt::format("{} ({})", ctx.accelbench_version, ctx.git_commit)});
  for (const auto& d : ctx.devices)
    if (d.type != "cpu") meta.push_back({"accelerator " + d.id, d.name});
  if (run.wall_s > 0) meta.push_back({"wall time", format_duration(run.wall_s)});
  out += md_table(meta, 2) + "\n";
  for (const auto& w : ctx.warnings) out += fmt::format("- warning: {}\n", w);
  if (!ctx.warnings.empty()) out += "\n";
  return out;
}

// Table 1: the article's view of this run (epoch time per device, the speed-ups; the article's own
// figures are in their section, never beside the user's), then the speed-ups over the CPU's fastest precision.
std::string md_summary_section(const RunResult& run, bool published) {
  const auto devices = report_devices(run);
  std::string out = "## Training time and speed-up\n\n";
  std::vector<std::vector<std::string>> t1;
  const auto rows = report_rows(run);
  const auto loop = report_rows_loop(rows);
  std::vector<std::string> header{loop.empty() ? std::string("model") : "model, " + loop};
  for (const auto& d : devices) header.push_back(fmt::format("{} {}", d == "cpu" ? "CPU" : d, published ? "time" : "s/epoch"));
  for (const auto& d : devices)
    if (d != "cpu") header.push_back(fmt::format("speed-up {}{}", d, published ? "" : " [" + speedup_interval_name(run.speedups) + "]"));
  t1.push_back(header);
  for (const auto& r : rows) {
    std::vector<std::string> row{r.label};
    for (const auto& d : devices) {
      const auto* c = find_row_case(run, r, d);
      if (!c) row.push_back("-");
      else if (!c->ok()) row.push_back("failed");
      else if (published) row.push_back(fmt::format("{:g} {}", c->epoch_s_estimate, c->epoch_unit));
      else row.push_back(fmt::format("{:.1f}{}", c->epoch_s_estimate, c->noisy ? "~" : ""));
    }
    for (const auto& d : devices) {
      if (d == "cpu") continue;
      const auto* s = find_row_speedup(run.speedups, r.model, r.dtype, d, r.batch);
      row.push_back(s ? speedup_text(*s, published) : "-");
    }
    t1.push_back(row);
  }
  out += md_table(t1);
  if (!published)
    out += fmt::format("\ns/epoch = median step time x steps per epoch (an estimate).{} The article's published "
                       "figures are in their own section below.\n",
                       run.speedups.empty() ? "" : " Speed-up = CPU median / device median, with its 95% interval in brackets.");
  out += "\n";
  return out + md_over_fastest_cpu_table(run, published);
}

// Table 2: one line per case.
std::string md_cases_section(const RunResult& run) {
  std::vector<std::vector<std::string>> t2{{"model", "device", "dtype", "batch", "threads", "median step",
                                            case_interval_name(run), "n", "samples/s", "peak memory", "notes"}};
  for (const auto& c : run.cases) {
    if (!c.ok()) {
      t2.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size),
                    std::to_string(c.spec.threads), "-", "-", "-", "-", "-", "FAILED: " + c.error});
      continue;
    }
    std::vector<std::string> notes;
    if (c.noisy) notes.push_back("noisy");
    if (!c.warmup_stable) notes.push_back(c.stats.n <= 1 ? "ONE SAMPLE after an unsteady warm-up" : "warm-up not stable");
    if (c.stats.outliers) notes.push_back(fmt::format("{} outliers", c.stats.outliers));
    if (c.synthetic_data) notes.push_back("synthetic data");
    if (!c.numerics.empty()) notes.push_back(c.numerics);
    t2.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size),
                  std::to_string(c.spec.threads), format_seconds_short(c.stats.median),
                  case_interval_text(c), std::to_string(c.stats.n),
                  format_count(c.samples_per_s), peak_memory_text(c), fmt::format("{}", fmt::join(notes, "; "))});
  }
  add_implementation_column(t2, run);
  return "## Cases\n\n" + md_table(t2, has_implementation_column(run) ? 4 : 3) + "\n";
}

// Table 3: the article's published figures, in their own section: no figure of this run beside them.
std::string md_article_section() {
  std::vector<std::vector<std::string>> t3{{"case", "CPU", "MPS", "speed-up (article)"}};
  for (const auto& f : article_figures())
    t3.push_back({fmt::format("{} (section {})", f.label, f.section), fmt::format("{:g} {}", f.cpu, f.unit),
                  fmt::format("{:g} {}", f.mps, f.unit), fmt::format("{:.2f}x", f.speedup)});
  return "## The article's figures (MacBook Pro M2, PyTorch 2.5.1; published, not measured)\n\n" + md_table(t3);
}
}  // namespace

std::string render_markdown_report(const ReportSource& src) {
  const bool published = is_published_run(src.run);
  std::string out = md_context_section(src, published);
  out += md_summary_section(src.run, published);
  if (!published) out += md_cases_section(src.run);
  out += md_article_section();
  return out;
}

}  // namespace accelbench
