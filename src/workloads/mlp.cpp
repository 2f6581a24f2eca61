// mlp: the article's "simple fully connected network": 784 -> 1024 -> 10, ReLU, on Fashion-MNIST;
// --width sets the hidden width (the CPU/accelerator crossover).
#include <fmt/format.h>
#include <torch/torch.h>

#include "core/errors.h"

#include "workloads/image_data.h"

namespace accelbench {

namespace {
constexpr std::int64_t kIn = 784, kHidden = 1024, kClasses = 10;
std::int64_t hidden_width(const WorkloadOptions& o) { return o.width > 0 ? o.width : kHidden; }

class MlpWorkload final : public Workload {
 public:
  WorkloadInfo info() const override { return info_for(WorkloadOptions{}); }
  WorkloadInfo info_for(const WorkloadOptions& o) const override {
    const auto h = hidden_width(o);
    WorkloadInfo i;
    i.name = "mlp";
    i.graph_refusal.clear();  // ModuleTask implements the graph hooks
    i.description = fmt::format("fully connected 784-{}-10, ReLU, Fashion-MNIST 28x28", h);
    i.samples_per_epoch = 60000;
    i.epoch_unit = "images";
    i.parameter_count = (kIn * h + h) + (h * kClasses + kClasses);
    i.train_flops_per_sample = 3.0 * 2.0 * static_cast<double>(kIn * h + h * kClasses);
    i.has_width = true;
    i.default_width = kHidden;
    i.dataset = kFashionMnistFiles;
    return i;
  }
  void validate(const WorkloadOptions& o) const override {
    if (o.width < 0 || o.width > (1 << 20))
      throw UsageError(fmt::format("--width must be between 1 and {} (got {})", 1 << 20, o.width));
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    torch::manual_seed(o.inputs.seed);  // same initial weights on every device: built on the CPU, then moved
    // The layers are built one after the other (not as one call's arguments, which a compiler may
    // evaluate in any order): the initial weights are those of Python's nn.Sequential, whichever
    // compiler built accelbench.
    auto net = std::make_shared<torch::nn::SequentialImpl>();
    net->push_back(torch::nn::Flatten());
    net->push_back(torch::nn::Linear(kIn, hidden_width(o)));
    net->push_back(torch::nn::ReLU());
    net->push_back(torch::nn::Linear(hidden_width(o), kClasses));
    net->to(o.device);
    auto forward = [net](const StagedBatch& b) { return net->forward(b.input); };
    // Adam at 1e-3, constant (PyTorch's default; a two-layer network is stable there in every
    // precision: docs/workloads.md).
    return make_fashion_task(net, forward, o, LrSchedule{.peak = 1e-3});
  }
};
}  // namespace

std::unique_ptr<Workload> make_mlp_workload() { return std::make_unique<MlpWorkload>(); }

}  // namespace accelbench
