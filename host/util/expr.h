// Expressions over named numbers: the metric formulas of event groups (event values and times)
// and the constraints of kernel specs (tunable parameters and constants).
//
//   expr    := or
//   or      := and ('||' and)*
//   and     := not ('&&' not)*
//   not     := '!' not | compare
//   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | atom
//   atom    := NUMBER | NAME | '{' TEXT '}' | '(' expr ')'
//
// NAME is [A-Za-z_][A-Za-z0-9_.:]* (an event as written, modifiers included: l2_miss:u); an
// event whose name holds other characters is written in braces: {L1-dcache-load-misses}.
// Comparisons and logic give 1 or 0; any non-zero value is true; && and || stop at the first
// operand that decides them. '%' is the remainder of truncated division (fmod).
// Evaluation is pure: a name with no value is reported as a missing input, a division or
// remainder by zero as such; neither is ever turned into a number.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

// Bounds on a formula, so that parsing and evaluating (both recursive) cannot exhaust the stack.
inline constexpr size_t kMaxExprChars = 4096;
inline constexpr int kMaxExprDepth = 100;  // nested '(', '!' and unary '-'

class Expr {
 public:
  // Parses `text`; errors say what was expected at which column.
  static Result<Expr> Parse(std::string_view text);

  // Every name the formula reads, in first-use order, each once.
  const std::vector<std::string>& names() const { return names_; }

  using Lookup = std::function<std::optional<double>(const std::string& name)>;
  // The formula's value; "missing input NAME" or "division by zero" otherwise.
  Result<double> Evaluate(const Lookup& lookup) const;

 private:
  struct Node {
    // '+', '-', '*', '/', '%', 'n' (negate), '#' (number), '$' (name), '!' (not), '&', '|',
    // and comparisons '<', 'l' (<=), '>', 'g' (>=), '=' (==), 'x' (!=)
    char op;
    double number = 0;
    std::string name;
    int left = -1, right = -1;
  };
  friend class ExprParser;
  Result<double> Eval(int node, const Lookup& lookup) const;

  std::vector<Node> nodes_;
  int root_ = -1;
  std::vector<std::string> names_;
};

}  // namespace ktune::host
