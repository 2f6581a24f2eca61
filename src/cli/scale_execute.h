#pragma once
// `scale`'s flags as typed and their execution, shared by `accelbench scale` and `accelbench run
// --gpus N` (which trains the run's models data-parallel through it). docs/multi-gpu.md.
#include <cstddef>
#include <cstdint>
#include <string>

namespace accelbench {

struct ScaleFlags {
  std::string model, gpus = "1,2", dtypes = "float32", json, rank_dir;  // model: a comma list
  std::int64_t batch_size = 64;
  double bucket_mb = 25, max_time_s = 20, ci_target = 0.02, collective_timeout_s = 120;
  std::size_t min_samples = 10;
  bool from_env = false, bucket_views = false, overhead = false, bucket_mb_given = false;
};

// Every model and precision at every world size of `flags.gpus` (one process per GPU, started
// here), or as one rank of a torchrun/Slurm job (from_env): the tables on stdout, --json. Every
// input is checked first (UsageError, one line; `command` names the command in the GPU-count
// refusal). Returns 0 when all measured, 1 when a world size failed (the rank named).
int execute_scale(const ScaleFlags& flags, const std::string& command = "scale");

}  // namespace accelbench
