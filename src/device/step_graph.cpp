// StepGraph for CUDA: at::cuda::CUDAGraph captured on a stream from the pool (capture must not
// happen on the default stream), replayed on the current stream. Elsewhere (no CUDA in this
// libtorch, or another device type) every device refuses with its reason.
#include "device/step_graph.h"

#include <c10/util/Exception.h>

#if ACCELBENCH_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <vector>
#endif

namespace accelbench {

#if ACCELBENCH_WITH_CUDA
namespace {
// A CUDAGraph that keeps its cudaGraph_t after the capture (keep_graph), so that its nodes can be
// counted before it is instantiated (graph_ is a protected member in libtorch 2.11 and 2.13).
class CountableCudaGraph final : public at::cuda::CUDAGraph {
 public:
  CountableCudaGraph() : at::cuda::CUDAGraph(/*keep_graph=*/true) {}
  // Kernel, copy and memset nodes: the device operations one replay runs.
  std::int64_t device_operations() {
    std::size_t n = 0;
    if (!graph_ || cudaGraphGetNodes(graph_, nullptr, &n) != cudaSuccess) return 0;
    std::vector<cudaGraphNode_t> nodes(n);
    if (n == 0 || cudaGraphGetNodes(graph_, nodes.data(), &n) != cudaSuccess) return 0;
    std::int64_t count = 0;
    for (const auto node : nodes) {
      cudaGraphNodeType type{};
      if (cudaGraphNodeGetType(node, &type) != cudaSuccess) continue;
      if (type == cudaGraphNodeTypeKernel || type == cudaGraphNodeTypeMemcpy || type == cudaGraphNodeTypeMemset) ++count;
    }
    return count;
  }
};

class CudaStepGraph final : public StepGraph {
 public:
  explicit CudaStepGraph(c10::Device device)
      : device_(device), stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}

  void run_on_capture_stream(const std::function<void()>& work) override {
    const c10::cuda::CUDAGuard guard(device_);
    c10::cuda::device_synchronize();
    {
      const c10::cuda::CUDAStreamGuard on_stream(stream_);
      work();
    }
    c10::cuda::device_synchronize();
  }

  at::Tensor capture(const std::function<at::Tensor()>& body) override {
    const c10::cuda::CUDAGuard guard(device_);
    c10::cuda::device_synchronize();
    // The eager steps' cached blocks back to the driver, so that the graph's private pool can have
    // them (as torch.cuda.graph does): bert-base at batch 2048 ran out of memory without it.
    c10::cuda::CUDACachingAllocator::emptyCache();
    at::Tensor out;
    {
      const c10::cuda::CUDAStreamGuard on_stream(stream_);
      graph_.capture_begin();
      try {
        out = body();
      } catch (...) {
        // End the broken capture (it returns the allocator's pool) and report the body's error.
        try {
          graph_.capture_end();
        } catch (...) {
        }
        throw;
      }
      graph_.capture_end();
    }
    operations_ = graph_.device_operations();  // instantiated by the first replay (keep_graph)
    c10::cuda::device_synchronize();
    return out;
  }

  void replay() override { graph_.replay(); }
  std::int64_t device_operations() const override { return operations_; }

 private:
  c10::Device device_;
  c10::cuda::CUDAStream stream_;
  CountableCudaGraph graph_;
  std::int64_t operations_ = 0;
};
}  // namespace
#endif

std::string step_graph_refusal(c10::DeviceType device_type) {
  if (device_type == c10::kCUDA) {
#if ACCELBENCH_WITH_CUDA
    return {};
#else
    return "this accelbench was built without its CUDA-specific code (no CUDA libtorch or CUDA toolkit headers at "
           "configure time), so it cannot capture CUDA graphs";
#endif
  }
  if (device_type == c10::kCPU) return "the CPU has no graph capture: --graphs needs a CUDA device";
  return c10::DeviceTypeName(device_type, /*lower_case=*/true) +
         " has no graph capture in accelbench (CUDA graphs only: libtorch's C++ API has no MPS graphs): --graphs needs "
         "a CUDA device";
}

std::unique_ptr<StepGraph> make_step_graph(c10::Device device) {
  if (!step_graph_refusal(device.type()).empty()) return nullptr;
#if ACCELBENCH_WITH_CUDA
  return std::make_unique<CudaStepGraph>(device);
#else
  return nullptr;
#endif
}

}  // namespace accelbench
