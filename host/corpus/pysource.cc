#include "host/corpus/pysource.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ktune::host {

namespace {

bool NameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;  // a non-ASCII identifier's UTF-8 bytes
}
bool NameChar(char c) {
  return NameStart(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool StringPrefix(std::string_view word) {
  if (word.size() > 2) return false;
  for (char c : word) {
    if (!std::strchr("rRbBuUfF", c)) return false;
  }
  return true;
}

class Lexer {
 public:
  Lexer(std::string_view s, int first_line) : s_(s), line_(first_line) {
    if (s_.starts_with("\xEF\xBB\xBF")) i_ = 3;
  }

  Result<std::vector<PyLogicalLine>> Run() {
    while (i_ < s_.size()) {
      if (at_line_start_) {
        StartLine();
        continue;
      }
      const char c = s_[i_];
      if (c == '\0') return Error(line_, "a NUL byte (not Python source)");
      if (c == '\n') {
        NewLine();
      } else if (c == '\\' && Peek(1) == '\n') {
        i_ += 2;
        ++line_;
      } else if (c == '\\' && Peek(1) == '\r' && Peek(2) == '\n') {
        i_ += 3;
        ++line_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '"' || c == '\'') {
        KT_RETURN_IF_ERROR(String(i_));
      } else if (NameStart(c)) {
        size_t j = i_;
        while (j < s_.size() && NameChar(s_[j])) ++j;
        if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'') &&
            StringPrefix(s_.substr(i_, j - i_))) {
          KT_RETURN_IF_ERROR(String(j));
        } else {
          Add(PyToken::kName, i_, j);
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(Peek(1))))) {
        size_t j = i_ + 1;
        while (j < s_.size() &&
               (NameChar(s_[j]) || s_[j] == '.' ||
                ((s_[j] == '+' || s_[j] == '-') && (s_[j - 1] == 'e' || s_[j - 1] == 'E')))) {
          ++j;
        }
        Add(PyToken::kNumber, i_, j);
      } else {
        if (c == '(' || c == '[' || c == '{') {
          open_.push_back({c, line_});
        } else if (c == ')' || c == ']' || c == '}') {
          if (open_.empty()) return Error(line_, std::string("'") + c + "' closes nothing");
          open_.pop_back();
        }
        Add(PyToken::kOp, i_, i_ + 1);
      }
    }
    if (!open_.empty()) {
      return Error(open_.back().second,
                   std::string("'") + open_.back().first + "' is never closed");
    }
    EndLine(s_.empty() || s_.back() == '\n' ? line_ - 1 : line_);
    return std::move(lines_);
  }

 private:
  char Peek(size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  static Status Error(int line, const std::string& what) {
    return InvalidArgument("line " + std::to_string(line) + ": " + what);
  }

  // At the start of a physical line outside brackets: its indentation, or nothing for a blank
  // or comment-only line.
  void StartLine() {
    size_t col = 0, j = i_;
    while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\f')) {
      col = s_[j] == '\t' ? col + 8 - col % 8 : col + 1;
      ++j;
    }
    if (j == s_.size() || s_[j] == '\n' || s_[j] == '\r' || s_[j] == '#') {
      while (j < s_.size() && s_[j] != '\n') ++j;
      if (j < s_.size()) ++j, ++line_;
      i_ = j;
      return;
    }
    current_ = PyLogicalLine{};
    // Room for the tokens of the physical line, at most one per two characters: most lines of
    // code would otherwise grow the vector three or four times.
    const size_t end = std::min(s_.find('\n', j), s_.size());
    current_.tokens.reserve(std::min<size_t>((end - j) / 2 + 1, 32));
    current_.first_line = line_;
    current_.indent = col;
    in_line_ = true;
    at_line_start_ = false;
    i_ = j;
  }

  void NewLine() {
    ++i_;
    ++line_;
    if (!open_.empty()) return;  // brackets join physical lines
    EndLine(line_ - 1);
    at_line_start_ = true;
  }

  void EndLine(int last_line) {
    if (!in_line_) return;
    in_line_ = false;
    if (current_.tokens.empty()) return;  // a lone line continuation
    current_.last_line = last_line;
    lines_.push_back(std::move(current_));
  }

  void Add(PyToken::Kind kind, size_t from, size_t to) {
    PyToken t;
    t.kind = kind;
    t.text = std::string(s_.substr(from, to - from));
    t.line = line_;
    current_.tokens.push_back(std::move(t));
    i_ = to;
  }

  // A string literal whose prefix starts at i_ and whose quote is at `quote`.
  Status String(size_t quote) {
    const int start_line = line_;
    const char q = s_[quote];
    const bool triple = s_.substr(quote, 3) == std::string(3, q);
    const size_t open = quote + (triple ? 3 : 1);
    size_t j = open;
    for (;;) {
      if (j >= s_.size()) return Error(start_line, "a string that never ends");
      const char c = s_[j];
      if (c == '\0') return Error(line_, "a NUL byte (not Python source)");
      if (c == '\\' && j + 1 < s_.size()) {
        const bool crlf = s_[j + 1] == '\r' && j + 2 < s_.size() && s_[j + 2] == '\n';
        if (s_[j + 1] == '\n' || crlf) ++line_;
        j += crlf ? 3 : 2;
        continue;
      }
      if (c == '\n') {
        if (!triple) return Error(start_line, "a string that never ends");
        ++line_;
      }
      if (c == q && (!triple || s_.substr(j, 3) == std::string(3, q))) break;
      ++j;
    }
    PyToken t;
    t.kind = PyToken::kString;
    t.text = std::string(s_.substr(i_, j + (triple ? 3 : 1) - i_));
    t.contents = std::string(s_.substr(open, j - open));
    t.line = start_line;
    current_.tokens.push_back(std::move(t));
    i_ = j + (triple ? 3 : 1);
    return Status::Ok();
  }

  std::string_view s_;
  size_t i_ = 0;
  int line_;
  bool at_line_start_ = true, in_line_ = false;
  std::vector<std::pair<char, int>> open_;  // open brackets and their lines
  PyLogicalLine current_;
  std::vector<PyLogicalLine> lines_;
};

}  // namespace

Result<std::vector<PyLogicalLine>> PyLogicalLines(std::string_view source, int first_line) {
  return Lexer(source, first_line).Run();
}

}  // namespace ktune::host
