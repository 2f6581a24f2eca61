// tiny-mlp: a workload of your own (64-32-4, ReLU) on synthetic data it can learn (the label is the
// largest of the first four features), registered beside the built-ins. accelbench::main supplies
// main(): `my_bench run --models tiny-mlp,mlp --devices all` measures it like a built-in, and every
// other command (sweep, profile, compare, report) takes it too.
#include <ATen/CPUGeneratorImpl.h>
#include <accelbench/accelbench.h>
#include <torch/torch.h>

namespace {

constexpr std::int64_t kIn = 64, kHidden = 32, kClasses = 4;

class TinyMlp final : public accelbench::Workload {
 public:
  accelbench::WorkloadInfo info() const override {
    accelbench::WorkloadInfo i;
    i.name = "tiny-mlp";
    i.description = "tiny MLP 64-32-4 of the user's, synthetic data";
    i.samples_per_epoch = 8192;
    i.parameter_count = kIn * kHidden + kHidden + kHidden * kClasses + kClasses;
    i.train_flops_per_sample = 3.0 * 2.0 * static_cast<double>(kIn * kHidden + kHidden * kClasses);
    return i;
  }

  std::unique_ptr<accelbench::TrainingTask> build(const accelbench::WorkloadOptions& o) const override {
    torch::manual_seed(o.inputs.seed);  // the same initial weights on every device
    auto net = std::make_shared<torch::nn::SequentialImpl>(torch::nn::Linear(kIn, kHidden), torch::nn::ReLU(),
                                                           torch::nn::Linear(kHidden, kClasses));
    net->to(o.device);
    auto forward = [net](const accelbench::StagedBatch& b) { return net->forward(b.input); };
    const auto batch = o.batch_size;
    const auto seed = o.inputs.seed;
    // The index-th batch on the host (the engine stages a few on the device before timing).
    accelbench::BatchProducer produce = [batch, seed](std::int64_t index) {
      auto gen = at::make_generator<at::CPUGeneratorImpl>(seed * 7919 + static_cast<std::uint64_t>(index));
      auto x = torch::randn({batch, kIn}, gen, torch::kFloat);
      auto y = x.narrow(1, 0, kClasses).argmax(1);
      return accelbench::StagedBatch{x, y, {}};
    };
    return accelbench::make_module_task(net, forward, o, produce, "synthetic: the largest of the first 4 features",
                                        /*synthetic=*/true);
  }
};

}  // namespace

ACCELBENCH_REGISTER_WORKLOAD("tiny-mlp", [] { return std::make_unique<TinyMlp>(); });
