#include "report/terminal_table.h"
#include "core/utilisation.h"

#include "core/parity.h"
#include "core/sweep_records.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "analysis/advisor.h"
#include "core/durations.h"
#include "report/reports.h"
#include "report/terminal.h"

namespace accelbench {

namespace {
using Rows = std::vector<std::vector<std::string>>;

// A cell as the lines it takes in a column `width` wide (broken at spaces, no indent).
std::vector<std::string> cell_lines(const std::string& cell, std::size_t width) {
  std::vector<std::string> lines;
  const auto wrapped = display_width(cell) <= width ? cell : wrap_lines(cell, width);
  std::size_t start = 0;
  while (true) {
    const auto nl = wrapped.find('\n', start);
    auto line = wrapped.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!lines.empty()) line.erase(0, line.find_first_not_of(' ') == std::string::npos ? line.size() : line.find_first_not_of(' '));
    lines.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

std::string pad(const std::string& s, std::size_t width, bool left) {
  const auto w = display_width(s);
  if (w >= width) return s;
  return left ? s + std::string(width - w, ' ') : std::string(width - w, ' ') + s;
}

// The rows' columns `cols`, each `width[i]` wide (a longer cell wraps), the first `left` of `cols`
// and every wrapped column left-aligned.
std::string render_block(const Rows& rows, const std::vector<std::size_t>& cols, const std::vector<std::size_t>& width,
                         const std::vector<bool>& left) {
  std::string out;
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    std::vector<std::vector<std::string>> cells;
    std::size_t height = 1;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string& text = cols[i] < rows[ri].size() ? rows[ri][cols[i]] : std::string();
      cells.push_back(cell_lines(text, width[i]));
      height = std::max(height, cells.back().size());
    }
    for (std::size_t h = 0; h < height; ++h) {
      std::string line;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i) line += "  ";
        line += pad(h < cells[i].size() ? cells[i][h] : std::string(), width[i], left[i] || cells[i].size() > 1);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    if (ri == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

}  // namespace

// Natural widths when they fit; else the first columns (up to half the width) repeated as keys in
// each of several tables over the other columns, a column wider than what is left wrapped.
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns, std::size_t max_width) {
  if (rows.empty()) return "";
  const std::size_t limit = max_width ? max_width : output_width(1);
  std::vector<std::size_t> natural;
  for (const auto& r : rows) {
    if (natural.size() < r.size()) natural.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) natural[i] = std::max(natural[i], display_width(r[i]));
  }
  const std::size_t n = natural.size();
  std::size_t total = 0;
  for (auto w : natural) total += w + 2;
  auto left_of = [&](std::size_t c) { return c < left_columns; };
  if (total - 2 <= limit || n == 1) {
    std::vector<std::size_t> cols(n);
    std::vector<bool> left(n);
    for (std::size_t i = 0; i < n; ++i) cols[i] = i, left[i] = left_of(i);
    auto widths = natural;
    if (n == 1) widths[0] = std::min(natural[0], limit);
    return render_block(rows, cols, widths, left);
  }
  // Keys: the first columns while they take at most half the width (at least the first, cut to it).
  std::size_t keys = 1, key_width = std::min(natural[0], limit / 2) + 2;
  while (keys < std::max<std::size_t>(1, left_columns) && keys < n - 1 && key_width + natural[keys] + 2 <= limit / 2)
    key_width += natural[keys++] + 2;
  std::string out;
  std::size_t c = keys;
  while (c < n) {
    std::vector<std::size_t> cols, widths;
    std::vector<bool> left;
    for (std::size_t k = 0; k < keys; ++k) cols.push_back(k), widths.push_back(k == 0 ? std::min(natural[0], limit / 2) : natural[k]), left.push_back(true);
    std::size_t used = key_width;
    while (c < n) {
      const std::size_t room = limit > used ? limit - used : 0;
      if (natural[c] <= room) {
        cols.push_back(c), widths.push_back(natural[c]), left.push_back(left_of(c));
        used += natural[c] + 2, ++c;
      } else if (cols.size() == keys || room >= 16) {  // wrap it into what is left
        cols.push_back(c), widths.push_back(std::max<std::size_t>(room, 8)), left.push_back(true);
        ++c;
        break;
      } else {
        break;
      }
    }
    if (!out.empty()) out += "\n";
    out += render_block(rows, cols, widths, left);
  }
  return out;
}

namespace {
std::string format_joules(double j) {
  const double a = std::abs(j);
  if (a >= 1e6) return fmt::format("{:.2f} MJ", j / 1e6);
  if (a >= 1e3) return fmt::format("{:.2f} kJ", j / 1e3);
  if (a >= 1) return fmt::format("{:.2f} J", j);
  if (a >= 1e-3) return fmt::format("{:.2f} mJ", j * 1e3);
  return fmt::format("{:.1f} uJ", j * 1e6);
}

// Energy, power and temperature of each case's measured window (only the columns some case has),
// the reasons for what is unavailable (once each), and the predicted training run (--epochs).
std::string render_telemetry_section(const RunResult& run, bool one_line_missing) {
  bool energy = false, temperature = false, clock = false, throttled = false;
  for (const auto& c : run.cases) {
    if (!c.telemetry) continue;
    energy |= c.telemetry->energy_j.available();
    temperature |= c.telemetry->max_temperature_c.available();
    clock |= c.telemetry->mean_clock_mhz.available();
    throttled |= c.telemetry->throttled;
  }
  auto show = [](const TelemetryFigure& f, auto format) { return f.value ? format(*f.value) : std::string("n/a"); };
  std::string out;
  if (energy || temperature) {
    std::vector<std::string> header{"model", "device"};
    if (energy) header.insert(header.end(), {"energy/step", "energy/epoch", "mean power", "peak power"});
    if (temperature) header.push_back("max temp");
    if (clock) header.push_back("clock");
    if (throttled) header.push_back("throttled");  // a column of "no" says nothing
    std::vector<std::vector<std::string>> t{header};
    for (const auto& c : run.cases) {
      if (!c.telemetry) continue;
      const auto& m = *c.telemetry;
      // A row with no figure (the CPU beside a GPU with its sources) says nothing: the line after the table names it.
      if (!m.energy_j.value && !m.max_temperature_c.value && !m.mean_clock_mhz.value && !m.throttled) continue;
      std::vector<std::string> row{model_label(c.spec), c.spec.device};
      if (energy) {
        row.push_back(show(m.energy_per_step_j, format_joules));
        row.push_back(show(m.energy_per_epoch_j, format_joules));
        row.push_back(show(m.mean_power_w, [](double w) { return fmt::format("{:.1f} W", w); }));
        row.push_back(show(m.peak_power_w, [](double w) { return fmt::format("{:.1f} W", w); }));
      }
      if (temperature) row.push_back(show(m.max_temperature_c, [](double v) { return fmt::format("{:.0f} C", v); }));
      if (clock) row.push_back(show(m.mean_clock_mhz, [](double v) { return fmt::format("{:.0f} MHz", v); }));
      if (throttled) row.push_back(m.throttled ? fmt::format("{}/{} readings", m.throttled_samples, m.samples) : "no");
      t.push_back(row);
    }
    out += "\nEnergy and temperature over the measured window (device's own sources; see the JSON for each figure's source):\n";
    out += render_table(t, 2);
  }
  std::set<std::string> missing;
  for (const auto& c : run.cases) {
    if (!c.telemetry) continue;
    const auto& m = *c.telemetry;
    const auto where = c.spec.device == "cpu" ? std::string("cpu") : c.spec.device;
    if (!m.energy_j.value) missing.insert(fmt::format("energy on {}: {}", where, m.energy_j.unavailable));
    if (!m.max_temperature_c.value) missing.insert(fmt::format("temperature on {}: {}", where, m.max_temperature_c.unavailable));
  }
  if (!missing.empty() && one_line_missing) {
    std::set<std::string> figures;  // "energy on cpu", without the reasons (doctor gives them)
    for (const auto& line : missing) figures.insert(line.substr(0, line.find(": ")));
    out += fmt::format("\nNot measured here: {} (`accelbench doctor` says why).\n", fmt::join(figures, ", "));
  } else if (!missing.empty()) {
    out += "\nTelemetry not available here:\n";
    for (const auto& line : missing) out += "  " + line + "\n";
  }
  if (run.context.settings.value("epochs_given", false)) {
    std::vector<std::vector<std::string>> t{{"model", "device", "epochs", "predicted time (this run 95%)", "predicted energy (this run 95%)"}};
    for (const auto& c : run.cases) {
      if (!c.telemetry || !c.telemetry->prediction) continue;
      const auto& p = *c.telemetry->prediction;
      t.push_back({model_label(c.spec), c.spec.device, std::to_string(p.epochs),
                   fmt::format("{} {}", format_duration(p.time_s), format_relative_interval(p.time_s, p.time_low_s, p.time_high_s)),
                   p.energy_j.value ? fmt::format("{} {}", format_joules(*p.energy_j.value),
                                                  format_relative_interval(*p.energy_j.value, p.energy_low_j.value_or(0),
                                                                           p.energy_high_j.value_or(0)))
                                    : std::string("n/a (energy unavailable)")});
    }
    if (t.size() > 1) {
      out += "\nPredicted training run (training steps only: mean step time and energy per step x steps):\n";
      out += render_table(t, 2);
    }
  }
  return out;
}
}  // namespace

// --graphs: each graphs case against the eager step of the same model on its device.
static std::string render_graphs_section(const RunResult& run) {
  const bool any = std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.spec.graphs; });
  if (!any) return "";
  std::string out =
      "[graphs] = the whole training step captured once as a CUDA graph and replayed (--graphs); its speed-up above is "
      "over the CPU's eager step.\nCUDA graphs against the eager step on the same device:\n";
  for (const auto& c : run.cases) {
    if (!c.spec.graphs) continue;
    const auto s = std::find_if(run.graph_speedups.begin(), run.graph_speedups.end(), [&](const Speedup& x) {
      return x.model == model_label(c.spec) && x.device == c.spec.device && x.dtype == c.spec.dtype && x.batch_size == c.spec.batch_size;
    });
    const auto eager = std::find_if(run.cases.begin(), run.cases.end(), [&](const CaseResult& e) {
      auto spec = c.spec;
      spec.graphs = false;
      return model_label(e.spec) == model_label(spec) && e.spec.device == c.spec.device && e.spec.dtype == c.spec.dtype &&
             e.spec.batch_size == c.spec.batch_size;
    });
    std::string line = fmt::format("  {} on {} ({}): ", c.spec.workload, c.spec.device, c.spec.dtype);
    if (!c.ok()) line += "graphs FAILED: " + c.error;
    else if (eager == run.cases.end() || !eager->ok()) line += fmt::format("graphs {} a step (no eager step to compare)", format_seconds_short(c.stats.median));
    else {
      line += fmt::format("eager {} -> graphs {} a step", format_seconds_short(eager->stats.median), format_seconds_short(c.stats.median));
      if (s != run.graph_speedups.end()) line += ": " + format_ratio_ci(s->ratio, s->ci_low, s->ci_high);
    }
    out += line + "\n";
  }
  return out;
}

