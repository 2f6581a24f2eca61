#pragma once
// A model file's batch, described in text (no torch here): the inputs its forward takes and the
// target its loss needs, as `--input` / `--target` give them or as tools/export_model.py embeds them
// in the TorchScript file (extra file accelbench.json). docs/own-model.md.
//
//   input:  SPEC[,SPEC...]   SPEC = DIMS:DTYPE[:LOW..HIGH]   e.g. 3x224x224:float32, 128:int64:0..30522
//           DIMS are one sample's ("scalar": one value per sample); the batch dimension is added.
//           Integers are drawn uniformly from [LOW, HIGH) (default [0, 2)), floats from N(0, 1) or
//           uniformly from [LOW, HIGH) when a range is given.
//   target: classes:N (cross-entropy on labels in [0, N); the output must be [batch, N])
//           mse:DIMS  (mean squared error on a normal target; the output must be [batch, DIMS])
//           loss      (the forward returns its own 0-dim loss)
#include <cstdint>
#include <string>
#include <vector>

namespace accelbench {

struct TensorSpec {
  std::vector<std::int64_t> dims;  // one sample's; empty: a scalar per sample
  std::string dtype = "float32";   // float32 float64 float16 bfloat16 int64 int32
  bool has_range = false;
  double low = 0, high = 2;        // integers: [low, high); floats with has_range: uniform [low, high)
  bool is_integer() const { return dtype == "int64" || dtype == "int32"; }
};

struct TargetSpec {
  enum class Kind { classes, mse, model_loss };
  Kind kind = Kind::classes;
  std::int64_t classes = 0;        // classes
  std::vector<std::int64_t> dims;  // mse: one sample's target shape
};

// Throw UsageError with a one-line message naming the flag and the expected form.
std::vector<TensorSpec> parse_input_specs(const std::string& text);
TargetSpec parse_target_spec(const std::string& text);

// "3x224x224:float32"; "[2, 3, 224, 224]" (with the batch); "cross-entropy on 10 classes".
std::string to_string(const TensorSpec& spec);
std::string dims_text(const std::vector<std::int64_t>& dims);
std::string describe(const TargetSpec& target);

// The case name of a model file: its file name ("runs/resnet18.pt" -> "resnet18.pt").
std::string model_file_case_name(const std::string& path);

}  // namespace accelbench
