// doctor's machine checks on made-up /proc and /sys texts: each finding, and a case that is fine.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/printer.h"
#include "system/machine_checks.h"
#include "telemetry/nvml_source.h"

using namespace accelbench;

namespace {

MachineSnapshot idle_machine() {
  MachineSnapshot s;
  s.logical_cores = 4;
  s.physical_cores = 4;
  s.threads = 4;
  s.loadavg = "0.05 0.10 0.12 1/200 1234\n";
  s.before = parse_proc_stat("cpu  1000 0 500 100000 10 0 0 0 0 0\ncpu0 1 2 3\n");
  s.after = parse_proc_stat("cpu  1002 0 501 100197 10 0 0 0 0 0\n");  // 3 busy of 200 ticks
  s.interval_s = 0.5;
  s.governors = {"performance", "performance", "performance", "performance"};
  s.turbo = false;
  s.smt = false;
  s.meminfo = "MemTotal:       16000000 kB\nMemAvailable:   12000000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n";
  s.cpu_pressure = "some avg10=0.50 avg60=0.40 avg300=0.30 total=1\n";
  s.temperatures_c = {45.0, 50.0};
  return s;
}

const MachineFinding* find(const std::vector<MachineFinding>& f, const std::string& check) {
  auto it = std::find_if(f.begin(), f.end(), [&](const MachineFinding& x) { return x.check == check; });
  return it == f.end() ? nullptr : &*it;
}

bool any_distorts(const std::vector<MachineFinding>& f) {
  return std::any_of(f.begin(), f.end(), [](const MachineFinding& x) { return x.distorts; });
}

}  // namespace

TEST(MachineChecks, IdleMachineIsFine) {
  const auto f = check_machine(idle_machine());
  EXPECT_FALSE(any_distorts(f));
  EXPECT_EQ(machine_summary(f), "");
  EXPECT_NEAR(busy_cores(idle_machine()), 4 * 3.0 / 200, 1e-9);
}

TEST(MachineChecks, BusyMachineAndItsProcesses) {
  auto s = idle_machine();
  s.after = parse_proc_stat("cpu  1300 0 600 100100 10 0 0 0 0 0\n");  // 400 busy of 500 ticks: 3.2 cores
  s.busy = {{4242, "burner", 0.99}, {77, "sshd", 0.11}};
  const auto f = check_machine(s);
  ASSERT_NE(find(f, "load"), nullptr);
  EXPECT_TRUE(find(f, "load")->distorts);
  EXPECT_NE(find(f, "load")->text.find("busy"), std::string::npos);
  ASSERT_NE(find(f, "busy processes"), nullptr);
  EXPECT_NE(find(f, "busy processes")->text.find("burner (pid 4242) 99%"), std::string::npos);
  EXPECT_NE(machine_summary(f).find("DISTORTED"), std::string::npos);
  // and 4 threads on the 1 core left: oversubscribed
  ASSERT_NE(find(f, "threads"), nullptr);
  EXPECT_TRUE(find(f, "threads")->distorts);
  EXPECT_NE(find(f, "threads")->fix.find("--threads 1"), std::string::npos) << find(f, "threads")->fix;
}

TEST(MachineChecks, ThreadsAboveTheCoresOnAnIdleMachine) {
  auto s = idle_machine();
  s.threads = 16;
  EXPECT_TRUE(find(check_cpu(s), "threads")->distorts);
  s.threads = 4;
  EXPECT_FALSE(find(check_cpu(s), "threads")->distorts);
}

TEST(MachineChecks, GovernorTurboSmtExposedOrNot) {
  auto s = idle_machine();
  s.governors = {"powersave", "performance"};
  EXPECT_TRUE(find(check_cpu(s), "governor")->distorts);
  EXPECT_NE(find(check_cpu(s), "governor")->fix.find("cpupower"), std::string::npos);
  s.governors.clear();
  s.turbo.reset();
  s.smt.reset();
  for (const char* c : {"governor", "turbo", "SMT"}) {
    EXPECT_FALSE(find(check_cpu(s), c)->distorts) << c;
    EXPECT_NE(find(check_cpu(s), c)->text.find("not exposed"), std::string::npos) << c;
  }
  s.smt = true;
  s.logical_cores = 8;
  EXPECT_NE(find(check_cpu(s), "SMT")->text.find("8 logical CPUs on 4 cores"), std::string::npos);
}

