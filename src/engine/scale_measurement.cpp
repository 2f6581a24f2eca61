#include "engine/scale_measurement.h"
#include "core/environment.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "core/stopping.h"
#include "device/device.h"
#include "distributed/data_parallel_task.h"
#include "engine/case_measurement.h"
#include "optim/autocast.h"
#include "report/json_report.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string first_line(const std::string& s) {
  auto line = s.substr(0, s.find('\n'));
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

class ScaleRank {
 public:
  ScaleRank(const ScaleRankRequest& req, Collectives& c, int local_rank) : req_(req), c_(c) {
    m_.rank = c.rank();
    m_.world_size = c.world_size();
    m_.local_rank = local_rank;
    m_.backend = c.backend();
    m_.device = fmt::format("cuda:{}", local_rank);
  }

  RankMeasurement run() {
    Tf32Guard tf32(parse_precision(req_.dtype).tf32);
    build();
    warm_up();
    sample();
    time_communication();
    time_bare_allreduce();
    m_.loss_after = stepper().evaluation_loss();
    return m_;
  }

 private:
  // The model on this rank's GPU, rank 0's weights everywhere, the gradient buckets.
  void build() {
    device_ = open_device(m_.device);
    m_.device_name = device_->description().name;
    auto workload = make_workload(req_.workload);
    CaseSpec spec{.workload = req_.workload, .device = m_.device, .dtype = req_.dtype, .batch_size = req_.batch_size};
    auto inner = workload->build(workload_options_for(spec, *device_, req_.options.inputs));
    broadcast_parameters(c_, inner->trainable_parameters(), 0);
    if (env_switch("ACCELBENCH_SCALE_WITHOUT_REDUCER", false)) {
      // A diagnostic (docs/multi-gpu.md): the rank trains its own copy with no gradient all-reduce,
      // in the same process, process group and loop, to tell the harness's cost from the reducer's.
      plain_ = std::move(inner);
      m_.backend += " (diagnostic: no gradient all-reduce)";
      m_.parameter_count = plain_->parameter_count();
      for (const auto& p : plain_->trainable_parameters()) m_.gradient_bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
      m_.bucket_bytes = {m_.gradient_bytes};
      m_.loss_before = plain_->evaluation_loss();
      if (!std::isfinite(m_.loss_before)) throw std::runtime_error("the initial loss is not finite");
      return;
    }
    // One rank: one bucket, launched after the backward pass (nothing to overlap; each hook and
    // all-reduce call is host time a launch-bound step pays). Otherwise DDP's buckets from the hooks.
    const bool one_bucket = req_.one_bucket_on_one_gpu && c_.world_size() == 1;
    const auto bucket_bytes = one_bucket ? kOneBucket : static_cast<std::int64_t>(req_.bucket_mb * 1024 * 1024);
    task_ = std::make_unique<DataParallelTask>(
        std::move(inner), c_, bucket_bytes, req_.bucket_views ? GradientLayout::bucket_views : GradientLayout::copied,
        one_bucket ? ReducerLaunch::after_backward : ReducerLaunch::from_hooks,
        one_bucket ? kOneBucket : GradientReducer::kDefaultFirstBucketBytes);
    m_.all_reduced_after_backward = task_->reducer().launch_point() == ReducerLaunch::after_backward;
    m_.parameter_count = task_->parameter_count();
    m_.numerics = task_->numerics_description();
    m_.bucket_bytes = task_->reducer().bucket_bytes();
    m_.gradient_bytes = task_->reducer().total_bytes();
    m_.loss_before = task_->evaluation_loss();
    if (!std::isfinite(m_.loss_before)) throw std::runtime_error("the initial loss is not finite");
    if (req_.overhead) baseline_ = workload->build(workload_options_for(spec, *device_, req_.options.inputs));
  }

  double timed_steps(int k) { return timed_steps(stepper(), k); }
  double timed_steps(TrainingTask& task, int k) {
    const auto t0 = Clock::now();
    at::Tensor loss;
    for (int i = 0; i < k; ++i) loss = task.step();
    device_->synchronize();
    const double s = seconds_since(t0) / k;
    if (!std::isfinite(loss.item<double>())) throw std::runtime_error("the loss became NaN or Inf: training diverged");
    return s;
  }

  // Until every rank's step time is stable (or the warm-up's share of the time is spent).
  void warm_up() {
    const auto& settings = req_.options.settings;
    WarmupDetector detector(WarmupDetector::Options{.min_steps = std::max<std::size_t>(settings.min_warmup_steps, 5)});
    const auto start = Clock::now();
    const double limit_s = settings.max_warmup_fraction * settings.stopping.max_time_s;
    while (true) {
      detector.add(timed_steps(1));
      const bool done = detector.stable() || (detector.count() >= 5 && seconds_since(start) > limit_s);
      if (all_ranks_agree(c_, done, device_->torch_device())) break;
    }
    m_.warmup_steps = static_cast<int>(detector.count());
    if (baseline_)  // no collectives in it: as many steps as the data-parallel one took, 5 to 50
      for (int i = 0; i < std::clamp(m_.warmup_steps, 5, 50); ++i) timed_steps(*baseline_, 1);
    const double estimate = std::max(detector.recent_median(), 1e-9);
    const double k = std::max(1.0, std::ceil(settings.min_sample_time_s / estimate));
    m_.steps_per_sample = static_cast<int>(broadcast_value(c_, k, 0, device_->torch_device()));
  }

