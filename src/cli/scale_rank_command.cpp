// The hidden `_scale-rank` command: one rank started by `accelbench scale` (drivers/scale_launcher),
// with torchrun's environment; writes its RankMeasurement JSON to --out. Exit 1 when it failed.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>

#include "cli/commands.h"
#include "cli/request_checks.h"
#include "core/child_process.h"
#include "core/errors.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
int execute_scale_rank(const std::string& request_json, const std::string& out) {
  ScaleRankRequest request;
  try {
    request = nlohmann::json::parse(request_json).get<ScaleRankRequest>();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("_scale-rank: bad --request-json: {}", e.what()));
  }
  check_scale_rank_request(request);
  tie_to_parent();  // started by accelbench scale: ends with it (not set under torchrun)
  auto rv = rendezvous_from_env();
  rv.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(request.collective_timeout_s * 1000));
  const auto m = engine::run_scale_rank(request, rv, out);
  if (!m.error.empty()) std::fprintf(stderr, "accelbench: rank %d: %s\n", rv.rank, m.error.c_str());
  return m.error.empty() ? 0 : 1;
}
}  // namespace

void add_scale_rank_command(CLI::App& app, Action& action) {
  auto request = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("_scale-rank", "Internal: one rank of `scale`");
  cmd->group("");  // hidden from --help
  cmd->add_option("--request-json", *request, "What to measure (JSON)")->required();
  cmd->add_option("--out", *out, "Where to write the rank's result JSON")->required();
  cmd->callback([&action, request, out]() { action = [request, out]() { return execute_scale_rank(*request, *out); }; });
}

}  // namespace accelbench
