// The process's resident set over time: /proc/self/status VmRSS on Linux, task_info on macOS.
#include <fmt/format.h>

#include <sstream>

#include "telemetry/sysfs_util.h"
#include "telemetry/telemetry_source.h"

#ifdef __APPLE__
#include <mach/mach.h>
#endif

namespace accelbench {

namespace {
using namespace telemetry_detail;

#ifdef __APPLE__
class MachProcessSource final : public TelemetrySource {
 public:
  std::string name() const override { return "process"; }
  std::string role() const override { return "process"; }
  std::string description() const override { return "this process's resident set (task_info)"; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"memory", true, "task_info(MACH_TASK_BASIC_INFO).resident_size"}};
  }
  TelemetryReading read() override {
    TelemetryReading r;
    mach_task_basic_info_data_t info{};
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, reinterpret_cast<task_info_t>(&info), &count) == KERN_SUCCESS)
      r.memory_bytes = static_cast<double>(info.resident_size);
    return r;
  }
};
#endif

// VmRSS in bytes from the text of /proc/<pid>/status.
std::optional<double> parse_vm_rss(const std::string& status) {
  std::istringstream in(status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    double kb = 0;
    std::string unit;
    if (fields >> kb >> unit && unit == "kB") return kb * 1024.0;
  }
  return std::nullopt;
}

class ProcStatusSource final : public TelemetrySource {
 public:
  ProcStatusSource(FileReader reader, std::string path) : reader_(std::move(reader)), path_(std::move(path)) {}
  std::string name() const override { return "process"; }
  std::string role() const override { return "process"; }
  std::string description() const override { return "this process's resident set (" + path_ + " VmRSS)"; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override { return {{"memory", true, path_ + " VmRSS"}}; }
  TelemetryReading read() override {
    TelemetryReading r;
    if (auto f = reader_(path_); f.text) r.memory_bytes = parse_vm_rss(*f.text);
    return r;
  }

 private:
  FileReader reader_;
  std::string path_;
};
}  // namespace

TelemetrySourcePtr open_process_source(const TelemetryRoots& roots) {
#ifdef __APPLE__
  (void)roots;
  return std::make_shared<MachProcessSource>();
#else
  const auto path = roots.proc + "/self/status";
  auto f = roots.reader(path);
  if (!f.text) return make_unavailable_source("process", "process", path + ": " + f.message, {"memory"});
  if (!parse_vm_rss(*f.text)) return make_unavailable_source("process", "process", path + " has no VmRSS line", {"memory"});
  return std::make_shared<ProcStatusSource>(roots.reader, path);
#endif
}

}  // namespace accelbench
