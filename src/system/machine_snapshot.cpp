// Reads the machine's state from /proc and /sys for the checks (machine_checks.h).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/system_info.h"
#include "system/machine_checks.h"
#include "telemetry/nvml_source.h"

namespace accelbench {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<int, std::pair<std::string, std::uint64_t>> process_ticks() {
  std::map<int, std::pair<std::string, std::uint64_t>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string proc;
    std::uint64_t ticks = 0;
    if (parse_process_stat(slurp(e.path() / "stat"), proc, ticks)) out[std::stoi(name)] = {proc, ticks};
  }
  return out;
}

}  // namespace

MachineSnapshot read_machine_snapshot(double interval_s, int threads) {
  MachineSnapshot s;
  const auto host = read_host_info();
  s.logical_cores = host.logical_cores;
  s.physical_cores = host.physical_cores;
  s.threads = threads;
  s.loadavg = slurp("/proc/loadavg");
  s.interval_s = interval_s;
  const auto ticks_before = process_ticks();
  s.before = parse_proc_stat(slurp("/proc/stat"));
  std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  s.after = parse_proc_stat(slurp("/proc/stat"));
  const auto ticks_after = process_ticks();
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  for (const auto& [pid, now] : ticks_after) {
    const auto was = ticks_before.find(pid);
    if (pid == ::getpid() || was == ticks_before.end() || now.second < was->second.second) continue;
    const double cores = static_cast<double>(now.second - was->second.second) / hz / interval_s;
    if (cores >= 0.1) s.busy.push_back({pid, now.first, cores});
  }
  const std::filesystem::path cpu = "/sys/devices/system/cpu";
  for (int i = 0; i < s.logical_cores; ++i) {
    auto g = slurp(cpu / ("cpu" + std::to_string(i)) / "cpufreq/scaling_governor");
    if (!g.empty()) s.governors.push_back(g.substr(0, g.find('\n')));
  }
  if (auto v = slurp(cpu / "intel_pstate/no_turbo"); !v.empty()) s.turbo = v[0] == '0';
  else if (auto b = slurp(cpu / "cpufreq/boost"); !b.empty()) s.turbo = b[0] == '1';
  if (auto v = slurp(cpu / "smt/active"); !v.empty()) s.smt = v[0] == '1';
  s.meminfo = slurp("/proc/meminfo");
  s.cpu_pressure = slurp("/proc/pressure/cpu");
  s.memory_pressure = slurp("/proc/pressure/memory");
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/thermal", ec)) {
    if (e.path().filename().string().rfind("thermal_zone", 0) != 0) continue;
    const auto t = slurp(e.path() / "temp");
    if (!t.empty()) s.temperatures_c.push_back(std::strtod(t.c_str(), nullptr) / 1000.0);
  }
  std::string no_nvml;  // no NVML (no NVIDIA driver): no GPU checks
  if (const auto nvml = load_nvml(&no_nvml)) s.gpus = read_gpu_states(*nvml, static_cast<unsigned>(::getpid()));
  return s;
}

}  // namespace accelbench
