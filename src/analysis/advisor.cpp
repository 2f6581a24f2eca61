#include "analysis/advisor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/case_figures.h"
#include "core/durations.h"
#include "core/parity.h"
#include "core/peak_records.h"
#include "core/sweep_records.h"
#include "core/utilisation.h"

namespace accelbench {

namespace {
std::string subject_of(const CaseResult& c) {
  return c.spec.dtype == "float32" ? fmt::format("{} on {}", model_label(c.spec), c.spec.device)
                                   : fmt::format("{} on {} ({})", model_label(c.spec), c.spec.device, c.spec.dtype);
}
std::string pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

// What frees memory for a larger batch, leaving out what the case already uses: bfloat16 for a
// float32 (or tfloat32) case, gradient checkpointing without it for a workload that has blocks to
// checkpoint (CaseResult::checkpointable: transformer, bert-base).
std::string memory_remedy(bool checkpointable, const std::string& dtype, bool checkpoint) {
  std::vector<std::string> ways;
  if (dtype == "float32" || dtype == "tfloat32") ways.push_back("bfloat16 (--dtype bfloat16)");
  if (!checkpoint && checkpointable) ways.push_back("gradient checkpointing (--checkpoint)");
  if (ways.empty())
    return fmt::format("it already runs in {}{}: a smaller batch, or a device with more memory", dtype,
                       checkpoint ? " with gradient checkpointing" : "");
  return fmt::format("to go further use {}", fmt::join(ways, " or "));
}

// The case of `like`'s model (its width, checkpointing and graphs too) in precision `t`.
const CaseResult* find_case(const RunResult& run, const CaseSpec& like, const std::string& t) {
  for (const auto& c : run.cases)
    if (c.ok() && model_label(c.spec) == model_label(like) && c.spec.device == like.device && c.spec.dtype == t &&
        c.spec.batch_size == like.batch_size)
      return &c;
  return nullptr;
}
}  // namespace

namespace {
// Batch sweep: the knee, against the smallest batch measured; the out-of-memory edge.
void advise_batch_sweep(const RunResult& run, const BatchSweep& sw, std::vector<Advice>& out) {
  if (!sw.knee) return;
  const auto knee = *sw.knee;
  const std::string subject = fmt::format("{} on {} ({})", sweep_model_label(sw), sw.device, sw.dtype);
  if (knee_at_range_end(sw)) {  // throughput still rising where the range ended: no knee in it
    out.push_back({"batch-knee", subject,
                   fmt::format("throughput still rises at batch {}, the largest measured, and nothing ran out of memory: "
                               "the range holds no knee; --to {} measures beyond it",
                               knee, 2 * knee),
                   {fmt::format("largest_batch={}", knee)}});
    return;
  }
  const CaseResult *at_knee = nullptr, *smallest = nullptr;
  for (const auto& c : run.cases) {
    if (!c.ok() || c.samples.empty()) continue;
    if (c.spec.batch_size == knee) at_knee = &c;
    if (!smallest || c.spec.batch_size < smallest->spec.batch_size) smallest = &c;
  }
  if (!at_knee) return;
  std::string text = fmt::format("use batch {}: {} samples/s", knee, format_count(at_knee->samples_per_s));
  std::vector<std::string> evidence{fmt::format("knee={}", knee), "samples_per_s=" + format_count(at_knee->samples_per_s)};
  if (smallest && smallest != at_knee) {
    // Samples/s ratio = (b_knee / t_knee) / (b_small / t_small); its CI from the step-time ratio.
    const auto r = ratio_of_medians(smallest->samples, at_knee->samples);
    const double scale = static_cast<double>(knee) / static_cast<double>(smallest->spec.batch_size);
    const auto figure = format_ratio_ci(r.ratio * scale, r.low * scale, r.high * scale);
    text += fmt::format(", {} the samples/s of batch {}", figure, smallest->spec.batch_size);
    evidence.push_back("throughput_ratio=" + figure);
  }
  if (const auto mem = peak_memory_text(*at_knee); mem != "-") {
    text += ", peak " + mem;
    evidence.push_back("peak_memory=" + mem);
  }
  text += fmt::format(" (the smallest batch within {:.0f}% of the best throughput; larger batches add little speed and "
                      "change the optimization: scale the learning rate with it)",
                      100 * sw.knee_tolerance);
  out.push_back({"batch-knee", subject, text, evidence});
  if (sw.largest_fit && sw.first_oom) {
    const auto largest = *sw.largest_fit;
    const auto oom = sw.smallest_oom.value_or(*sw.first_oom);
    // Every point is the sweep's model: one that trained says whether it has blocks to checkpoint.
    const bool checkpointable = std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.checkpointable; });
    out.push_back({"batch-memory-edge", subject,
                   fmt::format("batch {} is the largest that fits{} (out of memory at {}); {}",
                               largest,
                               sw.memory_limit_bytes ? fmt::format(" in {}", format_bytes(static_cast<double>(*sw.memory_limit_bytes)))
                                                     : std::string(),
                               oom, memory_remedy(checkpointable, sw.dtype, sw.checkpoint)),
                   {fmt::format("largest_fit={}", largest), fmt::format("oom_at={}", oom)}});
  }
}

