#include "engine/runner.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "core/errors.h"
#include "device/device.h"
#include "optim/autocast.h"
#include "telemetry/sampler.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string first_line(const std::string& s) {
  auto line = s.substr(0, s.find('\n'));
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

// MLPerf's olympic scoring: drop the fastest and the slowest, average the rest (a plain mean below 3).
double olympic_mean(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.size() >= 3) v = std::vector<double>(v.begin() + 1, v.end() - 1);
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

void check_finite(const at::Tensor& loss, const char* where, std::size_t step) {
  const double v = loss.item<double>();  // after the clock was read: not timed
  if (!std::isfinite(v))
    throw CaseError(fmt::format("loss became {} at {} step {}: training diverged", std::isnan(v) ? "NaN" : "Inf", where, step));
}
}  // namespace

WorkloadOptions workload_options_for(const CaseSpec& spec, Device& device, const MeasureOptions& opt) {
  WorkloadOptions wo;
  wo.device = device.torch_device();
  wo.batch_size = spec.batch_size;
  wo.seed = opt.seed;
  wo.use_real_data = opt.use_real_data;
  wo.data_dir = opt.data_dir;
  wo.workers = opt.workers;
  wo.dtype = spec.dtype;
  wo.variant = opt.variant;
  wo.text_path = opt.text_path;
  wo.seq_len = opt.seq_len;
  wo.width = spec.width;
  wo.checkpoint = spec.checkpoint;
  return wo;
}

