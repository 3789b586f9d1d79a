#include "common/csv.h"

#include <algorithm>

namespace ktune {

std::string CsvField(std::string_view field) {
  // A line break would end the row: it is written as a space, and the quoting is decided on
  // what is written, so a row read back writes the same text again.
  std::string text(field);
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  const bool quote = !text.empty() && (text.front() == ' ' || text.back() == ' ' ||
                                       text.find_first_of(",\"") != std::string::npos);
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string CsvJoin(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += CsvField(fields[i]);
  }
  return out;
}

Result<std::vector<std::string>> CsvSplit(std::string_view line) {
  std::vector<std::string> fields;
  std::string cur;
  size_t i = 0;
  for (;;) {
    cur.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) return InvalidArgument("unterminated quoted CSV field");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        cur += line[i++];
      }
      if (i < line.size() && line[i] != ',') {
        return InvalidArgument("text after a closing quote in a CSV field");
      }
    } else {
      while (i < line.size() && line[i] != ',') cur += line[i++];
    }
    fields.push_back(cur);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

}  // namespace ktune
