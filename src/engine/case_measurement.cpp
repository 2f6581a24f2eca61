#include "engine/case_measurement.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "core/case_figures.h"
#include "core/drift.h"
#include "core/errors.h"
#include "device/device.h"
#include "engine/graphed_task.h"
#include "optim/autocast.h"
#include "telemetry/sampler.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string first_line(const std::string& s) {
  auto line = s.substr(0, s.find('\n'));
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

void check_finite(const at::Tensor& loss, const char* where, std::size_t step) {
  const double v = loss.item<double>();  // after the clock was read: not timed
  if (!std::isfinite(v))
    throw DivergedError(
        fmt::format("loss became {} at {} step {}: training diverged", std::isnan(v) ? "NaN" : "Inf", where, step));
}

// Out of memory by exception type where the backend has one (CUDA: c10::OutOfMemoryError); the CPU
// and MPS throw a plain c10::Error whose message says so (libtorch-facts section 11).
bool says_out_of_memory(const std::string& message) {
  return message.find("out of memory") != std::string::npos || message.find("can't allocate memory") != std::string::npos;
}

// One case, step by step; run() is the table of contents.
class CaseMeasurement {
 public:
  CaseMeasurement(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& options,
                  const ProgressFn& progress)
      : spec_(spec), workload_(workload), device_(device), inputs_(options.inputs), settings_(options.settings),
        progress_(progress), start_(Clock::now()), allowance_s_(options.settings.stopping.max_time_s) {
    r_.spec = spec;
    r_.ci_target = settings_.stopping.ci_target;
  }

  CaseResult run() {
    describe_workload();
    try {
      Tf32Guard tf32(parse_precision(spec_.dtype).tf32);  // tfloat32: TF32 matmuls for this case only
      build();
      capture_graph();
      warm_up();
      choose_steps_per_sample();
      sample();
      measure_device_busy();
      time_full_epochs();
      finish_training();
    } catch (const UsageError&) {
      throw;  // bad input (a missing or corrupt data file): the command reports it, exit code 2
    } catch (const c10::OutOfMemoryError& e) {
      r_.fail(FailureKind::out_of_memory, "out of memory: " + first_line(e.what_without_backtrace()));
    } catch (const c10::Error& e) {
      const auto msg = first_line(e.what_without_backtrace());
      if (says_out_of_memory(msg)) r_.fail(FailureKind::out_of_memory, "out of memory: " + msg);
      else r_.fail(FailureKind::backend_error, msg);
    } catch (const DivergedError& e) {
      r_.fail(FailureKind::diverged, first_line(e.what()));
    } catch (const std::exception& e) {
      r_.fail(FailureKind::backend_error, first_line(e.what()));
    }
    if (telemetry_) telemetry_->stop();
    device_.empty_cache();
    r_.wall_s = seconds_since(start_);
    summarize();
    return std::move(r_);
  }

 private:
  void report(const char* stage, std::size_t n, double half_width) {
    if (!progress_) return;
    ProgressEvent ev;
    ev.spec = &spec_;
    ev.case_allowance_s = allowance_s_;
    ev.stage = stage;
    ev.samples = n;
    ev.relative_half_width = half_width;
    ev.case_elapsed_s = seconds_since(start_);
    progress_(ev);
  }

  // The workload's figures for this case (epoch size, FLOPs), known before anything is built.
  void describe_workload() {
    WorkloadOptions info_options;
    info_options.inputs = inputs_;
    info_options.width = spec_.width;
    info_options.checkpoint = spec_.checkpoint;
    const auto info = workload_.info_for(info_options);
    r_.samples_per_epoch = info.samples_per_epoch;
    r_.epoch_unit = info.epoch_unit;
    r_.train_flops_per_sample = info.train_flops_per_sample;
    r_.checkpointable = info.has_checkpoint;
    // cuDNN runs float32 convolutions in TF32 unless told not to (torch.backends.cudnn.allow_tf32).
    if (info.convolutional && spec_.dtype == "float32" && device_.torch_device().is_cuda() &&
        at::globalContext().allowTF32CuDNN())
      r_.ceiling_precision = "tfloat32";
    steps_per_epoch_ = static_cast<std::int64_t>(
        std::ceil(static_cast<double>(info.samples_per_epoch) / static_cast<double>(spec_.batch_size)));
  }

