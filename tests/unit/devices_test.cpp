#include <gtest/gtest.h>

#include "core/errors.h"
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

TEST(Devices, CpuMemoryIsPeakRss) {
  auto cpu = open_device("cpu");
  cpu->reset_peak_memory();
  std::vector<char> big(64 << 20, 1);  // touch 64 MiB
  volatile char sink = big[12345];
  (void)sink;
  const auto m = cpu->memory_usage();
  ASSERT_TRUE(m.peak_rss_bytes.has_value());
  EXPECT_GT(*m.peak_rss_bytes, 64ull << 20);
  EXPECT_FALSE(m.source.empty());
  cpu->synchronize();  // a no-op, must not throw
}

TEST(Devices, BackendStatusExplainsAbsence) {
  for (const auto& b : backend_status()) {
    EXPECT_FALSE(b.detail.empty()) << b.name;
  }
}
