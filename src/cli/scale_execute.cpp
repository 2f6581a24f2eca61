// `scale`'s execution for checked flags (cli/scale_execute.h): the requests, the GPU check, the
// ranks started here or taken from the environment, the tables and the JSON.
#include "cli/scale_execute.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "cli/option_checks.h"
#include "core/child_process.h"
#include "core/errors.h"
#include "core/lists.h"
#include "core/safe_write.h"
#include "drivers/scale_launcher.h"
#include "engine/engine.h"
#include "report/json_report.h"
#include "report/scale_table.h"

namespace accelbench {

namespace {
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

ScaleRankRequest make_request(const ScaleFlags& f, const std::string& model, const std::string& dtype) {
  engine::check_workload(model);
  if (const auto why = engine::data_parallel_refusal(model); !why.empty())
    throw UsageError(fmt::format("--model {}: cannot be trained data-parallel: {}", model, why));
  if (f.batch_size < 1 || f.batch_size > (1 << 24)) throw UsageError("--batch-size must be at least 1 and at most 2^24");
  if (!(f.bucket_mb > 0 && f.bucket_mb <= 4096)) throw UsageError("--bucket-mb must be in (0, 4096]");
  if (!(f.max_time_s > 0) || !(f.collective_timeout_s > 0)) throw UsageError("--max-time and --collective-timeout must be positive");
  check_stopping(f.ci_target, f.min_samples);
  ScaleRankRequest r;
  r.workload = model;
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

void check_gpus(const std::vector<int>& sizes, const std::string& command) {
  const int need = *std::max_element(sizes.begin(), sizes.end());
  const int have = engine::cuda_device_count();
  if (need > have)
    throw UsageError(fmt::format("{} needs {} CUDA GPU{} for --gpus, this machine has {}", command, need, need == 1 ? "" : "s", have));
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

}  // namespace

int execute_scale(const ScaleFlags& f, const std::string& command) {
  std::vector<ScaleRankRequest> requests;
  const auto models = split_list(f.model), dtypes = split_list(f.dtypes);
  if (models.empty()) throw UsageError("--model: give at least one workload");
  if (dtypes.empty()) throw UsageError("--dtype: give at least one precision");
  for (const auto& m : models)
    for (const auto& d : dtypes) requests.push_back(make_request(f, m, d));
  const auto sizes = parse_world_sizes(f.gpus);
  if (!f.from_env) check_gpus(sizes, command);
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
    // After each model and precision: a later one that fails cannot lose what was measured.
    if (!f.json.empty()) write_json_document(doc, f.json);
  }
  // remove_tree, not std::filesystem::remove_all (core/safe_write.h says why).
  if (!f.from_env && f.rank_dir.empty() && !failed) remove_tree(work_dir);
  else if (!f.from_env && failed) std::fprintf(stderr, "scale: the ranks' logs are in %s\n", work_dir.c_str());
  return failed ? 1 : 0;
}

}  // namespace accelbench
