// `accelbench scale`: data-parallel training on 1, 2, ... GPUs of this host (one process per GPU,
// started here), or as one rank of a job started by torchrun / Slurm (--ranks-from-env). docs/multi-gpu.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "cli/commands.h"
#include "core/child_process.h"
#include "core/errors.h"
#include "core/lists.h"
#include "drivers/scale_launcher.h"
#include "engine/engine.h"
#include "core/safe_write.h"
#include "report/json_report.h"

namespace accelbench {

namespace {
struct ScaleFlags {
  std::string model, gpus = "1,2", dtypes = "float32", json, rank_dir;
  std::int64_t batch_size = 64;
  double bucket_mb = 25, max_time_s = 20, ci_target = 0.02, collective_timeout_s = 120;
  std::size_t min_samples = 10;
  bool from_env = false, bucket_views = false, overhead = false, bucket_mb_given = false;
};

std::vector<int> parse_world_sizes(const std::string& text) {
  std::vector<int> out;
  for (const auto& item : split_list(text)) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 1024)
      throw UsageError(fmt::format("--gpus '{}': each item must be a GPU count in [1, 1024]", printable(text)));
    out.push_back(static_cast<int>(n));
  }
  if (out.empty()) throw UsageError("--gpus: give at least one GPU count (e.g. 1,2)");
  return out;
}

ScaleRankRequest make_request(const ScaleFlags& f, const std::string& dtype) {
  engine::check_workload(f.model);
  if (f.batch_size < 1 || f.batch_size > (1 << 24)) throw UsageError("--batch-size must be at least 1 and at most 2^24");
  if (!(f.bucket_mb > 0 && f.bucket_mb <= 4096)) throw UsageError("--bucket-mb must be in (0, 4096]");
  if (!(f.max_time_s > 0) || !(f.collective_timeout_s > 0)) throw UsageError("--max-time and --collective-timeout must be positive");
  ScaleRankRequest r;
  r.workload = f.model;
  r.dtype = engine::canonical_precision(dtype);
  r.batch_size = f.batch_size;
  r.bucket_mb = f.bucket_mb;
  r.bucket_views = f.bucket_views;
  r.one_bucket_on_one_gpu = !f.bucket_mb_given;
  r.overhead = f.overhead;
  r.collective_timeout_s = f.collective_timeout_s;
  r.options.settings.stopping.ci_target = f.ci_target;
  r.options.settings.stopping.min_samples = f.min_samples;
  r.options.settings.stopping.max_time_s = f.max_time_s;
  r.options.settings.min_sample_time_s = 0.05;  // samples of several steps: the per-sample agreement stays small
  r.options.settings.telemetry = false;
  return r;
}

void check_gpus(const std::vector<int>& sizes) {
  const int need = *std::max_element(sizes.begin(), sizes.end());
  const int have = engine::cuda_device_count();
  if (need > have)
    throw UsageError(fmt::format("scale needs {} CUDA GPU{} for --gpus, this machine has {}", need, need == 1 ? "" : "s", have));
  if (!engine::has_nccl()) throw UsageError("this build of accelbench has no NCCL process group (libtorch without CUDA)");
}

// One rank of a job started by torchrun or Slurm; rank 0 reads every rank's file after the barrier.
std::optional<ScaleResult> scale_from_env(const ScaleRankRequest& request, const ScaleFlags& f) {
  auto rv = rendezvous_from_env();
  rv.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(request.collective_timeout_s * 1000));
  const std::string dir = f.rank_dir.empty() ? "accelbench-scale-ranks" : f.rank_dir;  // shared by the ranks
  std::filesystem::create_directories(dir);
  const auto path = [&](int r) { return fmt::format("{}/rank{}.json", dir, r); };
  const auto mine = engine::run_scale_rank(request, rv, path(rv.rank));
  if (!mine.error.empty()) throw std::runtime_error(fmt::format("rank {} failed: {}", rv.rank, mine.error));
  if (rv.rank != 0) return std::nullopt;
  std::vector<RankMeasurement> ranks;
  for (int r = 0; r < rv.world_size; ++r) {
    std::ifstream in(path(r));
    ranks.push_back(nlohmann::json::parse(in).get<RankMeasurement>());
  }
  ScaleResult result{.request = request, .launcher = "env"};
  result.points.push_back(summarize_scale_point(rv.world_size, std::move(ranks), request.batch_size));
  derive_scaling(result);
  return result;
}

