// What `accelbench run` says of its checked request before measuring: the settings block of the
// run's context (in --json and the history) and the plan's two lines.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/run_request.h"
#include "core/durations.h"
#include "core/lists.h"
#include "engine/engine.h"

namespace accelbench {

nlohmann::json run_settings_json(const RunFlags& o, const CLI::App& cmd, const RunRequest& run_request) {
  const auto& req = run_request.suite;
  const auto& s = req.options.settings;
  nlohmann::json settings{{"models", run_request.models},
                          {"devices", engine::resolve_devices(o.devices)},
                          {"dtypes", nlohmann::json::array()},
                          {"batch_size", o.batch_size},
                          {"threads", o.threads == 0 ? engine::host_threads() : o.threads},
                          {"max_time_per_case_s", req.max_per_case_s},
                          {"budget_s", req.budget_s},
                          {"quick", o.quick},
                          {"epochs_given", cmd.count("--epochs") > 0},
                          {"cooldown_s", req.cooldown_s},
                          {"width", o.width},
                          {"checkpoint", o.checkpoint},
                          {"graphs", o.graphs},
                          {"parity_steps", o.parity_steps},
                          {"rounds", run_request.timing.rounds},
                          {"rounds_in", run_request.timing.in_process_rounds ? "this process" : "fresh child processes"},
                          {"timing", "host steady_clock around K training steps, closed by a device synchronization"}};
  for (const auto& t : split_list(o.dtypes)) settings["dtypes"].push_back(engine::canonical_precision(t));
  settings.update(nlohmann::json(s));            // ci_target, confidence, min_time_s, ... (core/options.h)
  settings.update(nlohmann::json(o.inputs));     // data, variant, text, seq_len, seed, workers
  settings["loops"] = run_request.loops.words;
  if (run_request.python.active()) {
    const auto& cases = req.plan.cases;
    const bool cpp = std::any_of(cases.begin(), cases.end(), [](const CaseSpec& c) { return !is_python(c); });
    settings["impl"] = cpp ? "cpp,python" : "python";
    settings["python_measurer"] = python_context(run_request.python);  // the interpreter and its torch
  }
  return settings;
}

std::vector<std::string> run_plan_lines(const RunFlags& o, const RunRequest& run_request) {
  const auto& req = run_request.suite;
  const auto n = req.plan.cases.size();
  const auto rounds = run_request.timing.rounds;
  const auto most = req.rounds.max_rounds;
  const auto rounds_text = rounds == 1 || most <= rounds ? fmt::format("{} round{} each", rounds, rounds == 1 ? "" : "s")
                                                       : fmt::format("{}-{} rounds each", rounds, most);
  return {fmt::format("{} case{} ({} on {}; {}), {}, CI target +-{:.1f}%", n, n == 1 ? "" : "s",
                      fmt::join(run_request.models, ", "), fmt::join(engine::resolve_devices(o.devices), ", "),
                      run_request.loops.words, rounds_text, 100 * req.options.settings.stopping.ci_target),
          fmt::format("{}{}", req.budget_s > 0 ? fmt::format("time budget {}, at most {} a case",
                                                             format_duration(req.budget_s), format_duration(req.max_per_case_s))
                                                : fmt::format("at most {} a case", format_duration(req.max_per_case_s)),
                      o.quick ? fmt::format(" (--quick: a looser target, fewer samples{})", run_request.quick_note) : "")};
}

}  // namespace accelbench
