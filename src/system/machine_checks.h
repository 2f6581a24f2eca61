#pragma once
// What on this machine distorts timings, as pyperf's `system show` checks it: load and busy
// processes, CPU frequency governor and turbo, SMT, thread oversubscription, memory pressure and
// swap, thermal state. Each finding says what was found and how to fix it. No torch here.
//
// The checks read a MachineSnapshot (the texts of /proc and /sys, sampled once), so that tests pass
// in made-up texts; read_machine_snapshot() reads the real ones. One file per family of checks:
// load_check.cpp, cpu_check.cpp, memory_check.cpp, thermal_check.cpp, gpu_check.cpp (NVML's GPUs);
// machine_snapshot.cpp reads.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accelbench {

struct MachineFinding {
  std::string check;      // "load", "busy processes", "governor", "turbo", "SMT", "threads", "memory", "swap", "thermal",
                          // "GPU processes", "GPU clocks", "GPU thermal", "GPU persistence"
  bool distorts = false;  // a problem for timings (doctor exits 1, run says so at its start)
  std::string text;       // what was found ("not exposed" when the OS does not say)
  std::string fix;        // how to fix it; empty when nothing to do
};

// The aggregate "cpu" line of /proc/stat: busy = user + nice + system + irq + softirq + steal.
struct CpuTimes {
  std::uint64_t busy = 0, total = 0;
};
CpuTimes parse_proc_stat(const std::string& text);

// A process that used CPU during the sampling window.
struct BusyProcess {
  int pid = 0;
  std::string name;
  double cores = 0;  // CPU time / window: 1.0 = one core all the time
};

// One /proc/PID/stat line: the process name and its utime + stime in clock ticks.
bool parse_process_stat(const std::string& text, std::string& name, std::uint64_t& ticks);

struct NvmlApi;

// One GPU as NVML shows it (read_gpu_states); a field left empty was not readable.
struct GpuState {
  unsigned index = 0;
  std::string name;
  std::optional<bool> persistence;                      // persistence mode on
  std::optional<unsigned> sm_clock_mhz, max_sm_clock_mhz;
  std::optional<unsigned long long> clock_event_reasons;  // NVML's mask (nvml::kThrottleMask: held back)
  std::optional<unsigned> temperature_c;
  struct Process {
    unsigned pid = 0;
    std::optional<unsigned long long> used_bytes;
  };
  std::optional<std::vector<Process>> other_processes;  // compute processes other than this one
};

// Every GPU NVML sees; `self_pid` is left out of the processes. Empty when NVML has no GPU.
std::vector<GpuState> read_gpu_states(const NvmlApi& api, unsigned self_pid);

struct MachineSnapshot {
  int logical_cores = 0, physical_cores = 0;
  int threads = 0;                        // the intra-op threads the measurement will use
  std::string loadavg;                    // /proc/loadavg
  CpuTimes before, after;                 // /proc/stat, `interval_s` apart
  double interval_s = 0;
  std::vector<BusyProcess> busy;          // others' processes over the same window (this one left out)
  std::vector<std::string> governors;     // scaling_governor of each CPU; empty: not exposed
  std::optional<bool> turbo;              // none: not exposed
  std::optional<bool> smt;                // none: not exposed
  std::string meminfo;                    // /proc/meminfo
  std::string cpu_pressure, memory_pressure;  // /proc/pressure/{cpu,memory}; empty: absent
  std::vector<double> temperatures_c;     // thermal zones; empty: not exposed
  std::vector<GpuState> gpus;             // NVML's GPUs; empty: none, or no NVML
};

// Reads /proc and /sys, sampling CPU use over `interval_s` (this process sleeps meanwhile).
MachineSnapshot read_machine_snapshot(double interval_s, int threads);

std::vector<MachineFinding> check_load(const MachineSnapshot& s);
std::vector<MachineFinding> check_cpu(const MachineSnapshot& s);       // governor, turbo, SMT, threads
std::vector<MachineFinding> check_memory(const MachineSnapshot& s);    // available memory, swap, pressure
std::vector<MachineFinding> check_thermal(const MachineSnapshot& s);
// Each GPU: other processes on it, clocks held back, heat, persistence mode (gpu_check.cpp).
std::vector<MachineFinding> check_gpus(const MachineSnapshot& s);
std::vector<MachineFinding> check_machine(const MachineSnapshot& s);   // all of them

// Cores busy with other work over the window (0 when not measured).
double busy_cores(const MachineSnapshot& s);

// What distorts a run's timings, "" when nothing does: the whole of it (machine_summary: the run's
// context and its notes), and its names alone, short enough for one line before the run
// (machine_headline: "timings may be DISTORTED by: load, threads (see Notes)", the names that fit
// kHeadlineNamesWidth characters, then "and N more": with "accelbench: " before it, at most 100 columns).
std::string machine_summary(const std::vector<MachineFinding>& findings);
// How machine_summary's warning begins: what tells it from the context's other warnings.
inline constexpr const char* kDistortionWarning = "timings may be DISTORTED";
inline constexpr std::size_t kHeadlineNamesWidth = 36;
std::string machine_headline(const std::vector<MachineFinding>& findings);
// The names of the checks that distort, each once, in order ("load", "busy processes"): the run's
// mark in the history (RunContext::distorted_by).
std::vector<std::string> distorting_checks(const std::vector<MachineFinding>& findings);

// "some avg10=1.23 ..." of a /proc/pressure file: avg10 of its "some" line (none when absent).
std::optional<double> pressure_avg10(const std::string& text);
// A field of /proc/meminfo in bytes ("MemAvailable").
std::optional<std::uint64_t> meminfo_bytes(const std::string& meminfo, const std::string& field);

}  // namespace accelbench
