#include "core/system_info.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

namespace accelbench {

namespace {
std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\n");
  const auto e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<std::uint64_t> status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      std::istringstream ss(line.substr(prefix.size()));
      std::uint64_t kib = 0;
      if (ss >> kib) return kib * 1024;
    }
  }
  return std::nullopt;
}

#if defined(__APPLE__)
std::string sysctl_string(const char* name) {
  size_t size = 0;
  if (sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return "";
  std::string s(size, '\0');
  if (sysctlbyname(name, s.data(), &size, nullptr, 0) != 0) return "";
  return trim(s.c_str());
}
template <class T>
T sysctl_number(const char* name) {
  T v{};
  size_t size = sizeof(v);
  sysctlbyname(name, &v, &size, nullptr, 0);
  return v;
}
#endif
}  // namespace

HostInfo read_host_info() {
  HostInfo h;
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0) h.host = name;
  struct utsname u {};
  if (uname(&u) == 0) {
    h.kernel = fmt::format("{} {}", u.sysname, u.release);
    h.arch = u.machine;
  }
  h.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__linux__)
  {
    std::ifstream in("/etc/os-release");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("PRETTY_NAME=", 0) == 0) {
        h.os = line.substr(12);
        if (h.os.size() >= 2 && h.os.front() == '"') h.os = h.os.substr(1, h.os.size() - 2);
      }
    if (h.os.empty()) h.os = "Linux";
  }
  {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
    std::string phys = "0";
    while (std::getline(in, line)) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto key = trim(line.substr(0, colon));
      const auto value = trim(line.substr(colon + 1));
      if (key == "model name" && h.cpu_model.empty()) h.cpu_model = value;
      else if (key == "physical id") phys = value;
      else if (key == "core id") cores.insert({phys, value});
    }
    h.physical_cores = cores.empty() ? h.logical_cores : static_cast<int>(cores.size());
  }
  {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    if (in >> key >> kib && key == "MemTotal:") h.memory_bytes = kib * 1024;
  }
#elif defined(__APPLE__)
  h.os = "macOS " + sysctl_string("kern.osproductversion");
  h.cpu_model = sysctl_string("machdep.cpu.brand_string");
  h.physical_cores = sysctl_number<int>("hw.physicalcpu");
  h.memory_bytes = sysctl_number<std::uint64_t>("hw.memsize");
#endif
#if defined(__clang__)
  h.compiler = fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  h.compiler = fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
  return h;
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::uint64_t> peak_rss_bytes() {
#if defined(__linux__)
  if (auto v = status_kib("VmHWM")) return v;
#endif
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return std::nullopt;
#if defined(__APPLE__)
  return static_cast<std::uint64_t>(ru.ru_maxrss);  // bytes on macOS
#else
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
#endif
}

std::optional<std::uint64_t> current_rss_bytes() {
#if defined(__linux__)
  return status_kib("VmRSS");
#else
  return std::nullopt;
#endif
}

bool reset_peak_rss() {
#if defined(__linux__)
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";  // resets VmHWM to the current RSS (Linux >= 4.0)
  out.flush();
  return static_cast<bool>(out);
#else
  return false;
#endif
}

}  // namespace accelbench