  // Model, optimizer and data on the device; the loss before training; telemetry from here on.
  void build() {
    if (spec_.threads > 0) at::set_num_threads(spec_.threads);
    r_.spec.threads = at::get_num_threads();
    report("build", 0, INFINITY);
    device_.reset_peak_memory();
    auto wo = workload_options_for(spec_, device_, inputs_);
    // A real epoch goes through a whole epoch of distinct batches (the whole data set when real).
    if (settings_.full_epoch) wo.staged_batches = static_cast<int>(steps_per_epoch_);
    task_ = workload_.build(wo);
    r_.parameter_count = task_->parameter_count();
    r_.data_source = task_->data_source();
    r_.synthetic_data = task_->synthetic_data();
    r_.optimizer = task_->optimizer_description();
    r_.pipeline = task_->pipeline_description();
    r_.numerics = task_->numerics_description();
    phases_ = settings_.phases && task_->supports_phases();
    r_.loss_before = task_->evaluation_loss();
    if (!std::isfinite(r_.loss_before)) throw CaseError("the initial loss is not finite");
    // Telemetry: sampled from the warm-up on; its measured window opens and closes at the sampling
    // phase's device synchronizations, the same boundaries as the timing.
    if (settings_.telemetry) {
      telemetry_.emplace(telemetry_sources_for(spec_.device), SamplerOptions{.hz = settings_.telemetry_hz});
      telemetry_->start();
    }
  }

  // --graphs: the whole step captured as one device graph after a few eager steps; from here on each
  // step is a replay (engine/graphed_task.h). A step that cannot be captured fails the case with
  // the reason: it is never measured eagerly instead.
  void capture_graph() {
    if (!spec_.graphs) return;
    report("capture", 0, INFINITY);
    task_ = capture_training_step(std::move(task_), device_.torch_device());
    r_.device_operations_per_step = task_->device_operations_per_step();
    r_.optimizer = task_->optimizer_description();
    r_.pipeline = task_->pipeline_description();
    phases_ = false;
  }

  // Until the step time stops moving, bounded by a share of the case's time.
  void warm_up() {
    warmup_.emplace(WarmupDetector::Options{.min_steps = settings_.min_warmup_steps});
    const auto warm_start = Clock::now();
    const double warm_limit_s = settings_.max_warmup_fraction * allowance_s_;
    while (true) {
      const auto t0 = Clock::now();
      auto loss = task_->step();
      device_.synchronize();
      warmup_->add(seconds_since(t0));
      check_finite(loss, "warm-up", warmup_->count());
      report("warm-up", warmup_->count(), INFINITY);
      if (warmup_->stable()) break;
      const bool out_of_warmup_time =
          warmup_->count() >= settings_.min_warmup_steps && seconds_since(warm_start) >= warm_limit_s;
      if (out_of_warmup_time || minimum_does_not_fit()) {
        r_.warmup_stable = false;
        break;
      }
    }
    r_.warmup_steps = static_cast<int>(warmup_->count());
    r_.warmup_s = seconds_since(warm_start);
  }

  // A step too long for the case's time: the rest of the warm-up and the floor of samples, at the
  // step time seen so far, no longer fit in the time left. The warm-up then ends (its first step,
  // which carries the one-time costs, is never sampled) and sampling takes as many samples as fit,
  // at least one (floor_samples_fitting), so that the case ends within its time plus one sample.
  bool minimum_does_not_fit() const {
    const auto count = warmup_->count();
    const auto warmup_left = settings_.min_warmup_steps > count ? settings_.min_warmup_steps - count : 0;
    const double needed = static_cast<double>(warmup_left + settings_.floor_samples) * warmup_->recent_median();
    return needed > allowance_s_ - seconds_since(start_);
  }

