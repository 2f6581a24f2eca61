#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "device/device.h"
#include "engine/case_measurement.h"
#include "engine/parity.h"
#include "workloads/workload.h"

using namespace accelbench;

namespace {
MeasureOptions quick() {
  MeasureOptions o;
  o.settings.stopping.min_samples = 5;
  o.settings.stopping.min_time_s = 0.05;
  o.settings.stopping.max_time_s = 3;
  o.settings.stopping.ci_target = 0.05;
  return o;
}

// A task of one weight whose step does nothing a test would time; the workloads below change one part.
struct OneWeightTask : TrainingTask {
  at::Tensor w = torch::ones({1}, torch::requires_grad());
  at::Tensor forward_loss() override { return (w * 2).sum(); }
  void backward(const at::Tensor& l) override { l.backward(); }
  void optimizer_step() override { w.mutable_grad().reset(); }
  double evaluation_loss() override { return 1.0; }
  std::int64_t parameter_count() const override { return 1; }
  std::string data_source() const override { return "none"; }
  bool synthetic_data() const override { return true; }
  std::string optimizer_description() const override { return "none"; }
};

// A workload whose loss turns NaN after a few steps.
class DivergingWorkload : public Workload {
 public:
  WorkloadInfo info() const override { return {"diverging", "test", 100, "samples", 1, 1}; }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions&) const override {
    struct Task : OneWeightTask {
      int n = 0;
      at::Tensor forward_loss() override {
        ++n;
        return n > 4 ? (w * std::numeric_limits<float>::quiet_NaN()).sum() : (w * 2).sum();
      }
    };
    return std::make_unique<Task>();
  }
};

// A workload whose loss scaling "skips" the optimizer step on steps 2 and 4 of every run (as a
// float16 scaler does on Inf/NaN gradients): parity must count exactly those.
class SkippingWorkload : public Workload {
 public:
  WorkloadInfo info() const override { return {"skipping", "test", 100, "samples", 1, 1}; }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions&) const override {
    struct Task : OneWeightTask {
      int steps = 0;
      void optimizer_step() override {
        ++steps;
        OneWeightTask::optimizer_step();
      }
      bool last_step_skipped() override { return steps == 2 || steps == 4; }
    };
    return std::make_unique<Task>();
  }
};
}  // namespace

TEST(Runner, MeasuresMlpOnCpu) {
  auto cpu = open_device("cpu");
  auto w = make_workload("mlp");
  CaseSpec spec{"mlp", "cpu", "float32", 16, 0};
  std::vector<std::string> stages;
  const auto r = measure_case(spec, *w, *cpu, quick(), [&](const ProgressEvent& e) { stages.push_back(e.stage); });
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_GE(r.samples.size(), 5u);
  EXPECT_GT(r.stats.median, 0);
  EXPECT_LE(r.stats.ci_low, r.stats.median);
  EXPECT_GE(r.stats.ci_high, r.stats.median);
  EXPECT_GT(r.samples_per_s, 0);
  EXPECT_NEAR(r.epoch_s_estimate, r.stats.median * 3750, 1e-9);
  EXPECT_LT(r.loss_after, r.loss_before);
  EXPECT_EQ(r.parameter_count, 814090);
  EXPECT_GE(r.warmup_steps, 3);
  EXPECT_GE(r.steps_per_sample, 1);
  EXPECT_GT(r.spec.threads, 0);
  EXPECT_TRUE(r.memory.peak_rss_bytes.has_value());
  ASSERT_FALSE(stages.empty());
  EXPECT_EQ(stages.front(), "build");
}

// Timing claims run under the `timing` label (not gated by CI: a loaded machine may break them).
TEST(Timing, RunnerCaseEndsWithinItsAllowance) {
  auto cpu = open_device("cpu");
  auto w = make_workload("mlp");
  const auto r = measure_case({"mlp", "cpu", "float32", 16, 0}, *w, *cpu, quick());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_LE(r.wall_s, 3 + 1.0);  // the allowance bounds the case (plus the last sample)
}

TEST(Runner, NanLossStopsTheCaseWithAClearMessage) {
  auto cpu = open_device("cpu");
  DivergingWorkload w;
  const auto r = measure_case({"diverging", "cpu", "float32", 1, 0}, w, *cpu, quick());
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("NaN"), std::string::npos) << r.error;
  EXPECT_EQ(r.failure, FailureKind::diverged);
}

// A workload whose phases take known times (sleeps): forward 2 ms, backward 6 ms, optimizer 12 ms.
class PhasedSleepWorkload : public Workload {
 public:
  WorkloadInfo info() const override { return {"phased", "test", 100, "samples", 1, 1}; }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions&) const override {
    struct Task : TrainingTask {
      at::Tensor w = torch::ones({1}, torch::requires_grad());
      static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
      at::Tensor forward_loss() override {
        sleep_ms(2);
        return (w * 2).sum();
      }
      void backward(const at::Tensor& l) override {
        sleep_ms(6);
        l.backward();
      }
      void optimizer_step() override {
        sleep_ms(12);
        w.mutable_grad().reset();
      }
      double evaluation_loss() override { return 1.0; }
      std::int64_t parameter_count() const override { return 1; }
      std::string data_source() const override { return "none"; }
      bool synthetic_data() const override { return true; }
      std::string optimizer_description() const override { return "none"; }
    };
    return std::make_unique<Task>();
  }
};

