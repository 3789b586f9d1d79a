// Integers read from JSON that someone else may have written or cut (run metadata, samples,
// search files, a lab's answers). nlohmann's get<T>() converts a JSON float to an integer type
// with a cast, undefined beyond the type's range ("1e300", "-5.5e19"), and wraps or cuts an
// integer that does not fit ("-1" as a count, "4294967296" as a uint32_t). These take only a
// JSON integer within T's range and otherwise throw nlohmann's type_error (302), which the
// parsers catch with the rest of a file's errors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace ktune::host {

template <typename T>
T JsonInteger(const nlohmann::json& j) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<T>::max());
  constexpr auto kMin = static_cast<int64_t>(std::numeric_limits<T>::min());
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() <= kMax) return static_cast<T>(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    const int64_t v = j.get<int64_t>();
    if (v >= kMin && (v < 0 || static_cast<uint64_t>(v) <= kMax)) return static_cast<T>(v);
  }
  throw nlohmann::json::type_error::create(
      302, "expected an integer from " + std::to_string(kMin) + " to " + std::to_string(kMax), &j);
}

// `object[key]` as JsonInteger, or `absent` when the object has no such key.
template <typename T>
T JsonInteger(const nlohmann::json& object, const char* key, T absent) {
  return object.contains(key) ? JsonInteger<T>(object.at(key)) : absent;
}

// A list of integers, each as JsonInteger.
template <typename T>
std::vector<T> JsonIntegers(const nlohmann::json& j) {
  if (!j.is_array())
    throw nlohmann::json::type_error::create(302, "expected a list of integers", &j);
  std::vector<T> out;
  out.reserve(j.size());
  for (const nlohmann::json& v : j) out.push_back(JsonInteger<T>(v));
  return out;
}

}  // namespace ktune::host
