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

Result<std::vector<std::string>> CsvSplit(std::string_view line, std::vector<size_t>* starts) {
  std::vector<std::string> fields;
  // At most a field per comma and one more (fewer when commas are quoted): a results file's
  // lines have dozens, which would otherwise grow the vector several times per line.
  const size_t most = static_cast<size_t>(std::count(line.begin(), line.end(), ',')) + 1;
  fields.reserve(most);
  if (starts) {
    starts->clear();
    starts->reserve(most);
  }
  size_t i = 0;
  for (;;) {
    if (starts) starts->push_back(i);
    if (i < line.size() && line[i] == '"') {
      std::string& cur = fields.emplace_back();
      ++i;
      for (;;) {
        const size_t quote = line.find('"', i);
        if (quote == std::string_view::npos) {
          return InvalidArgument("unterminated quoted CSV field");
        }
        cur.append(line.substr(i, quote - i));
        i = quote + 1;
        if (i < line.size() && line[i] == '"') {  // a doubled quote is one quote
          cur += '"';
          ++i;
          continue;
        }
        break;
      }
      if (i < line.size() && line[i] != ',') {
        return InvalidArgument("text after a closing quote in a CSV field");
      }
    } else {
      const size_t end = std::min(line.find(',', i), line.size());
      fields.emplace_back(line.substr(i, end - i));
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

}  // namespace ktune
