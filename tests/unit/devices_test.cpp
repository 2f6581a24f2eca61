#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <vector>

#include "core/errors.h"
#include "core/system_info.h"
#include "device/device.h"

using namespace accelbench;

TEST(Devices, CpuIsListedFirst) {
  const auto d = list_devices();
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().id, "cpu");
  EXPECT_FALSE(d.front().name.empty());
}

TEST(Devices, UnknownDeviceListsAvailable) {
  for (const char* bad : {"tpu", "cuda:7", "mps", "gpu0"}) {
    bool accelerator_present = false;
    for (const auto& d : list_devices())
      if (d.id.rfind(std::string(bad).substr(0, 3), 0) == 0 && std::string(bad) != "cuda:7") accelerator_present = true;
    if (accelerator_present) continue;
    try {
      open_device(bad);
      FAIL() << bad;
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("available: cpu"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(Devices, ResolveAllAndDeduplicate) {
  const auto all = resolve_device_list("all");
  EXPECT_EQ(all.front(), "cpu");
  EXPECT_EQ(resolve_device_list("cpu,CPU"), std::vector<std::string>{"cpu"});
  EXPECT_THROW(resolve_device_list("cpu,,cpu"), UsageError);
}

// The figure is the peak of the case's window: 64 MiB touched and freed again after the reset must
// show in it (the resident set itself falls back once the block is unmapped), and a reset starts the
// window at the current resident set, not at the process's earlier peak.
TEST(Devices, CpuMemoryIsPeakRss) {
  auto cpu = open_device("cpu");
  cpu->reset_peak_memory();
  const auto before = cpu->memory_usage();
  ASSERT_TRUE(before.peak_rss_bytes.has_value());
  EXPECT_FALSE(before.source.empty());
  if (before.source.find("cannot be reset") != std::string::npos) GTEST_SKIP() << before.source;
  constexpr std::uint64_t touched = 64ull << 20;
  {
    std::vector<char> big(touched);
    std::memset(big.data(), 1, big.size());  // every page resident
    volatile char sink = big[12345];
    (void)sink;
  }  // freed here: 64 MiB is above glibc's mmap threshold, so the pages go back to the system
  const auto after = cpu->memory_usage();
  ASSERT_TRUE(after.peak_rss_bytes.has_value());
  // The 64 MiB shows on top of the window's start (a few pages of slack for the allocator's rounding).
  EXPECT_GE(*after.peak_rss_bytes, *before.peak_rss_bytes + touched - (1ull << 20))
      << "peak " << *after.peak_rss_bytes << " B, at the reset " << *before.peak_rss_bytes << " B";
  // ... and it is a peak: the resident set now is well below it.
  if (const auto now = current_rss_bytes())
    EXPECT_LT(*now + touched / 2, *after.peak_rss_bytes) << "resident now " << *now << " B";
  cpu->synchronize();  // a no-op, must not throw
}

// Each backend's detail names it and gives the reason that holds in this libtorch (asked of torch
// directly here): not just any non-empty text.
TEST(Devices, BackendStatusExplainsAbsence) {
  const auto all = backend_status();
  std::vector<std::string> names;
  for (const auto& b : all) names.push_back(b.name);
  ASSERT_EQ(names, (std::vector<std::string>{"cuda", "mps", "xpu"}));
  auto& ctx = at::globalContext();
  const auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  for (const auto& b : all) {
    SCOPED_TRACE(b.name + ": " + b.detail);
    EXPECT_EQ(b.detail.find('\n'), std::string::npos);
    if (!b.available) EXPECT_NE(lower(b.detail).find(b.name), std::string::npos) << "the reason names the backend";
    if (b.name == "cuda") {
      const auto n = ctx.hasCUDA() ? at::accelerator::deviceCount() : 0;
      if (!ctx.hasCUDA()) {
        EXPECT_FALSE(b.available);
        EXPECT_NE(b.detail.find("built without CUDA"), std::string::npos);
      } else if (n == 0) {
        EXPECT_FALSE(b.available);
        EXPECT_NE(b.detail.find("no device is visible"), std::string::npos);
      } else {
        EXPECT_TRUE(b.available);
        EXPECT_EQ(b.detail.rfind(fmt::format("{} device(s)", n), 0), 0u);
      }
    } else if (b.name == "mps") {
#if !defined(__APPLE__)
      EXPECT_FALSE(b.available);
      EXPECT_NE(b.detail.find("only on macOS"), std::string::npos);
#endif
    } else if (b.name == "xpu") {
      EXPECT_EQ(b.available, ctx.hasXPU());
      if (!ctx.hasXPU()) EXPECT_NE(b.detail.find("built without XPU"), std::string::npos);
    }
  }
}
