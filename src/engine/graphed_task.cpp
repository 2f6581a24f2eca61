#include "engine/graphed_task.h"

#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>

#include <string>

#include "core/errors.h"
#include "device/step_graph.h"

namespace accelbench {

namespace {
class GraphedTask final : public TrainingTask {
 public:
  GraphedTask(std::unique_ptr<TrainingTask> task, std::unique_ptr<StepGraph> graph, at::Tensor loss)
      : task_(std::move(task)), graph_(std::move(graph)), loss_(std::move(loss)) {}

  // The next batch into the static inputs, one replay, the host's bookkeeping. The loss tensor is
  // the one the captured step wrote: each replay writes it again.
  at::Tensor step() override {
    task_->prepare_replay();
    graph_->replay();
    task_->after_replay();
    return loss_;
  }
  bool supports_phases() const override { return false; }  // one launch: no phases to time apart
  at::Tensor forward_loss() override { return step(); }
  void backward(const at::Tensor& /*loss*/) override {}
  void optimizer_step() override {}

  double evaluation_loss() override { return task_->evaluation_loss(); }
  std::optional<double> gradient_norm() override { return task_->gradient_norm(); }
  bool last_step_skipped() override { return task_->last_step_skipped(); }
  std::int64_t parameter_count() const override { return task_->parameter_count(); }
  std::vector<at::Tensor> trainable_parameters() override { return task_->trainable_parameters(); }
  std::string data_source() const override { return task_->data_source(); }
  bool synthetic_data() const override { return task_->synthetic_data(); }
  std::string optimizer_description() const override {
    return task_->optimizer_description() + "; the whole step replayed as one CUDA graph";
  }
  double take_data_wait_s() override { return task_->take_data_wait_s(); }
  std::string numerics_description() const override { return task_->numerics_description(); }
  std::int64_t device_operations_per_step() const override { return graph_->device_operations(); }
  std::string pipeline_description() const override {
    return task_->pipeline_description() + ", copied into the graph's static inputs";
  }

 private:
  std::unique_ptr<TrainingTask> task_;
  std::unique_ptr<StepGraph> graph_;
  at::Tensor loss_;
};

std::string first_line_of(const std::string& s) { return s.substr(0, s.find('\n')); }

// Autocast's cache of cast weights off while capturing, as Python's graph docs ask: a cast must be
// captured (and so redone in each replay), never taken from a cache filled outside the graph.
class AutocastCacheOff {
 public:
  AutocastCacheOff() : previous_(at::autocast::is_autocast_cache_enabled()) { at::autocast::set_autocast_cache_enabled(false); }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(previous_); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool previous_;
};
}  // namespace

std::unique_ptr<TrainingTask> capture_training_step(std::unique_ptr<TrainingTask> task, c10::Device device,
                                                    int eager_steps) {
  auto graph = make_step_graph(device);
  if (!graph) throw CaseError("--graphs: " + step_graph_refusal(device.type()));
  task->enter_graph_mode();
  // Eager steps on the capture stream: library handles, workspaces and the optimizer's state are
  // made there. Each ends with the gradients set to none, so that the captured backward allocates
  // them in the graph's memory pool and each replay writes them anew.
  graph->run_on_capture_stream([&] {
    for (int i = 0; i < eager_steps; ++i) {
      task->prepare_replay();
      task->step();
    }
  });
  at::Tensor loss;
  try {
    const AutocastCacheOff no_cache;
    loss = graph->capture([&] { return task->captured_step(); });
  } catch (const c10::Error& e) {
    throw CaseError("the training step cannot be captured as a CUDA graph: " + first_line_of(e.what_without_backtrace()));
  }
  return std::make_unique<GraphedTask>(std::move(task), std::move(graph), std::move(loss));
}

}  // namespace accelbench