// Why a lower precision is slower, from the case's measured busy share (never a guess about the
// device's arithmetic): adds the figure it rests on to `evidence`.
std::string slower_precision_cause(const CaseResult* c, const std::string& dtype, std::vector<std::string>& evidence) {
  if (!c || !c->device_busy_fraction) return "the cause was not measured (no device busy time here); stay in float32";
  const auto busy = pct(*c->device_busy_fraction);
  evidence.push_back("device_busy=" + busy);
  if (c->launch_bound)
    return fmt::format("the step is launch-bound (the device is busy {} of it): the casts that {} adds are more kernels "
                       "for the host to launch, and the arithmetic it speeds up does not set the pace; stay in float32 at "
                       "this batch, or raise the batch until the device is busy",
                       busy, dtype);
  return fmt::format("the device is busy {} of the step, so the time is lost on the device ({} kernels, or the casts "
                     "around them, slower than float32's for this model); stay in float32",
                     busy, dtype);
}

// Precision sweep: the fastest precision that keeps parity; precisions that are slower or drift.
void advise_precision_sweep(const RunResult& run, const PrecisionSweep& sw, std::vector<Advice>& out) {
  const std::string base = fmt::format("{} on {}", sweep_loop_label(sw), sw.device);
  const int steps = sw.parity_steps;
  for (const auto& p : sw.points) {
    const auto& name = p.precision;
    if (name == "float32" || !p.speedup) continue;
    const auto& sp = *p.speedup;
    const auto figure = format_ratio_ci(sp);
    const std::string subject = fmt::format("{} ({})", base, name);
    const bool has_parity = p.parity && p.parity->error.empty() && p.parity->steps > 0;
    if (p.parity && !has_parity) {
      out.push_back({"precision-parity-failed", subject,
                     fmt::format("{} is {} the speed of float32, but its parity run failed ({}): check it before using it",
                                 name, figure, p.parity->error.empty() ? std::string("no steps") : p.parity->error),
                     {"speedup=" + figure}});
      continue;
    }
    const double drift = has_parity ? p.parity->loss_rel_diff : 0;
    const double tolerance = sw.parity_threshold;
    if (has_parity && drift > tolerance) {
      std::string floor_text;
      if (const auto& f = sw.parity_floor; f && f->error.empty())
        floor_text = fmt::format("; float32 against itself drifts by {:.2g}%{}", 100 * f->loss_rel_diff,
                                 f->loss_rel_diff > 0.02 ? ", so this training is chaotic at these settings" : "");
      if (const int skipped = p.parity->skipped_steps; skipped > 0)
        floor_text += fmt::format("; loss scaling skipped {} of its {} steps", skipped, steps);
      out.push_back({"precision-drifts", subject,
                     fmt::format("{} is {} the speed of float32 but its loss after {} steps differs from float32's by {:.2g}% "
                                 "(more than {:.2g}%{}): check its training curve before switching",
                                 name, figure, steps, 100 * drift, 100 * tolerance, floor_text),
                     {"speedup=" + figure, fmt::format("loss_rel_diff={:.2g}%", 100 * drift)}});
    } else if (sp.low > 1.05) {
      std::string parity_text = has_parity ? fmt::format(", loss within {:.2g}% of float32 after {} identical steps", 100 * drift, steps)
                                           : " (no parity run)";
      std::vector<std::string> evidence{"speedup=" + figure};
      if (has_parity) evidence.push_back(fmt::format("loss_rel_diff={:.2g}%", 100 * drift));
      out.push_back({"precision-faster", subject,
                     fmt::format("{}: {} faster than float32{}{}", name, figure, parity_text,
                                 sw.best && *sw.best == name ? "; the best precision here" : ""),
                     evidence});
    } else if (sp.high < 0.95) {
      std::vector<std::string> evidence{"speedup=" + figure};
      const CaseResult* c = p.case_index && *p.case_index < run.cases.size() ? &run.cases[*p.case_index] : nullptr;
      const auto cause = slower_precision_cause(c, name, evidence);
      out.push_back({"precision-slower", subject,
                     fmt::format("{} is slower than float32 here ({} the speed): {}", name, figure, cause), evidence});
    }
  }
}

