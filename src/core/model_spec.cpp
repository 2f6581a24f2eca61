#include "core/model_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <filesystem>

#include "core/errors.h"
#include "core/lists.h"

namespace accelbench {

namespace {

const char* const kInputForm = "DIMS:DTYPE[:LOW..HIGH][,...], e.g. 3x224x224:float32 or 128:int64:0..30522";
const char* const kTargetForm = "classes:N, mse:DIMS or loss";

bool parse_int(const std::string& s, std::int64_t& v) {
  if (s.empty()) return false;
  const auto* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

bool parse_number(const std::string& s, double& v) {
  std::int64_t i = 0;
  if (parse_int(s, i)) {
    v = static_cast<double>(i);
    return true;
  }
  try {
    std::size_t used = 0;
    v = std::stod(s, &used);
    return used == s.size();
  } catch (const std::exception&) {
    return false;
  }
}

// "3x224x224" or "scalar"; each dimension in [1, 2^31).
bool parse_dims(const std::string& text, std::vector<std::int64_t>& dims) {
  dims.clear();
  if (text == "scalar") return true;
  for (const auto& d : split_fields(text, 'x')) {
    std::int64_t v = 0;
    if (!parse_int(d, v) || v < 1 || v >= (std::int64_t{1} << 31)) return false;
    dims.push_back(v);
  }
  return !dims.empty() && dims.size() <= 8;
}

bool known_dtype(const std::string& d) {
  return d == "float32" || d == "float64" || d == "float16" || d == "bfloat16" || d == "int64" || d == "int32";
}

TensorSpec parse_one_input(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("--input '{}': {}; expected {}", printable(text), why, kInputForm));
  };
  const auto fields = split_fields(text, ':');
  if (fields.size() < 2 || fields.size() > 3) throw bad("not DIMS:DTYPE");
  TensorSpec s;
  if (!parse_dims(fields[0], s.dims)) throw bad(fmt::format("'{}' is not a shape like 3x224x224", printable(fields[0])));
  s.dtype = fields[1];
  if (!known_dtype(s.dtype)) throw bad(fmt::format("unknown dtype '{}' (float32, float64, float16, bfloat16, int64, int32)", printable(s.dtype)));
  if (fields.size() == 3) {
    const auto dots = fields[2].find("..");
    if (dots == std::string::npos || !parse_number(fields[2].substr(0, dots), s.low) ||
        !parse_number(fields[2].substr(dots + 2), s.high) || !(s.low < s.high))
      throw bad(fmt::format("'{}' is not a range LOW..HIGH with LOW < HIGH", printable(fields[2])));
    s.has_range = true;
  }
  return s;
}

}  // namespace

std::vector<TensorSpec> parse_input_specs(const std::string& text) {
  if (text.empty()) throw UsageError(fmt::format("--input is empty; expected {}", kInputForm));
  std::vector<TensorSpec> specs;
  for (const auto& part : split_fields(text, ',')) specs.push_back(parse_one_input(part));
  return specs;
}

TargetSpec parse_target_spec(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("--target '{}': {}; expected {}", printable(text), why, kTargetForm));
  };
  TargetSpec t;
  if (text == "loss") {
    t.kind = TargetSpec::Kind::model_loss;
    return t;
  }
  const auto colon = text.find(':');
  const auto kind = text.substr(0, colon);
  const auto value = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  if (kind == "classes") {
    if (!parse_int(value, t.classes) || t.classes < 1 || t.classes >= (std::int64_t{1} << 31))
      throw bad(fmt::format("'{}' is not a class count of at least 1", printable(value)));
    return t;
  }
  if (kind == "mse") {
    t.kind = TargetSpec::Kind::mse;
    if (!parse_dims(value, t.dims)) throw bad(fmt::format("'{}' is not a shape like 10 or 3x32x32", printable(value)));
    return t;
  }
  throw bad(fmt::format("unknown loss '{}'", printable(kind)));
}

std::string dims_text(const std::vector<std::int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

std::string to_string(const TensorSpec& s) {
  std::string dims = s.dims.empty() ? "scalar" : fmt::format("{}", fmt::join(s.dims, "x"));
  std::string text = dims + ":" + s.dtype;
  if (s.has_range) text += fmt::format(":{:g}..{:g}", s.low, s.high);
  return text;
}

std::string describe(const TargetSpec& t) {
  switch (t.kind) {
    case TargetSpec::Kind::classes: return fmt::format("cross-entropy on {} classes", t.classes);
    case TargetSpec::Kind::mse: return fmt::format("mean squared error on a {} target", t.dims.empty() ? "scalar" : fmt::format("{}", fmt::join(t.dims, "x")));
    case TargetSpec::Kind::model_loss: return "the model's own loss";
  }
  return "";
}

std::string model_file_case_name(const std::string& path) {
  const auto name = std::filesystem::path(path).filename().string();
  return name.empty() ? path : name;
}

}  // namespace accelbench
