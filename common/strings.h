// Small string helpers: strict number parsing (the whole text must be the number), shortest
// round-trip formatting of doubles, splitting and trimming.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

Result<int> ParseInt(std::string_view s);
Result<int64_t> ParseInt64(std::string_view s);
Result<uint64_t> ParseUint64(std::string_view s);
Result<double> ParseDouble(std::string_view s);

// The shortest text that reads back as exactly `v` ("0.012", "5e-05", "123").
std::string FormatDouble(double v);

std::vector<std::string_view> Split(std::string_view s, char sep);
std::string_view Trim(std::string_view s);

}  // namespace ktune