// Threads and workers sweeps: the fewest that come within the tolerance of the best.
void advise_setting_sweep(const SettingSweep& sw, std::vector<Advice>& out) {
  if (!sw.best) return;
  const bool threads = sw.kind == "threads";
  const int best = *sw.best;
  const std::string subject = fmt::format("{} on {}", sweep_loop_label(sw), sw.device);
  const SettingSweepPoint *at_best = nullptr, *top = nullptr, *zero = nullptr;
  for (const auto& p : sw.points) {
    if (!p.samples_per_s || (!threads && p.setting == kStagedWorkers)) continue;
    if (p.setting == best) at_best = &p;
    if (!top || *p.samples_per_s > *top->samples_per_s) top = &p;
    if (p.setting == 0) zero = &p;
  }
  if (!at_best || !top) return;
  // "1 thread", "2 threads".
  const std::string noun = threads ? "thread" : "worker";
  auto counted = [&noun](int n) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); };
  std::string text = fmt::format("use {}: {} samples/s", counted(best), format_count(*at_best->samples_per_s));
  std::vector<std::string> evidence{fmt::format("{}={}", sw.kind, best), "samples_per_s=" + format_count(*at_best->samples_per_s)};
  if (threads && at_best->speedup) {
    text += fmt::format(", {} over 1 thread", format_ratio_ci(*at_best->speedup));
    evidence.push_back("speedup=" + format_ratio_ci(*at_best->speedup));
  }
  if (!threads && at_best->data_wait_fraction) {
    text += fmt::format(", data wait {:.1f}% of the step", 100 * *at_best->data_wait_fraction);
    if (zero && zero != at_best && zero->data_wait_fraction)
      text += fmt::format(" (with 0 workers: {:.1f}%, {} samples/s)", 100 * *zero->data_wait_fraction,
                          format_count(*zero->samples_per_s));
    evidence.push_back(fmt::format("data_wait={:.1f}%", 100 * *at_best->data_wait_fraction));
  }
  if (top != at_best)
    text += fmt::format("; the best, {}, is only {:.1f}% faster", counted(top->setting),
                        100 * (*top->samples_per_s / *at_best->samples_per_s - 1));
  out.push_back({threads ? "threads-best" : "workers-best", subject, text, evidence});
}

// Crossover: from which batch (or width) the accelerator wins.
void advise_crossover(const CrossoverSweep& sw, std::vector<Advice>& out) {
  const auto& c = sw.crossover;
  const auto& axis = sw.axis;
  const std::string subject = fmt::format("{} on {} vs cpu", sweep_loop_label(sw), sw.device);
  auto speedup_at = [&](std::int64_t x) -> std::string {
    for (const auto& p : sw.points)
      if (p.x == x && p.speedup) return format_ratio_ci(*p.speedup);
    return "";
  };
  if (c.kind == CrossoverKind::crosses) {
    if (!c.at) return;
    const auto at = *c.at;
    const auto figure = speedup_at(at);
    out.push_back({"crossover", subject,
                   fmt::format("this model is overhead-bound when small: the accelerator wins only from {0} {1} ({2}); "
                               "below it, {3}",
                               axis, at, figure,
                               !c.cpu_until ? "the two are within the noise"
                                            : fmt::format("the CPU is faster (up to {} {})", axis, *c.cpu_until)),
                   {fmt::format("crossover_{}={}", axis, at), "speedup=" + figure}});
  } else if (c.kind == CrossoverKind::cpu_always || c.kind == CrossoverKind::never) {
    const CrossoverSweepPoint* last = nullptr;  // the largest point measured on both devices
    const CrossoverSweepPoint* won = nullptr;   // below it, the last where the accelerator was surely faster ("never")
    for (const auto& p : sw.points) {
      if (!p.speedup) continue;
      if (last && last->speedup->low > 1.0) won = last;
      last = &p;
    }
    if (!last) return;
    const auto figure = format_ratio_ci(*last->speedup);
    if (won) {
      const auto won_figure = format_ratio_ci(*won->speedup);
      out.push_back({"crossover", subject,
                     fmt::format("the accelerator does not stay ahead of the CPU: faster at {0} {1} ({2}) but not at {0} {3} "
                                 "({4}): measure at the {0} you will train with before choosing the device",
                                 axis, won->x, won_figure, last->x, figure),
                     {"speedup=" + won_figure, "speedup_at_end=" + figure}});
      return;
    }
    out.push_back({"crossover", subject,
                   fmt::format("the accelerator does not beat the CPU anywhere up to {} {} ({} there): train this model on "
                               "the CPU, or make it larger",
                               axis, last->x, figure),
                   {"speedup_at_end=" + figure}});
  } else if (c.kind == CrossoverKind::accelerator_always) {
    if (!c.at) return;
    const auto at = *c.at;
    const auto figure = speedup_at(at);
    out.push_back({"crossover", subject,
                   fmt::format("the accelerator is faster from the smallest {} measured ({} {}: {})", axis, axis, at, figure),
                   {"speedup=" + figure}});
  }
}

