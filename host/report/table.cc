#include "host/report/table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <utility>

#include "common/csv.h"
#include "common/strings.h"

namespace ktune::host {
namespace {

const char* ColourOf(RowStyle style) {
  switch (style) {
    case RowStyle::kGood:
      return "\x1b[32m";  // green
    case RowStyle::kBad:
      return "\x1b[31m";  // red
    case RowStyle::kDim:
      return "\x1b[2m";
    case RowStyle::kPlain:
      break;
  }
  return "";
}

RowStyle StyleOf(const Table& t, size_t row) {
  return row < t.styles.size() ? t.styles[row] : RowStyle::kPlain;
}

std::string MarkdownCell(const std::string& cell) {
  std::string out;
  for (char c : cell) {
    if (c == '|' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// The columns as JSON keys, each unique: a repeated header gets " (2)", " (3)", ...
std::vector<std::string> UniqueKeys(const std::vector<std::string>& columns) {
  std::vector<std::string> keys;
  for (const std::string& c : columns) {
    std::string key = c;
    for (int n = 2; std::find(keys.begin(), keys.end(), key) != keys.end(); ++n) {
      key = c + " (" + std::to_string(n) + ")";
    }
    keys.push_back(key);
  }
  return keys;
}

// How many bytes at the start and at the end all of `names` share, cut back so that the start
// ends just after one of `separators` and the end begins with one, each name keeping at least
// one byte between them. {0, 0} for fewer than two names.
std::pair<size_t, size_t> SharedEnds(const std::vector<std::string>& names,
                                     std::string_view separators) {
  if (names.size() < 2) return {0, 0};
  const std::string& first = names[0];
  size_t prefix = first.size(), suffix = first.size();
  for (const std::string& n : names) {
    size_t p = 0;
    while (p < prefix && p < n.size() && n[p] == first[p]) ++p;
    prefix = p;
    size_t q = 0;
    while (q < suffix && q < n.size() && n[n.size() - 1 - q] == first[first.size() - 1 - q]) ++q;
    suffix = q;
  }
  while (prefix > 0 && separators.find(first[prefix - 1]) == std::string_view::npos) --prefix;
  while (suffix > 0 && separators.find(first[first.size() - suffix]) == std::string_view::npos) {
    --suffix;
  }
  for (const std::string& n : names) {
    if (prefix + suffix >= n.size()) suffix = 0;
    if (prefix >= n.size()) prefix = 0;
  }
  return {prefix, suffix};
}

// Each column's console width: its widest cell, header included.
std::vector<size_t> ColumnWidths(const Table& t) {
  std::vector<size_t> width(t.columns.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], cells[i].size());
    }
  };
  widen(t.columns);
  for (const auto& r : t.rows) widen(r);
  return width;
}

// The console line's width: the columns and the two spaces between them.
size_t RenderedWidth(const Table& t) {
  const std::vector<size_t> widths = ColumnWidths(t);
  size_t total = widths.empty() ? 0 : 2 * (widths.size() - 1);
  for (size_t w : widths) total += w;
  return total;
}

// The "<...>" text every row holds in number column `c`, without its brackets.
std::optional<std::string> SamePlaceholder(const Table& t, size_t c) {
  if (t.rows.empty() || t.IsText(c)) return std::nullopt;
  const std::string& first = t.rows[0][c];
  if (first.size() < 3 || first.front() != '<' || first.back() != '>') return std::nullopt;
  for (const auto& r : t.rows) {
    if (r[c] != first) return std::nullopt;
  }
  return first.substr(1, first.size() - 2);
}

// Drops the columns holding one placeholder everywhere, saying which under the table: "not
// supported: cycles, instructions".
void CollapsePlaceholders(Table* t) {
  std::vector<std::pair<std::string, std::vector<std::string>>> said;
  std::vector<bool> keep(t->columns.size(), true);
  for (size_t c = 0; c < t->columns.size(); ++c) {
    const std::optional<std::string> text = SamePlaceholder(*t, c);
    if (!text) continue;
    keep[c] = false;
    auto it =
        std::find_if(said.begin(), said.end(), [&](const auto& s) { return s.first == *text; });
    if (it == said.end()) it = said.insert(said.end(), {*text, {}});
    it->second.push_back(t->columns[c]);
  }
  if (said.empty()) return;
  auto kept = [&](const std::vector<std::string>& cells) {
    std::vector<std::string> out;
    for (size_t c = 0; c < cells.size() && c < keep.size(); ++c) {
      if (keep[c]) out.push_back(cells[c]);
    }
    return out;
  };
  t->columns = kept(t->columns);
  std::vector<std::string> short_columns = t->short_columns;
  short_columns.resize(keep.size());
  t->short_columns = kept(short_columns);
  for (auto& r : t->rows) r = kept(r);
  std::vector<std::string> notes;
  for (const auto& [text, columns] : said) notes.push_back(text + ": " + Join(columns, ", "));
  t->notes.insert(t->notes.begin(), notes.begin(), notes.end());
}

// The short headers, and a note of what they stand for.
void ShortenHeaders(Table* t) {
  std::vector<std::string> legend;
  for (size_t c = 0; c < t->columns.size() && c < t->short_columns.size(); ++c) {
    const std::string& s = t->short_columns[c];
    if (s.empty() || s == t->columns[c]) continue;
    legend.push_back(s + " = " + t->columns[c]);
    t->columns[c] = s;
  }
  if (!legend.empty()) t->notes.push_back("columns: " + Join(legend, ", "));
}

// The text columns without what all their cells share ("matmul_" and "_g_static_O2.elf").
void ShortenTextCells(Table* t) {
  for (size_t c = 0; c < t->columns.size(); ++c) {
    if (!t->IsText(c) || t->columns[c].empty()) continue;
    std::vector<std::string> cells;
    for (const auto& r : t->rows) cells.push_back(r[c]);
    const auto [prefix, suffix] = SharedEnds(cells, "_-./");
    if (prefix + suffix == 0) continue;
    for (auto& r : t->rows) r[c] = r[c].substr(prefix, r[c].size() - prefix - suffix);
    t->notes.push_back(t->columns[c] + ": " + cells[0].substr(0, prefix) + "..." +
                       cells[0].substr(cells[0].size() - suffix));
  }
}

}  // namespace

bool ParseTableFormat(const std::string& name, TableFormat* format) {
  if (name == "table" || name == "console") {
    *format = TableFormat::kConsole;
  } else if (name == "csv") {
    *format = TableFormat::kCsv;
  } else if (name == "json") {
    *format = TableFormat::kJson;
  } else if (name == "markdown" || name == "md") {
    *format = TableFormat::kMarkdown;
  } else {
    return false;
  }
  return true;
}

void Table::AddRow(std::vector<std::string> cells, RowStyle style) {
  cells.resize(columns.size());
  rows.push_back(std::move(cells));
  styles.resize(rows.size() - 1, RowStyle::kPlain);
  styles.push_back(style);
}

bool StdoutWantsColour() {
  const char* no_colour = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(1) && !(no_colour && *no_colour) && !(term && std::string(term) == "dumb");
}

size_t ConsoleWidth(bool wide) {
  if (wide) return 0;
  winsize ws{};
  if (::isatty(1) && ::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) return n;
  }
  return 120;
}