// Each case's rounds: their medians, and whether they agree within the CI target.
static std::string render_rounds_section(const RunResult& run) {
  const bool any = std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.rounds.size() >= 2; });
  if (!any) return "";
  const bool next_run = std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.run_to_run && c.run_to_run->widened; });
  std::string out = next_run ? "\nRounds (each a fresh process; with the history they set the next run's range above):\n"
                             : "\nRounds (each a fresh process; the 95% interval above comes from them, not from the samples of one):\n";
  for (const auto& c : run.cases) {
    if (c.rounds.size() < 2) continue;
    std::vector<std::string> medians;
    for (const auto& r : c.rounds) medians.push_back(format_seconds_short(r.median_s));
    out += fmt::format("  {} on {} ({}): {}{}\n", model_label(c.spec), c.spec.device, c.spec.dtype, fmt::join(medians, ", "),
                       c.rounds_disagree ? fmt::format(": the rounds disagree beyond +-{:.1f}%", 100 * c.ci_target) : "");
  }
  return out;
}

// The first lines: the build, torch, the CPU and each accelerator.
static std::string render_terminal_header(const RunResult& run) {
  const auto& ctx = run.context;
  std::string out = fmt::format("accelbench {} ({}) | torch {} | {} | {} cores, {} threads\n", ctx.accelbench_version,
                                ctx.git_commit, ctx.torch_version, ctx.cpu_model.empty() ? "CPU" : ctx.cpu_model,
                                ctx.physical_cores, run.cases.empty() ? 0 : run.cases.front().spec.threads);
  for (const auto& d : ctx.devices)
    if (d.type != "cpu") out += fmt::format("accelerator {}: {}\n", d.id, d.name);
  if (const auto p = ctx.settings.find("python_measurer"); p != ctx.settings.end() && p->is_object())
    out += fmt::format("python cases: {} (Python {}, torch {})\n", p->value("interpreter", ""), p->value("python", ""),
                       p->value("torch", ""));
  return out + "\n";
}