int execute_scale(const ScaleFlags& f) {
  std::vector<ScaleRankRequest> requests;
  for (const auto& d : split_list(f.dtypes)) requests.push_back(make_request(f, d));
  if (requests.empty()) throw UsageError("--dtype: give at least one precision");
  const auto sizes = parse_world_sizes(f.gpus);
  if (!f.from_env) check_gpus(sizes);
  nlohmann::json doc = {{"schema", kScaleSchema}, {"results", nlohmann::json::array()}};
  // The ranks' files: --rank-dir, kept; else a directory of this process's, removed at the end.
  const auto work_dir = f.rank_dir.empty()
      ? (std::filesystem::temp_directory_path() / fmt::format("accelbench-scale-{}", ::getpid())).string() : f.rank_dir;
  bool failed = false;
  for (const auto& request : requests) {
    std::optional<ScaleResult> result;
    if (f.from_env) result = scale_from_env(request, f);
    else result = scale_on_this_host(request, sizes, self_executable_path(), "_scale-rank", work_dir,
                                     [](const std::string& line) { std::fprintf(stderr, "scale: %s\n", line.c_str()); });
    if (!result) continue;  // a rank other than 0
    std::fputs(format_scale_table(*result).c_str(), stdout);
    for (const auto& p : result->points) failed = failed || !p.error.empty();
    doc["results"].push_back(*result);
  }
  // The results first: nothing after the measuring may lose them.
  if (!f.json.empty() && !doc["results"].empty()) write_json_document(doc, f.json);
  // remove_tree, not std::filesystem::remove_all (core/safe_write.h says why).
  if (!f.from_env && f.rank_dir.empty() && !failed) remove_tree(work_dir);
  else if (!f.from_env && failed) std::fprintf(stderr, "scale: the ranks' logs are in %s\n", work_dir.c_str());
  return failed ? 1 : 0;
}
}  // namespace

void add_scale_command(CLI::App& app, Action& action) {
  auto f = std::make_shared<ScaleFlags>();
  auto* cmd = app.add_subcommand("scale", "Data-parallel training on 1, 2, ... GPUs: step time, samples/s, weak-scaling "
                                          "efficiency, the all-reduce's share and bus bandwidth (NCCL)");
  cmd->add_option("--model", f->model, "Workload (resnet18, transformer, bert-base, ...)")->required();
  cmd->add_option("--gpus", f->gpus, "World sizes to measure, one process per GPU (default 1,2)");
  cmd->add_option("--dtype", f->dtypes, "Precisions, a comma list (float32, bfloat16, ...)");
  cmd->add_option("--batch-size", f->batch_size, "Batch per GPU (default 64)");
  auto* bucket_mb = cmd->add_option("--bucket-mb", f->bucket_mb, "Gradient bucket size in MiB (default 25, as DDP; 1 GPU without it: one bucket after the backward pass)");
  cmd->add_flag("--bucket-views", f->bucket_views, "Gradients as views of the buckets (DDP's gradient_as_bucket_view: "
                "a gradient copy less in memory). Default: each full bucket filled by one multi-tensor copy");
  cmd->add_flag("--overhead", f->overhead, "Also train a copy of the model without data parallelism on each GPU, a "
                "sample in turn with each data-parallel one: what data parallelism costs the step, paired (memory x2)");
  cmd->add_option("--max-time", f->max_time_s, "Seconds of sampling per world size at most (default 20)");
  cmd->add_option("--ci-target", f->ci_target, "Relative half-width of the median's 95% CI to stop at (default 0.02)");
  cmd->add_option("--min-samples", f->min_samples, "Samples at least (default 10)");
  cmd->add_option("--collective-timeout", f->collective_timeout_s, "Seconds before a hung collective ends the job (default 120)");
  cmd->add_option("--json", f->json, "Write the results (every rank's samples) as JSON");
  cmd->add_option("--rank-dir", f->rank_dir, "Keep the ranks' result files and logs here (default: a temporary directory, removed; with --ranks-from-env: accelbench-scale-ranks, shared by the ranks)");
  cmd->add_flag("--ranks-from-env", f->from_env, "Be one rank of a job started by torchrun or Slurm (RANK, WORLD_SIZE, ...)");
  cmd->callback([&action, f, bucket_mb]() { f->bucket_mb_given = bucket_mb->count() > 0; action = [f]() { return execute_scale(*f); }; });
}

}  // namespace accelbench
