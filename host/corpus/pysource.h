// Enough of Python's lexical structure to find functions in generated code (Inductor's
// output_code.py) without running Python: logical lines (brackets and backslashes join
// physical lines), their indentation, and their tokens, with strings and comments kept whole so
// that a `def` inside a string is never taken for one. No grammar beyond that.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct PyToken {
  enum Kind { kName, kString, kNumber, kOp };
  Kind kind;
  std::string text;      // as written; for a string, its prefix and quotes included
  std::string contents;  // a string's characters between its quotes (escapes left as written)
  int line = 0;          // 1-based, where the token starts (a string's contents too)
};

struct PyLogicalLine {
  int first_line = 0, last_line = 0;  // 1-based, inclusive
  size_t indent = 0;                  // columns of the first physical line's leading blanks
  std::vector<PyToken> tokens;
};

// The logical lines of `source` (blank and comment-only lines give none; a UTF-8 byte-order
// mark at the start is skipped, as Python skips it), numbered from `first_line` (code within a
// string of a file counts in the file's lines). An unterminated string, an unbalanced bracket
// or a NUL byte is an InvalidArgument "line N: ..." naming the line where the construct began.
Result<std::vector<PyLogicalLine>> PyLogicalLines(std::string_view source, int first_line = 1);

}  // namespace ktune::host