std::vector<std::string> ShortenedNames(const std::vector<std::string>& names) {
  const size_t prefix = SharedEnds(names, "_").first;
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back(n.substr(prefix));
  return out;
}

Table FitTable(const Table& table, size_t width) {
  Table t = table;
  if (width == 0) return t;
  for (auto& r : t.rows) r.resize(t.columns.size());
  CollapsePlaceholders(&t);
  if (RenderedWidth(t) > width) ShortenHeaders(&t);
  if (RenderedWidth(t) > width) ShortenTextCells(&t);
  return t;
}

std::string RenderConsole(const Table& given, bool colour, size_t max_width) {
  const Table table = FitTable(given, max_width);
  const std::vector<size_t> width = ColumnWidths(table);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      if (i) out += "  ";
      const std::string pad(width[i] - cells[i].size(), ' ');
      out += table.IsText(i) ? cells[i] + pad : pad + cells[i];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  std::string out;
  if (!table.title.empty()) out += table.title + "\n";
  out += line(table.columns) + "\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const char* c = colour ? ColourOf(StyleOf(table, r)) : "";
    out += *c ? std::string(c) + line(table.rows[r]) + "\x1b[0m\n" : line(table.rows[r]) + "\n";
  }
  for (const std::string& n : table.notes) out += n + "\n";
  return out;
}

std::string RenderCsv(const Table& table) {
  std::string out = CsvJoin(table.columns) + "\n";
  for (const auto& r : table.rows) out += CsvJoin(r) + "\n";
  return out;
}

std::string RenderJson(const Table& table) {
  nlohmann::ordered_json doc;
  doc["title"] = table.title;
  doc["rows"] = nlohmann::ordered_json::array();
  const std::vector<std::string> keys = UniqueKeys(table.columns);
  for (const auto& r : table.rows) {
    nlohmann::ordered_json row;
    for (size_t i = 0; i < keys.size(); ++i) row[keys[i]] = r[i];
    doc["rows"].push_back(row);
  }
  doc["notes"] = table.notes;
  return doc.dump(2) + "\n";
}

std::string RenderMarkdown(const Table& table) {
  std::string out;
  if (!table.title.empty()) out += "**" + MarkdownCell(table.title) + "**\n\n";
  auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const std::string& c : cells) s += " " + MarkdownCell(c) + " |";
    return s + "\n";
  };
  out += line(table.columns);
  std::string rule = "|";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    rule += table.IsText(i) ? " --- |" : " ---: |";
  }
  out += rule + "\n";
  for (const auto& r : table.rows) out += line(r);
  if (!table.notes.empty()) out += "\n";
  for (const std::string& n : table.notes) out += "- " + MarkdownCell(n) + "\n";
  return out;
}

std::string Render(const Table& table, TableFormat format, bool colour, size_t width) {
  switch (format) {
    case TableFormat::kConsole:
      return RenderConsole(table, colour, width);
    case TableFormat::kCsv:
      return RenderCsv(table);
    case TableFormat::kJson:
      return RenderJson(table);
    case TableFormat::kMarkdown:
      return RenderMarkdown(table);
  }
  return "";
}

std::string RenderAll(const std::vector<Table>& tables, TableFormat format, bool colour,
                      size_t width) {
  if (format == TableFormat::kJson) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const Table& t : tables) all.push_back(nlohmann::ordered_json::parse(RenderJson(t)));
    return all.dump(2) + "\n";
  }
  std::string out;
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    if (format == TableFormat::kCsv && !tables[i].title.empty()) {
      out += "# " + tables[i].title + "\n";
    }
    out += Render(tables[i], format, colour, width);
  }
  return out;
}

}  // namespace ktune::host