// Devices in order of appearance, CPU first.
static std::vector<std::string> terminal_report_devices(const RunResult& run) {
  std::vector<std::string> devices;
  for (const auto& c : run.cases)
    if (std::find(devices.begin(), devices.end(), c.spec.device) == devices.end()) devices.push_back(c.spec.device);
  std::stable_partition(devices.begin(), devices.end(), [](const std::string& d) { return d == "cpu"; });
  return devices;
}

// Table 1: the article's view, one row per (model, dtype, batch) in order of appearance: s/epoch per
// device, the speed-ups over the CPU and over the CPU's fastest precision; then what the columns mean.
static std::string row_name_with(const ReportRow& m, const std::string& loop) {
  const auto model = m.loop.empty() ? m.model : m.label.substr(0, m.label.find(' '));  // without the precision, batch
  auto name = loop.empty() ? model : fmt::format("{} ({})", model, loop);
  if (m.dtype != "float32") name += " " + m.dtype;
  return m.several_batches ? fmt::format("{} b{}", name, m.batch) : name;
}

// The table's row: "mlp", "mlp (Python)" where the run's rows are of several loops.
static std::string row_name(const ReportRow& m) { return row_name_with(m, m.loop_in_label ? m.loop : ""); }

// The Summary's: the loop on every line, "mlp (Python loop)".
static std::string summary_name(const ReportRow& m) { return row_name_with(m, m.loop.empty() ? "" : m.loop + " loop"); }

