// mlp: the article's "simple fully connected network": 784 -> 1024 -> 10, ReLU, on Fashion-MNIST.
#include <torch/torch.h>

#include "workloads/image_data.h"

namespace accelbench {

namespace {
constexpr std::int64_t kIn = 784, kHidden = 1024, kClasses = 10;

class MlpWorkload final : public Workload {
 public:
  WorkloadInfo info() const override {
    WorkloadInfo i;
    i.name = "mlp";
    i.description = "fully connected 784-1024-10, ReLU, Fashion-MNIST 28x28";
    i.samples_per_epoch = 60000;
    i.epoch_unit = "images";
    i.parameter_count = (kIn * kHidden + kHidden) + (kHidden * kClasses + kClasses);
    i.train_flops_per_sample = 3.0 * 2.0 * static_cast<double>(kIn * kHidden + kHidden * kClasses);
    return i;
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    torch::manual_seed(o.seed);  // same initial weights on every device: built on the CPU, then moved
    auto net = std::make_shared<torch::nn::SequentialImpl>(
        torch::nn::Flatten(), torch::nn::Linear(kIn, kHidden), torch::nn::ReLU(), torch::nn::Linear(kHidden, kClasses));
    net->to(o.device);
    auto forward = [net](const StagedBatch& b) { return net->forward(b.input); };
    return make_fashion_task(net, forward, o);
  }
};
}  // namespace

std::unique_ptr<Workload> make_mlp_workload() { return std::make_unique<MlpWorkload>(); }

}  // namespace accelbench
