#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "report/terminal.h"
#include "cli/commands.h"
#include "core/durations.h"
#include "device/device_catalog.h"
#include "report/terminal_table.h"

namespace accelbench {

void add_devices_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("devices", "List the CPU and every accelerator libtorch can see");
  auto json_out = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_out, "Print JSON instead of a table");
  cmd->callback([&action, json_out]() {
    action = [json_out]() {
      const auto devices = list_devices();
      if (*json_out) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& d : devices) {
          nlohmann::json dj{{"id", d.id}, {"type", d.type}, {"index", d.index}, {"name", d.name}};
          dj["total_memory_bytes"] = d.total_memory_bytes ? nlohmann::json(*d.total_memory_bytes) : nlohmann::json(nullptr);
          j.push_back(dj);
        }
        std::cout << nlohmann::json{{"devices", j}}.dump(2) << "\n";
        return 0;
      }
      std::vector<std::vector<std::string>> rows{{"id", "type", "name", "memory"}};
      for (const auto& d : devices)
        rows.push_back({d.id, d.type, d.name,
                        d.total_memory_bytes ? format_bytes(static_cast<double>(*d.total_memory_bytes)) : "-"});
      print_out(render_table(rows, 3) +
                (devices.size() == 1 ? "No accelerator found (see `accelbench doctor` for why).\n" : ""));
      return 0;
    };
  });
}

}  // namespace accelbench