TEST(MachineChecks, MemorySwapPressureThermal) {
  auto s = idle_machine();
  s.meminfo = "MemTotal: 16000000 kB\nMemAvailable: 800000 kB\nSwapTotal: 2000000 kB\nSwapFree: 1000000 kB\n";
  s.memory_pressure = "some avg10=12.00 avg60=1 avg300=1 total=1\nfull avg10=3.00\n";
  s.cpu_pressure = "some avg10=55.00 avg60=1 avg300=1 total=1\n";
  const auto m = check_memory(s);
  EXPECT_TRUE(find(m, "memory")->distorts);
  EXPECT_TRUE(find(m, "swap")->distorts);
  EXPECT_TRUE(find(m, "CPU pressure")->distorts);
  EXPECT_EQ(pressure_avg10(s.memory_pressure).value_or(-1), 12.0);
  EXPECT_FALSE(pressure_avg10("").has_value());
  s.temperatures_c = {95.5};
  EXPECT_TRUE(check_thermal(s).front().distorts);
  s.temperatures_c.clear();
  EXPECT_NE(check_thermal(s).front().text.find("not exposed"), std::string::npos);
}

TEST(MachineChecks, ProcessStatParsing) {
  std::string name;
  std::uint64_t ticks = 0;
  ASSERT_TRUE(parse_process_stat("123 (my (odd) name) R 1 123 123 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1", name, ticks));
  EXPECT_EQ(name, "my (odd) name");
  EXPECT_EQ(ticks, 300u);
  EXPECT_FALSE(parse_process_stat("garbage", name, ticks));
}

// GPUs: another process on the GPU and clocks held back distort timings; an idle GPU's low
// clock and persistence mode off do not (persistence says how to speed up each round's start).
TEST(MachineChecks, GpuProcessesClocksHeatAndPersistence) {
  auto s = idle_machine();
  GpuState fine;
  fine.index = 0;
  fine.name = "NVIDIA H200";
  fine.persistence = true;
  fine.sm_clock_mhz = 345;
  fine.max_sm_clock_mhz = 1980;
  fine.clock_event_reasons = nvml::kReasonGpuIdle;
  fine.temperature_c = 31;
  fine.other_processes = std::vector<GpuState::Process>{};
  s.gpus = {fine};
  auto f = check_machine(s);
  EXPECT_FALSE(any_distorts(f)) << machine_summary(f);
  ASSERT_NE(find(f, "GPU clocks"), nullptr);
  EXPECT_NE(find(f, "GPU clocks")->text.find("SM clock 345 of 1980 MHz, nothing holds it back"), std::string::npos);
  EXPECT_EQ(find(f, "GPU persistence")->fix, "");
  EXPECT_EQ(find(f, "GPU thermal"), nullptr);

  auto busy = fine;
  busy.persistence = false;
  busy.clock_event_reasons = nvml::kReasonSwPowerCap | nvml::kReasonHwThermalSlowdown;
  busy.temperature_c = 90;
  busy.other_processes = std::vector<GpuState::Process>{{4242, 1ULL << 30}, {4343, std::nullopt}};
  s.gpus = {busy};
  f = check_machine(s);
  ASSERT_NE(find(f, "GPU processes"), nullptr);
  EXPECT_TRUE(find(f, "GPU processes")->distorts);
  EXPECT_NE(find(f, "GPU processes")->text.find("2 other processes on it: pid 4242 (1.00 GiB), pid 4343"), std::string::npos)
      << find(f, "GPU processes")->text;
  EXPECT_TRUE(find(f, "GPU clocks")->distorts);
  EXPECT_NE(find(f, "GPU clocks")->text.find("held back by SwPowerCap,HwThermalSlowdown"), std::string::npos);
  ASSERT_NE(find(f, "GPU thermal"), nullptr);
  EXPECT_TRUE(find(f, "GPU thermal")->distorts);
  EXPECT_FALSE(find(f, "GPU persistence")->distorts);
  EXPECT_NE(find(f, "GPU persistence")->fix.find("nvidia-smi -pm 1"), std::string::npos);
  EXPECT_NE(machine_summary(f).find("GPU 0 (NVIDIA H200): 2 other processes"), std::string::npos) << machine_summary(f);

  GpuState unknown;  // NVML without the functions: said, never a finding that distorts
  s.gpus = {unknown};
  f = check_machine(s);
  EXPECT_FALSE(any_distorts(f));
  EXPECT_NE(find(f, "GPU processes")->text.find("not exposed"), std::string::npos);
}

