#include "core/scale_records.h"
#include "core/environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/durations.h"
#include "core/errors.h"
#include "core/results.h"

namespace accelbench {

namespace {
int env_int(const char* name, int low, int high, std::optional<int> fallback = std::nullopt) {
  const auto v = env_integer(name);
  if (v.valid && !v.value) {
    if (fallback) return *fallback;
    throw UsageError(fmt::format("{} is not set (torchrun and Slurm set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT)", name));
  }
  if (!v.valid || *v.value < low || *v.value > high)
    throw UsageError(fmt::format("{}='{}' must be an integer in [{}, {}]", name, printable(env_string(name)), low, high));
  return static_cast<int>(*v.value);
}
}  // namespace

Rendezvous rendezvous_from_env() {
  Rendezvous r;
  r.world_size = env_int("WORLD_SIZE", 1, 1 << 20);
  r.rank = env_int("RANK", 0, r.world_size - 1);
  r.local_rank = env_int("LOCAL_RANK", 0, 1 << 10, r.rank);
  r.master_port = env_int("MASTER_PORT", 1, 65535);
  const char* addr = std::getenv("MASTER_ADDR");
  if (!addr || !*addr) throw UsageError("MASTER_ADDR is not set (the host of rank 0)");
  r.master_addr = addr;
  const auto agent_store = env_string("TORCHELASTIC_USE_AGENT_STORE");
  r.join_agent_store = agent_store == "True" || agent_store == "true" || agent_store == "1";
  return r;
}

double allreduce_busbw_gbs(double bytes, double seconds, int n) {
  if (seconds <= 0 || n < 1) return 0;
  return bytes / seconds * 2.0 * (n - 1) / n / 1e9;
}

namespace {
double median_of_samples(std::vector<double> v) { return v.empty() ? 0.0 : accelbench::summarize(v).median; }

std::string first_error(const std::vector<RankMeasurement>& ranks) {
  for (const auto& r : ranks)
    if (!r.error.empty()) return fmt::format("rank {} failed: {}", r.rank, r.error);
  return {};
}
}  // namespace

ScalePoint summarize_scale_point(int world_size, std::vector<RankMeasurement> ranks, std::int64_t batch_size) {
  ScalePoint p;
  p.world_size = world_size;
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  p.ranks = std::move(ranks);
  p.error = first_error(p.ranks);
  if (!p.error.empty()) return p;
  if (static_cast<int>(p.ranks.size()) != world_size) {
    p.error = fmt::format("{} of {} ranks reported a measurement", p.ranks.size(), world_size);
    return p;
  }
  double slowest = -1;
  for (const auto& r : p.ranks) {
    if (r.samples.empty()) continue;
    const auto s = summarize(r.samples);
    if (s.median > slowest) {
      slowest = s.median;
      p.step = s;
      p.slowest_rank = r.rank;
    }
  }
  if (slowest <= 0) {
    p.error = "no rank took a sample";
    return p;
  }
  const auto& sr = p.ranks[static_cast<std::size_t>(p.slowest_rank)];
  p.samples_per_s = static_cast<double>(world_size * batch_size) / p.step.median;
  if (sr.baseline_samples.size() == sr.samples.size() && sr.samples.size() >= 2)
    p.overhead = paired_ratio(sr.samples, sr.baseline_samples);
  if (!sr.comm_samples.empty()) {
    p.comm_s = median_of_samples(sr.comm_samples);
    p.comm_share = *p.comm_s / p.step.median;
    if (world_size > 1) p.busbw_step_gbs = allreduce_busbw_gbs(static_cast<double>(sr.gradient_bytes), *p.comm_s, world_size);
  }
  if (sr.bare_allreduce_s > 0) {
    p.algbw_bare_gbs = static_cast<double>(sr.gradient_bytes) / sr.bare_allreduce_s / 1e9;
    if (world_size > 1) p.busbw_bare_gbs = allreduce_busbw_gbs(static_cast<double>(sr.gradient_bytes), sr.bare_allreduce_s, world_size);
  }
  return p;
}

namespace {
// Weak scaling: per-GPU work fixed, so efficiency = t(1) / t(N) on the slowest ranks' steps.
void add_efficiency(ScalePoint& p, const ScalePoint& one) {
  const auto& base = one.ranks[static_cast<std::size_t>(one.slowest_rank)].samples;
  const auto& mine = p.ranks[static_cast<std::size_t>(p.slowest_rank)].samples;
  p.efficiency = ratio_of_medians(base, mine);
}

void add_advice(ScaleResult& r) {
  for (const auto& p : r.points) {
    if (p.error.empty() && p.overhead && p.overhead->low > 1.03)
      r.advice.push_back(fmt::format(
          "{} GPU{}: data parallelism makes the step {} ({}) as long as the same step without it{}",
          p.world_size, p.world_size == 1 ? "" : "s", format_ratio_ci(p.overhead->ratio, p.overhead->low, p.overhead->high, 3),
          interval_name(false),
          p.world_size == 1 ? " (with no other rank to wait for: the reducer's host work, its bucket copies and "
                              "all-reduce launches; a larger batch per GPU spreads it)" : ""));
    if (p.world_size < 2 || !p.error.empty()) continue;
    const double eff = p.efficiency ? p.efficiency->ratio : 1.0;
    const double share = p.comm_share.value_or(0);
    if (eff < 0.9 && share > 0.25)
      r.advice.push_back(fmt::format(
          "{} GPUs: communication dominates (all-reduce {:.0f}% of the step, efficiency {:.0f}%): larger buckets "
          "(--bucket-mb), bfloat16 gradients, or a larger batch per GPU would help", p.world_size, 100 * share, 100 * eff));
    else if (eff < 0.9)
      r.advice.push_back(fmt::format("{} GPUs: efficiency {:.0f}% with the all-reduce at {:.0f}% of the step: the loss "
                                     "is elsewhere (the slowest rank, input, synchronization)", p.world_size, 100 * eff, 100 * share));
  }
}
}  // namespace

void derive_scaling(ScaleResult& r) {
  const ScalePoint* one = nullptr;
  for (const auto& p : r.points)
    if (p.world_size == 1 && p.error.empty()) one = &p;
  if (one)
    for (auto& p : r.points)
      if (p.error.empty()) add_efficiency(p, *one);
  add_advice(r);
}

void to_json(nlohmann::json& j, const ScaleRankRequest& v) {
  j = {{"workload", v.workload}, {"dtype", v.dtype}, {"batch_size", v.batch_size}, {"bucket_mb", v.bucket_mb},
       {"bucket_views", v.bucket_views}, {"one_bucket_on_one_gpu", v.one_bucket_on_one_gpu}, {"overhead", v.overhead}, {"collective_timeout_s", v.collective_timeout_s}, {"options", v.options}};
}
void from_json(const nlohmann::json& j, ScaleRankRequest& v) {
  j.at("workload").get_to(v.workload);
  j.at("dtype").get_to(v.dtype);
  j.at("batch_size").get_to(v.batch_size);
  j.at("bucket_mb").get_to(v.bucket_mb);
  v.bucket_views = j.value("bucket_views", false);
  v.one_bucket_on_one_gpu = j.value("one_bucket_on_one_gpu", false);  // absent: a request from before it
  v.overhead = j.value("overhead", false);
  j.at("collective_timeout_s").get_to(v.collective_timeout_s);
  j.at("options").get_to(v.options);
}

void to_json(nlohmann::json& j, const RankMeasurement& v) {
  j = {{"rank", v.rank}, {"world_size", v.world_size}, {"local_rank", v.local_rank}, {"device", v.device},
       {"device_name", v.device_name}, {"backend", v.backend}, {"samples_s", v.samples}, {"comm_samples_s", v.comm_samples},
       {"baseline_samples_s", v.baseline_samples}, {"reducer_host_s", v.reducer_host_s},
       {"reducer_host_parts_s", {{"copies", v.reducer_copies_s}, {"allreduce_calls", v.reducer_allreduce_calls_s},
                                 {"waits", v.reducer_waits_s}}},
       {"steps_per_sample", v.steps_per_sample}, {"warmup_steps", v.warmup_steps}, {"parameter_count", v.parameter_count},
       {"gradient_bytes", v.gradient_bytes}, {"bucket_bytes", v.bucket_bytes},
       {"buckets_launched_in_backward", v.buckets_launched_in_backward},
       {"all_reduced_after_backward", v.all_reduced_after_backward}, {"bare_allreduce_s", v.bare_allreduce_s},
       {"bare_buckets_s", v.bare_buckets_s}, {"loss_before", v.loss_before}, {"loss_after", v.loss_after},
       {"numerics", v.numerics}, {"error", v.error}};
  if (!v.samples.empty()) j["median_step_s"] = summarize(v.samples).median;
}
void from_json(const nlohmann::json& j, RankMeasurement& v) {
  v.rank = j.at("rank").get<int>();
  v.world_size = j.at("world_size").get<int>();
  v.local_rank = j.value("local_rank", v.rank);
  v.device = j.value("device", "");
  v.device_name = j.value("device_name", "");
  v.backend = j.value("backend", "");
  v.samples = j.value("samples_s", std::vector<double>{});
  v.comm_samples = j.value("comm_samples_s", std::vector<double>{});
  v.baseline_samples = j.value("baseline_samples_s", std::vector<double>{});
  v.reducer_host_s = j.value("reducer_host_s", 0.0);
  const auto parts = j.value("reducer_host_parts_s", nlohmann::json::object());
  v.reducer_copies_s = parts.value("copies", 0.0);
  v.reducer_allreduce_calls_s = parts.value("allreduce_calls", 0.0);
  v.reducer_waits_s = parts.value("waits", 0.0);
  v.steps_per_sample = j.value("steps_per_sample", 1);
  v.warmup_steps = j.value("warmup_steps", 0);
  v.parameter_count = j.value("parameter_count", std::int64_t{0});
  v.gradient_bytes = j.value("gradient_bytes", std::int64_t{0});
  v.bucket_bytes = j.value("bucket_bytes", std::vector<std::int64_t>{});
  v.buckets_launched_in_backward = j.value("buckets_launched_in_backward", 0);
  v.all_reduced_after_backward = j.value("all_reduced_after_backward", false);
  v.bare_allreduce_s = j.value("bare_allreduce_s", 0.0);
  v.bare_buckets_s = j.value("bare_buckets_s", 0.0);
  v.loss_before = j.value("loss_before", 0.0);
  v.loss_after = j.value("loss_after", 0.0);
  v.numerics = j.value("numerics", "");
  v.error = j.value("error", "");
}

void to_json(nlohmann::json& j, const ScalePoint& v) {
  j = {{"world_size", v.world_size}, {"error", v.error}, {"ranks", v.ranks}};
  if (!v.error.empty()) return;
  j["slowest_rank"] = v.slowest_rank;
  j["step_s"] = v.step;
  j["samples_per_s"] = v.samples_per_s;
  if (v.efficiency) j["efficiency"] = {{"ratio", v.efficiency->ratio}, {"low", v.efficiency->low}, {"high", v.efficiency->high}};
  if (v.overhead) j["overhead"] = {{"ratio", v.overhead->ratio}, {"low", v.overhead->low}, {"high", v.overhead->high}};
  if (v.comm_s) j["allreduce_s_per_step"] = *v.comm_s;
  if (v.comm_share) j["allreduce_share"] = *v.comm_share;
  if (v.busbw_step_gbs) j["busbw_step_gbs"] = *v.busbw_step_gbs;
  if (v.busbw_bare_gbs) j["busbw_bare_gbs"] = *v.busbw_bare_gbs;
  j["algbw_bare_gbs"] = v.algbw_bare_gbs;
}

void to_json(nlohmann::json& j, const ScaleResult& v) {
  j = {{"schema", kScaleSchema}, {"request", v.request}, {"launcher", v.launcher}, {"points", v.points}, {"advice", v.advice}};
}

}  // namespace accelbench
