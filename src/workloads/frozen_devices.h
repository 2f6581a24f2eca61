#pragma once
// A trace freezes every device it saw as a constant: `torch.ones(n, device=x.device)` traced on the
// CPU becomes `prim::Constant[value="cpu"]`, so the module, moved to an accelerator, still makes
// that tensor on the CPU and fails ("Expected all tensors to be on the same device"). Hugging Face
// BERT traced on the CPU does this. Moving such a module to another device therefore
// retargets those constants too: every CPU device constant in every method of every submodule
// becomes `to`. A scripted module keeps `x.device` as an expression and has none.
#include <cstddef>

namespace c10 {
struct Device;
}
namespace torch::jit {
struct Module;
}

namespace accelbench {

// Replaces each CPU device constant in the graphs of `module` and its submodules with `to`; returns
// how many it replaced (0 when `to` is the CPU). Call before the module first runs.
std::size_t retarget_frozen_devices(torch::jit::Module& module, const c10::Device& to);

}  // namespace accelbench
