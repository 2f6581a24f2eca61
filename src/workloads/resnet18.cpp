// resnet18: torchvision's ResNet-18 (7x7 stem, max-pool, BasicBlocks [2,2,2,2], batch norm) with a
// 10-class head, on 3x32x32 CIFAR-10 images; --variant cifar uses the 3x3 stem without max-pool
// that CIFAR training recipes use. Data: the CIFAR-10 binary files (--data-dir) or synthetic images,
// with the standard augmentation (4-pixel padded random crop, horizontal flip, normalisation).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/errors.h"
#include "data/cifar_reader.h"
#include "workloads/conv_settings.h"
#include "workloads/module_task.h"

namespace accelbench {

namespace {
namespace nn = torch::nn;

nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(std::int64_t in, std::int64_t out, std::int64_t stride)
      // In the members' declaration order (conv1, conv2, bn1, bn2), the order they are built and
      // registered in, which fixes the seeded initial weights.
      : conv1(register_module("conv1", conv(in, out, 3, stride, 1))),
        conv2(register_module("conv2", conv(out, out, 3, 1, 1))),
        bn1(register_module("bn1", nn::BatchNorm2d(out))),
        bn2(register_module("bn2", nn::BatchNorm2d(out))) {
    if (stride != 1 || in != out)
      downsample = register_module("downsample", nn::Sequential(conv(in, out, 1, stride, 0), nn::BatchNorm2d(out)));
  }
  at::Tensor forward(const at::Tensor& x) {
    auto out = torch::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    return torch::relu(out + (downsample ? downsample->forward(x) : x));
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1, bn2;
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : nn::Module {
  explicit ResNet18Impl(bool cifar_stem, std::int64_t classes = 10) : cifar_stem(cifar_stem) {
    conv1 = register_module("conv1", cifar_stem ? conv(3, 64, 3, 1, 1) : conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", nn::BatchNorm2d(64));
    std::int64_t in = 64;
    for (int i = 0; i < 4; ++i) {
      const std::int64_t out = 64 << i;
      auto layer = nn::Sequential(BasicBlock(in, out, i == 0 ? 1 : 2), BasicBlock(out, out, 1));
      layers.push_back(register_module(fmt::format("layer{}", i + 1), layer));
      in = out;
    }
    fc = register_module("fc", nn::Linear(512, classes));
    // torchvision's initialisation: Kaiming-normal convolutions (fan_out), unit batch-norm scale.
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    auto h = torch::relu(bn1(conv1(x)));
    if (!cifar_stem) h = torch::max_pool2d(h, 3, 2, 1);
    for (auto& l : layers) h = l->forward(h);
    return fc(torch::adaptive_avg_pool2d(h, {1, 1}).flatten(1));
  }
  bool cifar_stem;
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  std::vector<nn::Sequential> layers;
  nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet18);

// Analytic forward MACs of ResNet-18 on a 32x32 input.
double resnet18_forward_macs(bool cifar_stem) {
  double macs = 0;
  std::int64_t s = 32;
  if (cifar_stem) {
    macs += double(s * s) * 64 * 3 * 9;
  } else {
    s = 16;  // 7x7 stride 2
    macs += double(s * s) * 64 * 3 * 49;
    s = 8;   // max-pool stride 2
  }
  std::int64_t in = 64;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t out = 64 << i;
    if (i > 0) s /= 2;
    macs += double(s * s) * out * in * 9;       // first conv of the first block (strided)
    macs += 3.0 * double(s * s) * out * out * 9;  // the other three 3x3 convs
    if (in != out) macs += double(s * s) * out * in;  // 1x1 downsample
    in = out;
  }
  return macs + 512.0 * 10;
}

constexpr float kMean[3] = {0.4914f, 0.4822f, 0.4465f}, kStd[3] = {0.2470f, 0.2435f, 0.2616f};

struct CifarImages {
  std::vector<std::uint8_t> pixels, labels;
  std::int64_t n = 0;
  std::string source;
  bool synthetic = false;
};

CifarImages load_images(const WorkloadOptions& o) {
  CifarImages c;
  if (!o.inputs.data_dir.empty() && o.inputs.use_real_data) {
    auto d = load_cifar10_train(o.inputs.data_dir);
    c.pixels = std::move(d.pixels);
    c.labels = std::move(d.labels);
    c.n = static_cast<std::int64_t>(c.labels.size());
    c.source = d.source;
    return c;
  }
  // Synthetic: 5,000 images, each a fixed per-class colour pattern plus noise.
  c.n = 5000;
  std::mt19937 rng(static_cast<std::uint32_t>(o.inputs.seed + 3000));
  std::uniform_int_distribution<int> byte(0, 255), cls(0, 9);
  std::vector<std::uint8_t> patterns(10 * 3072);
  for (auto& p : patterns) p = static_cast<std::uint8_t>(byte(rng));
  c.pixels.resize(static_cast<std::size_t>(c.n) * 3072);
  c.labels.resize(static_cast<std::size_t>(c.n));
  for (std::int64_t i = 0; i < c.n; ++i) {
    const int l = cls(rng);
    c.labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(l);
    for (int k = 0; k < 3072; ++k)
      c.pixels[static_cast<std::size_t>(i * 3072 + k)] =
          static_cast<std::uint8_t>((patterns[static_cast<std::size_t>(l * 3072 + k)] * 6 + byte(rng) * 4) / 10);
  }
  c.source = "synthetic CIFAR-10-shaped images (no --data-dir given)";
  c.synthetic = true;
  return c;
}

// The index-th batch of the shuffled stream (a new permutation each epoch), augmented.
BatchProducer cifar_producer(std::shared_ptr<const CifarImages> data, std::int64_t batch, std::uint64_t seed) {
  return [data, batch, seed](std::int64_t index) {
    const std::int64_t n = data->n;
    thread_local std::int64_t cached_epoch = -1;
    thread_local const CifarImages* cached_for = nullptr;
    thread_local std::vector<std::int64_t> perm;
    auto input = torch::empty({batch, 3, 32, 32}, torch::kFloat);
    auto target = torch::empty({batch}, torch::kLong);
    float* x = input.data_ptr<float>();
    std::int64_t* y = target.data_ptr<std::int64_t>();
    std::mt19937_64 aug(seed * 7919 + static_cast<std::uint64_t>(index));
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::int64_t pos = index * batch + b;
      const std::int64_t epoch = pos / n;
      if (epoch != cached_epoch || cached_for != data.get()) {
        perm.resize(static_cast<std::size_t>(n));
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed + static_cast<std::uint64_t>(epoch)));
        cached_epoch = epoch;
        cached_for = data.get();
      }
      const std::int64_t item = perm[static_cast<std::size_t>(pos % n)];
      y[b] = data->labels[static_cast<std::size_t>(item)];
      const std::uint8_t* src = data->pixels.data() + item * 3072;
      // Random crop of the image padded by 4 pixels (offsets 0..8), then a horizontal flip half the time.
      const int dx = static_cast<int>(aug() % 9) - 4, dy = static_cast<int>(aug() % 9) - 4;
      const bool flip = aug() & 1;
      for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 32; ++r)
          for (int col = 0; col < 32; ++col) {
            const int sr = r + dy, sc0 = col + dx;
            const int sc = flip ? 31 - sc0 : sc0;
            const float v = (sr < 0 || sr >= 32 || sc < 0 || sc >= 32) ? 0.f : src[c * 1024 + sr * 32 + sc] / 255.f;
            x[((b * 3 + c) * 32 + r) * 32 + col] = (v - kMean[c]) / kStd[c];
          }
    }
    return StagedBatch{input, target, {}};
  };
}

