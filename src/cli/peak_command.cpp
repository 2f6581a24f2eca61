// `accelbench peak`: the device's ceilings (engine/peak_measurement.cpp), printed as a table per
// device, stored in the history (`doctor` shows the newest per device) and, with --json, written to
// a file after each device.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/machine_distortion.h"
#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/peak_records.h"
#include "engine/engine.h"
#include "report/json_report.h"
#include "report/peak_tables.h"
#include "report/terminal.h"
#include "report/terminal_table.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

struct PeakFlags {
  std::string devices = "all";
  std::string json_path, db_path;
  bool no_save = false, quick = false, no_progress = false;
};

int execute_peak(const PeakFlags& f) {
  // Everything checked before anything is measured.
  const auto devices = engine::resolve_devices(f.devices);
  if (!f.json_path.empty()) check_writable(f.json_path, "--json");
  if (!f.db_path.empty()) check_db_folder(f.db_path);
  check_distinct_files(f.json_path, "--json", f.no_save ? std::string() : f.db_path, "--db");
  std::unique_ptr<HistoryStore> store;
  if (!f.no_save) store = std::make_unique<HistoryStore>(f.db_path.empty() ? HistoryStore::default_path() : f.db_path);
  if (store && !f.json_path.empty()) check_distinct_files(f.json_path, "--json", store->path(), "the history database");

  const bool progress = !f.no_progress && isatty(2);
  const auto distortion = read_machine_distortion(0);
  warn_distortion(distortion);
  nlohmann::json document{{"schema", "accelbench.peaks/1"}, {"devices", nlohmann::json::array()}};
  if (distortion.distorted()) document["warnings"] = nlohmann::json::array({distortion.warning});
  int status = 0;
  for (const auto& device : devices) {
    const auto ceilings = engine::measure_ceilings(device, engine::PeakSettings{f.quick}, [&](const std::string& what) {
      if (progress) std::cerr << fmt::format("\r\033[Kmeasuring {}", what) << std::flush;
    });
    if (progress) std::cerr << "\r\033[K" << std::flush;
    print_out(fmt::format("peak: {} ({}), torch {}, measured in {}{}\n", ceilings.device, ceilings.device_name,
                          ceilings.torch_version, format_duration(ceilings.wall_s), f.quick ? " [--quick]" : ""));
    print_out(render_table(ceilings_table_rows(ceilings), 2) + "\n");
    for (const auto& line : sustained_lines(ceilings)) print_out("  " + line + "\n");
    print_out(distortion_closing(distortion, "ceilings"));
    document["devices"].push_back(to_json(ceilings));
    if (!f.json_path.empty()) write_json_document(document, f.json_path);  // after each device: kept if a later one fails
    if (store) {
      try {
        store->save_ceilings(ceilings);
      } catch (const HistoryNotStoredError& e) {
        print_err(fmt::format("accelbench: {}{}\n", e.what(), f.json_path.empty() ? "" : "; they are in " + f.json_path));
        status = 1;
      }
    }
  }
  if (store && status == 0)
    print_out(fmt::format("Stored in {} (`accelbench doctor` shows the newest per device).\n", store->path()));
  return status;
}

}  // namespace

void add_peak_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("peak", "Measure each device's ceilings: dense matmul FLOP/s per precision, memory "
                                         "bandwidth on the device, host<->device bandwidth (pinned and pageable), "
                                         "launch latency; each its best sample, with the median and its 95% CI, stored in the history");
  auto f = std::make_shared<PeakFlags>();
  cmd->add_option("--device", f->devices, "Devices to measure: a comma list (cpu, cuda:0, mps) or all (default: all)");
  cmd->add_option("--json", f->json_path, "Also write the ceilings to this JSON file (schema accelbench.peaks/1)");
  cmd->add_option("--db", f->db_path, "History database the ceilings are stored in (default: $ACCELBENCH_DB, else "
                                      "$XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_flag("--no-save", f->no_save, "Do not store the ceilings in the history database");
  cmd->add_flag("--quick", f->quick, "Fewer, shorter samples and smaller buffers: a few seconds per device");
  cmd->add_flag("--no-progress", f->no_progress, "No progress line on stderr");
  cmd->callback([&action, f]() {
    action = [f]() { return execute_peak(*f); };
  });
}

}  // namespace accelbench
