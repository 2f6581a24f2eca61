#include "cli/run_request.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/option_checks.h"
#include "cli/workload_lists.h"
#include "core/durations.h"
#include "core/errors.h"
#include "core/model_spec.h"
#include "engine/engine.h"
#include "store/history_store.h"

namespace accelbench {

namespace {

// --graphs: the devices that can capture a step graph; UsageError naming why when none can.
std::vector<std::string> graph_devices(const std::vector<std::string>& devices) {
  std::vector<std::string> can, refusals;
  for (const auto& d : devices) {
    const auto refusal = engine::graphs_refusal(d);
    if (refusal.empty()) can.push_back(d);
    else refusals.push_back(refusal);
  }
  if (can.empty()) throw UsageError(fmt::format("--graphs: {}", fmt::join(refusals, "; ")));
  return can;
}

// The plan's lists and figures, checked; the CPU cases and every device's precisions too.
PlanRequest checked_plan_request(const RunFlags& o, const CLI::App& cmd) {
  check_batch_size(o.batch_size);
  check_threads(o.threads);
  PlanRequest req;
  // --model-file alone measures that model; with --models, after them.
  if (!o.inputs.model_file.empty() && cmd.count("--models") == 0) req.models.clear();
  else req.models = split_list(o.models);
  if (!o.inputs.model_file.empty()) req.models.push_back(model_file_case_name(o.inputs.model_file));
  if (req.models.empty())
    throw UsageError("--models is empty; available: " + fmt::format("{}", fmt::join(engine::workload_names(), ", ")));
  for (const auto& m : req.models) engine::check_workload(m, o.inputs);
  req.devices = engine::resolve_devices(o.devices);
  req.dtypes.clear();
  for (const auto& t : split_list(o.dtypes)) req.dtypes.push_back(engine::canonical_precision(t));
  if (req.dtypes.empty()) throw UsageError("--dtype is empty; available: float32, bfloat16");
  req.batch_size = o.batch_size;
  req.threads = o.threads;
  req.width = o.width;
  req.checkpoint = o.checkpoint;
  if (o.graphs) req.graph_devices = graph_devices(req.devices);
  return req;
}

void check_run_flags(const RunFlags& o, const CLI::App& cmd, const PlanRequest& plan) {
  if (!o.json_path.empty()) check_writable(o.json_path, "--json");
  if (!o.no_save) check_distinct_files(o.json_path, "--json", o.db_path.empty() ? HistoryStore::default_path() : o.db_path, "--db");
  if (!o.no_save) check_db_folder(o.db_path);
  if (o.repeats < 1 || o.repeats > 1000) throw UsageError(fmt::format("--repeats must be in [1, 1000] (got {})", o.repeats));
  if (o.repeats > 1 && !o.full_epoch) throw UsageError("--repeats needs --full-epoch");
  check_workload_inputs(o.inputs);
  if (!(o.telemetry_hz >= 0.5 && o.telemetry_hz <= 1000))
    throw UsageError(fmt::format("--telemetry-hz must be between 0.5 and 1000 readings per second (got {})", o.telemetry_hz));
  if (o.epochs < 1) throw UsageError(fmt::format("--epochs must be at least 1 (got {})", o.epochs));
  if (cmd.count("--width") && o.width < 1) throw UsageError(fmt::format("--width must be at least 1 (got {})", o.width));
  if (o.parity_steps < 0 || o.parity_steps > 1000)
    throw UsageError(fmt::format("--parity-steps must be in [0, 1000] (got {})", o.parity_steps));
  for (const auto& d : plan.devices)
    for (const auto& t : plan.dtypes) engine::check_precision(t, d);
}

// --quick: a workload whose default case takes too long for a quick look gets its smaller one
// (WorkloadInfo::quick_batch_size, quick_seq_len: bert-base's batch 8, sequence 64) where the flags
// do not give them; the plan line says so.
void apply_quick_sizes(const RunFlags& o, const CLI::App& cmd, const std::vector<std::string>& models, RunRequest& run_request) {
  auto& req = run_request.suite;
  for (const auto& m : models) {
    const auto* f = find_workload_facts(m);
    if (!f || (f->quick_batch_size == 0 && f->quick_seq_len == 0)) continue;
    if (f->quick_seq_len > 0 && cmd.count("--seq-len") == 0) req.options.inputs.seq_len = f->quick_seq_len;
    const bool own_batch = f->quick_batch_size > 0 && cmd.count("--batch-size") == 0;
    for (auto& c : req.plan.cases)
      if (own_batch && c.workload == m) c.batch_size = f->quick_batch_size;
    std::string sizes = f->quick_batch_size > 0 ? fmt::format(" at batch {}", own_batch ? f->quick_batch_size : o.batch_size) : "";
    if (f->quick_seq_len > 0) sizes += fmt::format("{} sequence {}", sizes.empty() ? " at" : ",", req.options.inputs.seq_len);
    run_request.quick_note += fmt::format("; {}{}", m, sizes);
  }
}

}  // namespace

RunRequest make_run_request(const RunFlags& o, const CLI::App& cmd) {
  const auto plan_request = checked_plan_request(o, cmd);
  RunRequest run_request;
  run_request.models = plan_request.models;
  auto& timing = run_request.timing;
  timing = parse_timing(o.timing, "case", o.quick ? 2 : 3);
  check_run_flags(o, cmd, plan_request);
  auto& req = run_request.suite;
  req.cooldown_s = parse_duration_seconds(o.cooldown, "--cooldown");
  auto& s = timing.settings;
  s.phases = o.phases;
  s.full_epoch = o.full_epoch;
  s.epoch_repeats = o.repeats;
  s.telemetry_hz = o.telemetry_hz;
  s.epochs = o.epochs;
  req.options.inputs = o.inputs;
  if (o.quick) {
    // Quick: a looser target and small minimums; the numbers say less and the output says so.
    if (cmd.count("--ci-target") == 0) s.stopping.ci_target = 0.05;
    if (cmd.count("--min-samples") == 0) s.stopping.min_samples = 5;
    if (cmd.count("--min-time") == 0) s.stopping.min_time_s = 0.2;
    if (cmd.count("--max-time-per-case") == 0) timing.max_per_case_s = 10;
    if (cmd.count("--budget") == 0) timing.budget_s = 60;
    s.min_warmup_steps = 2;
  }
  // Check the inputs each workload will read (data files, variants) before measuring anything.
  for (const auto& t : plan_request.dtypes)
    for (const auto& m : plan_request.models)
      engine::validate_case(CaseSpec{m, "", t, o.batch_size, o.threads, o.width, o.checkpoint, o.graphs}, o.inputs);
  req.plan = make_plan(plan_request);
  if (o.quick) apply_quick_sizes(o, cmd, plan_request.models, run_request);
  s.stopping.max_time_s = timing.max_per_case_s;
  req.options.settings = s;
  run_request.python = apply_python_flags(o.python, cmd, req, run_request.models, run_request.loops);  // --impl, --py-model
  req.budget_s = timing.budget_s;
  req.max_per_case_s = timing.max_per_case_s;
  req.rounds = RoundsPolicy{timing.rounds, timing.rounds + 3};
  req.parity_steps = (o.quick && cmd.count("--parity-steps") == 0) ? 2 : o.parity_steps;
  req.cpu_threads = o.threads;
  return run_request;
}

}  // namespace accelbench
