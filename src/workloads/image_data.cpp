// Staged image batches for the mlp and cnn workloads.
#include <fmt/format.h>
#include <torch/torch.h>

#include "data/idx_reader.h"
#include "workloads/module_task.h"

namespace accelbench {

namespace {
constexpr double kMean = 0.2860, kStd = 0.3530;  // Fashion-MNIST training-set pixel statistics

StagedBatch to_batch(const at::Tensor& images_u8, const at::Tensor& labels_u8, const c10::Device& device) {
  auto x = images_u8.to(torch::kFloat).div_(255.0).sub_(kMean).div_(kStd).unsqueeze(1);
  return {x.to(device), labels_u8.to(torch::kLong).to(device)};
}
}  // namespace

StagedData stage_image_batches(const WorkloadOptions& o) {
  StagedData d;
  const std::int64_t needed = o.batch_size * o.staged_batches;
  std::string dir = o.data_dir.empty() ? find_fashion_mnist_dir() : o.data_dir;
  if (o.use_real_data && !dir.empty()) {
    // Read only what is needed (wrapping around for batches bigger than the data set).
    const auto data = load_fashion_mnist(dir, std::min<std::int64_t>(needed, 60000));
    const auto n = data.images.count();
    auto images = torch::from_blob(const_cast<std::uint8_t*>(data.images.data.data()),
                                   {n, data.images.dims[1], data.images.dims[2]}, torch::kUInt8).clone();
    auto labels = torch::from_blob(const_cast<std::uint8_t*>(data.labels.data.data()), {n}, torch::kUInt8).clone();
    auto take = [&](std::int64_t start) {
      auto idx = torch::arange(start, start + o.batch_size, torch::kLong).remainder(n);
      return to_batch(images.index_select(0, idx), labels.index_select(0, idx), o.device);
    };
    for (int b = 0; b < o.staged_batches; ++b) d.train.push_back(take(b * o.batch_size));
    d.eval = d.train.front();
    d.source = data.source;
    d.synthetic = false;
    return d;
  }
  // Synthetic: each class has a fixed random 28x28 pattern; an image is its pattern plus noise.
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed + 1000);
  const auto patterns = torch::rand({10, 28, 28}, gen, torch::kFloat);
  auto make = [&]() {
    auto labels = torch::randint(0, 10, {o.batch_size}, gen, torch::kLong);
    auto noise = torch::rand({o.batch_size, 28, 28}, gen, torch::kFloat);
    auto img = (patterns.index_select(0, labels) * 0.6 + noise * 0.4).mul_(255).to(torch::kUInt8);
    return to_batch(img, labels.to(torch::kUInt8), o.device);
  };
  for (int b = 0; b < o.staged_batches; ++b) d.train.push_back(make());
  d.eval = d.train.front();
  d.source = o.use_real_data ? fmt::format("synthetic (Fashion-MNIST not found in {})", dir.empty() ? kDefaultFashionMnistDir : dir)
                             : "synthetic";
  d.synthetic = true;
  return d;
}

}  // namespace accelbench
