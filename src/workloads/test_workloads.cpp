// Test-only workloads, registered only when ACCELBENCH_TEST_WORKLOADS=1 (users never see them): the
// mlp on synthetic data, failing on purpose from some batch size on, for the sweep's end-to-end
// tests (tests/e2e/sweep_cli_test.cpp).
//   test-abort: std::abort() at batch >= $ACCELBENCH_TEST_ABORT_AT (default 64): a crash (SIGABRT).
//   test-oom:   c10::OutOfMemoryError at batch > $ACCELBENCH_TEST_OOM_ABOVE (default 100), as the
//               CUDA caching allocator throws it.
//   test-sync:  the mlp reading its loss back on the host inside the step it asks to be captured
//               (--graphs): the capture must fail with the reason, never run eagerly.
#include <c10/util/Exception.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "workloads/workload.h"
#include "core/environment.h"

namespace accelbench {

std::unique_ptr<Workload> make_mlp_workload();  // mlp.cpp: the workload these wrap

namespace {

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const auto v = env_integer(name);
  return v.value.value_or(fallback);
}

// The same for the test workloads: their own name and description, synthetic data only, no flags
// of the mlp's, no Python twin.
WorkloadInfo test_info(WorkloadInfo i, std::string name, std::string description) {
  i.name = std::move(name);
  i.description = std::move(description);
  i.dataset.clear();
  i.has_width = false;
  i.default_width = 0;
  return i;
}

class FailingWorkload final : public Workload {
 public:
  enum class Kind { abort, oom };
  explicit FailingWorkload(Kind kind) : kind_(kind), inner_(make_mlp_workload()) {}

  WorkloadInfo info() const override {
    return test_info(inner_->info(), kind_ == Kind::abort ? "test-abort" : "test-oom",
                     kind_ == Kind::abort ? "test only: the mlp, aborting at batch >= $ACCELBENCH_TEST_ABORT_AT"
                                          : "test only: the mlp, out of memory at batch > $ACCELBENCH_TEST_OOM_ABOVE");
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& options) const override {
    if (kind_ == Kind::abort) {
      const auto at = env_int("ACCELBENCH_TEST_ABORT_AT", 64);
      if (options.batch_size >= at) {
        std::fprintf(stderr, "test-abort: aborting at batch %lld (>= %lld)\n", static_cast<long long>(options.batch_size),
                     static_cast<long long>(at));
        std::fflush(stderr);
        std::abort();
      }
    } else {
      const auto above = env_int("ACCELBENCH_TEST_OOM_ABOVE", 100);
      TORCH_CHECK_WITH(OutOfMemoryError, options.batch_size <= above, "test-oom: simulated out of memory at batch ",
                       options.batch_size, " (the limit is ", above, ")");
    }
    auto o = options;
    o.inputs.use_real_data = false;  // the same synthetic data everywhere; no files needed
    return inner_->build(o);
  }

 private:
  Kind kind_;
  std::unique_ptr<Workload> inner_;
};

// The mlp's task with a host read-back of the loss in its captured step.
class SyncingTask final : public TrainingTask {
 public:
  explicit SyncingTask(std::unique_ptr<TrainingTask> inner) : inner_(std::move(inner)) {}
  at::Tensor forward_loss() override { return inner_->forward_loss(); }
  void backward(const at::Tensor& loss) override { inner_->backward(loss); }
  void optimizer_step() override { inner_->optimizer_step(); }
  double evaluation_loss() override { return inner_->evaluation_loss(); }
  std::int64_t parameter_count() const override { return inner_->parameter_count(); }
  std::string data_source() const override { return inner_->data_source(); }
  bool synthetic_data() const override { return inner_->synthetic_data(); }
  std::string optimizer_description() const override { return inner_->optimizer_description(); }
  std::string numerics_description() const override { return inner_->numerics_description(); }
  void enter_graph_mode() override { inner_->enter_graph_mode(); }
  void prepare_replay() override { inner_->prepare_replay(); }
  at::Tensor captured_step() override {
    auto loss = inner_->captured_step();
    std::fprintf(stderr, "test-sync: loss %g\n", loss.item<double>());  // a host synchronization
    return loss;
  }
  void after_replay() override { inner_->after_replay(); }

 private:
  std::unique_ptr<TrainingTask> inner_;
};

class SyncingWorkload final : public Workload {
 public:
  SyncingWorkload() : inner_(make_mlp_workload()) {}
  WorkloadInfo info() const override {
    return test_info(inner_->info(), "test-sync", "test only: the mlp reading its loss back on the host inside its step");
  }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions& options) const override {
    auto o = options;
    o.inputs.use_real_data = false;
    return std::make_unique<SyncingTask>(inner_->build(o));
  }

 private:
  std::unique_ptr<Workload> inner_;
};

}  // namespace

std::unique_ptr<Workload> make_test_sync_workload() { return std::make_unique<SyncingWorkload>(); }
std::unique_ptr<Workload> make_test_abort_workload() { return std::make_unique<FailingWorkload>(FailingWorkload::Kind::abort); }
std::unique_ptr<Workload> make_test_oom_workload() { return std::make_unique<FailingWorkload>(FailingWorkload::Kind::oom); }

}  // namespace accelbench
