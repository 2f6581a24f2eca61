// `accelbench scale`: data-parallel training on 1, 2, ... GPUs of this host (one process per GPU,
// started here), or as one rank of a job started by torchrun / Slurm (--ranks-from-env). docs/multi-gpu.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/scale_execute.h"
#include "cli/workload_lists.h"

namespace accelbench {

void add_scale_command(CLI::App& app, Action& action) {
  auto f = std::make_shared<ScaleFlags>();
  auto* cmd = app.add_subcommand("scale", "Data-parallel training on 1, 2, ... GPUs: step time, samples/s, weak-scaling "
                                          "efficiency, the all-reduce's share and bus bandwidth (NCCL)");
  cmd->add_option("--model,--models", f->model,
                  fmt::format("Workloads, a comma list ({})", workload_names_with(&engine::WorkloadFacts::data_parallel)))
      ->required();
  cmd->add_option("--gpus", f->gpus, "World sizes to measure, one process per GPU (default 1,2)");
  cmd->add_option("--dtype", f->dtypes, "Precisions, a comma list (float32, bfloat16, ...)");
  cmd->add_option("--batch-size", f->batch_size, "Batch per GPU (default 64)");
  auto* bucket_mb = cmd->add_option("--bucket-mb", f->bucket_mb, "Gradient bucket size in MiB (default 25, as DDP; 1 GPU without it: one bucket after the backward pass)");
  cmd->add_flag("--bucket-views", f->bucket_views, "Gradients as views of the buckets (DDP's gradient_as_bucket_view: "
                "a gradient copy less in memory). Default: each full bucket filled by one multi-tensor copy");
  cmd->add_flag("--overhead", f->overhead, "Also train a copy of the model without data parallelism on each GPU, a "
                "sample in turn with each data-parallel one: what data parallelism costs the step, paired (memory x2)");
  cmd->add_option("--max-time", f->max_time_s, "Seconds of sampling per world size at most (default 20)");
  accept_percentage(cmd->add_option("--ci-target", f->ci_target,
                                    "Relative half-width of the median's 95% CI to stop at, e.g. 2% or 0.02 (default 2%)"));
  cmd->add_option("--min-samples", f->min_samples, "Samples at least (default 10)");
  cmd->add_option("--collective-timeout", f->collective_timeout_s, "Seconds before a hung collective ends the job (default 120)");
  cmd->add_option("--json", f->json, "Write the results (every rank's samples) as JSON");
  cmd->add_option("--rank-dir", f->rank_dir, "Keep the ranks' result files and logs here (default: a temporary directory, removed; with --ranks-from-env: accelbench-scale-ranks, shared by the ranks)");
  cmd->add_flag("--ranks-from-env", f->from_env, "Be one rank of a job started by torchrun or Slurm (RANK, WORLD_SIZE, ...)");
  cmd->callback([&action, f, bucket_mb]() { f->bucket_mb_given = bucket_mb->count() > 0; action = [f]() { return execute_scale(*f); }; });
}

}  // namespace accelbench
