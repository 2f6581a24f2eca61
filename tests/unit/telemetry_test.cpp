// Telemetry: fake sysfs/procfs trees, a fake NVML function table, the sampler thread, the summary
// and prediction math. No torch, no real hardware needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "telemetry/energy_window.h"
#include "telemetry/nvml_source.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_source.h"
#include "core/telemetry_summary.h"

using namespace accelbench;
namespace fs = std::filesystem;

namespace {

struct FakeTree {
  fs::path root;
  FakeTree() {
    std::random_device rd;
    root = fs::temp_directory_path() / ("accelbench-telemetry-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(root);
  }
  ~FakeTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    const auto p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }
  TelemetryRoots roots() const {
    TelemetryRoots r;
    r.sys = (root / "sys").string();
    r.proc = (root / "proc").string();
    return r;
  }
};

std::optional<double> figure_origin_available(const TelemetrySource& s, const std::string& figure) {
  for (const auto& f : s.figures())
    if (f.figure == figure) return f.available ? 1.0 : 0.0;
  return std::nullopt;
}
std::string figure_origin(const TelemetrySource& s, const std::string& figure) {
  for (const auto& f : s.figures())
    if (f.figure == figure) return f.origin;
  return {};
}

int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The thread count once it reaches `expected`, or after 1 s: a joined thread's /proc/self/task entry
// can outlive the join by a moment (the kernel wakes the joiner before the task is released), which
// made the count one too high once in a loaded CI run. A thread left running stays counted.
int thread_count_settled(int expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  int n = thread_count();
  while (n != expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    n = thread_count();
  }
  return n;
}

}  // namespace

// --- RAPL ---------------------------------------------------------------------------------------

TEST(Rapl, PackageAndDramDomainsWithWrapAround) {
  FakeTree t;
  t.write("sys/class/powercap/intel-rapl:0/name", "package-0");
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "999000");
  t.write("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "1000000");
  t.write("sys/class/powercap/intel-rapl:0:0/name", "core");  // part of the package: not counted twice
  t.write("sys/class/powercap/intel-rapl:0:0/energy_uj", "5");
  t.write("sys/class/powercap/intel-rapl:0:1/name", "dram");
  t.write("sys/class/powercap/intel-rapl:0:1/energy_uj", "100");
  t.write("sys/class/powercap/intel-rapl:0:1/max_energy_range_uj", "1000000");
  auto sources = open_rapl_sources(t.roots());
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0]->name(), "rapl:package-0");
  EXPECT_EQ(sources[1]->name(), "rapl:package-0/dram");
  EXPECT_EQ(sources[0]->role(), "cpu");
  ASSERT_TRUE(sources[0]->available());
  EXPECT_DOUBLE_EQ(*sources[0]->read().energy_j, 0.0);
  // The counter wraps: 999000 -> (1000000 -> 0) -> 1000 is 2000 uJ.
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "1000");
  EXPECT_NEAR(*sources[0]->read().energy_j, 0.002, 1e-12);
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "501000");
  EXPECT_NEAR(*sources[0]->read().energy_j, 0.502, 1e-12);
  // Wraps again.
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "1000");
  EXPECT_NEAR(*sources[0]->read().energy_j, 1.002, 1e-12);
  t.write("sys/class/powercap/intel-rapl:0:1/energy_uj", "350");
  EXPECT_NEAR(*sources[1]->read().energy_j, 250e-6, 1e-12);
}

TEST(Rapl, UnreadableEnergyIsUnavailableWithTheReason) {
  FakeTree t;
  t.write("sys/class/powercap/intel-rapl:0/name", "package-0");
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "123");
  auto roots = t.roots();
  // Root can read a chmod 000 file, so the permission error is simulated at the reader.
  roots.reader = [](const std::string& path) {
    if (path.ends_with("energy_uj")) return FileReadResult{std::nullopt, EACCES, "permission denied"};
    return read_small_file(path);
  };
  auto sources = open_rapl_sources(roots);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0]->name(), "rapl");
  EXPECT_FALSE(sources[0]->available());
  EXPECT_NE(sources[0]->unavailable_reason().find("permission denied"), std::string::npos);
  EXPECT_NE(sources[0]->unavailable_reason().find("chmod"), std::string::npos);
  EXPECT_NE(sources[0]->unavailable_reason().find("energy_uj"), std::string::npos);
}

TEST(Rapl, RealPermissionDeniedWhenNotRoot) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads mode-000 files; covered by the simulated reader above";
  FakeTree t;
  t.write("sys/class/powercap/intel-rapl:0/name", "package-0");
  t.write("sys/class/powercap/intel-rapl:0/energy_uj", "123");
  fs::permissions(t.root / "sys/class/powercap/intel-rapl:0/energy_uj", fs::perms::none);
  auto sources = open_rapl_sources(t.roots());
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_FALSE(sources[0]->available());
  EXPECT_NE(sources[0]->unavailable_reason().find("permission denied"), std::string::npos);
}

TEST(Rapl, NoPowercapOrNoDomain) {
  FakeTree t;
  auto none = open_rapl_sources(t.roots());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0]->available());
  EXPECT_NE(none[0]->unavailable_reason().find("class/powercap"), std::string::npos);
  fs::create_directories(t.root / "sys/class/powercap/dtpm");
  auto empty = open_rapl_sources(t.roots());
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_NE(empty[0]->unavailable_reason().find("no intel-rapl domain"), std::string::npos);
  // Energy figures of an unavailable source carry the reason too.
  EXPECT_EQ(figure_origin_available(*empty[0], "energy"), 0.0);
}

// --- hwmon, thermal zones, cpufreq ----------------------------------------------------------------

