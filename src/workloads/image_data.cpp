// Fashion-MNIST image batches for the mlp and cnn workloads (and the real images of dcgan).
#include <fmt/format.h>
#include <torch/torch.h>

#include "data/idx_reader.h"
#include "workloads/image_data.h"

namespace accelbench {

namespace {
constexpr double kMean = 0.2860, kStd = 0.3530;  // Fashion-MNIST training-set pixel statistics
}  // namespace

FashionImages load_fashion_images(const WorkloadOptions& o, std::int64_t max_items) {
  FashionImages f;
  const std::string dir = o.inputs.data_dir.empty() ? find_fashion_mnist_dir() : o.inputs.data_dir;
  if (o.inputs.use_real_data && !dir.empty()) {
    const auto data = load_fashion_mnist(dir, std::min<std::int64_t>(max_items, 60000));
    const auto n = data.images.count();
    f.images = torch::from_blob(const_cast<std::uint8_t*>(data.images.data.data()), {n, 28, 28}, torch::kUInt8).clone();
    f.labels = torch::from_blob(const_cast<std::uint8_t*>(data.labels.data.data()), {n}, torch::kUInt8).to(torch::kLong);
    f.source = data.source;
    f.synthetic = false;
    return f;
  }
  // Synthetic: each class has a fixed random 28x28 pattern; an image is its pattern plus noise.
  const std::int64_t n = std::min<std::int64_t>(max_items, 4096);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.inputs.seed + 1000);
  const auto patterns = torch::rand({10, 28, 28}, gen, torch::kFloat);
  f.labels = torch::randint(0, 10, {n}, gen, torch::kLong);
  auto noise = torch::rand({n, 28, 28}, gen, torch::kFloat);
  f.images = (patterns.index_select(0, f.labels) * 0.6 + noise * 0.4).mul_(255).to(torch::kUInt8);
  f.source = o.inputs.use_real_data ? fmt::format("synthetic (Fashion-MNIST not found in {})", dir.empty() ? kDefaultFashionMnistDir : dir)
                             : "synthetic";
  f.synthetic = true;
  return f;
}

BatchProducer fashion_batch_producer(std::shared_ptr<const FashionImages> data, std::int64_t batch) {
  return [data, batch](std::int64_t index) {
    const auto n = data->images.size(0);
    auto idx = torch::arange(index * batch, (index + 1) * batch, torch::kLong).remainder(n);
    auto x = data->images.index_select(0, idx).to(torch::kFloat).div_(255.0).sub_(kMean).div_(kStd).unsqueeze(1);
    return StagedBatch{x, data->labels.index_select(0, idx), {}};
  };
}

std::unique_ptr<ModuleTask> make_fashion_task(std::shared_ptr<torch::nn::Module> module, ModuleTask::Forward forward,
                                                const WorkloadOptions& o, const LrSchedule& schedule) {
  // Staged mode needs staged_batches x batch images; the pipeline (and a full epoch) goes through all of them.
  const std::int64_t needed = o.inputs.workers >= 0 ? 60000 : o.batch_size * o.staged_batches;
  auto data = std::make_shared<const FashionImages>(load_fashion_images(o, needed));
  auto task = make_module_task(std::move(module), std::move(forward), o, fashion_batch_producer(data, o.batch_size),
                               data->source, data->synthetic);
  task->use_schedule(schedule_for(o, schedule));
  return task;
}

}  // namespace accelbench
