#pragma once
// A workload is a model, its data and its loss, trained by a TrainingTask that the measurement
// engine drives step by step. One file per workload; the registry lists them.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace accelbench {

struct WorkloadInfo {
  std::string name;
  std::string description;          // one line
  std::int64_t samples_per_epoch = 0;
  std::string epoch_unit = "samples";
  std::int64_t parameter_count = 0; // analytic; the built model must agree (tests check)
  double train_flops_per_sample = 0;  // analytic: 3 x forward matmul/conv FLOPs (2 per MAC)
};

struct WorkloadOptions {
  c10::Device device = c10::Device(c10::kCPU);
  std::int64_t batch_size = 64;
  std::uint64_t seed = 0;
  int staged_batches = 8;           // distinct batches placed on the device beforehand, cycled
  bool use_real_data = true;        // use the dataset files when present (else synthetic)
  std::string data_dir;             // override of the dataset location
};

// A model with its optimizer and data on one device. step() = forward, loss, backward, optimizer.
// Nothing in here synchronizes the device: the engine does that around what it times.
class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  virtual at::Tensor forward_loss() = 0;            // next staged batch; returns a 0-dim loss
  virtual void backward(const at::Tensor& loss) = 0;
  virtual void optimizer_step() = 0;                // also clears the gradients
  virtual double evaluation_loss() = 0;             // loss on the first staged batch, eval mode, no grad (syncs)
  virtual std::int64_t parameter_count() const = 0;
  virtual std::string data_source() const = 0;
  virtual bool synthetic_data() const = 0;
  virtual std::string optimizer_description() const = 0;

  at::Tensor step() {
    auto loss = forward_loss();
    backward(loss);
    optimizer_step();
    return loss;
  }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual WorkloadInfo info() const = 0;
  virtual std::unique_ptr<TrainingTask> build(const WorkloadOptions& options) const = 0;
};

// Registry
std::vector<std::string> workload_names();                 // in the article's order
std::unique_ptr<Workload> make_workload(const std::string& name);  // UsageError when unknown
std::unique_ptr<Workload> make_mlp_workload();
std::unique_ptr<Workload> make_cnn_workload();
std::unique_ptr<Workload> make_transformer_workload();

}  // namespace accelbench