void advise_sweep(const RunResult& run, const AnySweep& sweep, std::vector<Advice>& out) {
  if (const auto* b = std::get_if<BatchSweep>(&sweep)) advise_batch_sweep(run, *b, out);
  else if (const auto* p = std::get_if<PrecisionSweep>(&sweep)) advise_precision_sweep(run, *p, out);
  else if (const auto* s = std::get_if<SettingSweep>(&sweep)) advise_setting_sweep(*s, out);
  else if (const auto* c = std::get_if<CrossoverSweep>(&sweep)) advise_crossover(*c, out);
}

std::string kind_of(const AnySweep& sweep) {
  if (std::holds_alternative<BatchSweep>(sweep)) return "batch";
  if (std::holds_alternative<PrecisionSweep>(sweep)) return "precision";
  if (std::holds_alternative<CrossoverSweep>(sweep)) return "crossover";
  return std::get<SettingSweep>(sweep).kind;
}

std::vector<Advice> advise_run(const RunResult& run, const AnySweep* sweep, const std::string& sweep_kind);
}  // namespace

std::vector<Advice> advise(const RunResult& run, const AnySweep& sweep) { return advise_run(run, &sweep, kind_of(sweep)); }

std::vector<Advice> advise(const RunResult& run, const nlohmann::json& document) {
  std::optional<AnySweep> sweep;
  try {
    sweep = sweep_from_document(document);
  } catch (const std::exception&) {
    // A sweep block from another version: no sweep advice rather than a wrong one.
  }
  const std::string sweep_kind = document.contains("sweep") && document["sweep"].is_object()
                                     ? document["sweep"].value("kind", std::string())
                                     : std::string();
  // The kind suppresses the per-case rules even when its block could not be read.
  return advise_run(run, sweep ? &*sweep : nullptr, sweep_kind);
}

