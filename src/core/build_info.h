#pragma once
namespace accelbench {
const char* accelbench_version();
const char* accelbench_git_commit();
// The torch this build compiled against: torch/version.py's version string ("2.13.0+cpu") and its
// build ("CUDA 13.0", "ROCm 6.4", "MPS", "CPU"): cmake/accelbench-torch.cmake.
const char* built_torch_version();
const char* built_torch_flavour();
}  // namespace accelbench
