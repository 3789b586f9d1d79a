#include "common/csv.h"

namespace ktune {

std::string CsvField(std::string_view field) {
  bool quote = !field.empty() && (field.front() == ' ' || field.back() == ' ');
  for (char c : field) {
    if (c == ',' || c == '"' || c == '\n' || c == '\r') quote = true;
  }
  std::string out;
  out.reserve(field.size() + 2);
  if (quote) out += '"';
  for (char c : field) {
    if (c == '"') {
      out += "\"\"";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  if (quote) out += '"';
  return out;
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
