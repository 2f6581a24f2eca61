// accelbench advise [RUN]: the advice for a stored run or a JSON file, each quoting its measurement.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "analysis/advisor.h"
#include "report/terminal.h"
#include "cli/commands.h"
#include "store/history_store.h"
#include "report/run_source.h"

namespace accelbench {

void add_advise_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("advise", "Advice from a run's measurements (latest stored run by default)");
  auto run = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>();
  cmd->add_option("run", *run, "A stored run's id or uid, or a JSON file from run --json (default: the latest run)");
  cmd->add_option("--db", *db, "History database (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->callback([&action, run, db]() {
    action = [run, db]() {
      const std::string path = db->empty() ? HistoryStore::default_path() : *db;
      const auto src = run->empty() ? load_latest_run(path) : load_run_source(*run, path);
      const auto advice = advise(src.run, src.document);
      std::string out = fmt::format("Advice for {}:\n", src.name);
      if (advice.empty()) out += "  nothing to advise: no measurement in this run calls for a change.\n";
      else out += render_advice(advice).substr(render_advice(advice).find('\n') + 1);
      print_out(out);
      return 0;
    };
  });
}

}  // namespace accelbench
