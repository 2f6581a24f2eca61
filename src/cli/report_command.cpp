// accelbench report [RUN]: a stored run (the latest by default), a JSON file, or article-m2, in one
// of the report formats (report/report_formats.cpp: Markdown, CSV, a self-contained HTML page with
// charts, JSON). Written atomically.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "report/reports.h"
#include "store/history_store.h"
#include "report/run_source.h"

namespace accelbench {

namespace {

struct ReportOptions {
  std::string run, format, output, db;
};

int execute_report(const ReportOptions& o) {
  // The format: --format, else the output's extension, else Markdown; the two must agree.
  const std::string from_path = o.output.empty() || o.output == "-" ? "" : report_format_of_path(o.output);
  // An extension no format has (x.pdf) is refused rather than written as Markdown under that name.
  if (const auto ext = std::filesystem::path(o.output).extension().string();
      from_path.empty() && o.format.empty() && o.output != "-" && ext.size() > 1)
    throw UsageError(fmt::format("--output {}: no report format writes {} files; use {} (or --format with this name)",
                                 o.output, ext, report_format_extensions()));
  const auto& default_format = report_formats().front().name;
  std::string format = o.format.empty() ? (from_path.empty() ? default_format : from_path) : normalize_report_format(o.format);
  if (!from_path.empty() && format != from_path)
    throw UsageError(fmt::format("--format {} does not match --output {} (a {} file): drop --format or change the extension",
                                 o.format, o.output, from_path));
  const std::string db = o.db.empty() ? HistoryStore::default_path() : o.db;
  if (!o.output.empty() && o.output != "-") {
    check_writable(o.output, "--output");  // a directory, a missing folder: one line, before any work
    check_distinct_files(o.output, "--output", db, "--db");
    check_distinct_files(o.output, "--output", o.run, "RUN");
  }
  const auto src = o.run.empty() ? load_latest_run(db) : load_run_source(o.run, db);
  const auto text = render_report(src, format);
  if (o.output.empty() || o.output == "-") {
    std::cout << text << std::flush;
    return 0;
  }
  write_text_atomically(o.output, text);
  std::fprintf(stderr, "accelbench: %s report of %s written to %s\n", format.c_str(), src.name.c_str(), o.output.c_str());
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Report a run as " + report_format_descriptions());
  cmd->add_option("RUN", o->run, "A run id or uid (default: the latest stored run), a JSON file, or article-m2");
  cmd->add_option("--format", o->format,
                  fmt::format("{} (default: from --output's extension, else {}; the two must agree)", report_format_names(),
                              report_formats().front().name));
  cmd->add_option("--output,-o", o->output,
                  fmt::format("Write to this file (atomically; {} sets the format); default: stdout", report_format_extensions()));
  cmd->add_option("--db", o->db, "History database (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->callback([&action, o]() { action = [o]() { return execute_report(*o); }; });
}

}  // namespace accelbench
