// Minimal RFC 4180 CSV: quoting of one field and splitting of one line. ktune's CSV files never
// hold a newline inside a field (writers replace it), so every record is exactly one line; a
// torn last line of a journal is therefore always detectable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

// Quotes `field` when it holds a comma, quote or leading/trailing space; newlines become spaces.
std::string CsvField(std::string_view field);

// Joins fields with commas (each through CsvField), without a line terminator.
std::string CsvJoin(const std::vector<std::string>& fields);

// Splits one line (without its terminator) into fields. Fails on an unterminated quote or on
// text after a closing quote. With `starts`, also where each field begins in `line` (the offset
// of its first byte, its opening quote when quoted): a reader that sees the same bytes before a
// field on the next line knows those fields are the same without splitting them again.
Result<std::vector<std::string>> CsvSplit(std::string_view line,
                                          std::vector<size_t>* starts = nullptr);

}  // namespace ktune
