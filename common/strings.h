// Small string helpers: strict number parsing (the whole text must be the number), shortest
// round-trip formatting of doubles, splitting and trimming.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

Result<int> ParseInt(std::string_view s);
Result<int64_t> ParseInt64(std::string_view s);
Result<uint64_t> ParseUint64(std::string_view s);
// "a, b, c" from {"a", "b", "c"} and ", ".
std::string Join(const std::vector<std::string>& items, std::string_view separator);
// A decimal number as std::from_chars reads one (an optional '-', digits with an optional point
// and exponent, or inf/nan; no leading space, '+' or hexadecimal), through strtod (glibc's,
// already in every binary; from_chars' tables cost a static agentd 22 KB). Out of double's
// range is no number. ParseDoublePrefix reads a prefix and says how many characters it took.
Result<double> ParseDouble(std::string_view s);
std::optional<double> ParseDoublePrefix(std::string_view s, size_t* consumed);

// The shortest text that reads back as exactly `v` ("0.012", "5e-05", "123").
std::string FormatDouble(double v);
// A time in UTC to the millisecond, ISO 8601: `unix_ms` (milliseconds since 1970-01-01T00:00:00Z,
// negative before it) is "2026-11-25T07:15:02.123Z", or in the basic format without separators
// "20261125T071502.123Z" (`compact`). Pure: the proleptic Gregorian calendar in arithmetic,
// no time zone database (glibc's gmtime costs a static agentd its TZ reader and sscanf).
std::string UtcText(int64_t unix_ms, bool compact);
// The system's clock now, in ns since the Unix epoch, and UtcText of it.
int64_t UnixNowNs();
std::string UtcNowText(bool compact);
// A size in MiB for people, to two decimals ("1.50 MiB").
std::string FormatMiB(uint64_t bytes);

std::vector<std::string_view> Split(std::string_view s, char sep);
std::string_view Trim(std::string_view s);
// `s` with its ASCII letters in upper case ("khost-run" -> "KHOST-RUN"); other bytes stay.
std::string AsciiUpper(std::string s);
// The words of `s`, separated by runs of blanks (space, tab, CR, LF, VT, FF); none for blank text.
std::vector<std::string> SplitWords(std::string_view s);
// `s` safe to print on a terminal: control bytes (below 0x20, and 0x7f) and a backslash become C
// escapes ("\n", "\t", "\\", "\x1b"), so that text quoted from a file or an argument can neither
// move the cursor nor run a terminal's escape sequence. Other bytes (UTF-8 text) stay.
std::string EscapedText(std::string_view s);

}  // namespace ktune