TEST(LinuxThermal, HwmonCpuChipsCpufreqAndThrottleCounters) {
  FakeTree t;
  t.write("sys/class/hwmon/hwmon0/name", "coretemp");
  t.write("sys/class/hwmon/hwmon0/temp1_input", "45000");
  t.write("sys/class/hwmon/hwmon0/temp2_input", "61500");
  t.write("sys/class/hwmon/hwmon0/temp1_label", "Package id 0");
  t.write("sys/class/hwmon/hwmon1/name", "nvme");  // not the CPU: not used
  t.write("sys/class/hwmon/hwmon1/temp1_input", "80000");
  for (int cpu = 0; cpu < 2; ++cpu) {
    const auto d = "sys/devices/system/cpu/cpu" + std::to_string(cpu);
    t.write(d + "/cpufreq/scaling_cur_freq", cpu == 0 ? "2900000" : "1200000");
    t.write(d + "/cpufreq/cpuinfo_max_freq", "3500000");
    t.write(d + "/cpufreq/base_frequency", "3000000");
    t.write(d + "/thermal_throttle/package_throttle_count", "7");
    t.write(d + "/topology/physical_package_id", "0");
  }
  auto src = open_linux_thermal_source(t.roots());
  ASSERT_TRUE(src->available());
  EXPECT_EQ(src->role(), "cpu");
  EXPECT_NE(figure_origin(*src, "temperature").find("coretemp"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "throttle").find("base_frequency 3000 MHz"), std::string::npos);
  auto r = src->read();
  ASSERT_TRUE(r.temperature_c);
  EXPECT_DOUBLE_EQ(*r.temperature_c, 61.5);  // the NVMe's 80 C is not the CPU's
  ASSERT_TRUE(r.clock_mhz);
  EXPECT_DOUBLE_EQ(*r.clock_mhz, 2900.0);  // the fastest core
  EXPECT_FALSE(r.throttled);               // 2900 >= 80% of the 3000 MHz base
  // A throttle event, and then the clocks fall below 80% of the base.
  t.write("sys/devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "8");
  r = src->read();
  EXPECT_TRUE(r.throttled);
  ASSERT_EQ(r.throttle_reasons.size(), 1u);
  EXPECT_NE(r.throttle_reasons[0].find("thermal throttle"), std::string::npos);
  t.write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2000000");
  r = src->read();
  EXPECT_TRUE(r.throttled);
  ASSERT_EQ(r.throttle_reasons.size(), 1u);
  EXPECT_NE(r.throttle_reasons[0].find("below 80%"), std::string::npos);
}

TEST(LinuxThermal, ThermalZonesWhenNoCpuHwmon) {
  FakeTree t;
  t.write("sys/class/hwmon/hwmon0/name", "acpitz");
  t.write("sys/class/hwmon/hwmon0/temp1_input", "30000");
  t.write("sys/class/thermal/thermal_zone0/type", "acpitz");
  t.write("sys/class/thermal/thermal_zone0/temp", "30000");
  t.write("sys/class/thermal/thermal_zone1/type", "x86_pkg_temp");
  t.write("sys/class/thermal/thermal_zone1/temp", "55000");
  auto src = open_linux_thermal_source(t.roots());
  ASSERT_TRUE(src->available());
  EXPECT_DOUBLE_EQ(*src->read().temperature_c, 55.0);
  EXPECT_NE(figure_origin(*src, "temperature").find("x86_pkg_temp"), std::string::npos);
  EXPECT_EQ(figure_origin_available(*src, "clock"), 0.0);
  EXPECT_NE(figure_origin(*src, "clock").find("no cpufreq"), std::string::npos);
}

TEST(LinuxThermal, UnreadableSensorsAndNothingAtAll) {
  FakeTree t;
  auto nothing = open_linux_thermal_source(t.roots());
  EXPECT_FALSE(nothing->available());
  EXPECT_NE(nothing->unavailable_reason().find("no readable sensor"), std::string::npos);
  EXPECT_NE(nothing->unavailable_reason().find("no cpufreq"), std::string::npos);

  t.write("sys/class/hwmon/hwmon0/name", "k10temp");
  t.write("sys/class/hwmon/hwmon0/temp1_input", "50000");
  auto roots = t.roots();
  roots.reader = [](const std::string& path) {
    if (path.ends_with("temp1_input")) return FileReadResult{std::nullopt, EIO, "I/O error"};
    return read_small_file(path);
  };
  auto broken = open_linux_thermal_source(roots);
  EXPECT_FALSE(broken->available());
}

TEST(Process, ResidentSetFromProcStatus) {
  FakeTree t;
  t.write("proc/self/status", "Name:\taccelbench\nVmHWM:\t  9999 kB\nVmRSS:\t  1234 kB\nThreads:\t3");
  auto src = open_process_source(t.roots());
  ASSERT_TRUE(src->available());
  EXPECT_DOUBLE_EQ(*src->read().memory_bytes, 1234.0 * 1024);
  FakeTree empty;
  EXPECT_FALSE(open_process_source(empty.roots())->available());
  // And the real one.
  auto real = open_process_source(TelemetryRoots{});
  ASSERT_TRUE(real->available());
  EXPECT_GT(*real->read().memory_bytes, 1e6);
}

// --- NVML ---------------------------------------------------------------------------------------

namespace {
struct FakeGpu {
  unsigned long long energy_mj = 5'000'000;
  double instant_mw = 350'000;
  int field_rc = nvml::kSuccess;
  unsigned usage_mw = 300'000;
  unsigned long long reasons = 0;
  unsigned sm_clock = 1980, max_sm_clock = 1980;
  unsigned long long mem_used = 10ull << 30;
  std::vector<unsigned> handles_asked;
};

std::shared_ptr<NvmlApi> fake_api(std::shared_ptr<FakeGpu> g) {
  auto api = std::make_shared<NvmlApi>();
  api->library = "fake";
  api->initialized = true;
  api->error_string = [](int rc) { return rc == nvml::kErrorNotSupported ? "Not Supported" : "Unknown Error"; };
  api->device_get_count = [](unsigned* n) { *n = 4; return 0; };
  api->device_get_handle_by_index = [g](unsigned i, nvml::Device* d) {
    g->handles_asked.push_back(i);
    *d = reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(0x100 + i));
    return i < 4 ? nvml::kSuccess : nvml::kErrorNotFound;
  };
  api->device_get_name = [](nvml::Device, char* buf, unsigned n) { std::snprintf(buf, n, "Fake H200"); return 0; };
  api->device_get_total_energy_consumption = [g](nvml::Device, unsigned long long* mj) { *mj = g->energy_mj; return 0; };
  api->device_get_field_values = [g](nvml::Device, int n, nvml::FieldValue* v) {
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(v[i].fieldId, nvml::kFieldPowerInstant);
      v[i].nvmlReturn = g->field_rc;
      v[i].valueType = nvml::kValueTypeUInt;
      v[i].value.uiVal = static_cast<unsigned>(g->instant_mw);
    }
    return 0;
  };
  api->device_get_power_usage = [g](nvml::Device, unsigned* mw) { *mw = g->usage_mw; return 0; };
  api->device_get_temperature = [](nvml::Device, int sensor, unsigned* c) { EXPECT_EQ(sensor, 0); *c = 67; return 0; };
  api->device_get_clock_info = [g](nvml::Device, int clk, unsigned* mhz) { EXPECT_EQ(clk, nvml::kClockSm); *mhz = g->sm_clock; return 0; };
  api->device_get_max_clock_info = [g](nvml::Device, int, unsigned* mhz) { *mhz = g->max_sm_clock; return 0; };
  api->device_get_current_clocks_event_reasons = [g](nvml::Device, unsigned long long* r) { *r = g->reasons; return 0; };
  api->reasons_function = "nvmlDeviceGetCurrentClocksEventReasons";
  api->device_get_memory_info = [g](nvml::Device, nvml::Memory* m) { m->used = g->mem_used; m->total = 141ull << 30; return 0; };
  return api;
}

struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* o = std::getenv(name.c_str())) old = o;
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};
}  // namespace

TEST(Nvml, EnergyCounterDeltaInstantPowerAndFigures) {
  ScopedEnv env("CUDA_VISIBLE_DEVICES", nullptr);
  auto g = std::make_shared<FakeGpu>();
  auto src = open_nvml_source(fake_api(g), 0);
  ASSERT_TRUE(src->available());
  EXPECT_EQ(src->name(), "nvml:0");
  EXPECT_EQ(src->role(), "accelerator");
  EXPECT_NE(src->description().find("Fake H200"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "power").find("NVML_FI_DEV_POWER_INSTANT"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "energy").find("nvmlDeviceGetTotalEnergyConsumption"), std::string::npos);
  auto r = src->read();
  EXPECT_DOUBLE_EQ(*r.energy_j, 0.0);  // relative to the counter's value when the source opened
  g->energy_mj += 123'456;             // 123.456 J later
  r = src->read();
  EXPECT_NEAR(*r.energy_j, 123.456, 1e-9);
  EXPECT_DOUBLE_EQ(*r.power_w, 350.0);
  EXPECT_DOUBLE_EQ(*r.temperature_c, 67.0);
  EXPECT_DOUBLE_EQ(*r.clock_mhz, 1980.0);
  EXPECT_DOUBLE_EQ(*r.memory_bytes, static_cast<double>(10ull << 30));
  EXPECT_FALSE(r.throttled);
}

TEST(Nvml, ThrottleReasonsAreFlagged) {
  ScopedEnv env("CUDA_VISIBLE_DEVICES", nullptr);
  auto g = std::make_shared<FakeGpu>();
  auto src = open_nvml_source(fake_api(g), 0);
  g->reasons = nvml::kReasonGpuIdle;  // idle is not throttling
  EXPECT_FALSE(src->read().throttled);
  g->reasons = nvml::kReasonApplicationsClocksSetting | nvml::kReasonSyncBoost;
  EXPECT_FALSE(src->read().throttled);
  g->reasons = nvml::kReasonSwPowerCap | nvml::kReasonGpuIdle;
  auto r = src->read();
  EXPECT_TRUE(r.throttled);
  ASSERT_EQ(r.throttle_reasons.size(), 1u);
  EXPECT_EQ(r.throttle_reasons[0], "gpu SwPowerCap");
  g->reasons = nvml::kReasonHwThermalSlowdown | nvml::kReasonSwThermalSlowdown;
  r = src->read();
  EXPECT_TRUE(r.throttled);
  EXPECT_EQ(r.throttle_reasons[0], "gpu SwThermalSlowdown,HwThermalSlowdown");
}

TEST(Nvml, MissingFunctionsMakeFiguresUnavailable) {
  ScopedEnv env("CUDA_VISIBLE_DEVICES", nullptr);
  auto g = std::make_shared<FakeGpu>();
  auto api = fake_api(g);
  api->device_get_total_energy_consumption = nullptr;  // a pre-Volta driver
  api->device_get_current_clocks_event_reasons = nullptr;
  g->field_rc = nvml::kErrorNotSupported;               // no instantaneous power field
  auto src = open_nvml_source(api, 0);
  ASSERT_TRUE(src->available());
  EXPECT_EQ(figure_origin_available(*src, "energy"), 0.0);
  EXPECT_NE(figure_origin(*src, "energy").find("not in this NVML library"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "power").find("nvmlDeviceGetPowerUsage"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "power").find("1 s average"), std::string::npos);
  EXPECT_NE(figure_origin(*src, "throttle").find("below 80%"), std::string::npos);
  auto r = src->read();
  EXPECT_FALSE(r.energy_j);
  EXPECT_DOUBLE_EQ(*r.power_w, 300.0);
  // Without reasons, a clock below 80% of its maximum is flagged.
  g->sm_clock = 1200;
  r = src->read();
  EXPECT_TRUE(r.throttled);
  EXPECT_NE(r.throttle_reasons[0].find("below 80% of 1980 MHz"), std::string::npos);

  // Nothing works: the whole source is unavailable, with the reasons.
  auto dead = std::make_shared<NvmlApi>();
  dead->device_get_handle_by_index = [](unsigned, nvml::Device* d) { *d = nullptr; return 0; };
  auto none = open_nvml_source(dead, 0);
  EXPECT_FALSE(none->available());
  EXPECT_NE(none->unavailable_reason().find("nvmlDeviceGetTotalEnergyConsumption is not in this NVML library"),
            std::string::npos);
  // No library at all.
  auto absent = open_nvml_source(nullptr, 0, "cannot load libnvidia-ml.so.1 (...)");
  EXPECT_FALSE(absent->available());
  EXPECT_NE(absent->unavailable_reason().find("libnvidia-ml.so.1"), std::string::npos);
}

