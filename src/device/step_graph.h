#pragma once
// A device graph of one training step (--graphs): the step's kernels captured once and replayed as
// one launch per step, so that the host no longer launches them one by one (what Python's
// torch.cuda.graph and torch.compile(mode="reduce-overhead") do). CUDA only in these libtorch
// versions (at::cuda::CUDAGraph); src/device/step_graph.cpp. The engine drives it:
// src/engine/graphed_task.cpp.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace accelbench {

class StepGraph {
 public:
  virtual ~StepGraph() = default;
  // Runs `work` on the stream the capture will use (eager warm-up steps, so that lazy set-up such
  // as library handles and workspaces happens there), the device synchronized before and after.
  virtual void run_on_capture_stream(const std::function<void()>& work) = 0;
  // Captures the kernels `body` launches and returns what it returned (tensors the replays write).
  // Throws c10::Error with the backend's reason when they cannot be captured (a host
  // synchronization such as .item() inside the body).
  virtual at::Tensor capture(const std::function<at::Tensor()>& body) = 0;
  // Launches the captured kernels once, on the current stream.
  virtual void replay() = 0;
  // The device operations (kernels, copies, memsets) one replay runs; 0 when not known.
  virtual std::int64_t device_operations() const { return 0; }
};

// Why a graph of a training step cannot be captured on `device_type` in this build ("" when it
// can: CUDA, in a build with the CUDA-specific code).
std::string step_graph_refusal(c10::DeviceType device_type);

// A step graph on `device`; nullptr where step_graph_refusal() is not empty.
std::unique_ptr<StepGraph> make_step_graph(c10::Device device);

}  // namespace accelbench