static std::string render_summary_section(const RunResult& run, const std::vector<std::string>& devices, bool words) {
  std::vector<std::vector<std::string>> t1;
  const auto rows = report_rows(run);
  const auto loop = report_rows_loop(rows);
  std::vector<std::string> header{loop.empty() ? std::string("model") : "model, " + loop};
  for (const auto& d : devices) header.push_back(fmt::format("{} s/epoch", d == "cpu" ? "CPU" : d));
  // Speed-up columns only beside a CPU case to be faster than (no column of dashes).
  const bool cpu = std::find(devices.begin(), devices.end(), "cpu") != devices.end();
  for (const auto& d : devices)
    if (d != "cpu" && cpu) header.push_back(fmt::format("speed-up {} [{}]", d, speedup_interval_name(run.speedups)));
  const bool over_fastest = !run.speedups_over_fastest_cpu.empty();
  if (over_fastest)
    for (const auto& d : devices)
      if (d != "cpu") header.push_back(fmt::format("{} over the CPU's fastest", d));
  t1.push_back(header);
  for (const auto& m : rows) {
    std::vector<std::string> row{row_name(m)};
    for (const auto& d : devices) {
      const auto* c = find_row_case(run, m, d);
      if (!c) row.push_back("-");
      else if (!c->ok()) row.push_back("failed");
      else if (c->epoch_s_measured) row.push_back(fmt::format("{:.1f} (real)", *c->epoch_s_measured));
      else if (!(c->epoch_s_estimate > 0)) row.push_back("-");  // no epoch known (a model of the user's)
      else row.push_back(fmt::format("{:.1f}{}", c->epoch_s_estimate, c->noisy ? "~" : ""));
    }
    for (const auto& d : devices) {
      if (d == "cpu" || !cpu) continue;
      const auto* s = find_row_speedup(run.speedups, m.model, m.dtype, d, m.batch);
      row.push_back(s ? speedup_ratio_text(*s) : "-");
    }
    if (over_fastest)
      for (const auto& d : devices) {
        if (d == "cpu") continue;
        const auto* s = find_row_speedup(run.speedups_over_fastest_cpu, m.model, m.dtype, d, m.batch);
        row.push_back(s ? over_fastest_cpu_text(*s) : "-");
      }
    t1.push_back(row);
  }
  std::string out = render_table(t1);
  out += "s/epoch = median step time x steps per epoch, an estimate; (real) = one epoch timed end to end (--full-epoch).";
  if (over_fastest)
    out += " Speed-up: over the CPU in the same precision; over the CPU's fastest: over its fastest measured precision "
           "(named), where that is another.";
  if (std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.noisy; }))
    out += " ~ = noisy: CI target not met in the time allowed.";
  out += "\n";
  if (words)
    for (const auto& s : run.speedups) out += "  " + speedup_words(s) + "\n";
  if (devices.size() == 1 && devices.front() == "cpu") out += "No accelerator found: CPU only (see `accelbench doctor`).\n";
  return out;
}

