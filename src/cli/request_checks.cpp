#include "cli/request_checks.h"

#include <fmt/format.h>

#include <cmath>

#include "cli/common_options.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "core/scale_records.h"
#include "drivers/isolated_measurer.h"
#include "engine/engine.h"

namespace accelbench {

namespace {
// A time in seconds: finite and at least `least` (strictly above it when `positive`).
void check_request_seconds(double s, const char* field, bool positive) {
  if (!std::isfinite(s) || s < 0 || (positive && s == 0))
    throw UsageError(fmt::format("{} must be a {} number of seconds (got {})", field, positive ? "positive" : "non-negative", s));
}

template <class T>
void check_request_range(T v, T low, T high, const char* field) {
  if (!(v >= low && v <= high)) throw UsageError(fmt::format("{} must be in [{}, {}] (got {})", field, low, high, v));
}

// Runs `checks`, giving the UsageError it throws the command's prefix: "_measure-case: bad request: ...".
template <class F>
void with_request_prefix(const char* command, F&& checks) {
  try {
    checks();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: bad request: {}", command, e.what()));
  }
}
}  // namespace

void check_measure_options(const MeasureOptions& options) {
  const auto& s = options.settings;
  check_stopping(s.stopping.ci_target, s.stopping.min_samples);
  check_request_seconds(s.stopping.min_time_s, "min_time_s", false);
  check_request_seconds(s.stopping.max_time_s, "max_time_s", false);  // 0: no time left, the floor samples only
  check_request_range(s.stopping.confidence, 0.5, 0.999, "confidence");
  check_request_seconds(s.min_sample_time_s, "min_sample_time_s", false);
  check_request_range(s.max_warmup_fraction, 0.0, 1.0, "max_warmup_fraction");
  check_request_range<std::size_t>(s.min_warmup_steps, 0, kMaxMinSamples, "min_warmup_steps");
  check_request_range<std::size_t>(s.floor_samples, 0, kMaxMinSamples, "floor_samples");
  check_request_range(s.telemetry_hz, 0.5, 1000.0, "telemetry_hz");
  check_request_range(s.epochs, 1, 1000000, "epochs");
  check_request_range(s.epoch_repeats, 1, 1000, "epoch_repeats");
  check_workload_inputs(options.inputs);
}

void check_measure_request(const MeasureRequest& request) {
  with_request_prefix(kMeasureCaseCommand, [&]() {
    const auto& spec = request.spec;
    engine::check_workload(spec.workload, request.options.inputs);
    const auto devices = engine::resolve_devices(spec.device);
    if (devices.size() != 1 || devices.front() != spec.device)
      throw UsageError(fmt::format("device must name one device, e.g. cpu or cuda:0 (got '{}')", printable(spec.device)));
    engine::check_precision(engine::canonical_precision(spec.dtype), spec.device);
    check_batch_size(spec.batch_size, "batch_size");
    check_threads(spec.threads, "threads");
    if (spec.width < 0) throw UsageError(fmt::format("width must be 0 (the workload's own) or more (got {})", spec.width));
    check_measure_options(request.options);
    engine::validate_case(spec, request.options.inputs);
    if (request.memory_limit_bytes) engine::check_memory_limit(spec.device, request.memory_limit_bytes);
  });
}

void check_scale_rank_request(const ScaleRankRequest& request) {
  with_request_prefix("_scale-rank", [&]() {
    engine::check_workload(request.workload, request.options.inputs);
    if (const auto why = engine::data_parallel_refusal(request.workload); !why.empty()) throw UsageError(why);
    engine::canonical_precision(request.dtype);
    check_batch_size(request.batch_size, "batch_size");
    if (!(request.bucket_mb > 0 && request.bucket_mb <= 4096))
      throw UsageError(fmt::format("bucket_mb must be in (0, 4096] (got {})", request.bucket_mb));
    check_request_seconds(request.collective_timeout_s, "collective_timeout_s", true);
    check_measure_options(request.options);
  });
}

}  // namespace accelbench
