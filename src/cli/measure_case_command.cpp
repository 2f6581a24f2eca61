// The hidden `_measure-case` sub-command: one case in a child process (an isolated case or sweep
// point), its result written (atomically) as CaseResult JSON. The parent is the IsolatedMeasurer
// (drivers/isolated_measurer.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/request_checks.h"
#include "core/child_process.h"
#include "core/errors.h"
#include "drivers/isolated_measurer.h"
#include "engine/engine.h"
#include "report/json_report.h"

namespace accelbench {

namespace {
int execute_measure_case(const std::string& spec_json, const std::string& out_path) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(spec_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("{}: --spec-json is not valid JSON (byte {})", kMeasureCaseCommand, e.byte));
  }
  MeasureRequest request;
  try {
    request = json.get<MeasureRequest>();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: bad request: {}", kMeasureCaseCommand, e.what()));
  }
  check_measure_request(request);
  check_writable(out_path, "--out");
  tie_to_parent();  // a parent killed with SIGKILL takes this round with it (core/child_process.h)
  // The crash tests' moments (core/test_points.h) are the parent's: its history and --json file.
  ::unsetenv("ACCELBENCH_TEST_POINTS");
  if (request.memory_limit_bytes) engine::apply_memory_limit(request.spec.device, request.memory_limit_bytes);
  const auto result = engine::in_process_measurer()->measure(request.spec, request.options, {});
  write_json_document(nlohmann::json(result), out_path);
  return 0;
}
}  // namespace

void add_measure_case_command(CLI::App& app, Action& action) {
  auto spec = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(kMeasureCaseCommand, "Internal: measure one case in a child process");
  cmd->group("");  // hidden from --help
  cmd->add_option("--spec-json", *spec, "The case and its measurement options (JSON)")->required();
  cmd->add_option("--out", *out, "Where to write the CaseResult JSON")->required();
  cmd->callback([&action, spec, out]() { action = [spec, out]() { return execute_measure_case(*spec, *out); }; });
}

}  // namespace accelbench