// Whether a speed-up's parity check disagrees with the CPU: it failed, skipped steps, or a loss or
// gradient norm differs by more than kParityTolerance.
static bool parity_disagrees(const Parity& p) {
  return !p.error.empty() || p.skipped_steps > 0 || p.max_loss_rel_diff > kParityTolerance ||
         (p.grad_norm_rel_diff && std::fabs(*p.grad_norm_rel_diff) > kParityTolerance);
}

// The speed-ups' numerical parity with the CPU, where it was checked; `disagreeing_only`: only the
// checks that disagree (nothing where all agree; --verbose and the JSON give every check).
static std::string render_parity_section(const RunResult& run, bool disagreeing_only) {
  const auto shown = [&](const Speedup& s) { return s.parity && (!disagreeing_only || parity_disagrees(*s.parity)); };
  if (!std::any_of(run.speedups.begin(), run.speedups.end(), shown)) return "";
  std::string out = "Numerical parity with the CPU (same initial weights and batches, dropout off):\n";
  for (const auto& s : run.speedups)
    if (shown(s)) out += fmt::format("  {} on {} ({}): {}\n", s.label(), s.device, s.dtype, describe_parity(*s.parity));
  const auto checked = std::count_if(run.speedups.begin(), run.speedups.end(), [](const Speedup& s) { return s.parity.has_value(); });
  if (checked > std::count_if(run.speedups.begin(), run.speedups.end(), shown))
    out += fmt::format("  (the other checks agree within {:.0f}%)\n", 100 * kParityTolerance);
  return out;
}

// The notes column of a measured case, most telling first: a loss that rose, throttling, why it is
// noisy, rounds, drift, launch and input bounds, utilisation, warm-up, intervals, clocks, numerics,
// outliers. `max_items` (0: all) keeps the first ones, in short words, and counts the rest ("+2"),
// which --verbose and the JSON give.
static std::string terminal_case_notes(const CaseResult& c, std::size_t max_items) {
  std::vector<std::string> notes;
  // A figure from one sample after a warm-up that never settled: said first, in any table.
  const bool one_unsteady_sample = c.ok() && c.stats.n <= 1 && !c.warmup_stable;
  if (one_unsteady_sample) notes.push_back("ONE SAMPLE after an unsteady warm-up: not a steady step time");
  if (loss_rose(c)) notes.push_back("LOSS ROSE");
  if (c.telemetry && c.telemetry->throttled)
    notes.push_back(fmt::format("THROTTLED in {}/{} readings", c.telemetry->throttled_samples, c.telemetry->samples));
  const bool brief = max_items > 0;
  if (c.noisy && brief && !one_unsteady_sample)
    notes.push_back(c.relative_ci_half_width > c.ci_target
                        ? (c.relative_ci_half_width < 1 ? fmt::format("noisy {}", format_relative_half_width(c.relative_ci_half_width))
                                                          : std::string("noisy > +-100%"))
                        : fmt::format("noisy: {} sample{}", c.stats.n, c.stats.n == 1 ? "" : "s"));
  else if (c.noisy && !one_unsteady_sample)
    notes.push_back(c.relative_ci_half_width > c.ci_target
                        ? fmt::format("noisy ({} {} > target {:.1f}%)", interval_name(false),
                                      format_relative_half_width(c.relative_ci_half_width), 100 * c.ci_target)
                        : fmt::format("noisy (only {} sample{} in the time allowed)", c.stats.n, c.stats.n == 1 ? "" : "s"));
  if (c.rounds_disagree) notes.push_back("ROUNDS DISAGREE");
  if (c.drifting) notes.push_back("DRIFTING");
  if (c.device_busy_fraction)
    notes.push_back(fmt::format("device busy {:.0f}% of the step{}", 100 * *c.device_busy_fraction,
                                c.launch_bound ? ": LAUNCH-BOUND" : ""));
  if (!c.data_wait_samples.empty())
    notes.push_back(fmt::format("data wait {:.1f}% of the step{}", 100 * c.data_wait_fraction,
                                c.input_bound ? ": INPUT-BOUND" : ""));
  if (const auto u = utilisation_note(c); !u.empty()) notes.push_back(u);
  if (!c.warmup_stable && !one_unsteady_sample) notes.push_back("warm-up not stable");
  if (c.run_to_run && c.run_to_run->widened && c.run_to_run->source == "fallback")
    notes.push_back(run_to_run_label(*c.run_to_run));
  if (c.discarded_samples)
    notes.push_back(fmt::format("{} sample{} before a level change dropped", c.discarded_samples, c.discarded_samples == 1 ? "" : "s"));
  if (c.device_clock_ratio && std::abs(*c.device_clock_ratio - 1) > 0.02)
    notes.push_back(fmt::format("device clock {:.1f}% of the host's", 100 * *c.device_clock_ratio));
  if (!c.numerics.empty()) notes.push_back(c.numerics);
  if (c.stats.outliers) notes.push_back(fmt::format("{} outlier{}", c.stats.outliers, c.stats.outliers == 1 ? "" : "s"));
  if (c.steps_per_sample > 1) notes.push_back(fmt::format("{} steps/sample", c.steps_per_sample));
  if (max_items > 0 && notes.size() > max_items) {
    const auto more = notes.size() - max_items;
    notes.resize(max_items);
    notes.push_back(fmt::format("+{}", more));
  }
  return fmt::format("{}", fmt::join(notes, "; "));
}

