// The hidden `_measure-case` sub-command: one case in a child process for an isolated sweep point,
// its result written (atomically) as CaseResult JSON. The parent is measure_isolated()
// (sweep_common.cpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "device/device.h"
#include "device/memory_limit.h"
#include "report/json_report.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {
int execute_measure_case(const std::string& spec_json, const std::string& out_path) {
  nlohmann::json request;
  try {
    request = nlohmann::json::parse(spec_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("{}: --spec-json is not valid JSON (byte {})", kMeasureCaseCommand, e.byte));
  }
  CaseSpec spec;
  MeasureOptions mo;
  std::uint64_t memory_limit = 0;
  try {
    spec = request.at("spec").get<CaseSpec>();
    mo = measure_options_from_json(request.at("measure"));
    memory_limit = request.value("memory_limit_bytes", std::uint64_t{0});
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: bad request: {}", kMeasureCaseCommand, e.what()));
  }
  auto device = open_device(spec.device);
  if (memory_limit) apply_memory_limit(*device, memory_limit);
  auto workload = make_workload(spec.workload);
  const auto result = measure_case(spec, *workload, *device, mo);
  write_json_document(nlohmann::json(result), out_path);
  return 0;
}
}  // namespace

void add_measure_case_command(CLI::App& app, Action& action) {
  auto spec = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(kMeasureCaseCommand, "Internal: measure one case for an isolated sweep point");
  cmd->group("");  // hidden from --help
  cmd->add_option("--spec-json", *spec, "The case and its measurement options (JSON)")->required();
  cmd->add_option("--out", *out, "Where to write the CaseResult JSON")->required();
  cmd->callback([&action, spec, out]() { action = [spec, out]() { return execute_measure_case(*spec, *out); }; });
}

}  // namespace accelbench
