#include "core/torch_build.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "core/build_info.h"

namespace accelbench {

namespace {
// The quoted value of `name = '...'` or `name: Optional[str] = '...'` at the start of a line.
std::optional<std::string> quoted_field(const std::string& text, const std::string& name) {
  const std::regex field("(^|\n)" + name + "(: Optional\\[str\\])? = '([^']+)'");
  std::smatch m;
  if (!std::regex_search(text, m, field)) return std::nullopt;
  return m[3].str();
}

bool built_for_apple_silicon() {
#if defined(__APPLE__) && (defined(__aarch64__) || defined(__arm64__))
  return true;
#else
  return false;
#endif
}
}  // namespace

std::optional<TorchBuild> parse_torch_version_file(const std::string& text, bool apple_silicon) {
  const auto version = quoted_field(text, "__version__");
  if (!version) return std::nullopt;
  TorchBuild b{*version, apple_silicon ? "MPS" : "CPU"};
  if (const auto cuda = quoted_field(text, "cuda")) {
    b.flavour = "CUDA " + *cuda;
  } else if (const auto hip = quoted_field(text, "hip")) {
    b.flavour = "ROCm " + *hip;
  }
  return b;
}

std::optional<TorchBuild> read_torch_build(const std::string& torch_dir) {
  std::ifstream in(torch_dir + "/version.py", std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return parse_torch_version_file(text.str(), built_for_apple_silicon());
}

TorchBuild built_torch() { return {built_torch_version(), built_torch_flavour()}; }

}  // namespace accelbench
