#include "core/options.h"

#include "core/json_util.h"

namespace accelbench {

using nlohmann::json;
using json_util::get_if;

void to_json(json& j, const WorkloadInputs& v) {
  j = json{{"synthetic_forced", !v.use_real_data}, {"data_dir", v.data_dir}, {"variant", v.variant},
           {"text", v.text_path},                  {"seq_len", v.seq_len},   {"seed", v.seed},
           {"workers", v.workers}};
  if (!v.python.empty()) j.update(json{{"python", v.python}, {"py_model", v.py_model}, {"py_optimizer", v.py_optimizer}});
  if (!v.model_file.empty() || !v.py_model.empty())  // only for a model file: the context block of a built-in run is unchanged
    j.update(json{{"model_file", v.model_file}, {"model_input", v.model_input}, {"model_target", v.model_target},
                  {"model_flops_per_sample", v.model_flops_per_sample}});
}
void from_json(const json& j, WorkloadInputs& v) {
  bool synthetic = !v.use_real_data;
  get_if(j, "synthetic_forced", synthetic);
  v.use_real_data = !synthetic;
  get_if(j, "data_dir", v.data_dir);
  get_if(j, "variant", v.variant);
  get_if(j, "text", v.text_path);
  get_if(j, "seq_len", v.seq_len);
  get_if(j, "seed", v.seed);
  get_if(j, "workers", v.workers);
  get_if(j, "model_file", v.model_file);
  get_if(j, "model_input", v.model_input);
  get_if(j, "model_target", v.model_target);
  get_if(j, "model_flops_per_sample", v.model_flops_per_sample);
  get_if(j, "python", v.python);
  get_if(j, "py_model", v.py_model);
  get_if(j, "py_optimizer", v.py_optimizer);
}

void to_json(json& j, const MeasureSettings& v) {
  j = json{{"ci_target", v.stopping.ci_target},
           {"confidence", v.stopping.confidence},
           {"min_samples", v.stopping.min_samples},
           {"min_time_s", v.stopping.min_time_s},
           {"max_time_s", v.stopping.max_time_s},
           {"min_sample_time_s", v.min_sample_time_s},
           {"max_warmup_fraction", v.max_warmup_fraction},
           {"min_warmup_steps", v.min_warmup_steps},
           {"floor_samples", v.floor_samples},
           {"phases", v.phases},
           {"full_epoch", v.full_epoch},
           {"epoch_repeats", v.epoch_repeats},
           {"telemetry", v.telemetry},
           {"telemetry_hz", v.telemetry_hz},
           {"epochs", v.epochs}};
}
void from_json(const json& j, MeasureSettings& v) {
  get_if(j, "ci_target", v.stopping.ci_target);
  get_if(j, "confidence", v.stopping.confidence);
  get_if(j, "min_samples", v.stopping.min_samples);
  get_if(j, "min_time_s", v.stopping.min_time_s);
  get_if(j, "max_time_s", v.stopping.max_time_s);
  get_if(j, "min_sample_time_s", v.min_sample_time_s);
  get_if(j, "max_warmup_fraction", v.max_warmup_fraction);
  get_if(j, "min_warmup_steps", v.min_warmup_steps);
  get_if(j, "floor_samples", v.floor_samples);
  get_if(j, "phases", v.phases);
  get_if(j, "full_epoch", v.full_epoch);
  get_if(j, "epoch_repeats", v.epoch_repeats);
  get_if(j, "telemetry", v.telemetry);
  get_if(j, "telemetry_hz", v.telemetry_hz);
  get_if(j, "epochs", v.epochs);
}

void to_json(json& j, const MeasureOptions& v) { j = json{{"inputs", v.inputs}, {"settings", v.settings}}; }
void from_json(const json& j, MeasureOptions& v) {
  if (j.contains("inputs")) j.at("inputs").get_to(v.inputs);
  if (j.contains("settings")) j.at("settings").get_to(v.settings);
}

}  // namespace accelbench