namespace {

// Rules 1 and 1b, on the run's speed-ups over the CPU.
void advise_speedups(const RunResult& run, const std::string& sweep_kind, std::vector<Advice>& out) {
  // 1. Speed-ups: the accelerator barely wins (or loses): the model is overhead-bound at this batch.
  // (A crossover sweep has its own rule over all its points.)
  for (const auto& s : run.speedups) {
    if (sweep_kind == "crossover") break;
    const std::string subject = fmt::format("{} on {}", s.workload, s.device);
    const std::string figure = format_ratio_ci(s.ratio, s.ci_low, s.ci_high);
    if (s.ci_high < 1.0) {
      out.push_back({"accelerator-slower", subject,
                     fmt::format("the CPU is faster: {} runs at {} the CPU's speed at batch {}; the model is too small for the "
                                 "device at this batch: train it on the CPU, or raise the batch size (sweep batch) until the "
                                 "accelerator wins",
                                 s.device, figure, s.batch_size),
                     {"speedup=" + figure}});
    } else if (s.ratio < 1.5) {
      out.push_back({"overhead-bound", subject,
                     fmt::format("the accelerator barely wins: {} over the CPU at batch {}: kernel launches, not arithmetic, "
                                 "set the pace (the article's 1.09x MLP); larger batches use the device better",
                                 figure, s.batch_size),
                     {"speedup=" + figure}});
    }
  }

  // 1b. Numerical parity with the CPU: the accelerator's training drifts from the CPU's.
  for (const auto& s : run.speedups) {
    if (!s.parity || !s.parity->error.empty() || s.parity->steps == 0 || s.parity->loss_rel_diff <= 0.02) continue;
    out.push_back({"parity-drift", fmt::format("{} on {} ({})", s.label(), s.device, s.dtype),
                   fmt::format("training on {} drifts from the CPU's: {}; expected for float16 over many steps, suspicious "
                               "for float32 (check for non-deterministic or wrong kernels)",
                               s.device, describe_parity(*s.parity)),
                   {fmt::format("loss_rel_diff={:.2g}%", 100 * s.parity->loss_rel_diff)}});
  }
}

// Where a next run's range that the history did not set comes from.
std::string run_to_run_words(const RunToRun& r) {
  if (r.source == "rounds") return "the rounds, each a fresh process, disagree as much";
  if (r.source == "fallback") return "a fallback constant, as no earlier run of this kind is stored on this host";
  return "earlier runs on this host and this run's rounds";
}

// Rules 2 to 4 on one case that ran: input-bound, noisy, memory headroom.
void advise_case(const RunResult& run, const CaseResult& c, std::vector<Advice>& out) {
  // 2. Input-bound: the data pipeline holds the training back.
  if (c.input_bound) {
    out.push_back({"input-bound", subject_of(c),
                   fmt::format("data wait is {} of each step ({} of {}): the loader is the bottleneck; use more loader "
                               "workers (--workers), or prepare batches ahead of time",
                               pct(c.data_wait_fraction), format_seconds_short(c.data_wait_fraction * c.stats.median),
                               format_seconds_short(c.stats.median)),
                   {"data_wait_fraction=" + pct(c.data_wait_fraction)}});
  }
  // 3. Noisy: the numbers are less certain than asked for.
  if (c.run_to_run && !c.run_to_run->too_wide.empty()) {
    // A range too wide to print: why, and what to do instead.
    out.push_back({"noisy", subject_of(c), fmt::format("{}: not shown, as {}", interval_name(true), c.run_to_run->too_wide),
                   {fmt::format("run_to_run_sd={}", pct(std::expm1(c.run_to_run->sd_log))), "source=" + c.run_to_run->source}});
  } else if (c.noisy && c.run_to_run && c.run_to_run->widened && c.run_to_run->source != "history") {
    // The next run's range from the rounds or the fallback constant: more time in this run, or
    // closing programs now, cannot narrow what changes between runs.
    const double factor = std::exp(c.run_to_run->half_width_log);
    out.push_back({"noisy", subject_of(c),
                   fmt::format("{}: within {} of this run's median ({}): a spread between runs, which more time "
                               "in this run cannot narrow; compare runs only beyond it",
                               interval_name(true), format_relative_interval(1, 1 / factor, factor), run_to_run_words(*c.run_to_run)),
                   {fmt::format("next_run_half_width=x{:.2f}", factor), "source=" + c.run_to_run->source}});
  } else if (c.noisy && c.run_to_run && c.run_to_run->widened && c.run_to_run->source == "history") {
    // Widened by the history: more time in this run cannot narrow what changes between runs.
    const double factor = std::exp(c.run_to_run->half_width_log);
    out.push_back({"noisy", subject_of(c),
                   fmt::format("cases of this kind varied from run to run on this host (sd {} of a run's median; this "
                               "case has {} earlier runs) more than this run's rounds, so the next run may fall anywhere within {} of {} ({}): the machine's "
                               "state changes between runs (other programs, clocks){}; compare runs only beyond that",
                               pct(std::expm1(c.run_to_run->sd_log)), c.run_to_run->earlier_runs,
                               format_relative_interval(1, 1 / factor, factor), format_seconds_short(c.stats.median), interval_name(true),
                               c.launch_bound ? ", and a launch-bound step follows the host's speed" : ""),
                   {fmt::format("run_to_run_sd={}", pct(std::expm1(c.run_to_run->sd_log))),
                    fmt::format("earlier_runs={}", c.run_to_run->earlier_runs)}});
  } else if (c.noisy) {
    const bool wide = c.relative_ci_half_width > c.ci_target;
    out.push_back({"noisy", subject_of(c),
                   wide ? fmt::format("the median's interval ({}) is {} (target +-{}) after {} samples: close other programs, or "
                                      "give it more time (--max-time-per-case, --budget) before trusting differences under {}",
                                      interval_name(false), format_relative_half_width(c.relative_ci_half_width), pct(c.ci_target),
                                      c.stats.n, pct(c.relative_ci_half_width))
                    : c.stats.n < 2
                        ? fmt::format("only {} sample fit in the time allowed (fewer than the minimum asked for), and one "
                                      "sample has no CI: give it more time (--max-time-per-case, --budget) before trusting it",
                                      c.stats.n)
                        : fmt::format("only {} samples fit in the time allowed (fewer than the minimum asked for): give it more "
                                      "time (--max-time-per-case, --budget) before trusting its interval ({}) of {}",
                                      c.stats.n, interval_name(false), format_relative_half_width(c.relative_ci_half_width)),
                   {"ci_half_width=" + pct(c.relative_ci_half_width), fmt::format("n={}", c.stats.n)}});
  }
  // 4. Memory headroom on the device.
  if (c.memory.peak_reserved_bytes) {
    for (const auto& d : run.context.devices) {
      if (d.id != c.spec.device || !d.total_memory_bytes || *d.total_memory_bytes == 0) continue;
      const double share = static_cast<double>(*c.memory.peak_reserved_bytes) / static_cast<double>(*d.total_memory_bytes);
      if (share > 0.8) {
        out.push_back({"memory-headroom", subject_of(c),
                       fmt::format("peak reserved memory is {} of the device's {} ({}): a larger batch will run out of "
                                   "memory; {}",
                                   format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes)),
                                   format_bytes(static_cast<double>(*d.total_memory_bytes)), pct(share),
                                   memory_remedy(c.checkpointable, c.spec.dtype, c.spec.checkpoint)),
                       {"peak_reserved=" + format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes)),
                        "share=" + pct(share)}});
      }
    }
  }
}

