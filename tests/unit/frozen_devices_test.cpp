// A trace's frozen cpu device constants move with the module (Hugging Face BERT, traced on the CPU,
// fails on cuda without it). Here the "other device" is meta, which needs no accelerator: the
// frozen constant makes the forward fail there exactly as it did on cuda.
#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <filesystem>

#include "workloads/frozen_devices.h"

namespace {
const std::string kDir = OWN_MODEL_DIR;  // the exported test models; empty without a Python with torch

torch::jit::Module load_on(const std::string& name, const c10::Device& device) {
  return torch::jit::load(kDir + "/" + name, device);  // the parameters mapped onto `device`
}
}  // namespace

TEST(FrozenDevices, ATracesCpuConstantMovesWithTheModule) {
  if (kDir.empty()) GTEST_SKIP() << "no Python with torch at configure time: the model files were not made";
  ASSERT_TRUE(std::filesystem::exists(kDir + "/frozen-device.pt"));
  const c10::Device meta(c10::kMeta);
  const auto x = torch::randn({2, 8}, torch::device(meta));
  auto as_traced = load_on("frozen-device.pt", meta);
  EXPECT_ANY_THROW(as_traced.forward({x})) << "the control: the frozen cpu constant meets meta tensors";

  auto moved = load_on("frozen-device.pt", meta);
  EXPECT_EQ(accelbench::retarget_frozen_devices(moved, meta), 1u);
  const auto out = moved.forward({x}).toTensor();
  EXPECT_EQ(out.device(), meta);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(accelbench::retarget_frozen_devices(moved, meta), 0u) << "none left";
}

TEST(FrozenDevices, NothingToMoveForTheCpuOrAScriptedModule) {
  if (kDir.empty()) GTEST_SKIP() << "no Python with torch at configure time: the model files were not made";
  auto on_cpu = load_on("frozen-device.pt", c10::Device(c10::kCPU));
  EXPECT_EQ(accelbench::retarget_frozen_devices(on_cpu, c10::Device(c10::kCPU)), 0u);
  auto scripted = load_on("conv.pt", c10::Device(c10::kMeta));  // torch.jit.script keeps x.device an expression
  EXPECT_EQ(accelbench::retarget_frozen_devices(scripted, c10::Device(c10::kMeta)), 0u);
}