  // The samples taken even past the case's deadline: the floor, or as many as fit in the time left
  // when a sample is long, at least one.
  std::size_t floor_samples_fitting() const {
    const double sample_s = warmup_->recent_median() * steps_per_sample_;
    const double left = std::max(0.0, allowance_s_ - seconds_since(start_));
    const double most = static_cast<double>(settings_.floor_samples);
    const double fit = sample_s > 0 ? std::floor(left / sample_s) : most;
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::min(fit, most)));
  }

  // Short steps are grouped K at a time so that timer and synchronization overheads stay small
  // against a sample; phases are timed one step at a time.
  void choose_steps_per_sample() {
    const double step_estimate_s = std::max(warmup_->recent_median(), 1e-9);
    steps_per_sample_ =
        phases_ ? 1 : std::max(1, static_cast<int>(std::ceil(settings_.min_sample_time_s / step_estimate_s)));
    r_.steps_per_sample = steps_per_sample_;
  }

  // One sample: K steps closed by a synchronization, or one step timed phase by phase.
  // The device's clock runs beside the host's where it has one (device_timer_).
  double take_sample(at::Tensor& loss) {
    if (!phases_) {
      const auto t0 = Clock::now();
      if (device_timer_) device_timer_->start();
      for (int k = 0; k < steps_per_sample_; ++k) loss = task_->step();
      if (device_timer_) device_timer_->stop();
      device_.synchronize();
      const double host_s = seconds_since(t0) / steps_per_sample_;
      if (device_timer_) r_.device_samples.push_back(device_timer_->elapsed_s() / steps_per_sample_);
      return host_s;
    }
    const auto t0 = Clock::now();
    loss = task_->forward_loss();
    device_.synchronize();
    const auto t1 = Clock::now();
    task_->backward(loss);
    device_.synchronize();
    const auto t2 = Clock::now();
    task_->optimizer_step();
    device_.synchronize();
    const auto t3 = Clock::now();
    r_.phases->forward.push_back(seconds_between(t0, t1));
    r_.phases->backward.push_back(seconds_between(t1, t2));
    r_.phases->optimizer.push_back(seconds_between(t2, t3));
    return seconds_between(t0, t3);
  }

  // Timed samples until the median's CI meets its target or the case's time is up. A level change
  // found among them then (core/drift.h) drops the samples before it as warm-up and goes on, while
  // time is left; else the case is flagged drifting.
  void sample() {
    if (phases_) r_.phases = PhaseSamples{};
    if (!phases_) device_timer_ = device_.make_timer();
    task_->take_data_wait_s();  // the pipeline's waits during warm-up are not sampled
    if (telemetry_) {
      device_.synchronize();
      telemetry_->mark_window_begin();
    }
    const auto sample_start = Clock::now();
    floor_samples_ = floor_samples_fitting();
    int restarts = 0;
    while (true) {
      AdaptiveStopper stopper = sample_until_stop();
      const bool time_left = allowance_s_ - seconds_since(start_) > 0;
      const auto drift = decide_on_drift(stopper.samples(), time_left, restarts);
      if (drift.drop_and_continue) {
        drop_front(drift.drop);
        ++restarts;
        continue;
      }
      r_.drifting = drift.drifting;
      r_.noisy = !stopper.target_met();
      break;
    }
    r_.measure_s = seconds_since(sample_start);
    if (telemetry_) telemetry_->mark_window_end(static_cast<std::int64_t>(steps_sampled_));  // the last sample synchronized
  }

  // Samples (on top of those kept so far) until the stopping rule says stop, with the time left.
  AdaptiveStopper sample_until_stop() {
    StoppingRule rule = settings_.stopping;
    rule.max_time_s = std::max(0.0, allowance_s_ - seconds_since(start_));
    AdaptiveStopper stopper(rule);
    for (double kept : r_.samples) stopper.add(kept, 0);
    const auto resume = Clock::now();
    auto last_report = Clock::now();
    while (true) {
      at::Tensor loss;
      const double sample_s = take_sample(loss);
      steps_sampled_ += static_cast<std::size_t>(steps_per_sample_);
      r_.samples.push_back(sample_s);
      stopper.add(sample_s, seconds_since(resume));
      if (inputs_.workers >= 0) r_.data_wait_samples.push_back(task_->take_data_wait_s() / steps_per_sample_);
      check_finite(loss, "measured", steps_sampled_);
      if (seconds_since(last_report) > 0.25) {
        report("measure", stopper.samples().size(), stopper.relative_half_width());
        last_report = Clock::now();
      }
      if (stopper.should_stop() && stopper.samples().size() >= floor_samples_) return stopper;
    }
  }

  // The first n samples (and what was recorded beside them) become warm-up.
  void drop_front(std::size_t n) {
    auto drop = [n](std::vector<double>& v) { v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))); };
    drop(r_.samples);
    drop(r_.device_samples);
    drop(r_.data_wait_samples);
    if (r_.phases) {
      drop(r_.phases->forward);
      drop(r_.phases->backward);
      drop(r_.phases->optimizer);
    }
    r_.discarded_samples += n;
    r_.warmup_steps += static_cast<int>(n) * steps_per_sample_;
  }

  // The device's busy time per step, after sampling (the telemetry window is closed): the queue is
  // held (a spin kernel, Device::hold_queue) for longer than the host needs to launch a sample's K
  // steps, which then run back to back, so that events around them time the device's own work,
  // without the host's launch gaps. A try whose launches outlast the hold is put aside: either a
  // step waits for the device (a read-back), or the launch queue filled (a step of more kernels
  // than the queue holds, as bert-base's in bfloat16: the host then waits for the device, which is
  // therefore the limit and, once released, is fed without gaps). Only when every try outlasted
  // the hold are those figures used (the built-in workloads read nothing back in a step). Five
  // tries; none where the queue cannot be held.
  void measure_device_busy() {
    if (phases_ || !device_timer_ || r_.samples.empty()) return;
    const double host_sample_s = accelbench::summarize(r_.samples).median * steps_per_sample_;
    std::vector<double> outlasted;
    for (int attempt = 0; attempt < 5; ++attempt) {
      const double hold_s = std::min(2.0, 2.0 * host_sample_s + 0.002);
      if (!device_.hold_queue(hold_s)) return;
      device_timer_->start();
      const auto t0 = Clock::now();
      at::Tensor loss;
      for (int k = 0; k < steps_per_sample_; ++k) loss = task_->step();
      const double launch_s = seconds_since(t0);
      device_timer_->stop();
      device_.synchronize();
      check_finite(loss, "measured", steps_sampled_);
      (launch_s < hold_s ? r_.device_busy_samples : outlasted).push_back(device_timer_->elapsed_s() / steps_per_sample_);
    }
    if (r_.device_busy_samples.empty()) r_.device_busy_samples = std::move(outlasted);
  }

  // --full-epoch: real epochs end to end, after sampling (not bounded by the case's time).
  void time_full_epochs() {
    if (!settings_.full_epoch) return;
    for (int e = 0; e < std::max(1, settings_.epoch_repeats); ++e) {
      report("full epoch", static_cast<std::size_t>(e), INFINITY);
      const auto t0 = Clock::now();
      at::Tensor loss;
      for (std::int64_t s = 0; s < steps_per_epoch_; ++s) loss = task_->step();
      device_.synchronize();
      r_.epoch_s_all.push_back(seconds_since(t0));
      check_finite(loss, "full-epoch", static_cast<std::size_t>(steps_per_epoch_));
    }
    r_.epoch_s_measured = olympic_mean(r_.epoch_s_all);
  }

  // The loss after training, the memory it took, and the model released.
  void finish_training() {
    r_.loss_after = task_->evaluation_loss();
    r_.memory = device_.memory_usage();
    task_.reset();
  }

  // Statistics of the samples, the figures derived from them, and the telemetry of the window.
  void summarize() {
    if (r_.samples.empty()) return;
    derive_case_figures(r_);
    if (telemetry_) r_.telemetry = telemetry_->summarize(telemetry_request());
  }

  SummaryRequest telemetry_request() const {
    SummaryRequest req;
    req.device_role = device_.is_cpu() ? "cpu" : "accelerator";
    req.steps_per_epoch = static_cast<double>(steps_per_epoch_);
    req.epochs = settings_.epochs;
    req.step_mean_s = r_.stats.mean;
    if (r_.stats.n > 1 && r_.stats.mean > 0)
      req.step_mean_rel_ci =
          t_quantile_95(r_.stats.n - 1) * r_.stats.stddev / std::sqrt(static_cast<double>(r_.stats.n)) / r_.stats.mean;
    return req;
  }

  const CaseSpec& spec_;
  const Workload& workload_;
  Device& device_;
  const WorkloadInputs& inputs_;
  const MeasureSettings& settings_;
  const ProgressFn& progress_;
  const Clock::time_point start_;
  const double allowance_s_;
  CaseResult r_;
  std::int64_t steps_per_epoch_ = 0;
  std::unique_ptr<TrainingTask> task_;
  std::optional<Sampler> telemetry_;
  std::optional<WarmupDetector> warmup_;
  std::unique_ptr<DeviceTimer> device_timer_;
  bool phases_ = false;
  int steps_per_sample_ = 1;
  std::size_t floor_samples_ = 1;  // samples taken even past the deadline (floor_samples_fitting)
  std::size_t steps_sampled_ = 0;
};
}  // namespace

WorkloadOptions workload_options_for(const CaseSpec& spec, Device& device, const WorkloadInputs& inputs) {
  WorkloadOptions wo;
  wo.device = device.torch_device();
  wo.batch_size = spec.batch_size;
  wo.dtype = spec.dtype;
  wo.width = spec.width;
  wo.checkpoint = spec.checkpoint;
  wo.graphs = spec.graphs;
  wo.inputs = inputs;
  return wo;
}

CaseResult measure_case(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& options,
                        const ProgressFn& progress) {
  return CaseMeasurement(spec, workload, device, options, progress).run();
}

CaseResult InProcessMeasurer::measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) {
  auto workload = make_workload(spec.workload, options.inputs);
  auto device = open_device(spec.device);
  return measure_case(spec, *workload, *device, options, progress);
}

}  // namespace accelbench
