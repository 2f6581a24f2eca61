#pragma once
// Which torch a folder holds, read from its torch/version.py without importing torch: the version
// string ("2.13.0+cpu") and the build ("CUDA 13.0", "ROCm 6.4", "MPS" on an Apple-silicon Mac,
// else "CPU"). The same rules as cmake/accelbench-torch.cmake (what the build records) and
// python/accelbench/launcher.py (what the pip launcher checks at start).
#include <optional>
#include <string>

namespace accelbench {

struct TorchBuild {
  std::string version;  // "2.13.0+cpu"
  std::string flavour;  // "CUDA 13.0", "ROCm 6.4", "MPS", "CPU"
  std::string describe() const { return version + " (" + flavour + ")"; }
  bool operator==(const TorchBuild&) const = default;
};

// The build that the text of a torch/version.py names; nullopt without a __version__ line.
// `apple_silicon`: the flavour of a build without CUDA or ROCm is MPS, else CPU.
std::optional<TorchBuild> parse_torch_version_file(const std::string& text, bool apple_silicon);

// The same, read from `torch_dir`/version.py (torch_dir: the torch package's folder, which holds
// lib/); nullopt when there is none or it names no version.
std::optional<TorchBuild> read_torch_build(const std::string& torch_dir);

// The torch this binary was compiled against (core/build_info.h).
TorchBuild built_torch();

}  // namespace accelbench