  // Samples until every rank's stopping rule says stop. With a baseline, each sample has one of the
  // baseline beside it, taken before it and after it in turn (what drifts over the pair cancels).
  void sample() {
    const auto& settings = req_.options.settings;
    AdaptiveStopper stopper(settings.stopping);
    const auto start = Clock::now();
    const auto host_before = task_ ? task_->reducer().host_times() : GradientReducer::HostTimes{};
    while (true) {
      const bool baseline_first = baseline_ && m_.samples.size() % 2 == 1;
      if (baseline_first) m_.baseline_samples.push_back(timed_steps(*baseline_, m_.steps_per_sample));
      const double s = timed_steps(m_.steps_per_sample);
      if (baseline_ && !baseline_first) m_.baseline_samples.push_back(timed_steps(*baseline_, m_.steps_per_sample));
      m_.samples.push_back(s);
      stopper.add(s, seconds_since(start));
      const bool stop = stopper.should_stop() && m_.samples.size() >= settings.floor_samples;
      if (all_ranks_agree(c_, stop, device_->torch_device())) break;
    }
    if (!task_) return;
    m_.buckets_launched_in_backward = task_->reducer().launched_during_backward();
    const auto& host = task_->reducer().host_times();
    const double steps = static_cast<double>(m_.samples.size()) * m_.steps_per_sample;
    m_.reducer_host_s = (host.total_s - host_before.total_s) / steps;
    m_.reducer_copies_s = (host.copies_s - host_before.copies_s) / steps;
    m_.reducer_allreduce_calls_s = (host.allreduce_calls_s - host_before.allreduce_calls_s) / steps;
    m_.reducer_waits_s = (host.waits_s - host_before.waits_s) / steps;
  }

  // The all-reduces' device time per step, from a few more steps with the collectives' timing on
  // (its events cost host time, so these steps are not among the step-time samples). Every rank runs
  // the same number of steps, so the collectives match.
  void time_communication() {
    if (!task_) return;
    c_.enable_timing();
    for (int i = 0; i < kCommunicationSteps; ++i) {
      stepper().step();
      device_->synchronize();
      if (auto comm = task_->reducer().last_step_comm_s()) m_.comm_samples.push_back(*comm);
    }
  }
  static constexpr int kCommunicationSteps = 10;

  // One all-reduce of the gradients' size, and the buckets' all-reduces back to back (medians).
  void time_bare_allreduce() {
    const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device_->torch_device());
    auto whole = torch::ones({m_.gradient_bytes / 4}, options);
    std::vector<at::Tensor> buckets;
    for (auto b : m_.bucket_bytes) buckets.push_back(torch::ones({b / 4}, options));
    std::vector<double> one, all;
    for (int i = 0; i < 23; ++i) {
      c_.barrier();
      device_->synchronize();
      auto t0 = Clock::now();
      c_.allreduce_sum(whole)->wait();
      device_->synchronize();
      if (i >= 3) one.push_back(seconds_since(t0));
      t0 = Clock::now();
      std::vector<std::shared_ptr<CollectiveWork>> works;
      for (auto& b : buckets) works.push_back(c_.allreduce_sum(b));
      for (auto& w : works) w->wait();
      device_->synchronize();
      if (i >= 3) all.push_back(seconds_since(t0));
    }
    m_.bare_allreduce_s = summarize(one).median;
    m_.bare_buckets_s = summarize(all).median;
  }

  static constexpr std::int64_t kOneBucket = std::int64_t{1} << 62;  // larger than any model's gradients
  const ScaleRankRequest& req_;
  Collectives& c_;
  RankMeasurement m_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<DataParallelTask> task_;
  std::unique_ptr<TrainingTask> plain_;  // ACCELBENCH_SCALE_WITHOUT_REDUCER=1 only
  std::unique_ptr<TrainingTask> baseline_;  // overhead: a copy of the workload trained without data parallelism
  TrainingTask& stepper() { return task_ ? static_cast<TrainingTask&>(*task_) : *plain_; }
};
}  // namespace

RankMeasurement measure_scale_rank(const ScaleRankRequest& request, Collectives& collectives, int local_rank,
                                   const std::string& out_path) {
  RankMeasurement m;
  try {
    m = ScaleRank(request, collectives, local_rank).run();
  } catch (const c10::Error& e) {
    m.error = first_line(e.what_without_backtrace());
  } catch (const std::exception& e) {
    m.error = first_line(e.what());
  }
  if (!m.error.empty()) {
    m.rank = collectives.rank();
    m.world_size = collectives.world_size();
    m.local_rank = local_rank;
  }
  if (!out_path.empty()) write_json_document(nlohmann::json(m), out_path);
  if (m.error.empty()) collectives.barrier();  // every rank's file is written after this
  return m;
}

}  // namespace accelbench
