// One table model for everything khost prints as a table, and its four renderings: aligned
// console text (colour on a terminal), CSV, JSON (an array of objects keyed by column) and
// Markdown. Reports build a Table from their model; they never format rows themselves.
//
// A console table is fitted to a width (FitTable) unless asked for in full (--wide): a number
// column holding the same "<...>" in every row (<not supported>, <missing input ...>) becomes a
// line under the table; then, while the table is wider than the width, the headers take their
// short forms, and the text columns lose what all their cells share, each said in a note.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ktune::host {

enum class TableFormat { kConsole, kCsv, kJson, kMarkdown };

// "table" (or "console"), "csv", "json", "markdown" (or "md").
bool ParseTableFormat(const std::string& name, TableFormat* format);

// How a row stands out on a colour terminal: the winner, a failure, or a row that matters less.
enum class RowStyle { kPlain, kGood, kBad, kDim };

struct Table {
  std::string title;                 // a line above the table ("" for none)
  std::vector<std::string> columns;  // headers
  // A shorter header per column, used when the table is too wide ("" or missing: none), e.g.
  // ShortenedNames of the parameters, perf's short event names (common/events.h).
  std::vector<std::string> short_columns;
  // The first `text_columns` and the last `trailing_text_columns` columns are text,
  // left-aligned; the others are numbers, right-aligned.
  size_t text_columns = 1;
  size_t trailing_text_columns = 0;
  bool IsText(size_t column) const {
    return column < text_columns || column + trailing_text_columns >= columns.size();
  }
  std::vector<std::vector<std::string>> rows;  // each as wide as `columns`
  std::vector<RowStyle> styles;                // per row (missing entries are kPlain)
  std::vector<std::string> notes;              // lines below the table

  void AddRow(std::vector<std::string> cells, RowStyle style = RowStyle::kPlain);
};

// Whether standard output is a terminal that takes colour (not when NO_COLOR is set).
bool StdoutWantsColour();

// The width a console table is fitted to: 0 (no fitting) for --wide; else the terminal's on a
// terminal, else $COLUMNS when set, else 120.
size_t ConsoleWidth(bool wide);

// Names without the prefix they all share up to and including a '_' ("BLOCK_SIZE_M",
// "BLOCK_SIZE_N" -> "M", "N"); unchanged when there are fewer than two or none is shared.
std::vector<std::string> ShortenedNames(const std::vector<std::string>& names);

// `table` as the console shows it within `width` columns (see the top; 0: unchanged). Pure.
Table FitTable(const Table& table, size_t width);

// Rendered after FitTable(table, width).
std::string RenderConsole(const Table& table, bool colour = false, size_t width = 0);
std::string RenderCsv(const Table& table);   // header line, then rows; no title or notes
std::string RenderJson(const Table& table);  // {"title", "rows": [{column: cell}], "notes"}
std::string RenderMarkdown(const Table& table);
std::string Render(const Table& table, TableFormat format, bool colour = false, size_t width = 0);

// Several tables in one format: console and Markdown one after another; CSV each after a
// "# title" line, separated by a blank line; JSON one array.
std::string RenderAll(const std::vector<Table>& tables, TableFormat format, bool colour = false,
                      size_t width = 0);

}  // namespace ktune::host