class ResNet18Workload final : public Workload {
 public:
  WorkloadInfo info() const override { return info_for(false); }
  WorkloadInfo info_for(const WorkloadOptions& o) const override { return info_for(o.inputs.variant == "cifar"); }

  static WorkloadInfo info_for(bool cifar) {  // NOLINT: overload by stem
    WorkloadInfo i;
    i.name = "resnet18";
    i.graph_refusal.clear();  // ModuleTask implements the graph hooks
    i.convolutional = true;
    i.dataset = kCifar10Files;
    i.variants = {"torchvision", "cifar"};
    i.description = cifar ? "ResNet-18 (CIFAR stem: 3x3, no max-pool), 10 classes, 3x32x32"
                          : "ResNet-18 (torchvision), 10 classes, CIFAR-10 3x32x32";
    i.samples_per_epoch = 50000;
    i.epoch_unit = "images";
    i.parameter_count = cifar ? 11173962 : 11181642;
    i.train_flops_per_sample = 3.0 * 2.0 * resnet18_forward_macs(cifar);
    return i;
  }

  void validate(const WorkloadOptions& o) const override {
    const auto variants = info().variants;
    if (!o.inputs.variant.empty() && std::find(variants.begin(), variants.end(), o.inputs.variant) == variants.end())
      throw UsageError(fmt::format("unknown resnet18 variant '{}'; available: {}", o.inputs.variant, fmt::join(variants, ", ")));
    if (!o.inputs.data_dir.empty() && o.inputs.use_real_data) load_cifar10_train(o.inputs.data_dir);  // sizes and labels of every file
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    validate(WorkloadOptions{.inputs = {.variant = o.inputs.variant}});
    const bool cifar = o.inputs.variant == "cifar";
    torch::manual_seed(o.inputs.seed);
    auto net = ResNet18(cifar);
    net->to(o.device);
    const auto conv = conv_settings_for(o.device);
    apply_conv_settings(*net, conv);
    auto data = std::make_shared<const CifarImages>(load_images(o));
    auto module = net.ptr();
    auto forward = [module, conv](const StagedBatch& b) { return module->forward(conv_layout(b.input, conv)); };
    auto task = make_module_task(module, forward, o, in_conv_layout(cifar_producer(data, o.batch_size, o.inputs.seed), conv),
                                 data->source, data->synthetic);
    task->add_pipeline_note(conv_settings_description(conv));
    // Adam at 1e-3 after a short linear warm-up (batch norm keeps it stable: docs/workloads.md).
    task->use_schedule(schedule_for(o, LrSchedule{.peak = 1e-3, .warmup_steps = 5}));
    return task;
  }
};
}  // namespace

std::unique_ptr<Workload> make_resnet18_workload() { return std::make_unique<ResNet18Workload>(); }

StagedBatch cifar_training_batch(const WorkloadOptions& o, std::int64_t index) {
  auto data = std::make_shared<const CifarImages>(load_images(o));
  return cifar_producer(data, o.batch_size, o.inputs.seed)(index);
}

}  // namespace accelbench