// read_gpu_states through a fake NVML table: this process left out of the processes, a list longer
// than the first buffer read again with the room NVML asks for, a missing function left unread.
TEST(MachineChecks, GpuStatesReadThroughNvml) {
  NvmlApi api;
  api.library = "fake";
  api.device_get_count = [](unsigned* n) { *n = 1; return nvml::kSuccess; };
  api.device_get_handle_by_index = [](unsigned, nvml::Device* d) { *d = reinterpret_cast<nvml::Device>(0x10); return nvml::kSuccess; };
  api.device_get_persistence_mode = [](nvml::Device, int* mode) { *mode = 0; return nvml::kSuccess; };
  int calls = 0;
  api.device_get_compute_running_processes = [&calls](nvml::Device, unsigned* count, nvml::ProcessInfo* infos) {
    ++calls;
    if (*count < 70) {
      *count = 70;
      return nvml::kErrorInsufficientSize;
    }
    *count = 70;
    for (unsigned i = 0; i < 70; ++i) infos[i] = nvml::ProcessInfo{1000 + i, ~0ULL, 0, 0};
    return nvml::kSuccess;
  };
  const auto gpus = read_gpu_states(api, 1000);  // pid 1000 is "this process"
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(calls, 2);
  ASSERT_TRUE(gpus[0].other_processes.has_value());
  EXPECT_EQ(gpus[0].other_processes->size(), 69u);
  EXPECT_FALSE(gpus[0].other_processes->front().used_bytes.has_value());
  ASSERT_TRUE(gpus[0].persistence.has_value());
  EXPECT_FALSE(*gpus[0].persistence);
  EXPECT_FALSE(gpus[0].sm_clock_mhz.has_value());
  EXPECT_FALSE(gpus[0].temperature_c.has_value());
  api.device_get_count = [](unsigned*) { return nvml::kErrorNotSupported; };
  EXPECT_TRUE(read_gpu_states(api, 1).empty());
}

// -------------------------------------------------------------------------------------------------
// The shared option checks of the command line (src/cli/option_checks): output paths, paths that
// must differ (--json and --db), counts given as text. Torch-free.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "cli/option_checks.h"
#include "core/errors.h"

namespace fs = std::filesystem;
using namespace accelbench;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}
}  // namespace

TEST(OptionChecks, JsonAndDbMustNotBeTheSameFile) {
  const auto dir = fs::temp_directory_path() / fmt::format("accelbench-options-{}", ::getpid());
  fs::create_directories(dir);
  const auto db = (dir / "h.db").string();
  // Not created yet: by path.
  auto m = error_of([&] { check_distinct_files(db, "--json", (dir / "." / "h.db").string(), "--db"); });
  EXPECT_NE(m.find("name the same file"), std::string::npos) << m;
  std::ofstream(db) << "x";
  fs::create_symlink("h.db", dir / "link.json");
  m = error_of([&] { check_distinct_files((dir / "link.json").string(), "--json", db, "--db"); });
  EXPECT_NE(m.find("--json"), std::string::npos) << m;
  EXPECT_NE(m.find("--db"), std::string::npos) << m;
  check_distinct_files((dir / "r.json").string(), "--json", db, "--db");
  check_distinct_files("", "--json", db, "--db");
  fs::remove_all(dir);
}

TEST(OptionChecks, CheckWritableDoesNotOpenDevicesOrFifos) {
  check_writable("/dev/null", "--json");
  check_writable("/dev/stdout", "--json");
  const auto dir = fs::temp_directory_path() / fmt::format("accelbench-options-w-{}", ::getpid());
  fs::create_directories(dir);
  EXPECT_NE(error_of([&] { check_writable(dir.string(), "--json"); }).find("is a directory"), std::string::npos);
  check_writable((dir / "new.json").string(), "--json");
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  fs::remove_all(dir);
}

TEST(OptionChecks, CountsDoNotWrapAround) {
  EXPECT_EQ(parse_count("20", "--limit", 1000000), 20u);
  EXPECT_EQ(parse_count("0", "--limit", 1000000), 0u);
  for (const char* bad : {"-1", "", "1.5", "1e3", "abc", "99999999999999999999", "1000001", "+3", "0x10"}) {
    const auto m = error_of([&] { parse_count(bad, "--limit", 1000000); });
    EXPECT_NE(m.find("--limit must be a whole number from 0 to 1000000"), std::string::npos) << bad << ": " << m;
  }
}