// Table 2: one line per case.
static std::string render_cases_section(const RunResult& run, std::size_t max_notes) {
  std::vector<std::vector<std::string>> t2;
  // The interval shown is the case's stats (the run-to-run widening included), not
  // relative_ci_half_width, which stays the measurement's own precision when a prior widened it.
  t2.push_back({"model", "device", "dtype", "batch", "median step", case_interval_name(run), "n", "samples/s", "TFLOP/s", "peak memory",
                "loss before->after", "data", "notes"});
  for (const auto& c : run.cases) {
    if (!c.ok()) {
      t2.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size), "-", "-", "-", "-", "-", "-", "-",
                    "-", "FAILED: " + c.error});
      continue;
    }
    t2.push_back({model_label(c.spec), c.spec.device, c.spec.dtype, std::to_string(c.spec.batch_size), format_seconds_short(c.stats.median),
                  case_interval_text(c), std::to_string(c.stats.n),
                  format_count(c.samples_per_s), c.achieved_flops_per_s > 0 ? fmt::format("{:.3f}", c.achieved_flops_per_s / 1e12) : "-", peak_memory_text(c),
                  fmt::format("{:.3f}->{:.3f}", c.loss_before, c.loss_after), c.synthetic_data ? "synthetic" : "real",
                  terminal_case_notes(c, max_notes)});
  }
  // A data column of "real" on every row says nothing: shown where a case trained on synthetic data.
  if (std::none_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.ok() && c.synthetic_data; }))
    for (auto& row : t2) row.erase(row.end() - 2);
  add_implementation_column(t2, run);
  return render_table(t2, has_implementation_column(run) ? 4 : 3);
}

// Each case's phases (forward, backward, optimizer), where they were timed.
static std::string render_phases_section(const RunResult& run) {
  if (!(run.cases.size() && run.cases.front().phases)) return "";
  std::string out = "\nPhases (median, each phase synchronized: the sum exceeds an unsplit step):\n";
  std::vector<std::vector<std::string>> t3{{"model", "device", "forward", "backward", "optimizer"}};
  for (const auto& c : run.cases) {
    if (!c.phases || c.phases->forward.empty()) continue;
    t3.push_back({c.spec.workload, c.spec.device, format_seconds_short(summarize(c.phases->forward).median),
                  format_seconds_short(summarize(c.phases->backward).median),
                  format_seconds_short(summarize(c.phases->optimizer).median)});
  }
  return out + render_table(t3, 2);
}

// The advice after a run, one item a rule: where a rule spoke for several cases, its first item
// names the others ("the same rule for cnn on cpu"), whose items `accelbench advise` gives.
static std::vector<Advice> one_item_per_rule(const std::vector<Advice>& advice) {
  std::vector<Advice> out;
  std::map<std::string, std::vector<std::string>> others;
  for (const auto& a : advice) {
    if (std::any_of(out.begin(), out.end(), [&](const Advice& kept) { return kept.rule == a.rule; })) others[a.rule].push_back(a.subject);
    else out.push_back(a);
  }
  for (auto& a : out)
    if (const auto it = others.find(a.rule); it != others.end())
      a.text += fmt::format(" (the same rule for {}: `accelbench advise` gives each)", fmt::join(it->second, ", "));
  return out;
}

