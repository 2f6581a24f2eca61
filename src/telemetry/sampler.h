#pragma once
// The telemetry sampler: a thread that reads every source at a fixed rate (20 Hz by default) while
// a case runs, and a measured window whose boundaries the runner marks right after a device
// synchronization, the same boundaries as the timing. At each mark the sources are read at once on
// the caller's thread, so energy counters are differenced exactly at the window's edges.
//
//   Sampler s(telemetry_sources_for("cuda:0"));
//   s.start();                 // before warm-up: the series shows the warm-up too
//   ... device.synchronize(); s.mark_window_begin();
//   ... timed steps ...; device.synchronize(); s.mark_window_end(steps);
//   s.stop();                  // returns within one source read; the thread is joined
//   TelemetrySummary t = s.summarize({...});
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "telemetry/telemetry_source.h"
#include "core/telemetry_summary.h"

namespace accelbench {

struct SamplerOptions {
  double hz = kDefaultTelemetryHz;                   // readings per second (clamped to 0.5..1000)
  std::size_t max_series_points = kDefaultSeriesPoints;
};

struct SummaryRequest {
  std::string device_role = "cpu";  // "accelerator" for a CUDA/MPS/... case: whose energy is the headline
  double steps_per_epoch = 0;       // for energy per epoch and the prediction (0: none)
  int epochs = 1;                   // the full training run to predict (0: no prediction)
  double step_mean_s = 0;           // mean step time of the case, and its relative 95% CI half-width
  double step_mean_rel_ci = 0;
};

class Sampler {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Sampler(std::vector<TelemetrySourcePtr> sources, SamplerOptions options = {});
  ~Sampler();  // stops and joins
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();  // takes a first reading, then one every 1/hz seconds on its own thread
  void stop();   // idempotent; wakes the thread and joins it
  bool running() const;

  void mark_window_begin();                   // call right after a device synchronization
  void mark_window_end(std::int64_t steps);   // likewise; `steps` trained inside the window

  // The shortest window whose energy a counter of `role` ("accelerator", "cpu") can give: k update
  // periods of its slowest counter, from the readings so far (telemetry/energy_window.h). The runner
  // keeps stepping at least this long after mark_window_begin(). nullopt while no counter of that
  // role has changed three times.
  std::optional<double> min_energy_window_s(const std::string& role) const;
  const std::vector<TelemetrySourcePtr>& sources() const { return sources_; }

  // After stop(). Without a closed window the headline figures are unavailable ("no measured window").
  TelemetrySummary summarize(const SummaryRequest& request) const;

  // One reading of every source (nullopt for an unavailable one) at t seconds since start().
  struct Point {
    double t = 0;
    std::vector<std::optional<TelemetryReading>> readings;
  };

 private:
  void run();
  Point take_point();

  std::vector<TelemetrySourcePtr> sources_;
  SamplerOptions options_;
  Clock::time_point t0_;
  mutable std::mutex read_mutex_;   // serializes source reads (the thread and the marks)
  mutable std::mutex data_mutex_;   // guards points_, marks, stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  std::vector<Point> points_;       // in time order (marks are inserted in order too)
  std::optional<std::size_t> begin_index_, end_index_;
  std::int64_t steps_ = 0;
};

// The summary's math on recorded points (exposed for tests): window = points[begin..end].
TelemetrySummary summarize_points(const std::vector<TelemetrySourcePtr>& sources, const std::vector<Sampler::Point>& points,
                                  std::optional<std::size_t> begin_index, std::optional<std::size_t> end_index,
                                  std::int64_t steps, double hz, std::size_t max_series_points,
                                  const SummaryRequest& request);

// Prediction math (pure; used by the runner after the window closes).
// step_mean_s and step_mean_rel_ci: mean step time and its 95% CI half-width relative to it.
// energy_per_step: from the window, when available; energy_rel_ci: the power variation's relative
// 95% half-width (0 when unknown).
TrainingPrediction predict_training(int epochs, double steps_per_epoch, double step_mean_s, double step_mean_rel_ci,
                                    const TelemetryFigure& energy_per_step_j, double energy_rel_ci);

}  // namespace accelbench
