#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/doctor_install.h"
#include "cli/option_checks.h"
#include "core/build_info.h"
#include "core/durations.h"
#include "core/system_info.h"
#include "data/idx_reader.h"
#include "device/device_catalog.h"
#include "engine/engine.h"
#include "engine/torch_info.h"
#include "telemetry/telemetry_source.h"
#include "core/telemetry_summary.h"
#include "report/peak_tables.h"
#include "report/terminal.h"
#include "system/machine_checks.h"
#include "store/history_store.h"
#include "core/peak_records.h"

namespace accelbench {

namespace {

// Each device's newest ceilings in the history (`accelbench peak`; read, never created), with a hint when
// missing, measured with another torch, or older than kCeilingsMaxAgeS. `db`: --db, else the default.
std::string ceilings_lines(const std::string& torch_version, const std::string& db) {
  const auto path = db.empty() ? HistoryStore::default_path() : db;
  std::unique_ptr<HistoryStore> store;
  std::string why_none = "not measured yet";
  if (::access(path.c_str(), F_OK) == 0) {
    try {
      store = std::make_unique<HistoryStore>(path, HistoryAccess::kReadOnly);
    } catch (const std::exception& e) {
      why_none = fmt::format("history unreadable ({})", e.what());
    }
  }
  std::string out;
  const auto now = utc_timestamp_now();
  for (const auto& d : list_devices()) {
    std::optional<DeviceCeilings> c;
    try {
      if (store) c = store->latest_ceilings(d.name);
    } catch (const std::exception& e) {
      why_none = e.what();
    }
    if (!c) {
      out += fmt::format("ceilings     {:<7} {}: accelbench peak --device {}\n", d.id, why_none, d.id);
      continue;
    }
    std::string hint;
    const auto age = utc_seconds_between(c->measured_utc, now);
    if (c->torch_version != torch_version)
      hint = fmt::format(" (torch is {} now: accelbench peak --device {})", torch_version, d.id);
    else if (age && *age > kCeilingsMaxAgeS)
      hint = fmt::format(" ({:.0f} days old: accelbench peak --device {})", *age / 86400, d.id);
    out += fmt::format("ceilings     {:<7} {}{}\n", d.id, ceilings_summary(*c), hint);
  }
  return out;
}

// Every telemetry source this machine could use while a case runs, or why not.
std::string telemetry_lines() {
  std::string out = fmt::format("telemetry    sampled at {:g} Hz during each case (--telemetry-hz; --no-telemetry)\n",
                                kDefaultTelemetryHz);
  for (const auto& s : all_telemetry_sources()) {
    if (!s->available()) {
      out += fmt::format("telemetry    {:<20} no : {}\n", s->name(), s->unavailable_reason());
      continue;
    }
    out += fmt::format("telemetry    {:<20} yes: {}\n", s->name(), s->description());
    for (const auto& f : s->figures())
      out += fmt::format("               {:<12} {}{}\n", f.figure, f.available ? "" : "unavailable: ", f.origin);
  }
  return out;
}

// A PROBLEM line (with its fix) for each environment variable and machine state that distorts timings.
std::string problem_lines(int threads, const engine::TorchRuntime& torch, const HostInfo& h, int& problems) {
  std::string out;
  const auto warnings = timing_environment_warnings();
  if (warnings.empty()) out += "environment  no variable that distorts timings\n";
  for (const auto& w : warnings) out += fmt::format("PROBLEM      {}\n  fix:       {}\n", w.problem, w.fix);
  problems += static_cast<int>(warnings.size());
  if (h.physical_cores > 0 && torch.intra_op_threads < h.physical_cores)
    out += fmt::format("note         torch uses {} threads on {} cores\n", torch.intra_op_threads, h.physical_cores);
  for (const auto& f : check_machine(read_machine_snapshot(0.5, threads > 0 ? threads : torch.intra_op_threads))) {
    if (f.distorts) {
      out += fmt::format("PROBLEM      {}: {}\n  fix:       {}\n", f.check, f.text, f.fix);
      ++problems;
    } else {
      out += fmt::format("machine      {}: {}\n{}", f.check, f.text, f.fix.empty() ? "" : "  tip:       " + f.fix + "\n");
    }
  }
  if (problems == 0) return out + "verdict      nothing that distorts timings\n";
  return out + fmt::format("verdict      timings distorted (PROBLEM lines above: {}), each with its fix\n", problems);
}

// Exit 1 when a PROBLEM line was printed (an environment variable or the machine's state distorts
// timings), else 0. Every line is wrapped to the output width.
int execute_doctor(bool verbose, int threads, const std::string& db) {
  if (threads != 0) check_threads(threads);  // 1 up to 4 per logical core (0: torch's)
  const auto h = read_host_info();
  const auto torch = engine::torch_runtime();
  std::string out = fmt::format("accelbench   {} ({})\n", accelbench_version(), accelbench_git_commit());
  out += fmt::format("torch        {} (libtorch headers {}.{})\n", torch.version, torch.headers_major, torch.headers_minor);
  out += installation_lines(torch.library_dir);
  out += fmt::format("host         {} | {} | {} {}\n", h.host, h.os, h.kernel, h.arch);
  out += fmt::format("CPU          {} | {} cores, {} logical | vector ISA {} | RAM {}\n", h.cpu_model, h.physical_cores,
                     h.logical_cores, torch.cpu_capability, format_bytes(static_cast<double>(h.memory_bytes)));
  out += fmt::format("threads      {} intra-op, {} inter-op\n", torch.intra_op_threads, torch.inter_op_threads);
  for (const auto& b : backend_status())
    out += fmt::format("backend      {:<5} {}: {}\n", b.name, b.available ? "yes" : "no ", b.detail);
  for (const auto& d : list_devices())
    out += fmt::format("device       {:<7} {}{}\n", d.id, d.name,
                       d.total_memory_bytes ? fmt::format(" ({})", format_bytes(static_cast<double>(*d.total_memory_bytes))) : "");
  out += ceilings_lines(torch.version, db);
  const auto fm = find_fashion_mnist_dir();
  out += fmt::format("data         Fashion-MNIST: {}\n",
                     fm.empty() ? std::string("not found (synthetic data will be used; Debian: apt install dataset-fashion-mnist)") : fm);
  out += telemetry_lines();
  int problems = 0;
  print_out(out + problem_lines(threads, torch, h, problems));
  if (verbose) std::cout << "\n" << torch.build_config << "\n";
  return problems > 0 ? 1 : 0;
}

}  // namespace

void add_doctor_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("doctor", "Check versions, backends, the environment and the machine (load, busy processes, "
                                           "governor, turbo, SMT, threads, memory, swap, thermal; NVIDIA GPUs: other processes, clocks, heat, persistence) "
                                           "for what distorts timings, with fixes. "
                                           "Exit 1 when it prints a PROBLEM (an environment variable or the machine's state)");
  auto verbose = std::make_shared<bool>(false);
  auto threads = std::make_shared<int>(0);
  auto db = std::make_shared<std::string>();
  cmd->add_flag("--verbose", *verbose, "Also print libtorch's build configuration");
  cmd->add_option("--threads", *threads, "Check this many intra-op threads against the free cores (default: torch's)");
  cmd->add_option("--db", *db, "History the ceilings are read from (default: $ACCELBENCH_DB, else the default one)");
  cmd->callback([&action, verbose, threads, db]() { action = [verbose, threads, db]() { return execute_doctor(*verbose, *threads, *db); }; });
}

}  // namespace accelbench