// What each mark in the notes column means, for the marks that column shows: one line, "" for none.
static std::string marks_legend(const RunResult& run, std::size_t max_notes) {
  static const std::vector<std::pair<const char*, const char*>> meanings{
      {"LOSS ROSE", "the loss ended above where it began"},
      {"THROTTLED", "the device held its clock back (power or heat)"},
      {"ROUNDS DISAGREE", "its rounds (fresh processes) differ beyond the CI target"},
      {"DRIFTING", "its step time still moved when its time ran out"},
      {"LAUNCH-BOUND", "the device idles between kernels, waiting for the host"},
      {"INPUT-BOUND", "waiting for data over 10% of the step"},
  };
  std::string shown;
  for (const auto& c : run.cases)
    if (c.ok()) shown += terminal_case_notes(c, max_notes) + "\n";
  std::vector<std::string> parts;
  for (const auto& [mark, meaning] : meanings)
    if (shown.find(mark) != std::string::npos) parts.push_back(fmt::format("{}: {}", mark, meaning));
  return parts.empty() ? "" : fmt::format("{}.\n", fmt::join(parts, "; "));
}

std::string render_terminal_report(const RunResult& run, const TerminalReportOptions& o) {
  const auto devices = terminal_report_devices(run);
  std::string out = o.quiet ? "" : o.answer_first ? "\n" : render_terminal_header(run);
  out += render_summary_section(run, devices, !o.answer_first);
  out += render_graphs_section(run);
  out += render_parity_section(run, o.answer_first);
  out += "\n";
  out += render_cases_section(run, o.answer_first ? kNotesShown : 0);
  if (o.answer_first && std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) {
        return terminal_case_notes(c, kNotesShown) != terminal_case_notes(c, 0);
      }))
    out += "notes: the two most telling; noisy +-X%: this run's own 95% interval; +N: --verbose, JSON.\n";
  out += marks_legend(run, o.answer_first ? kNotesShown : 0);
  if (!o.quiet && !o.answer_first) out += render_rounds_section(run);  // after a run: --verbose (the marks say where they disagree)
  const auto telemetry = render_telemetry_section(run, o.answer_first);
  out += o.quiet ? telemetry.substr(0, telemetry.find("\nNot measured here: ")) : telemetry;
  out += render_phases_section(run);
  if (o.answer_first) out += "\n" + render_terminal_header(run).substr(0, render_terminal_header(run).size() - 1);
  if (o.quiet) return out;
  auto advice = advise(run);
  const auto all = advice.size();
  if (o.answer_first) advice = one_item_per_rule(advice);
  if (o.max_advice > 0 && advice.size() > o.max_advice) advice.resize(o.max_advice);
  if (!advice.empty()) out += "\n" + render_advice(advice);
  if (o.answer_first)
    out += fmt::format("More: {}--verbose (every note), `accelbench report` (HTML), --json (every figure).\n",
                       all > advice.size() ? fmt::format("`accelbench advise` (+{}), ", all - advice.size()) : "");
  else if (all > advice.size())
    out += fmt::format("  ({} more: `accelbench advise` lists every item, ranked)\n", all - advice.size());
  return out;
}

