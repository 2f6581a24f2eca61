#pragma once
// Small helpers for the JSON of the typed records: optional fields are written as null and read
// back as empty; a missing or null key leaves the field as it is.
//
// Reading is checked: a field of the wrong type, or a number that does not fit the field (a
// negative count, 1e300 for an integer, 2.5 for a count) throws std::runtime_error with one line
// naming the field ("field 'batch_size': 1e+300 does not fit a 64-bit integer"), never converts
// with undefined behaviour.
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace accelbench::json_util {

namespace detail {
// nlohmann's messages start with "[json.exception.type_error.302] ": keep what follows.
inline std::string short_message(const char* what) {
  std::string m = what;
  if (m.rfind("[json.exception.", 0) == 0)
    if (const auto end = m.find("] "); end != std::string::npos) m.erase(0, end + 2);
  return m;
}

template <class T>
T checked_integer(const nlohmann::json& v, const char* key) {
  using L = std::numeric_limits<T>;
  const auto fail = [&](const std::string& what) {
    return std::runtime_error(std::string("field '") + key + "': " + what + " does not fit " +
                              (std::is_signed_v<T> ? "a signed " : "an unsigned ") + std::to_string(sizeof(T) * 8) +
                              "-bit integer");
  };
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(L::max())) throw fail(std::to_string(u));
    return static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (i < static_cast<std::int64_t>(L::min()) || i > static_cast<std::int64_t>(L::max())) throw fail(std::to_string(i));
    } else {
      if (i < 0 || static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(L::max())) throw fail(std::to_string(i));
    }
    return static_cast<T>(i);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // Exact bounds as doubles: [min, max + 1) holds every double that converts without overflow.
    const double lo = static_cast<double>(L::min()), hi = std::ldexp(1.0, L::digits);
    if (!std::isfinite(d) || d != std::floor(d) || d < lo || d >= hi) throw fail(v.dump());
    return static_cast<T>(d);
  }
  throw std::runtime_error(std::string("field '") + key + "': a number was expected, found " + v.type_name());
}

template <class T>
T checked_get(const nlohmann::json& v, const char* key) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return checked_integer<T>(v, key);
  } else {
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(std::string("field '") + key + "': " + short_message(e.what()));
    }
  }
}
}  // namespace detail

template <class T>
void put_optional(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
void get_optional(const nlohmann::json& j, const char* key, std::optional<T>& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = detail::checked_get<T>(*it, key);
  else v.reset();
}

template <class T>
void get_if(const nlohmann::json& j, const char* key, T& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = detail::checked_get<T>(*it, key);
}

}  // namespace accelbench::json_util