TEST(Nvml, CudaVisibleDevicesMapsToNvmlIndices) {
  auto g = std::make_shared<FakeGpu>();
  {
    ScopedEnv env("CUDA_VISIBLE_DEVICES", "3,1");
    auto src = open_nvml_source(fake_api(g), 1);
    ASSERT_TRUE(src->available());
    EXPECT_EQ(g->handles_asked.back(), 1u);
    g->handles_asked.clear();
    open_nvml_source(fake_api(g), 0);
    EXPECT_EQ(g->handles_asked.back(), 3u);
    auto out_of_range = open_nvml_source(fake_api(g), 2);
    EXPECT_FALSE(out_of_range->available());
    EXPECT_NE(out_of_range->unavailable_reason().find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  }
  {
    ScopedEnv env("CUDA_VISIBLE_DEVICES", "GPU-abc");
    auto api = fake_api(g);
    std::string asked;
    api->device_get_handle_by_uuid = [&](const char* uuid, nvml::Device* d) { asked = uuid; *d = nullptr; return 0; };
    EXPECT_TRUE(open_nvml_source(api, 0)->available());
    EXPECT_EQ(asked, "GPU-abc");
  }
}

// --- the sampler ----------------------------------------------------------------------------------

namespace {
// A source whose energy follows a steady 100 W from its creation, with an instantaneous power too.
class SteadySource final : public TelemetrySource {
 public:
  explicit SteadySource(std::string role = "accelerator", double watts = 100) : role_(std::move(role)), watts_(watts) {}
  std::string name() const override { return "steady"; }
  std::string role() const override { return role_; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"energy", true, "fake counter"}, {"power", true, "fake power"}, {"temperature", true, "fake"}};
  }
  TelemetryReading read() override {
    ++reads;
    TelemetryReading r;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    r.energy_j = watts_ * t;
    r.power_w = watts_;
    r.temperature_c = 40 + t;
    return r;
  }
  std::atomic<int> reads{0};

 private:
  std::string role_;
  double watts_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};
}  // namespace

TEST(Sampler, WindowEnergyFromCounterAndPowerIntegralAgree) {
  auto steady = std::make_shared<SteadySource>();
  Sampler s({steady, make_unavailable_source("rapl", "cpu", "no /sys/class/powercap")}, {.hz = 50});
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const auto outer_begin = std::chrono::steady_clock::now();
  s.mark_window_begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  s.mark_window_end(30);
  const double outer_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - outer_begin).count();
  s.stop();
  EXPECT_FALSE(s.running());
  auto sum = s.summarize({.device_role = "accelerator", .steps_per_epoch = 100, .epochs = 2, .step_mean_s = 0.01,
                          .step_mean_rel_ci = 0.02});
  // ~15 readings at 50 Hz in 0.3 s, boundaries included; a busy machine may delay the sampler's
  // ticks, never its boundary readings, so at least those two and one tick between them.
  EXPECT_GE(sum.samples, 3u);
  // The window lies between the marks: at least the sleep, at most what the test's clock saw.
  EXPECT_GE(sum.window_s, 0.3);
  EXPECT_LE(sum.window_s, outer_s);
  ASSERT_TRUE(sum.energy_j.value);
  // Each reading's time is the middle of its reads: microseconds off the fake's own clock.
  EXPECT_NEAR(*sum.energy_j.value, 100 * sum.window_s, 1e-3 * *sum.energy_j.value);
  ASSERT_EQ(sum.channels.size(), 1u);
  EXPECT_EQ(sum.channels[0].energy_method, "counter");
  EXPECT_NEAR(*sum.channels[0].power_integral_j, *sum.channels[0].energy_counter_j, 1e-3 * *sum.energy_j.value);
  EXPECT_NEAR(*sum.energy_per_step_j.value, *sum.energy_j.value / 30, 1e-9);
  EXPECT_NEAR(*sum.energy_per_epoch_j.value, *sum.energy_per_step_j.value * 100, 1e-9);
  EXPECT_NEAR(*sum.mean_power_w.value, 100, 0.1);
  EXPECT_NEAR(*sum.peak_power_w.value, 100, 1e-9);
  EXPECT_GT(*sum.max_temperature_c.value, 40);
  // The CPU's energy is unavailable and says why, in the figure and in the list.
  EXPECT_FALSE(sum.host_energy_j.value);
  EXPECT_NE(sum.host_energy_j.unavailable.find("unavailable: rapl: no /sys/class/powercap"), std::string::npos);
  EXPECT_EQ(sum.unavailable.at("rapl"), "unavailable: no /sys/class/powercap");
  ASSERT_TRUE(sum.prediction);
  EXPECT_NEAR(sum.prediction->time_s, 2 * 100 * 0.01, 1e-12);
  EXPECT_NEAR(*sum.prediction->energy_j.value, 200 * *sum.energy_per_step_j.value, 1e-9);
  EXPECT_FALSE(sum.series.t_s.empty());
}

