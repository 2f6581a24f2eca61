#include "core/peak_records.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/durations.h"
#include "core/errors.h"
#include "core/json_util.h"

namespace accelbench {

namespace {

struct KindInfo {
  CeilingKind kind;
  std::string_view name, unit, label;
};
constexpr std::array<KindInfo, 6> kKinds{{
    {CeilingKind::kMatmul, "matmul", "FLOP/s", "matmul"},
    {CeilingKind::kCopy, "copy", "B/s", "copy on the device (read + write)"},
    {CeilingKind::kHostToDevice, "host_to_device", "B/s", "host to device"},
    {CeilingKind::kDeviceToHost, "device_to_host", "B/s", "device to host"},
    {CeilingKind::kLaunchRoundTrip, "launch_round_trip", "s", "launch, round trip (op + sync)"},
    {CeilingKind::kLaunchBackToBack, "launch_back_to_back", "s", "launch, back to back"},
}};

const KindInfo& info(CeilingKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];
}

// 1234.5e12 -> "1234.5 T": three significant figures at least, a decimal prefix.
std::string with_prefix(double v) {
  static constexpr std::array<std::pair<double, const char*>, 5> kPrefixes{
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, p] : kPrefixes)
    if (std::fabs(v) >= scale) {
      const double x = v / scale;
      return fmt::format("{:.{}f} {}", x, x >= 100 ? 1 : x >= 10 ? 2 : 3, p);
    }
  return fmt::format("{:.3g} ", v);
}
}  // namespace

std::string_view ceiling_kind_name(CeilingKind kind) { return info(kind).name; }
std::string_view ceiling_unit(CeilingKind kind) { return info(kind).unit; }

std::optional<CeilingKind> ceiling_kind_from_name(std::string_view name) {
  for (const auto& k : kKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

std::string Ceiling::label() const {
  const auto base = std::string(info(kind).label);
  if (variant.empty()) return base;
  if (kind == CeilingKind::kMatmul) return base + " " + variant;
  return fmt::format("{} ({})", base, variant);
}

const Ceiling* DeviceCeilings::find(CeilingKind kind, std::string_view variant) const {
  for (const auto& c : ceilings)
    if (c.kind == kind && c.variant == variant && c.measured()) return &c;
  return nullptr;
}

std::string format_ceiling_value(CeilingKind kind, double value) {
  if (!std::isfinite(value)) return "-";
  if (ceiling_unit(kind) == "s") {
    if (value >= 1e-3) return fmt::format("{:.3f} ms", value * 1e3);
    return fmt::format("{:.2f} us", value * 1e6);
  }
  return with_prefix(value) + std::string(ceiling_unit(kind));
}

nlohmann::json to_json(const DeviceCeilings& c) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& x : c.ceilings) {
    nlohmann::json j{{"kind", ceiling_kind_name(x.kind)}, {"variant", x.variant}, {"unit", ceiling_unit(x.kind)},
                     {"size", x.size},  {"samples", x.samples}};
    if (x.measured()) {
      j["median"] = x.median;
      j["ci_low"] = x.ci_low;
      j["ci_high"] = x.ci_high;
      if (x.best > 0) j["best"] = x.best;
      if (!x.values.empty()) j["values"] = x.values;
      if (x.sustained) {
        j["sustained"] = *x.sustained;
        j["sustained_s"] = x.sustained_s;
      }
    } else {
      j["unavailable"] = x.unavailable;
    }
    list.push_back(std::move(j));
  }
  return {{"schema", "accelbench.peak/1"}, {"device", c.device},           {"device_name", c.device_name},
          {"torch_version", c.torch_version}, {"host", c.host},        {"measured_utc", c.measured_utc},
          {"wall_s", c.wall_s},               {"ceilings", std::move(list)}};
}

DeviceCeilings ceilings_from_json(const nlohmann::json& j, const std::string& origin) {
  try {
    if (!j.is_object()) throw std::runtime_error("an object was expected");
    if (j.value("schema", std::string()) != "accelbench.peak/1")
      throw std::runtime_error("field 'schema': accelbench.peak/1 was expected");
    DeviceCeilings c;
    using json_util::get_if;
    get_if(j, "device", c.device);
    get_if(j, "device_name", c.device_name);
    get_if(j, "torch_version", c.torch_version);
    get_if(j, "host", c.host);
    get_if(j, "measured_utc", c.measured_utc);
    get_if(j, "wall_s", c.wall_s);
    const auto it = j.find("ceilings");
    if (it == j.end() || !it->is_array()) throw std::runtime_error("field 'ceilings': an array was expected");
    for (const auto& e : *it) {
      if (!e.is_object()) throw std::runtime_error("field 'ceilings': objects were expected");
      Ceiling x;
      std::string kind;
      get_if(e, "kind", kind);
      const auto k = ceiling_kind_from_name(kind);
      if (!k) throw std::runtime_error(fmt::format("field 'kind': unknown ceiling {}", printable(kind)));
      x.kind = *k;
      get_if(e, "variant", x.variant);
      get_if(e, "size", x.size);
      get_if(e, "samples", x.samples);
      get_if(e, "median", x.median);
      get_if(e, "ci_low", x.ci_low);
      get_if(e, "ci_high", x.ci_high);
      get_if(e, "unavailable", x.unavailable);
      get_if(e, "best", x.best);
      get_if(e, "values", x.values);
      if (const auto s = e.find("sustained"); s != e.end() && s->is_number()) {
        x.sustained = s->get<double>();
        get_if(e, "sustained_s", x.sustained_s);
      }
      c.ceilings.push_back(std::move(x));
    }
    return c;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not a device-ceilings record ({})", origin, e.what()));
  }
}

std::optional<double> utc_seconds_between(const std::string& a, const std::string& b) {
  const auto parse = [](const std::string& s) -> std::optional<std::time_t> {
    std::tm tm{};
    const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || !(std::string_view(end) == "Z" || *end == '\0')) return std::nullopt;
    return timegm(&tm);
  };
  const auto ta = parse(a), tb = parse(b);
  if (!ta || !tb) return std::nullopt;
  return std::difftime(*tb, *ta);
}

}  // namespace accelbench
