#include "analysis/advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "core/durations.h"
#include "core/parity.h"

namespace accelbench {

namespace {
std::string subject_of(const CaseResult& c) {
  return c.spec.dtype == "float32" ? fmt::format("{} on {}", c.spec.workload, c.spec.device)
                                   : fmt::format("{} on {} ({})", c.spec.workload, c.spec.device, c.spec.dtype);
}
std::string pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

const CaseResult* find_case(const RunResult& run, const std::string& w, const std::string& d, const std::string& t,
                            std::int64_t batch) {
  for (const auto& c : run.cases)
    if (c.status == "ok" && c.spec.workload == w && c.spec.device == d && c.spec.dtype == t && c.spec.batch_size == batch)
      return &c;
  return nullptr;
}
}  // namespace

namespace {
std::string ci_text(const nlohmann::json& r) {
  return fmt::format("{:.2f}x [{:.2f}, {:.2f}]", r.at("ratio").get<double>(), r.at("low").get<double>(), r.at("high").get<double>());
}
std::string memory_of(const CaseResult& c) {
  if (c.memory.peak_allocated_bytes) return format_bytes(static_cast<double>(*c.memory.peak_allocated_bytes));
  if (c.memory.peak_rss_bytes) return format_bytes(static_cast<double>(*c.memory.peak_rss_bytes)) + " RSS";
  return "";
}

// Batch sweep: the knee, against the smallest batch measured; the out-of-memory edge.
void advise_batch_sweep(const RunResult& run, const nlohmann::json& sw, std::vector<Advice>& out) {
  if (sw.at("knee").is_null()) return;
  const auto knee = sw.at("knee").get<std::int64_t>();
  const CaseSpec label{sw.at("model").get<std::string>(), "", "", 0, 0, sw.value("width", std::int64_t{0}),
                       sw.value("checkpoint", false)};
  const std::string subject = fmt::format("{} on {} ({})", model_label(label), sw.at("device").get<std::string>(),
                                          sw.at("dtype").get<std::string>());
  const CaseResult *at_knee = nullptr, *smallest = nullptr;
  for (const auto& c : run.cases) {
    if (c.status != "ok" || c.samples.empty()) continue;
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
    const auto figure = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", r.ratio * scale, r.low * scale, r.high * scale);
    text += fmt::format(", {} the samples/s of batch {}", figure, smallest->spec.batch_size);
    evidence.push_back("throughput_ratio=" + figure);
  }
  if (const auto mem = memory_of(*at_knee); !mem.empty()) {
    text += ", peak " + mem;
    evidence.push_back("peak_memory=" + mem);
  }
  text += fmt::format(" (the smallest batch within {:.0f}% of the best throughput; larger batches add little speed and "
                      "change the optimization: scale the learning rate with it)",
                      100 * sw.value("knee_tolerance", 0.05));
  out.push_back({"batch-knee", subject, text, evidence});
  if (!sw.at("largest_fit").is_null() && !sw.at("first_oom").is_null()) {
    const auto largest = sw.at("largest_fit").get<std::int64_t>();
    const auto oom = sw.at("smallest_oom").is_null() ? sw.at("first_oom").get<std::int64_t>() : sw.at("smallest_oom").get<std::int64_t>();
    out.push_back({"batch-memory-edge", subject,
                   fmt::format("batch {} is the largest that fits{} (out of memory at {}); to go further use bfloat16 or "
                               "gradient checkpointing (--checkpoint)",
                               largest,
                               sw.at("memory_limit_bytes").is_null()
                                   ? std::string()
                                   : fmt::format(" in {}", format_bytes(sw.at("memory_limit_bytes").get<double>())),
                               oom),
                   {fmt::format("largest_fit={}", largest), fmt::format("oom_at={}", oom)}});
  }
}

// Precision sweep: the fastest precision that keeps parity; precisions that are slower or drift.
void advise_precision_sweep(const nlohmann::json& sw, std::vector<Advice>& out) {
  const std::string base = fmt::format("{} on {}", sw.at("model").get<std::string>(), sw.at("device").get<std::string>());
  const int steps = sw.value("parity_steps", 0);
  for (const auto& p : sw.at("points")) {
    const auto name = p.at("precision").get<std::string>();
    if (name == "float32" || p.at("speedup").is_null()) continue;
    const auto& sp = p.at("speedup");
    const auto figure = ci_text(sp);
    const std::string subject = fmt::format("{} ({})", base, name);
    const auto& parity = p.at("parity");
    const bool has_parity = parity.is_object() && parity.value("error", std::string()).empty() && parity.value("steps", 0) > 0;
    if (parity.is_object() && !has_parity) {
      out.push_back({"precision-parity-failed", subject,
                     fmt::format("{} is {} the speed of float32, but its parity run failed ({}): check it before using it",
                                 name, figure, parity.value("error", std::string("no steps"))),
                     {"speedup=" + figure}});
      continue;
    }
    const double drift = has_parity ? parity.at("loss_rel_diff").get<double>() : 0;
    const double tolerance = sw.value("parity_threshold", sw.value("parity_tolerance", 0.02));
    if (has_parity && drift > tolerance) {
      std::string floor_text;
      if (const auto& f = sw.value("parity_floor", nlohmann::json()); f.is_object() && f.value("error", std::string()).empty())
        floor_text = fmt::format("; float32 against itself drifts by {:.2g}%{}", 100 * f.value("loss_rel_diff", 0.0),
                                 f.value("loss_rel_diff", 0.0) > 0.02 ? ", so this training is chaotic at these settings" : "");
      if (const int skipped = parity.value("skipped_steps", 0); skipped > 0)
        floor_text += fmt::format("; loss scaling skipped {} of its {} steps", skipped, steps);
      out.push_back({"precision-drifts", subject,
                     fmt::format("{} is {} the speed of float32 but its loss after {} steps differs from float32's by {:.2g}% "
                                 "(more than {:.2g}%{}): check its training curve before switching",
                                 name, figure, steps, 100 * drift, 100 * tolerance, floor_text),
                     {"speedup=" + figure, fmt::format("loss_rel_diff={:.2g}%", 100 * drift)}});
    } else if (sp.at("low").get<double>() > 1.05) {
      std::string parity_text = has_parity ? fmt::format(", loss within {:.2g}% of float32 after {} identical steps", 100 * drift, steps)
                                           : " (no parity run)";
      std::vector<std::string> evidence{"speedup=" + figure};
      if (has_parity) evidence.push_back(fmt::format("loss_rel_diff={:.2g}%", 100 * drift));
      out.push_back({"precision-faster", subject,
                     fmt::format("{}: {} faster than float32{}{}", name, figure, parity_text,
                                 sw.at("best").is_string() && sw.at("best").get<std::string>() == name ? "; the best precision here" : ""),
                     evidence});
    } else if (sp.at("high").get<double>() < 0.95) {
      out.push_back({"precision-slower", subject,
                     fmt::format("{} is slower than float32 here ({} the speed): this device has no fast {} path; stay in float32",
                                 name, figure, name),
                     {"speedup=" + figure}});
    }
  }
}

// Threads and workers sweeps: the fewest that come within the tolerance of the best.
void advise_setting_sweep(const RunResult& run, const nlohmann::json& sw, const char* key, const char* noun,
                          std::vector<Advice>& out) {
  const std::string best_key = std::string("best_") + key;
  if (sw.at(best_key).is_null()) return;
  const int best = sw.at(best_key).get<int>();
  const std::string subject = fmt::format("{} on {}", sw.at("model").get<std::string>(), sw.at("device").get<std::string>());
  const nlohmann::json* at_best = nullptr;
  const nlohmann::json* top = nullptr;
  const nlohmann::json* zero = nullptr;
  for (const auto& p : sw.at("points")) {
    if (!p.contains("samples_per_s") || !p.at(key).is_number()) continue;
    if (p.at(key).get<int>() == best) at_best = &p;
    if (!top || p.at("samples_per_s").get<double>() > top->at("samples_per_s").get<double>()) top = &p;
    if (p.at(key).get<int>() == 0) zero = &p;
  }
  if (!at_best || !top) return;
  // "1 thread", "2 threads": `noun` is the plural.
  auto counted = [noun](int n) { return fmt::format("{} {}", n, n == 1 ? std::string(noun).substr(0, std::strlen(noun) - 1) : noun); };
  std::string text = fmt::format("use {}: {} samples/s", counted(best), format_count(at_best->at("samples_per_s").get<double>()));
  std::vector<std::string> evidence{fmt::format("{}={}", key, best),
                                    "samples_per_s=" + format_count(at_best->at("samples_per_s").get<double>())};
  if (std::string(key) == "threads" && at_best->contains("speedup")) {
    text += fmt::format(", {} over 1 thread", ci_text(at_best->at("speedup")));
    evidence.push_back("speedup=" + ci_text(at_best->at("speedup")));
  }
  if (std::string(key) == "workers" && at_best->contains("data_wait_fraction")) {
    text += fmt::format(", data wait {:.1f}% of the step", 100 * at_best->at("data_wait_fraction").get<double>());
    if (zero && zero != at_best && zero->contains("data_wait_fraction"))
      text += fmt::format(" (with 0 workers: {:.1f}%, {} samples/s)", 100 * zero->at("data_wait_fraction").get<double>(),
                          format_count(zero->at("samples_per_s").get<double>()));
    evidence.push_back(fmt::format("data_wait={:.1f}%", 100 * at_best->at("data_wait_fraction").get<double>()));
  }
  if (top != at_best)
    text += fmt::format("; the best, {}, is only {:.1f}% faster", counted(top->at(key).get<int>()),
                        100 * (top->at("samples_per_s").get<double>() / at_best->at("samples_per_s").get<double>() - 1));
  out.push_back({std::string(key) == "threads" ? "threads-best" : "workers-best", subject, text, evidence});
  (void)run;
}

// Crossover: from which batch (or width) the accelerator wins.
void advise_crossover(const nlohmann::json& sw, std::vector<Advice>& out) {
  const auto& c = sw.at("crossover");
  const auto kind = c.at("kind").get<std::string>();
  const auto axis = sw.at("axis").get<std::string>();
  const std::string subject = fmt::format("{} on {} vs cpu", sw.at("model").get<std::string>(), sw.at("device").get<std::string>());
  auto speedup_at = [&](std::int64_t x) -> std::string {
    for (const auto& p : sw.at("points"))
      if (p.at("x").get<std::int64_t>() == x && !p.at("speedup").is_null()) return ci_text(p.at("speedup"));
    return "";
  };
  if (kind == "crosses") {
    const auto at = c.at("at").get<std::int64_t>();
    const auto figure = speedup_at(at);
    out.push_back({"crossover", subject,
                   fmt::format("this model is overhead-bound when small: the accelerator wins only from {0} {1} ({2}); "
                               "below it, {3}",
                               axis, at, figure,
                               c.at("cpu_until").is_null() ? "the two are within the noise"
                                                           : fmt::format("the CPU is faster (up to {} {})", axis, c.at("cpu_until").get<std::int64_t>())),
                   {fmt::format("crossover_{}={}", axis, at), "speedup=" + figure}});
  } else if (kind == "cpu_always" || kind == "never") {
    const nlohmann::json* last = nullptr;  // the largest point measured on both devices
    const nlohmann::json* won = nullptr;   // below it, the last where the accelerator was surely faster ("never")
    for (const auto& p : sw.at("points")) {
      if (p.at("speedup").is_null()) continue;
      if (last && last->at("speedup").at("low").get<double>() > 1.0) won = last;
      last = &p;
    }
    if (!last) return;
    const auto figure = ci_text(last->at("speedup"));
    if (won) {
      const auto won_figure = ci_text(won->at("speedup"));
      out.push_back({"crossover", subject,
                     fmt::format("the accelerator does not stay ahead of the CPU: faster at {0} {1} ({2}) but not at {0} {3} "
                                 "({4}): measure at the {0} you will train with before choosing the device",
                                 axis, won->at("x").get<std::int64_t>(), won_figure, last->at("x").get<std::int64_t>(), figure),
                     {"speedup=" + won_figure, "speedup_at_end=" + figure}});
      return;
    }
    out.push_back({"crossover", subject,
                   fmt::format("the accelerator does not beat the CPU anywhere up to {} {} ({} there): train this model on "
                               "the CPU, or make it larger",
                               axis, last->at("x").get<std::int64_t>(), figure),
                   {"speedup_at_end=" + figure}});
  } else if (kind == "accelerator_always") {
    const auto at = c.at("at").get<std::int64_t>();
    const auto figure = speedup_at(at);
    out.push_back({"crossover", subject,
                   fmt::format("the accelerator is faster from the smallest {} measured ({} {}: {})", axis, axis, at, figure),
                   {"speedup=" + figure}});
  }
}
}  // namespace

std::vector<Advice> advise(const RunResult& run, const nlohmann::json& document) {
  std::vector<Advice> out;
  if (auto sw = document.find("sweep"); sw != document.end() && sw->is_object()) {
    try {
      const auto kind = sw->value("kind", std::string());
      if (kind == "batch") advise_batch_sweep(run, *sw, out);
      else if (kind == "precision") advise_precision_sweep(*sw, out);
      else if (kind == "threads") advise_setting_sweep(run, *sw, "threads", "threads", out);
      else if (kind == "workers") advise_setting_sweep(run, *sw, "workers", "workers", out);
      else if (kind == "crossover") advise_crossover(*sw, out);
    } catch (const nlohmann::json::exception&) {
      // A sweep block from another version: no sweep advice rather than a wrong one.
      out.clear();
    }
  }

  const std::string sweep_kind = document.contains("sweep") && document["sweep"].is_object()
                                     ? document["sweep"].value("kind", std::string())
                                     : std::string();
  const bool precision_sweep = sweep_kind == "precision";

  // 1. Speed-ups: the accelerator barely wins (or loses): the model is overhead-bound at this batch.
  // (A crossover sweep has its own rule over all its points.)
  for (const auto& s : run.speedups) {
    if (sweep_kind == "crossover") break;
    const std::string subject = fmt::format("{} on {}", s.workload, s.device);
    const std::string figure = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", s.ratio, s.ci_low, s.ci_high);
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
    out.push_back({"parity-drift", fmt::format("{} on {} ({})", s.model.empty() ? s.workload : s.model, s.device, s.dtype),
                   fmt::format("training on {} drifts from the CPU's: {}; expected for float16 over many steps, suspicious "
                               "for float32 (check for non-deterministic or wrong kernels)",
                               s.device, describe_parity(*s.parity)),
                   {fmt::format("loss_rel_diff={:.2g}%", 100 * s.parity->loss_rel_diff)}});
  }

  for (const auto& c : run.cases) {
    if (c.status != "ok") continue;
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
    if (c.noisy) {
      const bool wide = c.relative_ci_half_width > c.ci_target;
      out.push_back({"noisy", subject_of(c),
                     wide ? fmt::format("the median's 95% CI is +-{} (target +-{}) after {} samples: close other programs, or "
                                        "give it more time (--max-time-per-case, --budget) before trusting differences under {}",
                                        pct(c.relative_ci_half_width), pct(c.ci_target), c.stats.n, pct(c.relative_ci_half_width))
                          : fmt::format("only {} samples fit in the time allowed (fewer than the minimum asked for): give it more "
                                        "time (--max-time-per-case, --budget) before trusting its CI of +-{}",
                                        c.stats.n, pct(c.relative_ci_half_width)),
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
                                     "memory; use bfloat16 or gradient checkpointing to go further",
                                     format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes)),
                                     format_bytes(static_cast<double>(*d.total_memory_bytes)), pct(share)),
                         {"peak_reserved=" + format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes))}});
        }
      }
    }
    // 5. Lower precision measured beside float32: quote the gain and the loss it reached.
    if (c.spec.dtype != "float32" && !precision_sweep) {  // a precision sweep has its own rules
      const auto* base = find_case(run, c.spec.workload, c.spec.device, "float32", c.spec.batch_size);
      if (base && !base->samples.empty() && !c.samples.empty()) {
        const auto r = ratio_of_medians(base->samples, c.samples);
        const std::string figure = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", r.ratio, r.low, r.high);
        const double loss_gap = base->loss_after != 0 ? (c.loss_after - base->loss_after) / std::abs(base->loss_after) : 0;
        if (r.low > 1.05) {
          out.push_back({"precision-faster", subject_of(c),
                         fmt::format("{} is {} faster than float32 (loss after the measured steps {:.4f} vs {:.4f}); "
                                     "check the loss over a longer run before switching",
                                     c.spec.dtype, figure, c.loss_after, base->loss_after),
                         {"speedup=" + figure, fmt::format("loss_gap={:.1f}%", 100 * loss_gap)}});
        } else if (r.high < 0.95) {
          out.push_back({"precision-slower", subject_of(c),
                         fmt::format("{} is slower than float32 here ({} the speed): this device has no fast {} path; "
                                     "stay in float32",
                                     c.spec.dtype, figure, c.spec.dtype),
                         {"speedup=" + figure}});
        }
      }
    }
  }
  return out;
}

std::string render_advice(const std::vector<Advice>& advice) {
  if (advice.empty()) return "";
  std::string out = "Advice (each rests on the measurement it quotes):\n";
  for (const auto& a : advice) out += fmt::format("  - {}: {}\n", a.subject, a.text);
  return out;
}

}  // namespace accelbench