// Rule 4b: launch-bound, from the device's busy time measured with its queue held
// (CaseResult::device_busy_fraction): the host's launches set the pace, not the accelerator.
// With --graphs the graphs case of the same model measured what one launch a step gives: quoted.
void advise_launch_bound(const RunResult& run, const CaseResult& c, std::vector<Advice>& out) {
  if (!c.launch_bound || !c.device_busy_fraction) return;
  const double busy_s = *c.device_busy_fraction * c.stats.median;
  std::vector<std::string> evidence{"device_busy=" + pct(*c.device_busy_fraction),
                                    "device_busy_time=" + format_seconds_short(busy_s),
                                    "step=" + format_seconds_short(c.stats.median)};
  std::string remedy = "a larger batch (the same launches, more work each), fewer and fused kernels, or the whole step "
                       "in a CUDA graph (one launch; --graphs measures it) would";
  if (c.spec.graphs) {
    remedy = "the step is already one graph launch: the gaps are inside the graph (small kernels one after another); "
             "a larger batch or fewer, fused kernels would help";
  } else {
    auto graphs = c.spec;
    graphs.graphs = true;
    const auto g = std::find_if(run.graph_speedups.begin(), run.graph_speedups.end(), [&](const Speedup& s) {
      return s.model == model_label(graphs) && s.device == c.spec.device && s.dtype == c.spec.dtype && s.batch_size == c.spec.batch_size;
    });
    if (g != run.graph_speedups.end()) {
      const auto figure = format_ratio_ci(g->ratio, g->ci_low, g->ci_high);
      remedy = fmt::format("the whole step in a CUDA graph, measured here: {} -> {} a step ({}); or a larger batch (the "
                           "same launches, more work each)",
                           format_seconds_short(c.stats.median), format_seconds_short(c.stats.median / g->ratio), figure);
      evidence.push_back("graphs_speedup=" + figure);
    }
  }
  out.push_back({"launch-bound", subject_of(c),
                 fmt::format("the device is busy {} of each step ({} of {}): the host's kernel launches, not the "
                             "accelerator, set the speed, so a faster accelerator would not help; {}",
                             pct(*c.device_busy_fraction), format_seconds_short(busy_s), format_seconds_short(c.stats.median),
                             remedy),
                 evidence});
}

