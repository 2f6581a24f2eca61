#include "telemetry/sampler.h"

#include "telemetry/energy_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace accelbench {

Sampler::Sampler(std::vector<TelemetrySourcePtr> sources, SamplerOptions options)
    : sources_(std::move(sources)), options_(options), t0_(Clock::now()) {
  options_.hz = std::clamp(options_.hz, 0.5, 1000.0);
  if (options_.max_series_points < 2) options_.max_series_points = 2;
}

Sampler::~Sampler() { stop(); }

Sampler::Point Sampler::take_point() {
  Point p;
  const auto before = Clock::now();
  p.readings.reserve(sources_.size());
  for (const auto& s : sources_) {
    if (!s || !s->available()) {
      p.readings.emplace_back(std::nullopt);
      continue;
    }
    try {
      p.readings.emplace_back(s->read());
    } catch (...) {  // sources do not throw; if one does, this reading is just missing
      p.readings.emplace_back(TelemetryReading{});
    }
  }
  // The reading's time: the middle of the reads (they take microseconds, NVML up to a millisecond).
  p.t = std::chrono::duration<double>(before - t0_).count() +
        0.5 * std::chrono::duration<double>(Clock::now() - before).count();
  return p;
}

void Sampler::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard rl(read_mutex_);
    std::lock_guard dl(data_mutex_);
    stop_ = false;
    points_.clear();
    begin_index_.reset();
    end_index_.reset();
    steps_ = 0;
    t0_ = Clock::now();
    points_.push_back(take_point());
  }
  thread_ = std::thread([this] { run(); });
}

void Sampler::run() {
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / options_.hz));
  auto next = t0_ + period;
  while (true) {
    {
      std::unique_lock lock(data_mutex_);
      if (cv_.wait_until(lock, next, [this] { return stop_; })) return;
    }
    {
      std::lock_guard rl(read_mutex_);  // a mark cannot slip between this reading and its storage
      auto p = take_point();
      std::lock_guard dl(data_mutex_);
      points_.push_back(std::move(p));
    }
    next += period;
    const auto now = Clock::now();
    if (next < now) next = now + period;  // fell behind (slow source): skip, do not burst
  }
}

