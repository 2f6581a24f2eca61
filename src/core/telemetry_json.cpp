// JSON of the telemetry records. A figure is {"value": x, "source": "..."} or
// {"value": null, "unavailable": "unavailable: <reason>"}.
#include "core/telemetry_summary.h"
#include "core/json_util.h"

namespace accelbench {

using nlohmann::json;
using json_util::get_if;
using json_util::get_optional;
using json_util::put_optional;

namespace {
void get_figure(const json& j, const char* key, TelemetryFigure& v) {
  if (auto it = j.find(key); it != j.end() && it->is_object()) v = it->get<TelemetryFigure>();
}
}  // namespace

void to_json(json& j, const TelemetryFigure& v) {
  j = json::object();
  put_optional(j, "value", v.value);
  if (v.value) j["source"] = v.source;
  else j["unavailable"] = v.unavailable.empty() ? std::string("unavailable: not measured") : v.unavailable;
}
void from_json(const json& j, TelemetryFigure& v) {
  get_optional(j, "value", v.value);
  get_if(j, "source", v.source);
  get_if(j, "unavailable", v.unavailable);
}

void to_json(json& j, const TelemetryChannel& v) {
  j = json{{"source", v.source},       {"role", v.role},       {"description", v.description},
           {"figures", v.figures},     {"samples", v.samples}, {"energy_method", v.energy_method},
           {"throttled_samples", v.throttled_samples},         {"throttle_reasons", v.throttle_reasons}};
  put_optional(j, "energy_j", v.energy_j);
  put_optional(j, "energy_counter_j", v.energy_counter_j);
  put_optional(j, "power_integral_j", v.power_integral_j);
  put_optional(j, "mean_power_w", v.mean_power_w);
  put_optional(j, "peak_power_w", v.peak_power_w);
  put_optional(j, "max_temperature_c", v.max_temperature_c);
  put_optional(j, "mean_clock_mhz", v.mean_clock_mhz);
  put_optional(j, "min_clock_mhz", v.min_clock_mhz);
  put_optional(j, "max_clock_mhz", v.max_clock_mhz);
  put_optional(j, "peak_memory_bytes", v.peak_memory_bytes);
  put_optional(j, "energy_update_period_s", v.energy_update_period_s);
  if (!v.energy_note.empty()) j["energy_note"] = v.energy_note;
}
void from_json(const json& j, TelemetryChannel& v) {
  get_if(j, "source", v.source);
  get_if(j, "role", v.role);
  get_if(j, "description", v.description);
  get_if(j, "figures", v.figures);
  get_if(j, "samples", v.samples);
  get_if(j, "energy_method", v.energy_method);
  get_if(j, "throttled_samples", v.throttled_samples);
  get_if(j, "throttle_reasons", v.throttle_reasons);
  get_optional(j, "energy_j", v.energy_j);
  get_optional(j, "energy_counter_j", v.energy_counter_j);
  get_optional(j, "power_integral_j", v.power_integral_j);
  get_optional(j, "mean_power_w", v.mean_power_w);
  get_optional(j, "peak_power_w", v.peak_power_w);
  get_optional(j, "max_temperature_c", v.max_temperature_c);
  get_optional(j, "mean_clock_mhz", v.mean_clock_mhz);
  get_optional(j, "min_clock_mhz", v.min_clock_mhz);
  get_optional(j, "max_clock_mhz", v.max_clock_mhz);
  get_optional(j, "peak_memory_bytes", v.peak_memory_bytes);
  get_optional(j, "energy_update_period_s", v.energy_update_period_s);  // absent in files before it: null
  get_if(j, "energy_note", v.energy_note);
}

void to_json(json& j, const TelemetrySeries& v) {
  json channels = json::object();
  for (const auto& [name, figs] : v.channels) {
    json c = json::object();
    for (const auto& [fig, values] : figs) {
      json a = json::array();
      for (const auto& x : values) a.push_back(x ? json(*x) : json(nullptr));
      c[fig] = std::move(a);
    }
    channels[name] = std::move(c);
  }
  j = json{{"t_s", v.t_s}, {"channels", channels}};
}
void from_json(const json& j, TelemetrySeries& v) {
  get_if(j, "t_s", v.t_s);
  v.channels.clear();
  if (auto c = j.find("channels"); c != j.end() && c->is_object()) {
    for (const auto& [name, figs] : c->items()) {
      for (const auto& [fig, values] : figs.items()) {
        auto& out = v.channels[name][fig];
        for (const auto& x : values) out.push_back(x.is_null() ? std::nullopt : std::optional<double>(x.get<double>()));
      }
    }
  }
}

void to_json(json& j, const TrainingPrediction& v) {
  j = json{{"epochs", v.epochs},         {"steps_per_epoch", v.steps_per_epoch}, {"total_steps", v.total_steps},
           {"time_s", v.time_s},         {"time_low_s", v.time_low_s},           {"time_high_s", v.time_high_s},
           {"energy_j", v.energy_j},     {"method", v.method},                   {"is_estimate", true}};
  put_optional(j, "energy_low_j", v.energy_low_j);
  put_optional(j, "energy_high_j", v.energy_high_j);
}
void from_json(const json& j, TrainingPrediction& v) {
  get_if(j, "epochs", v.epochs);
  get_if(j, "steps_per_epoch", v.steps_per_epoch);
  get_if(j, "total_steps", v.total_steps);
  get_if(j, "time_s", v.time_s);
  get_if(j, "time_low_s", v.time_low_s);
  get_if(j, "time_high_s", v.time_high_s);
  get_figure(j, "energy_j", v.energy_j);
  get_if(j, "method", v.method);
  get_optional(j, "energy_low_j", v.energy_low_j);
  get_optional(j, "energy_high_j", v.energy_high_j);
}

void to_json(json& j, const TelemetrySummary& v) {
  j = json{{"sample_hz", v.sample_hz},
           {"window", {{"begin_s", v.window_begin_s}, {"end_s", v.window_end_s}, {"seconds", v.window_s},
                       {"boundaries", "device-synchronized, the same as the timed samples'"}}},
           {"steps", v.steps},
           {"steps_per_epoch", v.steps_per_epoch},
           {"device_role", v.device_role},
           {"energy_j", v.energy_j},
           {"energy_per_step_j", v.energy_per_step_j},
           {"energy_per_epoch_j", v.energy_per_epoch_j},
           {"mean_power_w", v.mean_power_w},
           {"peak_power_w", v.peak_power_w},
           {"max_temperature_c", v.max_temperature_c},
           {"mean_clock_mhz", v.mean_clock_mhz},
           {"peak_memory_bytes", v.peak_memory_bytes},
           {"host_energy_j", v.host_energy_j},
           {"samples", v.samples},
           {"throttled", v.throttled},
           {"throttled_samples", v.throttled_samples},
           {"throttle_reasons", v.throttle_reasons},
           {"channels", v.channels},
           {"unavailable", v.unavailable},
           {"series", v.series}};
  j["prediction"] = v.prediction ? json(*v.prediction) : json(nullptr);
  // Added later; readers of older files find them absent (empty / null).
  j["energy_method"] = v.energy_method;
  put_optional(j, "energy_update_period_s", v.energy_update_period_s);
  put_optional(j, "min_energy_window_s", v.min_energy_window_s);
  if (!v.energy_note.empty()) j["energy_note"] = v.energy_note;
}
void from_json(const json& j, TelemetrySummary& v) {
  get_if(j, "sample_hz", v.sample_hz);
  if (auto w = j.find("window"); w != j.end() && w->is_object()) {
    get_if(*w, "begin_s", v.window_begin_s);
    get_if(*w, "end_s", v.window_end_s);
    get_if(*w, "seconds", v.window_s);
  }
  get_if(j, "steps", v.steps);
  get_if(j, "steps_per_epoch", v.steps_per_epoch);
  get_if(j, "device_role", v.device_role);
  get_figure(j, "energy_j", v.energy_j);
  get_figure(j, "energy_per_step_j", v.energy_per_step_j);
  get_figure(j, "energy_per_epoch_j", v.energy_per_epoch_j);
  get_figure(j, "mean_power_w", v.mean_power_w);
  get_figure(j, "peak_power_w", v.peak_power_w);
  get_figure(j, "max_temperature_c", v.max_temperature_c);
  get_figure(j, "mean_clock_mhz", v.mean_clock_mhz);
  get_figure(j, "peak_memory_bytes", v.peak_memory_bytes);
  get_figure(j, "host_energy_j", v.host_energy_j);
  get_if(j, "samples", v.samples);
  get_if(j, "throttled", v.throttled);
  get_if(j, "throttled_samples", v.throttled_samples);
  get_if(j, "throttle_reasons", v.throttle_reasons);
  get_if(j, "channels", v.channels);
  get_if(j, "unavailable", v.unavailable);
  if (auto s = j.find("series"); s != j.end() && s->is_object()) v.series = s->get<TelemetrySeries>();
  if (auto p = j.find("prediction"); p != j.end() && p->is_object()) v.prediction = p->get<TrainingPrediction>();
  else v.prediction.reset();
  get_if(j, "energy_method", v.energy_method);
  get_optional(j, "energy_update_period_s", v.energy_update_period_s);
  get_optional(j, "min_energy_window_s", v.min_energy_window_s);
  get_if(j, "energy_note", v.energy_note);
}

}  // namespace accelbench