// Rule 4d: a Python case beside the C++ case of the same model (run --impl cpp,python) whose step is
// longer beyond both intervals: the gap is the Python loop's host time (the interpreter, torch.optim),
// said with both steps, both optimizers and, where measured, how busy the device was in the C++ step.
void advise_python_loop(const RunResult& run, const CaseResult& c, std::vector<Advice>& out) {
  if (!is_python(c.spec) || !c.spec.compile.empty()) return;
  auto like = c.spec;
  like.impl.clear();
  const auto cpp = std::find_if(run.cases.begin(), run.cases.end(), [&](const CaseResult& x) {
    return x.ok() && !x.samples.empty() && model_label(x.spec) == model_label(like) && x.spec.device == like.device &&
           x.spec.dtype == like.dtype && x.spec.batch_size == like.batch_size;
  });
  if (cpp == run.cases.end() || c.stats.ci_low <= cpp->stats.ci_high || cpp->stats.median <= 0) return;
  const double ratio = c.stats.median / cpp->stats.median;
  std::vector<std::string> evidence{"python_step=" + format_seconds_short(c.stats.median),
                                    "cpp_step=" + format_seconds_short(cpp->stats.median),
                                    fmt::format("ratio={:.2f}", ratio)};
  std::string busy;
  if (cpp->device_busy_fraction) {
    const double busy_s = *cpp->device_busy_fraction * cpp->stats.median;
    busy = fmt::format("; the device needs {} of a step (busy {} of the C++ step), so the rest of the Python step is "
                       "host time", format_seconds_short(busy_s), pct(*cpp->device_busy_fraction));
    evidence.push_back("device_busy_time=" + format_seconds_short(busy_s));
  }
  const bool fused = c.optimizer.find("fused") != std::string::npos;
  out.push_back({"python-loop", subject_of(c),
                 fmt::format("the Python loop's step is {:.2f}x the C++ loop's ({} against {}): each op goes through the "
                             "interpreter, and it trains with {} where the C++ loop uses {}{}{}",
                             ratio, format_seconds_short(c.stats.median), format_seconds_short(cpp->stats.median), c.optimizer,
                             cpp->optimizer, busy,
                             fused ? "" : "; --py-optimizer adam:fused measures how much of the gap the optimizer's step is"),
                 evidence});
}

// Rule 4c: the utilisation verdicts of a device-bound case (core/utilisation.h): what the measured
// share of the matmul ceiling and the kernel count say would make the step faster. Launch-bound
// cases have rule 4b; a case without a verdict gets nothing.
void advise_utilisation(const CaseResult& c, std::vector<Advice>& out) {
  if (!c.ceiling_share || !c.ceiling_flops_per_s || c.bound.empty() || c.bound == "launch-bound") return;
  const auto share = pct(*c.ceiling_share);
  const auto precision = ceiling_precision_of(c);
  std::vector<std::string> evidence{"bound=" + c.bound, "share_of_" + precision + "_ceiling=" + share};
  const auto head = fmt::format("{} at {} of the {} matmul ceiling ({})", c.bound, share, precision, c.bound_evidence);
  std::string text;
  if (c.bound == "small-kernel-bound") {
    evidence.push_back(fmt::format("kernels_per_step={}", c.device_operations_per_step));
    text = head + ". A larger batch gives each kernel more work for the same fixed costs; the device's bandwidth "
                  "and FLOP/s are not the limit";
  } else if (c.bound == "memory-bound") {
    // A 16-bit precision only where this device's measured ceilings do not say it is slower here.
    const bool sixteen = c.spec.dtype == "bfloat16" || c.spec.dtype == "float16" || c.faster_precision == "bfloat16" ||
                         c.faster_precision == "float16";
    text = head + (sixteen ? ". Fewer bytes a step go faster: a 16-bit precision (activations and their element-wise "
                             "kernels at half the bytes), fused element-wise kernels, a larger batch for the optimizer's share"
                           : ". Fewer bytes a step go faster: fused element-wise kernels, a larger batch for the optimizer's share");
  } else if (c.bound == "compute-bound") {
    if (c.faster_precision.empty() || !c.faster_precision_flops_per_s) {
      text = head + fmt::format(". Only fewer FLOPs go faster here: no precision's measured matmul ceiling on {} is "
                                "higher than {}'s", c.spec.device, precision);
    } else {
      const auto faster = format_ceiling_value(CeilingKind::kMatmul, *c.faster_precision_flops_per_s);
      text = head + fmt::format(". Only fewer FLOPs or a precision with a higher ceiling go faster here: {}'s measured "
                                "matmul ceiling is {}", c.faster_precision, faster);
      evidence.push_back(fmt::format("{}_ceiling={}", c.faster_precision, faster));
    }
  } else {
    return;
  }
  out.push_back({"utilisation", subject_of(c), text, evidence});
}

// Rule 5: a lower precision measured beside float32: quote the gain and the loss it reached.
void advise_precision_case(const RunResult& run, const CaseResult& c, std::vector<Advice>& out) {
  if (c.spec.dtype != "float32") {
    const auto* base = find_case(run, c.spec, "float32");
    if (base && !base->samples.empty() && !c.samples.empty()) {
      const auto r = ratio_of_medians(base->samples, c.samples);
      const std::string figure = format_ratio_ci(r.ratio, r.low, r.high);
      const double loss_gap = base->loss_after != 0 ? (c.loss_after - base->loss_after) / std::abs(base->loss_after) : 0;
      if (r.low > 1.05) {
        const std::string gap = fmt::format("{:+.1f}%", 100 * loss_gap);
        out.push_back({"precision-faster", subject_of(c),
                       fmt::format("{} is {} faster than float32 (loss after the measured steps {:.4f} vs {:.4f}, {} "
                                   "against float32's); check the loss over a longer run before switching",
                                   c.spec.dtype, figure, c.loss_after, base->loss_after, gap),
                       {"speedup=" + figure, "loss_gap=" + gap}});
      } else if (r.high < 0.95) {
        std::vector<std::string> evidence{"speedup=" + figure};
        const auto cause = slower_precision_cause(&c, c.spec.dtype, evidence);
        out.push_back({"precision-slower", subject_of(c),
                       fmt::format("{} is slower than float32 here ({} the speed): {}", c.spec.dtype, figure, cause),
                       evidence});
      }
    }
  }
}