namespace {
// Why a range is too wide to show, without what to do about it (the advice says that, once):
// "its next run's range would span 90x: this run's rounds moved 6.5x".
std::string too_wide_why(const std::string& too_wide) { return too_wide.substr(0, too_wide.find("; ")); }

std::string summary_of_speedup(const std::string& name, const Speedup& s) {
  const auto which = interval_name(s.widened_by_history);
  if (!(s.ratio > 0) || !(s.ci_low > 0)) return fmt::format("{}: {} over {}: no interval", name, s.device, s.baseline_device);
  if (s.run_to_run && !s.run_to_run->too_wide.empty())
    return fmt::format("{}: this run cannot tell {} from {} ({:.2f}x measured): {}", name, s.device, s.baseline_device,
                       s.ratio, too_wide_why(s.run_to_run->too_wide));
  if (s.ci_low > 1)
    return fmt::format("{}: {} ran {} as fast as {} ({})", name, s.device, format_ratio_ci(s.ratio, s.ci_low, s.ci_high),
                       s.baseline_device, which);
  if (s.ci_high < 1)
    return fmt::format("{}: {} ran {} as fast as {} ({})", name, s.baseline_device,
                       format_ratio_ci(1 / s.ratio, 1 / s.ci_high, 1 / s.ci_low), s.device, which);
  return fmt::format("{}: this run cannot tell {} from {}: {} ({})", name, s.device, s.baseline_device,
                     format_ratio_ci(s.ratio, s.ci_low, s.ci_high), which);
}

// A case without a speed-up: its step time and interval (render_run_summary says why there is no speed-up).
std::string summary_of_case(const std::string& name, const CaseResult& c) {
  if (!c.ok()) return fmt::format("{}: FAILED on {} (the table says why)", name, c.spec.device);
  const auto which = interval_name(c.run_to_run && c.run_to_run->widened);
  const auto interval = c.run_to_run && !c.run_to_run->too_wide.empty()
                            ? fmt::format(" ({} not shown: {})", which, too_wide_why(c.run_to_run->too_wide))
                        : has_interval(c) ? fmt::format(" ({}, {})", case_interval_text(c), which)
                                          : std::string(" (no interval)");
  return fmt::format("{}: {} a step on {}{}", name, format_seconds_short(c.stats.median), c.spec.device, interval);
}
}  // namespace

namespace {
// --graphs: the graphs case of row `m` against the eager step on its device, in the words of a speed-up.
std::optional<std::string> summary_of_graphs(const RunResult& run, const ReportRow& m, const std::string& name) {
  for (const auto& d : terminal_report_devices(run))
    if (const auto* g = find_row_speedup(run.graph_speedups, m.model, m.dtype, d, m.batch)) {
      auto words = *g;
      words.device = "the CUDA graph on " + d;
      words.baseline_device = "the eager step";
      return summary_of_speedup(name, words);
    }
  return std::nullopt;
}

// Whether row `m` is the eager step of a graphs case with a speed-up (whose line says the eager step).
bool eager_of_graphs(const RunResult& run, const ReportRow& m) {
  return std::any_of(run.graph_speedups.begin(), run.graph_speedups.end(), [&](const Speedup& g) {
    return g.label() == m.model.substr(0, m.model.find('[')) + "[graphs]" && g.dtype == m.dtype && (m.batch == 0 || g.batch_size == m.batch);
  });
}
}  // namespace

std::string render_run_summary(const RunResult& run) {
  const auto devices = terminal_report_devices(run);
  const bool accelerators = std::any_of(devices.begin(), devices.end(), [](const std::string& d) { return d != "cpu"; });
  const bool cpu = std::find(devices.begin(), devices.end(), "cpu") != devices.end();
  const std::string without_speedup = !accelerators ? "CPU only"
                                      : cpu         ? "no speed-up: a device failed"
                                                    : "no speed-up: no CPU case to compare with (--devices cpu,...)";
  std::vector<std::string> lines;
  std::vector<std::size_t> without;  // the lines of a case without a speed-up
  for (const auto& m : report_rows(run)) {
    const auto name = summary_name(m);
    bool said = false;
    for (const auto& d : devices) {
      if (d == "cpu") continue;
      if (const auto* s = find_row_speedup(run.speedups, m.model, m.dtype, d, m.batch)) {
        lines.push_back("  " + summary_of_speedup(name, *s));
        said = true;
      }
    }
    if (const auto graphs = summary_of_graphs(run, m, name)) lines.push_back("  " + *graphs), said = true;
    if (said || eager_of_graphs(run, m)) continue;
    for (const auto& d : devices)
      if (const auto* c = find_row_case(run, m, d)) {
        if (c->ok()) without.push_back(lines.size());
        lines.push_back("  " + summary_of_case(name, *c));
        break;
      }
  }
  if (lines.empty()) return "";
  // Why there is no speed-up: on its line where one case has none, else once after them all.
  if (without.size() == 1) lines[without.front()] += "; " + without_speedup;
  if (without.size() > 1)
    lines.push_back(fmt::format("  ({})", accelerators ? without_speedup : "CPU only: no accelerator, so no speed-up"));
  return fmt::format("Summary:\n{}\n", fmt::join(lines, "\n"));
}

}  // namespace accelbench
