#pragma once
// A torch::nn::Linear applied the way Python's nn.Linear is. The C++ frontend's forward
// (torch::nn::functional::linear) runs matmul and then `output += bias` for an input of more than
// two dimensions: an extra kernel forward and an unfused bias gradient backward. ATen's at::linear
// folds a contiguous 3-D input to 2-D and runs one addmm (the bias in cuBLASLt's epilogue). On the
// H200 the transformer's bfloat16 step had 48 add_ kernels (1.31 ms) where Python's has 30 (0.52
// ms): docs/results.md.
#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

namespace accelbench {

inline at::Tensor linear_of(const torch::nn::Linear& layer, const at::Tensor& x) {
  return at::linear(x, layer->weight, layer->bias);
}

}  // namespace accelbench