namespace {
CaseResult measure_phased_sleeps() {
  auto cpu = open_device("cpu");
  PhasedSleepWorkload w;
  auto o = quick();
  o.settings.phases = true;
  return measure_case({"phased", "cpu", "float32", 1, 0}, w, *cpu, o);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

// Each phase's time is checked against what that phase really takes: a phase recorded under
// another phase's name falls below that phase's sleep, and a phase timed across the wrong
// boundaries makes the phases add up to more than the step they were timed in.
TEST(Runner, PhasesAreRecordedPerSample) {
  const auto r = measure_phased_sleeps();
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r.phases.has_value());
  EXPECT_EQ(r.steps_per_sample, 1);
  ASSERT_GE(r.samples.size(), 5u);
  EXPECT_EQ(r.phases->forward.size(), r.samples.size());
  EXPECT_EQ(r.phases->backward.size(), r.samples.size());
  EXPECT_EQ(r.phases->optimizer.size(), r.samples.size());
  // A sleep never ends early; on a loaded machine it may end late, by any amount: the lower bounds
  // hold everywhere, and the phases are parts of the step they were timed in.
  EXPECT_GE(median_of(r.phases->forward), 0.002);
  EXPECT_GE(median_of(r.phases->backward), 0.006);
  EXPECT_GE(median_of(r.phases->optimizer), 0.012);
  EXPECT_GE(r.stats.median, 0.020);  // the sample is the whole step
  for (std::size_t i = 0; i < r.samples.size(); ++i)
    EXPECT_LE(r.phases->forward[i] + r.phases->backward[i] + r.phases->optimizer[i], r.samples[i] * 1.0001) << i;
}

// The same phases, each within 3 ms of its sleep (a timing claim: `timing` label).
TEST(Timing, PhasesEndCloseToTheirSleeps) {
  const auto r = measure_phased_sleeps();
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r.phases.has_value());
  EXPECT_LT(median_of(r.phases->forward), 0.005);
  EXPECT_LT(median_of(r.phases->backward), 0.009);
  EXPECT_LT(median_of(r.phases->optimizer), 0.015);
}

// A workload whose step takes about 1 ms (a sleep), whatever the machine's load.
class SleepyWorkload : public Workload {
 public:
  WorkloadInfo info() const override { return {"sleepy", "test", 100, "samples", 1, 1}; }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions&) const override {
    struct Task : OneWeightTask {
      at::Tensor forward_loss() override {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return (w * 2).sum();
      }
    };
    return std::make_unique<Task>();
  }
};

TEST(Runner, ShortStepsAreGroupedIntoSamples) {
  auto cpu = open_device("cpu");
  SleepyWorkload w;
  auto o = quick();
  o.settings.min_sample_time_s = 0.02;  // about 20 steps of ~1 ms (fewer when sleeps overshoot)
  const auto r = measure_case({"sleepy", "cpu", "float32", 2, 0}, w, *cpu, o);
  ASSERT_TRUE(r.ok()) << r.error;
  // Steps of ~1 ms (more when the machine is busy and sleeps overshoot) against 20 ms samples.
  EXPECT_GE(r.steps_per_sample, 2);
  EXPECT_GE(r.stats.median * r.steps_per_sample, 0.5 * o.settings.min_sample_time_s);
}

TEST(Runner, ParityCountsTheStepsLossScalingSkipped) {
  auto cpu = open_device("cpu");
  SkippingWorkload w;
  const auto trace = train_for_parity({"skipping", "cpu", "float32", 1, 0}, w, *cpu, quick(), 5);
  ASSERT_TRUE(trace.error.empty()) << trace.error;
  EXPECT_EQ(trace.losses.size(), 5u);
  EXPECT_EQ(trace.skipped_steps, 2);
}

// --full-epoch: after sampling, each repeat trains one real epoch (samples_per_epoch / batch steps,
// rounded up) end to end; a step sleeps 1 ms, so an epoch of 10 steps takes at least 10 ms.
TEST(Runner, FullEpochTimesWholeEpochsOfTheWorkloadsSteps) {
  auto cpu = open_device("cpu");
  SleepyWorkload w;
  auto o = quick();
  o.settings.full_epoch = true;
  o.settings.epoch_repeats = 3;
  const auto r = measure_case({"sleepy", "cpu", "float32", 12, 0}, w, *cpu, o);  // ceil(100 / 12) = 9 steps
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.epoch_s_all.size(), 3u);
  for (double e : r.epoch_s_all) EXPECT_GE(e, 9 * 0.001);
  ASSERT_TRUE(r.epoch_s_measured.has_value());
  EXPECT_GE(*r.epoch_s_measured, *std::min_element(r.epoch_s_all.begin(), r.epoch_s_all.end()));
  EXPECT_LE(*r.epoch_s_measured, *std::max_element(r.epoch_s_all.begin(), r.epoch_s_all.end()));
}
