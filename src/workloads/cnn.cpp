// cnn: the article's "medium CNN": three 3x3 convolutions (32, 64, 128 channels; ReLU; 2x2 max-pool)
// and two fully connected layers (1152 -> 256 -> 10), on 1x28x28 Fashion-MNIST.
#include <torch/torch.h>

#include "workloads/conv_settings.h"
#include "workloads/image_data.h"

namespace accelbench {

namespace {
class CnnWorkload final : public Workload {
 public:
  WorkloadInfo info() const override {
    WorkloadInfo i;
    i.name = "cnn";
    i.graph_refusal.clear();  // ModuleTask implements the graph hooks
    i.convolutional = true;
    i.dataset = kFashionMnistFiles;
    i.description = "3x conv3x3 (32/64/128) + max-pool, FC 1152-256-10, Fashion-MNIST 28x28";
    i.samples_per_epoch = 60000;
    i.epoch_unit = "images";
    // Parameters: conv weights + biases, then the two linear layers.
    i.parameter_count = (32 * 1 * 9 + 32) + (64 * 32 * 9 + 64) + (128 * 64 * 9 + 128) + (1152 * 256 + 256) + (256 * 10 + 10);
    // Forward MACs: each conv output element costs Cin*9 MACs (padding=1 keeps HxW).
    const double macs = 28.0 * 28 * 32 * (1 * 9) + 14.0 * 14 * 64 * (32 * 9) + 7.0 * 7 * 128 * (64 * 9) +
                        1152.0 * 256 + 256.0 * 10;
    i.train_flops_per_sample = 3.0 * 2.0 * macs;
    return i;
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    namespace nn = torch::nn;
    torch::manual_seed(o.inputs.seed);
    auto conv = [](std::int64_t in, std::int64_t out) { return nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1)); };
    // The layers are built one after the other (not as one call's arguments, which a compiler may
    // evaluate in any order): the initial weights are those of Python's nn.Sequential, whichever
    // compiler built accelbench.
    auto net = std::make_shared<nn::SequentialImpl>();
    for (const std::int64_t channels : {32, 64, 128}) {  // 28 -> 14 -> 7 -> 3
      net->push_back(conv(channels == 32 ? 1 : channels / 2, channels));
      net->push_back(nn::ReLU());
      net->push_back(nn::MaxPool2d(2));
    }
    net->push_back(nn::Flatten());  // 128 * 3 * 3 = 1152
    net->push_back(nn::Linear(1152, 256));
    net->push_back(nn::ReLU());
    net->push_back(nn::Linear(256, 10));
    net->to(o.device);
    const auto layout = conv_settings_for(o.device);
    apply_conv_settings(*net, layout);
    auto forward = [net, layout](const StagedBatch& b) { return net->forward(conv_layout(b.input, layout)); };
    // Adam at 1e-3, constant (stable in every precision: docs/workloads.md).
    auto task = make_fashion_task(net, forward, o, LrSchedule{.peak = 1e-3});
    task->add_pipeline_note(conv_settings_description(layout));
    return task;
  }
};
}  // namespace

std::unique_ptr<Workload> make_cnn_workload() { return std::make_unique<CnnWorkload>(); }

}  // namespace accelbench
