#pragma once
#include "data/idx_reader.h"
#include "workloads/module_task.h"

namespace accelbench {

// Fashion-MNIST training images (uint8 [n,28,28]) and labels (int64 [n]) on the host: the real
// files when present and wanted, else synthetic images with a class-dependent pattern.
struct FashionImages {
  at::Tensor images, labels;
  std::string source;
  bool synthetic = false;
};
FashionImages load_fashion_images(const WorkloadOptions& options, std::int64_t max_items);

// The index-th batch, normalised to float [B,1,28,28] with the training set's mean and std.
BatchProducer fashion_batch_producer(std::shared_ptr<const FashionImages> data, std::int64_t batch);

// A classification task on Fashion-MNIST batches (mlp, cnn), trained with Adam under `schedule`
// (options.lr_schedule replaces it).
std::unique_ptr<ModuleTask> make_fashion_task(std::shared_ptr<torch::nn::Module> module, ModuleTask::Forward forward,
                                                const WorkloadOptions& options, const LrSchedule& schedule);

}  // namespace accelbench
