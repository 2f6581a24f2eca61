// Load and busy processes: CPU time others used while this process slept.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "system/machine_checks.h"

namespace accelbench {

CpuTimes parse_proc_stat(const std::string& text) {
  std::istringstream in(text);
  std::string label;
  CpuTimes t;
  if (!(in >> label) || label != "cpu") return t;
  std::uint64_t v[8] = {};  // user nice system idle iowait irq softirq steal
  for (auto& x : v)
    if (!(in >> x)) break;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  t.total = t.busy + v[3] + v[4];
  return t;
}

bool parse_process_stat(const std::string& text, std::string& name, std::uint64_t& ticks) {
  const auto open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  name = text.substr(open + 1, close - open - 1);
  std::istringstream in(text.substr(close + 1));
  std::string field;
  // after the name: state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
  std::uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15; ++i) {
    if (!(in >> field)) return false;
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  ticks = utime + stime;
  return true;
}

double busy_cores(const MachineSnapshot& s) {
  if (s.after.total <= s.before.total || s.logical_cores <= 0) return 0;
  const double share = static_cast<double>(s.after.busy - s.before.busy) / static_cast<double>(s.after.total - s.before.total);
  return std::max(0.0, share * s.logical_cores);
}

std::vector<MachineFinding> check_load(const MachineSnapshot& s) {
  std::vector<MachineFinding> out;
  double load1 = -1;
  std::istringstream(s.loadavg) >> load1;
  const double busy = busy_cores(s);
  std::string top;
  auto busy_list = s.busy;
  std::sort(busy_list.begin(), busy_list.end(), [](const BusyProcess& a, const BusyProcess& b) { return a.cores > b.cores; });
  for (std::size_t i = 0; i < busy_list.size() && i < 3; ++i)
    top += fmt::format("{}{} (pid {}) {:.0f}%", i ? ", " : "", busy_list[i].name, busy_list[i].pid, 100 * busy_list[i].cores);
  const bool loaded = busy >= 0.5 || (!s.busy.empty() && busy_list.front().cores >= 0.5);
  MachineFinding f{"load", loaded, "", ""};
  f.text = fmt::format("{:.1f} of {} cores busy with other work over {:.1f} s{}", busy, s.logical_cores, s.interval_s,
                       load1 >= 0 ? fmt::format(" (load average {:.2f})", load1) : "");
  if (loaded) {
    f.text = "the machine is busy: " + f.text;
    f.fix = "stop or wait for the other work before measuring (timings would include the contention)";
  }
  out.push_back(f);
  if (!busy_list.empty())
    out.push_back({"busy processes", loaded, top, loaded ? "e.g. kill PID, or taskset/nice them away from the measuring cores" : ""});
  return out;
}

}  // namespace accelbench
