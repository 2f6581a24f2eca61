// Which torch a torch/version.py names (core/torch_build.h): what doctor compares with the build's
// record, by the same rules as the CMake record and the pip launcher.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include <unistd.h>

#include "core/torch_build.h"

using namespace accelbench;

namespace accelbench {
void PrintTo(const TorchBuild& b, std::ostream* os) { *os << b.describe(); }  // a failure shows "2.13.0+cpu (CPU)"
}  // namespace accelbench

namespace {
std::string version_file(const std::string& version, const std::string& cuda, const std::string& hip = "None") {
  return "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n__version__ = '" + version +
         "'\ndebug = False\ncuda: Optional[str] = " + cuda + "\ngit_version = 'cf30153c'\nhip: Optional[str] = " + hip + "\n";
}
}  // namespace

TEST(TorchBuild, NamesTheVersionAndTheBuild) {
  EXPECT_EQ(parse_torch_version_file(version_file("2.13.0+cpu", "None"), false), (TorchBuild{"2.13.0+cpu", "CPU"}));
  EXPECT_EQ(parse_torch_version_file(version_file("2.11.0+cu130", "'13.0'"), false), (TorchBuild{"2.11.0+cu130", "CUDA 13.0"}));
  EXPECT_EQ(parse_torch_version_file(version_file("2.12.0+rocm6.4", "None", "'6.4.43482'"), false),
            (TorchBuild{"2.12.0+rocm6.4", "ROCm 6.4.43482"}));
  EXPECT_EQ(parse_torch_version_file(version_file("2.13.0", "None"), true), (TorchBuild{"2.13.0", "MPS"}));
  // An older file without annotations, and the description doctor prints.
  const auto old = parse_torch_version_file("__version__ = '1.13.1+cu117'\ndebug = False\ncuda = '11.7'\n", false);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->describe(), "1.13.1+cu117 (CUDA 11.7)");
}

TEST(TorchBuild, NoVersionLineIsNoTorch) {
  EXPECT_FALSE(parse_torch_version_file("", false));
  EXPECT_FALSE(parse_torch_version_file("version = '2.13.0'\n", false));
  EXPECT_FALSE(read_torch_build("/nonexistent/torch"));
}

TEST(TorchBuild, ReadsTheFileOfAFolder) {
  const auto dir = std::filesystem::temp_directory_path() / ("torch_build_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "version.py") << version_file("2.12.1+cpu", "None");
  const auto b = read_torch_build(dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->version, "2.12.1+cpu");
}

TEST(TorchBuild, TheBuildsRecordNamesATorch) {
  const auto b = built_torch();
  EXPECT_FALSE(b.version.empty());
  EXPECT_TRUE(b.flavour == "CPU" || b.flavour == "MPS" || b.flavour.rfind("CUDA", 0) == 0 || b.flavour.rfind("ROCm", 0) == 0)
      << b.flavour;
}
