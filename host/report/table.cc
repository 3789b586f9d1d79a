#include "host/report/table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/csv.h"

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

std::string RenderConsole(const Table& table, bool colour) {
  std::vector<size_t> width(table.columns.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], cells[i].size());
    }
  };
  widen(table.columns);
  for (const auto& r : table.rows) widen(r);
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

std::string Render(const Table& table, TableFormat format, bool colour) {
  switch (format) {
    case TableFormat::kConsole:
      return RenderConsole(table, colour);
    case TableFormat::kCsv:
      return RenderCsv(table);
    case TableFormat::kJson:
      return RenderJson(table);
    case TableFormat::kMarkdown:
      return RenderMarkdown(table);
  }
  return "";
}

std::string RenderAll(const std::vector<Table>& tables, TableFormat format, bool colour) {
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
    out += Render(tables[i], format, colour);
  }
  return out;
}

}  // namespace ktune::host
