#pragma once
// Small helpers for the JSON of the typed records: optional fields are written as null and read
// back as empty; a missing or null key leaves the field as it is.
#include <nlohmann/json.hpp>

#include <optional>

namespace accelbench::json_util {

template <class T>
void put_optional(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
void get_optional(const nlohmann::json& j, const char* key, std::optional<T>& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
  else v.reset();
}

template <class T>
void get_if(const nlohmann::json& j, const char* key, T& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
}

}  // namespace accelbench::json_util
