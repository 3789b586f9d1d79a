// Metric formulas of event groups: arithmetic over event values and times.
//
//   formula := sum
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := '-' unary | atom
//   atom    := NUMBER | NAME | '{' TEXT '}' | '(' sum ')'
//
// NAME is [A-Za-z_][A-Za-z0-9_.:]* (an event as written, modifiers included: l2_miss:u); an
// event whose name holds other characters is written in braces: {L1-dcache-load-misses}.
// Evaluation is pure: a name with no value is reported as a missing input, a division by zero as
// such; neither is ever turned into a number.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

class MetricExpr {
 public:
  // Parses `text`; errors say what was expected at which column.
  static Result<MetricExpr> Parse(std::string_view text);

  // Every name the formula reads, in first-use order, each once.
  const std::vector<std::string>& names() const { return names_; }

  using Lookup = std::function<std::optional<double>(const std::string& name)>;
  // The formula's value; "missing input NAME" or "division by zero" otherwise.
  Result<double> Evaluate(const Lookup& lookup) const;

 private:
  struct Node {
    char op;  // '+', '-', '*', '/', 'n' (negate), '#' (number), '$' (name)
    double number = 0;
    std::string name;
    int left = -1, right = -1;
  };
  friend class MetricParser;
  Result<double> Eval(int node, const Lookup& lookup) const;

  std::vector<Node> nodes_;
  int root_ = -1;
  std::vector<std::string> names_;
};

}  // namespace ktune
