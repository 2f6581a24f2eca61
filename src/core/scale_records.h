#pragma once
// Data-parallel scaling (`accelbench scale`): what one rank measured, the figures of a
// world size (the slowest rank's step time, samples/s, weak-scaling efficiency with its CI, the
// all-reduce's share of the step, bus bandwidth) and their JSON. No torch here.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/stats.h"

namespace accelbench {

inline constexpr const char* kScaleSchema = "accelbench.scale/1";

// Where the ranks meet, as torchrun and Slurm (through srun with these set) give it: RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; `accelbench scale` sets the same for the ranks
// it starts itself.
struct Rendezvous {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};  // rendezvous and every collective
  // Under torchrun (TORCHELASTIC_USE_AGENT_STORE=True) the agent already serves the store at
  // MASTER_ADDR:MASTER_PORT: every rank joins it as a client, as torch.distributed does.
  bool join_agent_store = false;
};
// From the environment; UsageError (one line) when a variable is missing or out of range.
Rendezvous rendezvous_from_env();

// What every rank measures (sent to the ranks as JSON).
struct ScaleRankRequest {
  std::string workload;
  std::string dtype = "float32";
  std::int64_t batch_size = 64;     // per GPU
  double bucket_mb = 25;            // gradient bucket size (DDP's bucket_cap_mb)
  bool bucket_views = false;        // gradients as views of the buckets (DDP's gradient_as_bucket_view)
  // World size 1: every gradient in one bucket, all-reduced once after the backward pass (one rank
  // has nothing to overlap it with). Off when --bucket-mb is given: DDP's buckets and hooks there too.
  bool one_bucket_on_one_gpu = true;
  // Also step a second copy of the model without data parallelism on each rank's GPU, a sample of it
  // in turn with each data-parallel sample: what data parallelism costs the step, paired.
  bool overhead = false;
  double collective_timeout_s = 120;
  MeasureOptions options;           // inputs and the stopping rule
};

// One rank's measurement at one world size.
struct RankMeasurement {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string device, device_name, backend;
  std::vector<double> samples;        // seconds per training step
  std::vector<double> comm_samples;   // device seconds of the all-reduces of one step (steps after the sampling, timing on)
  std::vector<double> baseline_samples;  // overhead: seconds per step without data parallelism, [i] taken beside samples[i]
  // Host seconds a step spent in the reducer (hooks, launches, waits), and of which: launching the
  // copies into the buckets, the all-reduce calls, the waits for them.
  double reducer_host_s = 0, reducer_copies_s = 0, reducer_allreduce_calls_s = 0, reducer_waits_s = 0;
  int steps_per_sample = 1, warmup_steps = 0;
  std::int64_t parameter_count = 0, gradient_bytes = 0;
  std::vector<std::int64_t> bucket_bytes;
  int buckets_launched_in_backward = 0;  // of the last step: launched from the hooks, overlapping the backward
  bool all_reduced_after_backward = false;  // no hooks: the buckets launched after the backward pass
  double bare_allreduce_s = 0;        // one all-reduce of gradient_bytes (median)
  double bare_buckets_s = 0;          // the buckets' all-reduces back to back (median)
  double loss_before = 0, loss_after = 0;
  std::string numerics;               // the workload's own choice of numerics ("residual stream in bfloat16"), or empty
  std::string error;                  // one line, when the rank failed
};

// The figures of one world size.
struct ScalePoint {
  int world_size = 1;
  std::vector<RankMeasurement> ranks;
  std::string error;                  // the failing rank named; empty when all ranks measured
  int slowest_rank = 0;
  Summary step;                       // the slowest rank's step time (seconds)
  double samples_per_s = 0;           // world_size x batch / slowest median step
  std::optional<RatioEstimate> efficiency;  // weak scaling: samples/s at N / (N x samples/s at 1)
  // overhead: the slowest rank's data-parallel step / its step without data parallelism (paired_ratio)
  std::optional<RatioEstimate> overhead;
  std::optional<double> comm_s;       // all-reduce device seconds per step (slowest rank's median)
  std::optional<double> comm_share;   // comm_s / step
  std::optional<double> busbw_step_gbs, busbw_bare_gbs;  // nccl-tests: algbw x 2(n-1)/n, GB/s
  double algbw_bare_gbs = 0;
};

struct ScaleResult {
  ScaleRankRequest request;
  std::string launcher;               // "accelbench" (it started the ranks) or "env" (torchrun, Slurm)
  std::vector<ScalePoint> points;
  std::vector<std::string> advice;
};

// nccl-tests' bus bandwidth of an all-reduce of `bytes` taking `seconds` over n ranks (GB/s, 1e9).
double allreduce_busbw_gbs(double bytes, double seconds, int n);
// The figures of a world size from its ranks' measurements (error set when a rank failed).
ScalePoint summarize_scale_point(int world_size, std::vector<RankMeasurement> ranks, std::int64_t batch_size);
// Efficiency of every point against world size 1 (when measured), then the advice.
void derive_scaling(ScaleResult& result);

void to_json(nlohmann::json& j, const ScaleRankRequest& v);
void from_json(const nlohmann::json& j, ScaleRankRequest& v);
void to_json(nlohmann::json& j, const RankMeasurement& v);
void from_json(const nlohmann::json& j, RankMeasurement& v);
void to_json(nlohmann::json& j, const ScalePoint& v);
void to_json(nlohmann::json& j, const ScaleResult& v);

}  // namespace accelbench