CaseResult measure_case(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& opt,
                        const ProgressFn& progress) {
  CaseResult r;
  r.spec = spec;
  r.ci_target = opt.stopping.ci_target;
  WorkloadOptions info_options;
  info_options.variant = opt.variant;
  info_options.seq_len = opt.seq_len;
  info_options.width = spec.width;
  info_options.checkpoint = spec.checkpoint;
  const auto info = workload.info_for(info_options);
  r.samples_per_epoch = info.samples_per_epoch;
  r.epoch_unit = info.epoch_unit;
  r.train_flops_per_sample = info.train_flops_per_sample;
  const auto case_start = Clock::now();
  const double allowance = opt.stopping.max_time_s;
  ProgressEvent ev;
  ev.spec = &spec;
  ev.case_allowance_s = allowance;
  auto report = [&](const char* stage, std::size_t n, double hw) {
    if (!progress) return;
    ev.stage = stage;
    ev.samples = n;
    ev.relative_half_width = hw;
    ev.case_elapsed_s = seconds_since(case_start);
    progress(ev);
  };

  // Telemetry: sampled from the warm-up on; its measured window opens and closes at the sampling
  // phase's device synchronizations, the same boundaries as the timing.
  std::optional<Sampler> telemetry;
  try {
    Tf32Guard tf32(parse_precision(spec.dtype).tf32);  // tfloat32: TF32 matmuls for this case only
    if (spec.threads > 0) at::set_num_threads(spec.threads);
    r.spec.threads = at::get_num_threads();
    report("build", 0, INFINITY);
    device.reset_peak_memory();
    auto wo = workload_options_for(spec, device, opt);
    const auto steps_per_epoch = static_cast<std::int64_t>(
        std::ceil(static_cast<double>(info.samples_per_epoch) / static_cast<double>(spec.batch_size)));
    // A real epoch goes through a whole epoch of distinct batches (the whole data set when real).
    if (opt.full_epoch) wo.staged_batches = static_cast<int>(steps_per_epoch);
    auto task = workload.build(wo);
    r.parameter_count = task->parameter_count();
    r.data_source = task->data_source();
    r.synthetic_data = task->synthetic_data();
    r.optimizer = task->optimizer_description();
    r.pipeline = task->pipeline_description();
    const bool phases = opt.phases && task->supports_phases();
    r.loss_before = task->evaluation_loss();
    if (!std::isfinite(r.loss_before)) throw CaseError("the initial loss is not finite");

    if (opt.telemetry) {
      telemetry.emplace(telemetry_sources_for(spec.device), SamplerOptions{.hz = opt.telemetry_hz});
      telemetry->start();
    }

    // Warm-up: until the step time stops moving, bounded by a share of the case's time.
    WarmupDetector warmup({.min_steps = opt.min_warmup_steps});
    const auto warm_start = Clock::now();
    const double warm_limit = opt.max_warmup_fraction * allowance;
    while (true) {
      const auto t0 = Clock::now();
      auto loss = task->step();
      device.synchronize();
      warmup.add(seconds_since(t0));
      check_finite(loss, "warm-up", warmup.count());
      report("warm-up", warmup.count(), INFINITY);
      if (warmup.stable()) break;
      if (warmup.count() >= opt.min_warmup_steps && seconds_since(warm_start) >= warm_limit) {
        r.warmup_stable = false;
        break;
      }
    }
    r.warmup_steps = static_cast<int>(warmup.count());
    r.warmup_s = seconds_since(warm_start);

    // Group short steps so that timer and synchronization overhead stay small against a sample.
    const double step_estimate = std::max(warmup.recent_median(), 1e-9);
    const int K = phases ? 1 : std::max(1, static_cast<int>(std::ceil(opt.min_sample_time_s / step_estimate)));
    r.steps_per_sample = K;

    StoppingRule rule = opt.stopping;
    rule.max_time_s = std::max(0.0, allowance - seconds_since(case_start));
    AdaptiveStopper stopper(rule);
    if (phases) r.phases = PhaseSamples{};
    task->take_data_wait_s();  // the pipeline's waits during warm-up are not sampled
    if (telemetry) {
      device.synchronize();
      telemetry->mark_window_begin();
    }
    const auto sample_start = Clock::now();
    std::size_t step_no = 0;
    auto last_report = Clock::now();
    while (true) {
      double sample_s = 0;
      at::Tensor loss;
      if (phases) {
        const auto t0 = Clock::now();
        loss = task->forward_loss();
        device.synchronize();
        const auto t1 = Clock::now();
        task->backward(loss);
        device.synchronize();
        const auto t2 = Clock::now();
        task->optimizer_step();
        device.synchronize();
        const auto t3 = Clock::now();
        r.phases->forward.push_back(std::chrono::duration<double>(t1 - t0).count());
        r.phases->backward.push_back(std::chrono::duration<double>(t2 - t1).count());
        r.phases->optimizer.push_back(std::chrono::duration<double>(t3 - t2).count());
        sample_s = std::chrono::duration<double>(t3 - t0).count();
      } else {
        const auto t0 = Clock::now();
        for (int k = 0; k < K; ++k) loss = task->step();
        device.synchronize();
        sample_s = seconds_since(t0) / K;
      }
      step_no += static_cast<std::size_t>(K);
      stopper.add(sample_s, seconds_since(sample_start));
      if (opt.workers >= 0) r.data_wait_samples.push_back(task->take_data_wait_s() / K);
      check_finite(loss, "measured", step_no);
      if (seconds_since(last_report) > 0.25) {
        report("measure", stopper.samples().size(), stopper.relative_half_width());
        last_report = Clock::now();
      }
      if (stopper.should_stop() && stopper.samples().size() >= opt.floor_samples) break;
    }
    r.measure_s = seconds_since(sample_start);
    if (telemetry) telemetry->mark_window_end(static_cast<std::int64_t>(step_no));  // the last sample synchronized
    r.samples = stopper.samples();
    r.noisy = !stopper.target_met();
    if (opt.full_epoch) {
      for (int e = 0; e < std::max(1, opt.epoch_repeats); ++e) {
        report("full epoch", static_cast<std::size_t>(e), INFINITY);
        const auto t0 = Clock::now();
        at::Tensor loss;
        for (std::int64_t s = 0; s < steps_per_epoch; ++s) loss = task->step();
        device.synchronize();
        r.epoch_s_all.push_back(seconds_since(t0));
        check_finite(loss, "full-epoch", static_cast<std::size_t>(steps_per_epoch));
      }
      r.epoch_s_measured = olympic_mean(r.epoch_s_all);
    }
    r.loss_after = task->evaluation_loss();
    r.memory = device.memory_usage();
    task.reset();
  } catch (const UsageError&) {
    throw;  // bad input (a missing or corrupt data file): the command reports it, exit code 2
  } catch (const c10::OutOfMemoryError& e) {
    r.status = "failed";
    r.error = "out of memory: " + first_line(e.what_without_backtrace());
  } catch (const c10::Error& e) {
    r.status = "failed";
    const auto msg = first_line(e.what_without_backtrace());
    r.error = (msg.find("out of memory") != std::string::npos || msg.find("can't allocate memory") != std::string::npos)
                  ? "out of memory: " + msg
                  : msg;
  } catch (const std::exception& e) {
    r.status = "failed";
    r.error = first_line(e.what());
  }
  if (telemetry) telemetry->stop();
  device.empty_cache();
  r.wall_s = seconds_since(case_start);
  if (!r.samples.empty()) {
    r.stats = summarize(r.samples);
    r.relative_ci_half_width = r.stats.ci_half_width_relative();
    r.samples_per_s = static_cast<double>(spec.batch_size) / r.stats.median;
    const double steps_per_epoch = std::ceil(static_cast<double>(r.samples_per_epoch) / static_cast<double>(spec.batch_size));
    r.epoch_s_estimate = r.stats.median * steps_per_epoch;
    r.achieved_flops_per_s = r.train_flops_per_sample * r.samples_per_s;
    if (!r.data_wait_samples.empty()) {
      r.data_wait_fraction = summarize(r.data_wait_samples).median / r.stats.median;
      r.input_bound = r.data_wait_fraction > 0.10;
    }
    if (telemetry) {
      SummaryRequest req;
      req.device_role = device.is_cpu() ? "cpu" : "accelerator";
      req.steps_per_epoch = steps_per_epoch;
      req.epochs = opt.epochs;
      req.step_mean_s = r.stats.mean;
      if (r.stats.n > 1 && r.stats.mean > 0)
        req.step_mean_rel_ci = t_quantile_95(r.stats.n - 1) * r.stats.stddev / std::sqrt(static_cast<double>(r.stats.n)) / r.stats.mean;
      r.telemetry = telemetry->summarize(req);
    }
  }
  return r;
}

}  // namespace accelbench
