// `accelbench run --gpus N`: the run's models trained data-parallel on N GPUs of this host, through
// `scale` (cli/scale_execute.h): world sizes 1 and N, one process per GPU, instead of the
// CPU-and-accelerators suite. Only the options that mean the same there are taken; any other given
// with --gpus is refused before anything runs. docs/multi-gpu.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "cli/run_request.h"
#include "cli/scale_execute.h"
#include "core/durations.h"
#include "core/errors.h"

namespace accelbench {

namespace {
// The run options that keep their meaning under --gpus (and --gpus itself).
constexpr std::array<std::string_view, 11> kOptionsWithGpus = {
    "models", "model", "dtype", "batch-size", "gpus", "json", "quick", "max-time-per-case", "ci-target",
    "min-samples", "no-progress"};

bool taken_with_gpus(const CLI::Option& option) {
  for (const auto& name : option.get_lnames())
    if (std::find(kOptionsWithGpus.begin(), kOptionsWithGpus.end(), name) != kOptionsWithGpus.end()) return true;
  return false;
}
}  // namespace

int execute_run_on_gpus(const RunFlags& o, const CLI::App& cmd) {
  if (o.gpus < 1 || o.gpus > 1024) throw UsageError("--gpus must be a GPU count in [1, 1024]");
  for (const auto* option : cmd.get_options())
    if (option->count() > 0 && !option->get_lnames().empty() && !taken_with_gpus(*option))
      throw UsageError(fmt::format("--{} does not apply with --gpus (the models are trained data-parallel through "
                                   "`scale`: --models, --dtype, --batch-size, --max-time-per-case, --quick, --json)",
                                   option->get_lnames().front()));
  ScaleFlags f;
  f.model = o.models;
  f.dtypes = o.dtypes;
  f.batch_size = o.batch_size;
  f.json = o.json_path;
  f.gpus = o.gpus == 1 ? "1" : fmt::format("1,{}", o.gpus);  // efficiency at N against 1
  // --quick as in run (a looser target, fewer samples, shorter), unless the option itself is given.
  f.ci_target = o.quick && cmd.count("--ci-target") == 0 ? 0.05 : o.timing.ci_target;
  f.min_samples = o.quick && cmd.count("--min-samples") == 0 ? 5 : o.timing.min_samples;
  if (o.quick) f.max_time_s = 5;
  if (cmd.count("--max-time-per-case") > 0) f.max_time_s = parse_duration_seconds(o.timing.max_time, "--max-time-per-case");
  if (!(f.max_time_s > 0)) throw UsageError("--max-time-per-case must be positive");
  return execute_scale(f, "run");
}

}  // namespace accelbench