void Sampler::stop() {
  {
    std::lock_guard lock(data_mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Sampler::running() const { return thread_.joinable(); }

void Sampler::mark_window_begin() {
  std::lock_guard rl(read_mutex_);
  auto p = take_point();
  std::lock_guard dl(data_mutex_);
  begin_index_ = points_.size();
  end_index_.reset();
  points_.push_back(std::move(p));
}

void Sampler::mark_window_end(std::int64_t steps) {
  std::lock_guard rl(read_mutex_);
  auto p = take_point();
  std::lock_guard dl(data_mutex_);
  end_index_ = points_.size();
  steps_ = steps;
  points_.push_back(std::move(p));
}

TelemetrySummary Sampler::summarize(const SummaryRequest& request) const {
  std::lock_guard dl(data_mutex_);
  return summarize_points(sources_, points_, begin_index_, end_index_, steps_, options_.hz, options_.max_series_points,
                          request);
}

// --- the math -------------------------------------------------------------------------------------

TrainingPrediction predict_training(int epochs, double steps_per_epoch, double step_mean_s, double step_mean_rel_ci,
                                    const TelemetryFigure& energy_per_step_j, double energy_rel_ci) {
  TrainingPrediction p;
  p.epochs = epochs;
  p.steps_per_epoch = steps_per_epoch;
  p.total_steps = static_cast<double>(epochs) * steps_per_epoch;
  p.time_s = p.total_steps * step_mean_s;
  p.time_low_s = p.time_s * std::max(0.0, 1 - step_mean_rel_ci);
  p.time_high_s = p.time_s * (1 + step_mean_rel_ci);
  std::string energy_method;
  if (energy_per_step_j.value) {
    const double e = p.total_steps * *energy_per_step_j.value;
    const double rel = std::sqrt(step_mean_rel_ci * step_mean_rel_ci + energy_rel_ci * energy_rel_ci);
    p.energy_j = TelemetryFigure::of(e, energy_per_step_j.source);
    p.energy_low_j = e * std::max(0.0, 1 - rel);
    p.energy_high_j = e * (1 + rel);
    energy_method = fmt::format(
        "; energy = total steps x measured energy per step, +-{:.1f}% (step time CI and the window's power variation "
        "in quadrature{}; the source's own accuracy is not included)",
        100 * rel, energy_rel_ci > 0 ? "" : ", the power variation unknown: too few readings");
  } else {
    p.energy_j = energy_per_step_j.unavailable.empty() ? TelemetryFigure::none("no energy per step")
                                                       : TelemetryFigure{std::nullopt, {}, energy_per_step_j.unavailable};
  }
  p.method = fmt::format(
      "time = {} epoch(s) x {:.0f} steps x mean step time {:.6g} s (+-{:.1f}%, 95% CI of the mean){}; training steps "
      "only: no evaluation, checkpoints or data loading beyond what the workload does",
      epochs, steps_per_epoch, step_mean_s, 100 * step_mean_rel_ci, energy_method);
  return p;
}

namespace {

struct ChannelWork {
  std::size_t index = 0;
  TelemetryChannel ch;
  std::vector<std::optional<double>> point_power;  // per point: instantaneous, or counter-derived
  bool energy_figure = false;                       // the source claims an energy figure
};

std::string join(const std::vector<std::string>& v, const char* sep) { return fmt::format("{}", fmt::join(v, sep)); }

// The energy counter's readings of source `i` over all points (for its update period).
std::vector<CounterReading> counter_readings_of(const std::vector<Sampler::Point>& points, std::size_t i) {
  std::vector<CounterReading> out;
  for (const auto& p : points)
    if (i < p.readings.size() && p.readings[i] && p.readings[i]->energy_j) out.push_back({p.t, *p.readings[i]->energy_j});
  return out;
}

// Reasons why sources of `role` cannot give `figure`.
std::string reasons_for(const std::vector<TelemetrySourcePtr>& sources, const std::string& role,
                        const std::string& figure) {
  std::vector<std::string> out;
  // Only the sources that could give this figure (an unavailable source lists its figures with
  // the reason as their origin).
  for (const auto& s : sources) {
    if (!s || s->role() != role) continue;
    for (const auto& f : s->figures())
      if (f.figure == figure && (!f.available || !s->available()))
        out.push_back(fmt::format("{}: {}", s->name(), f.available ? s->unavailable_reason() : f.origin));
  }
  if (out.empty()) return fmt::format("no {} source measures {}", role == "accelerator" ? "device" : role, figure);
  return join(out, "; ");
}

// What the steps of summarize_points read: the sources, their readings, and the measured window
// (points b..e, both ends included) when there is one.
struct SummaryInput {
  const std::vector<TelemetrySourcePtr>& sources;
  const std::vector<Sampler::Point>& points;
  bool window = false;
  std::size_t b = 0, e = 0;
  double hz = 0;

  // Source i's reading at point k, nullptr when it has none.
  const TelemetryReading* reading(std::size_t k, std::size_t i) const {
    const auto& r = points[k].readings;
    return i < r.size() && r[i] ? &*r[i] : nullptr;
  }
};

TelemetryFigure no_window() { return TelemetryFigure::none("no measured window (the case failed before its timed steps)"); }

// --- each channel ---------------------------------------------------------------------------------

// The channel of source `i`: its name, role and the figures it claims.
ChannelWork describe_channel(const TelemetrySource& src, std::size_t i) {
  ChannelWork w;
  w.index = i;
  w.ch.source = src.name();
  w.ch.role = src.role();
  w.ch.description = src.description();
  for (const auto& f : src.figures()) {
    w.ch.figures[f.figure] = f.available ? f.origin : "unavailable: " + f.origin;
    if (f.figure == "energy" && f.available) w.energy_figure = true;
  }
  return w;
}

// Power at each point: the source's own, else the counter's difference since the last anchor.
void fill_point_power(ChannelWork& w, const SummaryInput& in) {
  const double min_dt = 0.2 / std::max(in.hz, 1e-3);  // counter differences over shorter spans are too noisy
  const auto& points = in.points;
  w.point_power.assign(points.size(), std::nullopt);
  std::optional<std::size_t> anchor;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto* r = in.reading(k, w.index);
    if (!r) continue;
    if (r->power_w) w.point_power[k] = r->power_w;
    if (r->energy_j) {
      if (in.window && k == in.b) anchor = k;  // counter intervals restart at the window's edge
      if (!anchor) {
        anchor = k;
      } else if (points[k].t - points[*anchor].t >= min_dt) {
        const double de = *r->energy_j - *in.reading(*anchor, w.index)->energy_j;
        if (!r->power_w && de >= 0) w.point_power[k] = de / (points[k].t - points[*anchor].t);
        anchor = k;
      }
    }
  }
}

// The channel's energy over the window (the counter's difference or the power's integral), its peak
// and mean power.
void fill_window_energy(ChannelWork& w, const SummaryInput& in, const TelemetrySummary& s) {
  auto& ch = w.ch;
  const auto& points = in.points;
  const auto* rb = in.reading(in.b, w.index);
  const auto* re = in.reading(in.e, w.index);
  if (rb && re && rb->energy_j && re->energy_j && *re->energy_j >= *rb->energy_j)
    ch.energy_counter_j = *re->energy_j - *rb->energy_j;
  // Trapezoid over the power readings inside the window, held flat to the window's edges.
  std::vector<std::pair<double, double>> pw;
  for (std::size_t k = in.b; k <= in.e; ++k)
    if (const auto* r = in.reading(k, w.index); r && r->power_w) pw.emplace_back(points[k].t, *r->power_w);
  if (!pw.empty()) {
    double integral = (pw.front().first - s.window_begin_s) * pw.front().second +
                      (s.window_end_s - pw.back().first) * pw.back().second;
    for (std::size_t k = 1; k < pw.size(); ++k)
      integral += 0.5 * (pw[k].second + pw[k - 1].second) * (pw[k].first - pw[k - 1].first);
    ch.power_integral_j = integral;
  }
  for (std::size_t k = in.b; k <= in.e; ++k)
    if (w.point_power[k]) ch.peak_power_w = std::max(ch.peak_power_w.value_or(-INFINITY), *w.point_power[k]);
  // The counter only when the window spans enough of its updates and its mean stays under the
  // highest reading (telemetry/energy_window.h); else the integral of the readings.
  ch.energy_update_period_s = counter_update_period_s(counter_readings_of(points, w.index));
  const auto chosen = choose_window_energy({.window_s = s.window_s,
                                            .counter_j = ch.energy_counter_j,
                                            .power_integral_j = ch.power_integral_j,
                                            .update_period_s = ch.energy_update_period_s,
                                            .peak_power_w = ch.peak_power_w});
  ch.energy_j = chosen.energy_j;
  ch.energy_method = chosen.method;
  ch.energy_note = chosen.note;
  if (ch.energy_j && s.window_s > 0) ch.mean_power_w = *ch.energy_j / s.window_s;
}

// The channel's temperature, clocks, memory and throttling over the window.
void fill_window_readings(ChannelWork& w, const SummaryInput& in) {
  auto& ch = w.ch;
  double clock_sum = 0;
  std::size_t clock_n = 0;
  for (std::size_t k = in.b; k <= in.e; ++k) {
    const auto* r = in.reading(k, w.index);
    if (!r) continue;
    if (r->temperature_c) ch.max_temperature_c = std::max(ch.max_temperature_c.value_or(-INFINITY), *r->temperature_c);
    if (r->clock_mhz) {
      clock_sum += *r->clock_mhz;
      ++clock_n;
      ch.min_clock_mhz = std::min(ch.min_clock_mhz.value_or(INFINITY), *r->clock_mhz);
      ch.max_clock_mhz = std::max(ch.max_clock_mhz.value_or(-INFINITY), *r->clock_mhz);
    }
    if (r->memory_bytes) ch.peak_memory_bytes = std::max(ch.peak_memory_bytes.value_or(0.0), *r->memory_bytes);
    if (r->throttled) {
      ++ch.throttled_samples;
      for (const auto& why : r->throttle_reasons)
        if (std::find(ch.throttle_reasons.begin(), ch.throttle_reasons.end(), why) == ch.throttle_reasons.end())
          ch.throttle_reasons.push_back(why);
    }
  }
  if (clock_n) ch.mean_clock_mhz = clock_sum / static_cast<double>(clock_n);
}

// One channel per available source, with its figures over the window; an unavailable source goes
// to s.unavailable with its reason.
std::vector<ChannelWork> summarize_channels(const SummaryInput& in, TelemetrySummary& s) {
  std::vector<ChannelWork> work;
  for (std::size_t i = 0; i < in.sources.size(); ++i) {
    const auto& src = in.sources[i];
    if (!src) continue;
    if (!src->available()) {
      s.unavailable[src->name()] = "unavailable: " + src->unavailable_reason();
      continue;
    }
    ChannelWork w = describe_channel(*src, i);
    fill_point_power(w, in);
    if (in.window) {
      w.ch.samples = s.samples;
      fill_window_energy(w, in, s);
      fill_window_readings(w, in);
    }
    work.push_back(std::move(w));
  }
  return work;
}

// --- the headline figures of the measured device --------------------------------------------------

// Energy of a role: the sum of its channels that have an energy figure.
TelemetryFigure energy_of_role(const SummaryInput& in, const std::vector<ChannelWork>& work, const std::string& r) {
  if (!in.window) return no_window();
  double sum = 0;
  std::vector<std::string> parts;
  bool any = false;
  for (const auto& w : work) {
    if (w.ch.role != r || !w.energy_figure) continue;
    if (!w.ch.energy_j)
      return TelemetryFigure::none(fmt::format(
          "{}: {}", w.ch.source, w.ch.energy_note.empty() ? "a read failed at the window's edge" : w.ch.energy_note));
    sum += *w.ch.energy_j;
    parts.push_back(fmt::format("{} ({})", w.ch.source, w.ch.energy_method));
    any = true;
  }
  if (!any) {
    // Sources without a counter can still integrate power.
    for (const auto& w : work) {
      if (w.ch.role != r || !w.ch.power_integral_j) continue;
      sum += *w.ch.power_integral_j;
      parts.push_back(fmt::format("{} (power integral)", w.ch.source));
      any = true;
    }
  }
  if (!any) return TelemetryFigure::none(reasons_for(in.sources, r, "energy"));
  return TelemetryFigure::of(sum, join(parts, " + "));
}

// How the headline energy was found: the methods, the slowest counter's update period (and so the
// shortest window it allows), and the notes of channels that fell back.
void describe_energy_method(TelemetrySummary& s, const std::vector<const ChannelWork*>& mine) {
  std::vector<std::string> methods, notes;
  for (const auto* w : mine) {
    if (!w->energy_figure && !w->ch.power_integral_j) continue;
    if (!w->ch.energy_method.empty() &&
        std::find(methods.begin(), methods.end(), w->ch.energy_method) == methods.end())
      methods.push_back(w->ch.energy_method);
    if (!w->ch.energy_note.empty()) notes.push_back(fmt::format("{}: {}", w->ch.source, w->ch.energy_note));
    if (w->ch.energy_update_period_s)
      s.energy_update_period_s = std::max(s.energy_update_period_s.value_or(0.0), *w->ch.energy_update_period_s);
  }
  s.energy_method = join(methods, " + ");
  s.energy_note = join(notes, "; ");
  if (s.energy_update_period_s) s.min_energy_window_s = min_energy_window_s(*s.energy_update_period_s);
}

// Energy per step and per epoch, and the mean power, from the headline energy.
void derive_energy_figures(TelemetrySummary& s, std::int64_t steps, const SummaryRequest& request) {
  if (!s.energy_j.value) {
    s.energy_per_step_j = s.energy_per_epoch_j = s.mean_power_w = s.energy_j;
    return;
  }
  if (steps > 0) s.energy_per_step_j = TelemetryFigure::of(*s.energy_j.value / static_cast<double>(steps), s.energy_j.source);
  else s.energy_per_step_j = TelemetryFigure::none("no training steps in the window");
  if (steps > 0 && request.steps_per_epoch > 0)
    s.energy_per_epoch_j = TelemetryFigure::of(*s.energy_per_step_j.value * request.steps_per_epoch,
                                               s.energy_j.source + ", x steps per epoch");
  else
    s.energy_per_epoch_j = TelemetryFigure::none(steps > 0 ? "the workload's epoch size is unknown" : "no training steps in the window");
  if (s.window_s > 0) s.mean_power_w = TelemetryFigure::of(*s.energy_j.value / s.window_s, s.energy_j.source + ", / window time");
  else s.mean_power_w = TelemetryFigure::none("the window has no duration");
}

// The channels of `mine` that have power readings.
std::vector<const ChannelWork*> powered_channels(const std::vector<const ChannelWork*>& mine) {
  std::vector<const ChannelWork*> powered;
  for (const auto* w : mine)
    if (std::any_of(w->point_power.begin(), w->point_power.end(), [](const auto& v) { return v.has_value(); }))
      powered.push_back(w);
  return powered;
}

// The device's power at each point: the sum of its powered channels, where all have a reading.
std::vector<std::optional<double>> device_power_at_points(const std::vector<const ChannelWork*>& powered,
                                                          std::size_t point_count) {
  std::vector<std::optional<double>> device_power(point_count);
  if (powered.empty()) return device_power;
  for (std::size_t k = 0; k < point_count; ++k) {
    double sum = 0;
    bool all = true;
    for (const auto* w : powered) {
      if (!w->point_power[k]) { all = false; break; }
      sum += *w->point_power[k];
    }
    if (all) device_power[k] = sum;
  }
  return device_power;
}

// Peak power: the summed power of the device's channels at the readings where all have one; the mean
// never exceeds it (channels' sums can still disagree by their timing).
void set_peak_power(TelemetrySummary& s, const SummaryInput& in, const std::vector<const ChannelWork*>& powered,
                    const std::vector<std::optional<double>>& device_power, const std::string& role) {
  if (!in.window) {
    s.peak_power_w = no_window();
  } else {
    std::optional<double> peak;
    for (std::size_t k = in.b; k <= in.e; ++k)
      if (device_power[k]) peak = std::max(peak.value_or(-INFINITY), *device_power[k]);
    std::vector<std::string> names;
    for (const auto* w : powered) names.push_back(w->ch.source);
    s.peak_power_w = peak ? TelemetryFigure::of(*peak, fmt::format("highest reading of {} at {:g} Hz", join(names, " + "), in.hz))
                          : TelemetryFigure::none(reasons_for(in.sources, role, "power"));
  }
  const bool mean_above_peak = s.mean_power_w.value && s.peak_power_w.value && *s.mean_power_w.value > *s.peak_power_w.value;
  if (mean_above_peak) {
    const auto why = fmt::format("mean power capped at the highest reading: energy / window time gave {:.1f} W, above "
                                 "the highest reading {:.1f} W",
                                 *s.mean_power_w.value, *s.peak_power_w.value);
    s.mean_power_w = TelemetryFigure::of(*s.peak_power_w.value, why + " (" + s.peak_power_w.source + ")");
    s.energy_note = s.energy_note.empty() ? why : s.energy_note + "; " + why;
  }
}

// The highest `field` over the channels of role `r`, naming them.
TelemetryFigure max_over_channels(const SummaryInput& in, const std::vector<ChannelWork>& work,
                                  std::optional<double> TelemetryChannel::*field, const char* figure, const std::string& r) {
  if (!in.window) return no_window();
  std::optional<double> v;
  std::vector<std::string> names;
  for (const auto& w : work) {
    if (w.ch.role != r) continue;
    if (const auto& x = w.ch.*field) {
      v = std::max(v.value_or(-INFINITY), *x);
      names.push_back(w.ch.source);
    }
  }
  if (!v) return TelemetryFigure::none(reasons_for(in.sources, r, figure));
  return TelemetryFigure::of(*v, join(names, ", "));
}

// The window's readings in which any of the device's channels was throttled, and why.
void count_throttled_samples(TelemetrySummary& s, const SummaryInput& in, const std::vector<const ChannelWork*>& mine) {
  std::set<std::string> reasons;
  for (std::size_t k = in.b; k <= in.e; ++k) {
    bool flagged = false;
    for (const auto* w : mine) {
      const auto& r = in.points[k].readings;
      if (w->index < r.size() && r[w->index] && r[w->index]->throttled) {
        flagged = true;
        reasons.insert(r[w->index]->throttle_reasons.begin(), r[w->index]->throttle_reasons.end());
      }
    }
    if (flagged) ++s.throttled_samples;
  }
  s.throttled = s.throttled_samples > 0;
  s.throttle_reasons.assign(reasons.begin(), reasons.end());
}

// --- the prediction -------------------------------------------------------------------------------

// The power's variation across the window: the relative 95% CI of batch means over up to 10 equal
// time blocks (0 when there are too few readings).
double power_relative_ci(const SummaryInput& in, const TelemetrySummary& s,
                         const std::vector<std::optional<double>>& device_power) {
  std::vector<std::pair<double, double>> pts;
  for (std::size_t k = in.b; k <= in.e; ++k)
    if (device_power[k]) pts.emplace_back(in.points[k].t, *device_power[k]);
  const std::size_t blocks = std::min<std::size_t>(10, pts.size() / 3);
  if (blocks < 2) return 0;
  std::vector<double> sum(blocks, 0), n(blocks, 0);
  for (const auto& [t, p] : pts) {
    auto blk = static_cast<std::size_t>((t - s.window_begin_s) / s.window_s * static_cast<double>(blocks));
    blk = std::min(blk, blocks - 1);
    sum[blk] += p;
    n[blk] += 1;
  }
  std::vector<double> means;
  for (std::size_t i = 0; i < blocks; ++i)
    if (n[i] > 0) means.push_back(sum[i] / n[i]);
  if (means.size() < 2) return 0;
  const double m = std::accumulate(means.begin(), means.end(), 0.0) / static_cast<double>(means.size());
  double ss = 0;
  for (double x : means) ss += (x - m) * (x - m);
  const double sd = std::sqrt(ss / static_cast<double>(means.size() - 1));
  if (!(m > 0)) return 0;
  return t_quantile_95(means.size() - 1) * sd / std::sqrt(static_cast<double>(means.size())) / m;
}

// --- the decimated series over everything sampled -------------------------------------------------

// The points of each bucket: bucket i holds points [begin(i), begin(i + 1)).
struct Buckets {
  std::size_t points = 0, count = 0;
  std::size_t begin(std::size_t i) const { return i * points / count; }
};

// One figure of a channel per bucket: the mean of its values (the maximum with use_max), nullopt
// for a bucket without one; nothing when no bucket has a value.
template <typename Get>
void reduce_into_buckets(std::map<std::string, std::vector<std::optional<double>>>& fig, const Buckets& buckets,
                         const char* key, bool use_max, Get get) {
  std::vector<std::optional<double>> out(buckets.count);
  bool any = false;
  for (std::size_t i = 0; i < buckets.count; ++i) {
    double acc = use_max ? -INFINITY : 0;
    std::size_t n = 0;
    for (std::size_t k = buckets.begin(i); k < buckets.begin(i + 1); ++k) {
      const std::optional<double> v = get(k);
      if (!v) continue;
      acc = use_max ? std::max(acc, *v) : acc + *v;
      ++n;
    }
    if (n) {
      out[i] = use_max ? acc : acc / static_cast<double>(n);
      any = true;
    }
  }
  if (any) fig[key] = std::move(out);
}

// The channel's figures per bucket: power, temperature, clock, memory, and throttling where the
// source can tell.
std::map<std::string, std::vector<std::optional<double>>> channel_series(const SummaryInput& in, const ChannelWork& w,
                                                                         const Buckets& buckets) {
  std::map<std::string, std::vector<std::optional<double>>> fig;
  auto rd = [&](std::size_t k) { return in.reading(k, w.index); };
  reduce_into_buckets(fig, buckets, "power_w", false, [&](std::size_t k) { return w.point_power[k]; });
  reduce_into_buckets(fig, buckets, "temperature_c", true, [&](std::size_t k) { auto* r = rd(k); return r ? r->temperature_c : std::nullopt; });
  reduce_into_buckets(fig, buckets, "clock_mhz", false, [&](std::size_t k) { auto* r = rd(k); return r ? r->clock_mhz : std::nullopt; });
  reduce_into_buckets(fig, buckets, "memory_bytes", true, [&](std::size_t k) { auto* r = rd(k); return r ? r->memory_bytes : std::nullopt; });
  const bool can_throttle = w.ch.figures.count("throttle") && w.ch.figures.at("throttle").rfind("unavailable", 0) != 0;
  if (can_throttle)
    reduce_into_buckets(fig, buckets, "throttled", true, [&](std::size_t k) -> std::optional<double> {
      auto* r = rd(k);
      if (!r) return std::nullopt;
      return r->throttled ? 1.0 : 0.0;
    });
  return fig;
}

// At most max_series_points buckets over all points: each bucket's mean time, and each channel's
// figures.
TelemetrySeries decimated_series(const SummaryInput& in, const std::vector<ChannelWork>& work,
                                 std::size_t max_series_points) {
  TelemetrySeries series;
  const Buckets buckets{in.points.size(), std::min(in.points.size(), max_series_points)};
  if (buckets.count == 0) return series;
  for (std::size_t i = 0; i < buckets.count; ++i) {
    double t = 0;
    for (std::size_t k = buckets.begin(i); k < buckets.begin(i + 1); ++k) t += in.points[k].t;
    series.t_s.push_back(t / static_cast<double>(buckets.begin(i + 1) - buckets.begin(i)));
  }
  for (const auto& w : work)
    if (auto fig = channel_series(in, w, buckets); !fig.empty()) series.channels[w.ch.source] = std::move(fig);
  return series;
}

}  // namespace

TelemetrySummary summarize_points(const std::vector<TelemetrySourcePtr>& sources, const std::vector<Sampler::Point>& points,
                                  std::optional<std::size_t> begin_index, std::optional<std::size_t> end_index,
                                  std::int64_t steps, double hz, std::size_t max_series_points,
                                  const SummaryRequest& request) {
  TelemetrySummary s;
  s.sample_hz = hz;
  s.steps = steps;
  s.steps_per_epoch = request.steps_per_epoch;
  s.device_role = request.device_role;
  const bool window = begin_index && end_index && *end_index > *begin_index && *end_index < points.size();
  const SummaryInput in{sources, points, window, window ? *begin_index : 0, window ? *end_index : 0, hz};
  if (window) {
    s.window_begin_s = points[in.b].t;
    s.window_end_s = points[in.e].t;
    s.window_s = s.window_end_s - s.window_begin_s;
    s.samples = in.e - in.b + 1;
  }
  std::vector<ChannelWork> work = summarize_channels(in, s);

  // The headline figures of the measured device.
  const auto& role = request.device_role;
  std::vector<const ChannelWork*> mine;
  for (const auto& w : work)
    if (w.ch.role == role) mine.push_back(&w);
  s.energy_j = energy_of_role(in, work, role);
  describe_energy_method(s, mine);
  derive_energy_figures(s, steps, request);
  s.host_energy_j = role == "cpu" ? s.energy_j : energy_of_role(in, work, "cpu");
  const auto powered = powered_channels(mine);
  const auto device_power = device_power_at_points(powered, points.size());
  set_peak_power(s, in, powered, device_power, role);
  s.max_temperature_c = max_over_channels(in, work, &TelemetryChannel::max_temperature_c, "temperature", role);
  s.mean_clock_mhz = max_over_channels(in, work, &TelemetryChannel::mean_clock_mhz, "clock", role);
  s.peak_memory_bytes = max_over_channels(in, work, &TelemetryChannel::peak_memory_bytes, "memory", role == "cpu" ? "process" : role);
  if (window) count_throttled_samples(s, in, mine);

  if (window && request.epochs > 0 && request.steps_per_epoch > 0 && request.step_mean_s > 0) {
    const double power_rel_ci = s.energy_j.value && s.window_s > 0 ? power_relative_ci(in, s, device_power) : 0;
    s.prediction = predict_training(request.epochs, request.steps_per_epoch, request.step_mean_s,
                                    request.step_mean_rel_ci, s.energy_per_step_j, power_rel_ci);
  }
  s.series = decimated_series(in, work, max_series_points);
  for (auto& w : work) s.channels.push_back(std::move(w.ch));
  return s;
}

std::optional<double> Sampler::min_energy_window_s(const std::string& role) const {
  std::lock_guard dl(data_mutex_);
  std::optional<double> longest;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (!sources_[i] || !sources_[i]->available() || sources_[i]->role() != role) continue;
    if (const auto w = accelbench::min_energy_window_s(counter_readings_of(points_, i)))
      longest = std::max(longest.value_or(0.0), *w);
  }
  return longest;
}

}  // namespace accelbench
