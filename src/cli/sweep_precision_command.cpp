// accelbench sweep precision: float32, tfloat32 (CUDA), bfloat16 and float16 on one device, each
// with its speed-up over float32 (95% CI) and its numerical parity with float32: the loss after K
// identical steps (same seed, weights and batches, dropout off) and the gradients' norm. The loop:
// drivers/precision_sweep.cpp. docs/sweeps.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "core/errors.h"
#include "drivers/precision_sweep.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
constexpr unsigned kSweepPrecisionOptions = kSweepDeviceOption | kSweepBatchOption | kSweepThreadsOption | kSweepPythonOption;

struct SweepPrecisionOptions {
  SweepCommonOptions common;
  std::string dtypes;  // empty: every precision the device supports
  int parity_steps = PrecisionSweepRequest{}.parity_steps;  // 10
};

// The precisions: as asked (each checked against the device: bad input), or all the device has;
// float32 first, the reference of every speed-up and parity.
std::vector<std::string> precisions_of(const SweepPrecisionOptions& o, const std::string& device) {
  std::vector<std::string> precisions;
  if (!o.dtypes.empty()) {
    for (const auto& name : split_list(o.dtypes)) {
      const auto p = engine::canonical_precision(name);
      engine::check_precision(p, device);
      if (std::find(precisions.begin(), precisions.end(), p) == precisions.end()) precisions.push_back(p);
    }
    if (precisions.empty()) throw UsageError("--dtypes is empty");
  } else {
    precisions = engine::precisions_for(device);
  }
  precisions.erase(std::remove(precisions.begin(), precisions.end(), "float32"), precisions.end());
  precisions.insert(precisions.begin(), "float32");
  return precisions;
}

int execute_sweep_precision(const SweepPrecisionOptions& o, const CLI::App& cmd) {
  if (cmd.count("--dtype")) throw UsageError("sweep precision sweeps the precisions: name them with --dtypes, not --dtype");
  if (o.parity_steps < 0 || o.parity_steps > 1000)
    throw UsageError(fmt::format("--parity-steps must be in [0, 1000] (got {})", o.parity_steps));
  // Parity trains the C++ engine's model: a Python sweep has none (its loss before and after is in each point).
  if (o.common.python.impl == "python" && cmd.count("--parity-steps") && o.parity_steps > 0)
    throw UsageError("--parity-steps: parity is the C++ engine's; with --impl python give --parity-steps 0 or leave it out");
  auto s = prepare_sweep(o.common, cmd, kSweepPrecisionOptions, "precision");
  PrecisionSweepRequest r;
  r.base = s.base;
  r.options = s.measure;
  r.parity_steps = is_python(r.base) ? 0 : o.parity_steps;
  r.precisions = precisions_of(o, r.base.device);
  // A precision the workload refuses (dcgan has no float16) is bad input when asked for by name.
  r.refused.resize(r.precisions.size());
  for (std::size_t i = 0; i < r.precisions.size(); ++i) {
    CaseSpec spec = r.base;
    spec.dtype = r.precisions[i];
    try {
      engine::validate_case(spec, r.options.inputs);
    } catch (const UsageError& e) {
      if (!o.dtypes.empty() || r.precisions[i] == "float32") throw;
      r.refused[i] = e.what();
    }
  }
  s.parity = engine::parity_trainer();
  s.settings["dtypes"] = r.precisions;
  s.settings["parity_steps"] = r.parity_steps;
  return run_precision_sweep(r, sweep_environment(s, "sweep precision")).exit_code;
}

}  // namespace

void add_sweep_precision_command(CLI::App& sweep, Action& action) {
  auto o = std::make_shared<SweepPrecisionOptions>();
  auto* cmd = sweep.add_subcommand(
      "precision", "float32, tfloat32 (CUDA), bfloat16, float16 on one device: speed-up over float32 with its CI, and the "
                   "loss and gradient norm after K identical steps against float32's");
  add_common_sweep_options(cmd, o->common, kSweepPrecisionOptions);
  cmd->add_option("--dtypes", o->dtypes,
                  "Comma-separated precisions (default: every one the device supports: cpu float32,bfloat16,float16; cuda "
                  "adds tfloat32)");
  // Registered so that a user who writes --dtype gets a clear message rather than CLI11's.
  cmd->add_option("--dtype", o->common.dtype, "Use --dtypes")->group("");
  cmd->add_option("--parity-steps", o->parity_steps,
                  "Optimizer steps of the parity runs (same seed, weights and batches, dropout off; 0: no parity)")
      ->capture_default_str();
  cmd->callback([&action, o, cmd]() { action = [o, cmd]() {
      return sweep_each_device(o->common, false, [&]() { return execute_sweep_precision(*o, *cmd); });
    }; });
}

}  // namespace accelbench