// The notes a run holds until its tables are out: grouped by the case they are about, each once,
// a prediction made before measuring left out where the case's own notes say what happened.
TEST(HeldNotes, GroupedByCaseEachOnceThePredictionReplaced) {
  const std::vector<std::string> notes = {
      "warning: timings may be DISTORTED: the machine is busy",
      "mlp on cpu (float32, batch 64) cannot fit: a step took 98 ms",
      "cnn on cpu (float32, batch 64) cannot fit: a step took 1.1 s",
      "mlp on cpu: 1 of 2 rounds: another needs ~2.4 s",
      "mlp on cpu: a step takes 33 ms, too long for the time its round had",
      "stored as run 1 (uid f6bb0bf3) in h.db"};
  const auto text = render_held_notes(notes);
  EXPECT_EQ(text,
            "Notes:\n"
            "  - warning: timings may be DISTORTED: the machine is busy\n"
            "  - mlp on cpu:\n"
            "      1 of 2 rounds: another needs ~2.4 s\n"
            "      a step takes 33 ms, too long for the time its round had\n"
            "  - cnn on cpu (float32, batch 64) cannot fit: a step took 1.1 s\n"
            "  - stored as run 1 (uid f6bb0bf3) in h.db\n");
  EXPECT_EQ(render_held_notes({}), "");
}

// Between events the progress line is redrawn with its clocks moved on: elapsed up, time left down
// to no less than 0, the rest as it was.
TEST(ProgressLine, RedrawnWithItsClocksMovedOn) {
  TerminalPrinter::ShownProgress p;
  p.at = {3, 6};
  p.event.stage = "round 2/2";
  p.run_elapsed_s = 10;
  p.eta_s = 5;
  const auto later = ticked_progress(p, 3);
  EXPECT_DOUBLE_EQ(later.run_elapsed_s, 13);
  EXPECT_DOUBLE_EQ(later.eta_s, 2);
  EXPECT_EQ(later.event.stage, "round 2/2");
  EXPECT_EQ(later.at.index, 3u);
  EXPECT_DOUBLE_EQ(ticked_progress(p, 9).eta_s, 0);
  // Past its time, the time over adds up redraw after redraw.
  EXPECT_DOUBLE_EQ(ticked_progress(p, 9).over_s, 4);
  EXPECT_DOUBLE_EQ(ticked_progress(ticked_progress(p, 9), 5).over_s, 9);
  EXPECT_DOUBLE_EQ(later.over_s, 0);
}

// With no time left, the line says how long over and what it waits for, not one word.
TEST(ProgressLine, PastItsTimeSaysWhatItWaitsFor) {
  TerminalPrinter::ShownProgress p;
  p.at = {0, 2};
  p.spec = CaseSpec{"mlp", "cpu", "float32", 64, 1};
  p.event.stage = "warm-up";
  p.run_elapsed_s = 30;
  p.eta_s = 2;
  EXPECT_NE(progress_text(p).find("| ~0:02 left"), std::string::npos) << progress_text(p);
  const auto line = progress_text(ticked_progress(p, 14));
  EXPECT_NE(line.find("over by 0:12: waiting for the warm-up in hand"), std::string::npos) << line;
  EXPECT_EQ(line.find("finishing"), std::string::npos) << line;
}

// The line before a run names what distorts its timings, short enough for one line.
TEST(MachineChecks, TheHeadlineNamesTheFindingsInOneShortLine) {
  std::vector<MachineFinding> f = {{"load", true, "busy", "fix"}, {"governor", false, "performance", ""},
                                   {"threads", true, "oversubscribed", "fix"}};
  EXPECT_EQ(machine_headline(f), "timings may be DISTORTED by: load, threads (see Notes)");
  for (const char* name : {"busy processes", "CPU pressure", "memory", "swap", "thermal"}) f.push_back({name, true, "x", "y"});
  const auto line = machine_headline(f);
  EXPECT_LE(line.size(), 88u) << line;
  EXPECT_NE(line.find(" more (see Notes)"), std::string::npos) << line;
  EXPECT_EQ(machine_headline({{"governor", false, "performance", ""}}), "");
}