// The same words about several cases said once, the subjects joined ("mlp on cpu, cnn on cpu").
void said_once(std::vector<Advice>& out) {
  std::vector<Advice> kept;
  for (const auto& a : out) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const Advice& k) { return k.rule == a.rule && k.text == a.text; });
    if (same == kept.end()) {
      kept.push_back(a);
    } else {
      same->subject += ", " + a.subject;
      same->evidence.insert(same->evidence.end(), a.evidence.begin(), a.evidence.end());
    }
  }
  out = std::move(kept);
}

// The most useful first: whether training is right, then what makes it faster or the device's
// limits, then what the figures are, then how far they can be trusted. Ties keep the rules' order.
void rank_by_use(std::vector<Advice>& out) {
  static const std::map<std::string, int> rank = {
      {"precision-parity-failed", 0}, {"parity-drift", 0},       {"precision-drifts", 0},   {"accelerator-slower", 1},
      {"input-bound", 1},             {"launch-bound", 1},       {"batch-memory-edge", 1},  {"batch-knee", 1},
      {"crossover", 1},               {"precision-faster", 1},   {"memory-headroom", 1},    {"overhead-bound", 2},
      {"python-loop", 2},             {"utilisation", 2},        {"precision-slower", 2},   {"noisy", 3}};
  auto rank_of = [](const Advice& a) {
    const auto it = rank.find(a.rule);
    return it == rank.end() ? 2 : it->second;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Advice& x, const Advice& y) { return rank_of(x) < rank_of(y); });
}

// One advice per finding: of several memory-headroom advices on one subject (a batch sweep's points)
// the one with the highest share (the strongest evidence); none beside the batch sweep's memory edge,
// which already says memory is the limit.
void one_per_finding(std::vector<Advice>& out) {
  auto share_of = [](const Advice& a) {
    for (const auto& e : a.evidence)
      if (e.rfind("share=", 0) == 0) return std::strtod(e.c_str() + 6, nullptr);
    return 0.0;
  };
  const bool edge = std::any_of(out.begin(), out.end(), [](const Advice& a) { return a.rule == "batch-memory-edge"; });
  std::vector<Advice> kept;
  for (const auto& a : out) {
    if (a.rule != "memory-headroom") {
      kept.push_back(a);
      continue;
    }
    if (edge) continue;
    auto same = std::find_if(kept.begin(), kept.end(), [&](const Advice& k) { return k.rule == a.rule && k.subject == a.subject; });
    if (same == kept.end()) kept.push_back(a);
    else if (share_of(a) > share_of(*same)) *same = a;
  }
  out = std::move(kept);
}

std::vector<Advice> advise_run(const RunResult& run, const AnySweep* sweep, const std::string& sweep_kind) {
  std::vector<Advice> out;
  if (sweep) advise_sweep(run, *sweep, out);
  advise_speedups(run, sweep_kind, out);
  for (const auto& c : run.cases) {
    if (!c.ok()) continue;
    advise_case(run, c, out);
    // One launch-bound advice per subject: in a sweep, its last point (a batch sweep's largest batch).
    std::erase_if(out, [&](const Advice& a) { return a.rule == "launch-bound" && a.subject == subject_of(c); });
    advise_launch_bound(run, c, out);
    advise_utilisation(c, out);
    advise_python_loop(run, c, out);
    if (sweep_kind != "precision") advise_precision_case(run, c, out);  // a precision sweep has its own rules
  }
  one_per_finding(out);
  said_once(out);
  rank_by_use(out);
  return out;
}

}  // namespace

std::string render_advice(const std::vector<Advice>& advice) {
  if (advice.empty()) return "";
  std::string out = "Advice (each rests on the measurement it quotes):\n";
  for (const auto& a : advice) out += fmt::format("  - {}: {}\n", a.subject, a.text);
  return out;
}

}  // namespace accelbench