TEST(Sampler, StopsPromptlyUnderLoadAndLeavesNoThread) {
  std::atomic<bool> burn{true};
  std::vector<std::thread> burners;
  for (int i = 0; i < 2; ++i)
    burners.emplace_back([&] {
      volatile double x = 0;
      while (burn.load(std::memory_order_relaxed)) x = x + 1;
    });
  const int before = thread_count();
  for (int round = 0; round < 3; ++round) {
    auto steady = std::make_shared<SteadySource>();
    Sampler s({steady}, {.hz = 0.5});  // a reading every 2 s: stop() must not wait for the next tick
    s.start();
    EXPECT_EQ(thread_count(), before + 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto t0 = std::chrono::steady_clock::now();
    s.stop();
    const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(stop_s, 1.5);  // well before the next tick (2 s): stop() wakes the thread
    EXPECT_EQ(thread_count_settled(before), before);
    EXPECT_GE(steady->reads.load(), 1);
    s.stop();  // idempotent
  }
  {
    Sampler s({std::make_shared<SteadySource>()}, {.hz = 200});
    s.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }  // the destructor stops and joins
  EXPECT_EQ(thread_count_settled(before), before);
  burn = false;
  for (auto& t : burners) t.join();
}

namespace {
// Replays scripted readings (for exact summary math).
class ScriptedSource final : public TelemetrySource {
 public:
  ScriptedSource(std::string name, std::string role, std::vector<TelemetryFigureOrigin> figs)
      : name_(std::move(name)), role_(std::move(role)), figs_(std::move(figs)) {}
  std::string name() const override { return name_; }
  std::string role() const override { return role_; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override { return figs_; }
  TelemetryReading read() override { return {}; }

 private:
  std::string name_, role_;
  std::vector<TelemetryFigureOrigin> figs_;
};
}  // namespace

TEST(Summary, CounterOnlyChannelsThrottlingAndDecimation) {
  // Two RAPL-like counters (package 50 W, dram 10 W) read at 20 Hz for 50 s; the window is
  // [10 s, 40 s]; readings between 20 s and 21 s are throttled.
  auto pkg = std::make_shared<ScriptedSource>("rapl:package-0", "cpu",
                                              std::vector<TelemetryFigureOrigin>{{"energy", true, "counter"}, {"throttle", true, "x"}});
  auto dram = std::make_shared<ScriptedSource>("rapl:package-0/dram", "cpu",
                                               std::vector<TelemetryFigureOrigin>{{"energy", true, "counter"}});
  auto proc = std::make_shared<ScriptedSource>("process", "process", std::vector<TelemetryFigureOrigin>{{"memory", true, "VmRSS"}});
  std::vector<TelemetrySourcePtr> sources{pkg, dram, proc};
  std::vector<Sampler::Point> pts;
  for (int k = 0; k <= 1000; ++k) {
    const double t = k * 0.05;
    Sampler::Point p;
    p.t = t;
    TelemetryReading a, d, m;
    a.energy_j = 50 * t;
    d.energy_j = 10 * t;
    m.memory_bytes = 1e9 + (t > 30 && t < 31 ? 5e8 : 0);
    if (t >= 20 && t < 21) {
      a.throttled = true;
      a.throttle_reasons = {"cpu package thermal throttle event"};
    }
    p.readings = {a, d, m};
    pts.push_back(p);
  }
  auto s = summarize_points(sources, pts, 200, 800, 3000, 20, 200,
                            {.device_role = "cpu", .steps_per_epoch = 938, .epochs = 3, .step_mean_s = 0.01, .step_mean_rel_ci = 0.01});
  EXPECT_NEAR(s.window_s, 30, 1e-9);
  ASSERT_TRUE(s.energy_j.value);
  EXPECT_NEAR(*s.energy_j.value, 60 * 30, 1e-6);
  EXPECT_NE(s.energy_j.source.find("rapl:package-0 (counter) + rapl:package-0/dram (counter)"), std::string::npos);
  EXPECT_NEAR(*s.energy_per_step_j.value, 1800.0 / 3000, 1e-9);
  EXPECT_NEAR(*s.mean_power_w.value, 60, 1e-6);
  EXPECT_NEAR(*s.peak_power_w.value, 60, 1e-6);  // derived from the counters, summed over the domains
  EXPECT_NEAR(*s.peak_memory_bytes.value, 1.5e9, 1);
  EXPECT_EQ(s.throttled_samples, 20u);
  EXPECT_TRUE(s.throttled);
  ASSERT_EQ(s.throttle_reasons.size(), 1u);
  EXPECT_FALSE(s.max_temperature_c.value);
  EXPECT_NE(s.max_temperature_c.unavailable.find("unavailable:"), std::string::npos);
  EXPECT_TRUE(s.host_energy_j.value);
  // Series: 1001 readings decimated to 200 points; counter power is 50 W and 10 W throughout.
  EXPECT_EQ(s.series.t_s.size(), 200u);
  const auto& p = s.series.channels.at("rapl:package-0").at("power_w");
  ASSERT_EQ(p.size(), 200u);
  EXPECT_NEAR(*p[100], 50, 1e-6);
  EXPECT_TRUE(s.series.channels.at("rapl:package-0").count("throttled"));
  EXPECT_FALSE(s.series.channels.at("rapl:package-0/dram").count("throttled"));
  EXPECT_NEAR(*s.series.channels.at("process").at("memory_bytes")[121], 1.5e9, 1);  // t ~ 30.3 s
  // Steady power: the prediction's energy interval is the step time's.
  ASSERT_TRUE(s.prediction);
  EXPECT_NEAR(*s.prediction->energy_j.value, 3 * 938 * 0.6, 1e-6);
  EXPECT_NEAR(*s.prediction->energy_high_j / *s.prediction->energy_j.value, 1.01, 1e-6);
}

TEST(Summary, PowerOnlyIntegralAndNoWindow) {
  auto gpu = std::make_shared<ScriptedSource>("gpu", "accelerator", std::vector<TelemetryFigureOrigin>{{"power", true, "p"}});
  std::vector<Sampler::Point> pts;
  // Power ramps 100 -> 200 W over [0, 1] s at 10 Hz: the trapezoid gives exactly 150 J.
  for (int k = 0; k <= 10; ++k) {
    TelemetryReading r;
    r.power_w = 100 + 100 * k / 10.0;
    pts.push_back({k / 10.0, {r}});
  }
  auto s = summarize_points({gpu}, pts, 0, 10, 10, 10, 200, {.device_role = "accelerator"});
  ASSERT_TRUE(s.energy_j.value);
  EXPECT_NEAR(*s.energy_j.value, 150, 1e-9);
  EXPECT_EQ(s.channels[0].energy_method, "power integral");
  EXPECT_NEAR(*s.peak_power_w.value, 200, 1e-9);
  EXPECT_NE(s.energy_j.source.find("power integral"), std::string::npos);

  auto none = summarize_points({gpu}, pts, std::nullopt, std::nullopt, 0, 10, 200, {.device_role = "accelerator"});
  EXPECT_FALSE(none.energy_j.value);
  EXPECT_NE(none.energy_j.unavailable.find("no measured window"), std::string::npos);
  EXPECT_FALSE(none.prediction);
}

// --- prediction and JSON ----------------------------------------------------------------------------

TEST(Prediction, TimeAndEnergyWithUncertainty) {
  auto p = predict_training(10, 100, 0.01, 0.02, TelemetryFigure::of(2.0, "nvml:0"), 0.03);
  EXPECT_DOUBLE_EQ(p.total_steps, 1000);
  EXPECT_NEAR(p.time_s, 10.0, 1e-12);
  EXPECT_NEAR(p.time_low_s, 9.8, 1e-12);
  EXPECT_NEAR(p.time_high_s, 10.2, 1e-12);
  ASSERT_TRUE(p.energy_j.value);
  EXPECT_NEAR(*p.energy_j.value, 2000, 1e-9);
  const double rel = std::sqrt(0.02 * 0.02 + 0.03 * 0.03);
  EXPECT_NEAR(*p.energy_low_j, 2000 * (1 - rel), 1e-9);
  EXPECT_NEAR(*p.energy_high_j, 2000 * (1 + rel), 1e-9);
  auto q = predict_training(1, 100, 0.01, 0.02, TelemetryFigure::none("rapl: permission denied"), 0);
  EXPECT_FALSE(q.energy_j.value);
  EXPECT_EQ(q.energy_j.unavailable, "unavailable: rapl: permission denied");
  EXPECT_FALSE(q.energy_low_j);
  // Exact quantiles now (core/t_distribution): the old table's rounded 2.262 and its 1.96 for every
  // dof above 30 (too narrow by up to 4% for 31..120) gave way to the values themselves.
  EXPECT_NEAR(t_quantile_95(9), 2.262157, 1e-6);
  EXPECT_NEAR(t_quantile_95(1000), 1.962339, 1e-6);
}

TEST(TelemetryJson, RoundTripAndUnavailableFigures) {
  TelemetrySummary s;
  s.sample_hz = 20;
  s.window_s = 3;
  s.steps = 30;
  s.device_role = "accelerator";
  s.energy_j = TelemetryFigure::of(900, "nvml:0 (counter)");
  s.energy_per_step_j = TelemetryFigure::of(30, "nvml:0 (counter)");
  s.max_temperature_c = TelemetryFigure::none("nvml:0: Not Supported (3)");
  TelemetryChannel ch;
  ch.source = "nvml:0";
  ch.energy_counter_j = 900;
  ch.power_integral_j = 880;
  ch.figures["energy"] = "nvmlDeviceGetTotalEnergyConsumption";
  s.channels.push_back(ch);
  s.unavailable["rapl"] = "unavailable: no /sys/class/powercap";
  s.series.t_s = {0, 1};
  s.series.channels["nvml:0"]["power_w"] = {std::nullopt, 300.0};
  s.prediction = predict_training(1, 100, 0.1, 0.01, s.energy_per_step_j, 0.02);
  const nlohmann::json j = s;
  EXPECT_EQ(j["energy_j"]["value"], 900);
  EXPECT_EQ(j["energy_j"]["source"], "nvml:0 (counter)");
  EXPECT_TRUE(j["max_temperature_c"]["value"].is_null());
  EXPECT_EQ(j["max_temperature_c"]["unavailable"], "unavailable: nvml:0: Not Supported (3)");
  EXPECT_FALSE(j["energy_per_epoch_j"].contains("source"));
  EXPECT_EQ(j["energy_per_epoch_j"]["unavailable"], "unavailable: not measured");
  EXPECT_EQ(j["channels"][0]["energy_counter_j"], 900);
  EXPECT_EQ(j["channels"][0]["power_integral_j"], 880);
  EXPECT_TRUE(j["series"]["channels"]["nvml:0"]["power_w"][0].is_null());
  auto back = j.get<TelemetrySummary>();
  EXPECT_EQ(nlohmann::json(back), j);
}

// --- this machine: whatever it has, each source either gives what it claims or says why not ---------

namespace {
// Whether a reading holds the figure a source says it gives (throttle, a flag, is not counted).
bool reading_has(const TelemetryReading& r, const std::string& figure) {
  if (figure == "energy") return r.energy_j.has_value();
  if (figure == "power") return r.power_w.has_value();
  if (figure == "temperature") return r.temperature_c.has_value();
  if (figure == "clock") return r.clock_mhz.has_value();
  if (figure == "memory") return r.memory_bytes.has_value();
  return false;
}
}  // namespace

TEST(ThisMachine, EverySourceIsAvailableOrSaysWhy) {
  bool process_seen = false;
  for (const auto& s : all_telemetry_sources()) {
    SCOPED_TRACE(s->name());
    if (s->available()) {
      std::printf("  %-22s available: %s\n", s->name().c_str(), s->description().c_str());
      EXPECT_TRUE(s->unavailable_reason().empty()) << "available, yet a reason: " << s->unavailable_reason();
      EXPECT_FALSE(s->description().empty());
      // Two readings (a power derived from an energy counter needs two): at least one figure the
      // source marks available is in the second.
      (void)s->read();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const auto r = s->read();
      std::vector<std::string> claimed, given;
      for (const auto& f : s->figures()) {
        if (!f.available || f.figure == "throttle") continue;
        claimed.push_back(f.figure);
        if (reading_has(r, f.figure)) given.push_back(f.figure);
      }
      if (!claimed.empty()) EXPECT_FALSE(given.empty()) << "none of the figures it claims is in a reading";
      if (s->name() == "process") {
        process_seen = true;
        ASSERT_TRUE(r.memory_bytes.has_value());
        EXPECT_GT(*r.memory_bytes, 1 << 20) << "this process's resident set is more than 1 MiB";
      }
    } else {
      std::printf("  %-22s unavailable: %s\n", s->name().c_str(), s->unavailable_reason().c_str());
      EXPECT_FALSE(s->unavailable_reason().empty());
      EXPECT_EQ(s->unavailable_reason().find('\n'), std::string::npos);
      for (const auto& f : s->figures()) EXPECT_FALSE(f.available) << f.figure << " of an unavailable source";
    }
  }
#if defined(__linux__) || defined(__APPLE__)
  EXPECT_TRUE(process_seen) << "the process source reads /proc/self/status (Linux) or task_info (macOS): always there";
#endif
}

// --- the energy window: a counter's update period, k periods at least, mean power <= peak ----------

namespace {
// An NVML-like device read at 20 Hz: power readings around `watts` (+-4%, deterministic), and an
// energy counter that updates only every 100 ms (holding the energy at its last update).
std::vector<Sampler::Point> counter_every_100ms(double watts, double until_s, std::vector<double> marks = {}) {
  std::vector<double> times;
  for (int k = 0; k * 0.05 <= until_s + 1e-9; ++k) times.push_back(k * 0.05);
  times.insert(times.end(), marks.begin(), marks.end());
  std::sort(times.begin(), times.end());
  std::vector<Sampler::Point> pts;
  for (double t : times) {
    TelemetryReading r;
    const double last_update = std::floor(t / 0.1 + 1e-9) * 0.1;
    r.energy_j = watts * last_update;
    r.power_w = watts * (1 + 0.04 * std::sin(37 * t));
    pts.push_back({t, {r}});
  }
  return pts;
}
std::size_t index_at(const std::vector<Sampler::Point>& pts, double t) {
  for (std::size_t k = 0; k < pts.size(); ++k)
    if (std::abs(pts[k].t - t) < 1e-12) return k;
  return pts.size();
}
std::shared_ptr<ScriptedSource> nvml_like() {
  return std::make_shared<ScriptedSource>(
      "nvml:0", "accelerator", std::vector<TelemetryFigureOrigin>{{"energy", true, "mJ counter"}, {"power", true, "mW"}});
}
}  // namespace

TEST(EnergyWindow, CounterUpdatePeriodFromItsChanges) {
  std::vector<CounterReading> every_100ms, every_130ms, every_reading, once;
  for (int k = 0; k <= 40; ++k) {
    const double t = k * 0.05;
    every_100ms.push_back({t, std::floor(t / 0.1 + 1e-9)});
    every_130ms.push_back({t, std::floor(t / 0.13 + 1e-9)});
    every_reading.push_back({t, t});
    once.push_back({t, t < 1 ? 0.0 : 1.0});
  }
  ASSERT_TRUE(counter_update_period_s(every_100ms));
  EXPECT_NEAR(*counter_update_period_s(every_100ms), 0.1, 1e-9);
  EXPECT_NEAR(*counter_update_period_s(every_130ms), 0.13, 0.01);  // not a multiple of the 50 ms sampling
  EXPECT_NEAR(*counter_update_period_s(every_reading), 0.05, 1e-9);  // the sampling interval: an upper bound
  EXPECT_FALSE(counter_update_period_s(once));
  EXPECT_NEAR(min_energy_window_s(0.1), 0.4, 1e-12);
  EXPECT_NEAR(*min_energy_window_s(every_100ms), 0.4, 1e-9);
  EXPECT_FALSE(min_energy_window_s(once));
}

TEST(EnergyWindow, ChooseCounterOnlyOverEnoughUpdatesAndUnderThePeak) {
  // Long enough, under the peak: the counter.
  auto long_window = choose_window_energy(
      {.window_s = 2, .counter_j = 1000, .power_integral_j = 990, .update_period_s = 0.1, .peak_power_w = 560});
  EXPECT_EQ(long_window.method, "counter");
  EXPECT_DOUBLE_EQ(*long_window.energy_j, 1000);
  EXPECT_TRUE(long_window.note.empty());
  // Shorter than 4 periods: the integral, and why.
  auto short_window = choose_window_energy(
      {.window_s = 0.3, .counter_j = 200, .power_integral_j = 150, .update_period_s = 0.1, .peak_power_w = 560});
  EXPECT_EQ(short_window.method, "power integral");
  EXPECT_DOUBLE_EQ(*short_window.energy_j, 150);
  EXPECT_NE(short_window.note.find("shorter than 4 update periods"), std::string::npos) << short_window.note;
  EXPECT_NE(short_window.note.find("at least 0.4 s"), std::string::npos) << short_window.note;
  // ... and with no readings to integrate: no energy, and how long the window must be.
  auto nothing = choose_window_energy({.window_s = 0.3, .counter_j = 200, .update_period_s = 0.1});
  EXPECT_FALSE(nothing.energy_j);
  EXPECT_NE(nothing.note.find("at least 0.4 s"), std::string::npos);
  // The H200's case: the counter's mean 644.9 W above the highest reading 582.5 W.
  auto above = choose_window_energy(
      {.window_s = 0.5, .counter_j = 322.45, .power_integral_j = 280, .update_period_s = 0.02, .peak_power_w = 582.5});
  EXPECT_EQ(above.method, "power integral");
  EXPECT_NE(above.note.find("644.9 W"), std::string::npos) << above.note;
  EXPECT_NE(above.note.find("582.5 W"), std::string::npos) << above.note;
  // Unknown update period: the integral when there is one, else the counter with a note.
  EXPECT_EQ(choose_window_energy({.window_s = 1, .counter_j = 100, .power_integral_j = 90}).method, "power integral");
  const auto unknown = choose_window_energy({.window_s = 1, .counter_j = 100});
  EXPECT_EQ(unknown.method, "counter");
  EXPECT_NE(unknown.note.find("unknown"), std::string::npos);
}

TEST(EnergyWindow, SummaryWithACounterUpdatingEvery100ms) {
  auto gpu = nvml_like();
  // A 0.3 s window (6 readings at 20 Hz): shorter than 4 updates of the counter.
  {
    const auto pts = counter_every_100ms(560, 3, {1.01, 1.31});
    const auto s = summarize_points({gpu}, pts, index_at(pts, 1.01), index_at(pts, 1.31), 30, 20, 200,
                                    {.device_role = "accelerator"});
    ASSERT_TRUE(s.energy_j.value);
    EXPECT_EQ(s.channels[0].energy_method, "power integral");
    EXPECT_EQ(s.energy_method, "power integral");
    ASSERT_TRUE(s.energy_update_period_s);
    EXPECT_NEAR(*s.energy_update_period_s, 0.1, 0.01);
    ASSERT_TRUE(s.min_energy_window_s);
    EXPECT_NEAR(*s.min_energy_window_s, 0.4, 0.04);
    EXPECT_NE(s.energy_note.find("shorter than 4 update periods"), std::string::npos) << s.energy_note;
    EXPECT_NEAR(*s.energy_j.value, 560 * 0.3, 0.05 * 560 * 0.3);
    EXPECT_LE(*s.mean_power_w.value, *s.peak_power_w.value);
  }
  // A 0.42 s window whose edges sit just after and just before updates: the counter's difference
  // spans 0.5 s, its mean 560 x 0.5 / 0.42 = 667 W is above every reading: the integral is used.
  {
    const auto pts = counter_every_100ms(560, 3, {1.099, 1.519});
    const auto s = summarize_points({gpu}, pts, index_at(pts, 1.099), index_at(pts, 1.519), 40, 20, 200,
                                    {.device_role = "accelerator"});
    ASSERT_TRUE(s.energy_j.value);
    EXPECT_NEAR(*s.channels[0].energy_counter_j / s.window_s, 560 * 0.5 / 0.42, 1);
    EXPECT_EQ(s.channels[0].energy_method, "power integral");
    EXPECT_NE(s.channels[0].energy_note.find("exceeds the highest reading"), std::string::npos) << s.channels[0].energy_note;
    EXPECT_LE(*s.mean_power_w.value, *s.peak_power_w.value);
    EXPECT_NEAR(*s.mean_power_w.value, 560, 0.05 * 560);
  }
  // A 3 s window: 30 updates; the counter, within one update's energy at each edge.
  {
    const auto pts = counter_every_100ms(560, 6, {1.01, 4.01});
    const auto s = summarize_points({gpu}, pts, index_at(pts, 1.01), index_at(pts, 4.01), 300, 20, 200,
                                    {.device_role = "accelerator"});
    EXPECT_EQ(s.energy_method, "counter");
    EXPECT_TRUE(s.energy_note.empty()) << s.energy_note;
    EXPECT_NEAR(*s.energy_j.value, 560 * 3, 2 * 560 * 0.1);
    EXPECT_LE(*s.mean_power_w.value, *s.peak_power_w.value);
  }
  // Counter only (no power readings) and a 0.3 s window: no energy, and the window it needs.
  {
    auto counter_only = std::make_shared<ScriptedSource>("ioreport:gpu", "accelerator",
                                                         std::vector<TelemetryFigureOrigin>{{"energy", true, "counter"}});
    auto pts = counter_every_100ms(20, 3, {1.01, 1.31});
    for (auto& p : pts) p.readings[0]->power_w.reset();
    const auto s = summarize_points({counter_only}, pts, index_at(pts, 1.01), index_at(pts, 1.31), 30, 20, 200,
                                    {.device_role = "accelerator"});
    EXPECT_FALSE(s.energy_j.value);
    EXPECT_NE(s.energy_j.unavailable.find("at least 0.4 s"), std::string::npos) << s.energy_j.unavailable;
  }
}

TEST(EnergyWindow, HeadlineMeanPowerNeverAboveTheHighestReading) {
  // Steady 100 W readings; the counter reads 0.5% high (within the channel's tolerance, so it is
  // used), and the headline mean is capped at the highest reading with the reason in its source.
  auto gpu = nvml_like();
  std::vector<Sampler::Point> pts;
  for (int k = 0; k <= 40; ++k) {
    TelemetryReading r;
    r.energy_j = 100.5 * k * 0.05;
    r.power_w = 100;
    pts.push_back({k * 0.05, {r}});
  }
  const auto s = summarize_points({gpu}, pts, 0, 40, 100, 20, 200, {.device_role = "accelerator"});
  EXPECT_EQ(s.energy_method, "counter");
  EXPECT_NEAR(*s.energy_j.value, 201, 1e-9);
  EXPECT_DOUBLE_EQ(*s.mean_power_w.value, 100);
  EXPECT_NE(s.mean_power_w.source.find("capped at the highest reading"), std::string::npos) << s.mean_power_w.source;
  EXPECT_NE(s.energy_note.find("100.5 W"), std::string::npos) << s.energy_note;
}

namespace {
// A real-time counter that updates every 100 ms (for the sampler's own minimum window).
class SlowCounterSource final : public TelemetrySource {
 public:
  std::string name() const override { return "slow"; }
  std::string role() const override { return "accelerator"; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override { return {{"energy", true, "fake 100 ms counter"}}; }
  TelemetryReading read() override {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    TelemetryReading r;
    r.energy_j = 300 * std::floor(t / 0.1);
    return r;
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};
}  // namespace

TEST(EnergyWindow, SamplerSaysHowLongToKeepStepping) {
  Sampler s({std::make_shared<SlowCounterSource>()}, {.hz = 50});
  s.start();
  EXPECT_FALSE(s.min_energy_window_s("accelerator"));  // no change seen yet
  std::this_thread::sleep_for(std::chrono::milliseconds(550));
  const auto w = s.min_energy_window_s("accelerator");
  s.stop();
  ASSERT_TRUE(w);
  // Changes are seen at most as often as the counter makes them (every 0.1 s); a busy machine
  // delays the sampler's ticks and so can only lengthen the window it asks for.
  EXPECT_GE(*w, 0.3);
  EXPECT_FALSE(s.min_energy_window_s("cpu"));
}

// The window on a machine whose sampler keeps its 50 Hz (a timing claim: `timing` label).
TEST(Timing, SamplerEnergyWindowIsFourCounterPeriods) {
  Sampler s({std::make_shared<SlowCounterSource>()}, {.hz = 50});
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(550));
  const auto w = s.min_energy_window_s("accelerator");
  s.stop();
  ASSERT_TRUE(w);
  EXPECT_NEAR(*w, 0.4, 0.08);
}

TEST(TelemetryJson, EnergyMethodFieldsRoundTripAndOldFilesStillRead) {
  TelemetrySummary s;
  s.energy_j = TelemetryFigure::of(150, "nvml:0 (power integral)");
  s.energy_method = "power integral";
  s.energy_update_period_s = 0.1;
  s.min_energy_window_s = 0.4;
  s.energy_note = "nvml:0: the window (0.3 s) is shorter than 4 update periods";
  TelemetryChannel ch;
  ch.source = "nvml:0";
  ch.energy_method = "power integral";
  ch.energy_update_period_s = 0.1;
  ch.energy_note = s.energy_note;
  s.channels.push_back(ch);
  const nlohmann::json j = s;
  EXPECT_EQ(j["energy_method"], "power integral");
  EXPECT_EQ(j["min_energy_window_s"], 0.4);
  EXPECT_EQ(j["channels"][0]["energy_update_period_s"], 0.1);
  EXPECT_EQ(nlohmann::json(j.get<TelemetrySummary>()), j);
  // A file written before these fields: they read as empty.
  nlohmann::json old = j;
  for (const char* k : {"energy_method", "energy_update_period_s", "min_energy_window_s", "energy_note"}) old.erase(k);
  old["channels"][0].erase("energy_update_period_s");
  old["channels"][0].erase("energy_note");
  const auto back = old.get<TelemetrySummary>();
  EXPECT_TRUE(back.energy_method.empty());
  EXPECT_FALSE(back.energy_update_period_s);
  EXPECT_FALSE(back.min_energy_window_s);
  EXPECT_TRUE(back.energy_note.empty());
  EXPECT_FALSE(back.channels[0].energy_update_period_s);
  EXPECT_DOUBLE_EQ(*back.energy_j.value, 150);
}

// Which sources a case reads, by its device's type: an MPS case reads IOReport's GPU energy on
// macOS and no accelerator source elsewhere (never the "no energy source for mps devices" of an
// unknown type); a device type accelbench has no source for gets one unavailable source saying
// so; every case reads the process's memory.
namespace {
int sources_with_role(const std::vector<TelemetrySourcePtr>& sources, const std::string& role) {
  return static_cast<int>(std::count_if(sources.begin(), sources.end(), [&](const auto& s) { return s->role() == role; }));
}
}  // namespace

TEST(CaseSources, AnMpsCaseReadsAppleGpuEnergyAndAnUnknownTypeSaysWhyNot) {
  const auto mps = telemetry_sources_for("mps:0");
  EXPECT_EQ(sources_with_role(mps, "process"), 1);
#ifdef __APPLE__
  EXPECT_EQ(sources_with_role(mps, "accelerator"), 1);
#else
  EXPECT_EQ(sources_with_role(mps, "accelerator"), 0);
#endif
  const auto xpu = telemetry_sources_for("xpu:0");
  ASSERT_EQ(sources_with_role(xpu, "accelerator"), 1);
  const auto it = std::find_if(xpu.begin(), xpu.end(), [](const auto& s) { return s->role() == "accelerator"; });
  EXPECT_FALSE((*it)->available());
  EXPECT_NE((*it)->unavailable_reason().find("no energy or power source for xpu devices"), std::string::npos);
  EXPECT_EQ(sources_with_role(telemetry_sources_for("cpu"), "accelerator"), 0);
}
