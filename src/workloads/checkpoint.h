#pragma once
// Gradient checkpointing (as Python's torch.utils.checkpoint, which libtorch lacks): a block's
// forward runs without building its autograd graph and keeps only its input; the backward pass
// runs the block again with gradients on and back-propagates through that recomputation. Less
// memory (one activation per block instead of all of the block's intermediates), about one more
// forward pass of time.
#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

namespace accelbench {

using CheckpointBlock = std::function<at::Tensor(const at::Tensor&)>;

// y = block(x), checkpointed. `params` are the tensors the block uses that need gradients (a
// module's parameters; those that do not require grad are fine); their gradients and x's flow
// back through the returned tensor. Other inputs (an attention mask) are captured by the block
// itself, by value, and get no gradient. The block is called again in the backward pass, after
// forward() has returned: it must not capture locals by reference.
//
// The recomputation sees the state the forward saw: the default random generators' states (the
// CPU's and the input's device's: dropout draws the same masks; restored afterwards, so the random
// stream continues as without checkpointing) and the autocast state (enabled, dtype) of the CPU
// and the input's device type. Without grad mode, or when nothing requires grad, it is block(x).
at::Tensor checkpointed(const CheckpointBlock& block, const at::Tensor& x, const std::vector<at::Tensor>& params);

}  // namespace accelbench
