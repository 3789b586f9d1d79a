#include <doctest/doctest.h>

#include <map>

#include "host/util/expr.h"

namespace ktune::host {
namespace {

Result<double> Eval(const std::string& formula, const std::map<std::string, double>& values) {
  auto expr = Expr::Parse(formula);
  if (!expr.ok()) return expr.status();
  return expr->Evaluate([&](const std::string& name) -> std::optional<double> {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<double>(it->second);
  });
}

TEST_CASE("arithmetic with the usual precedence and parentheses") {
  CHECK(*Eval("1 + 2 * 3", {}) == 7);
  CHECK(*Eval("(1 + 2) * 3", {}) == 9);
  CHECK(*Eval("8 / 4 / 2", {}) == 1);  // left to right
  CHECK(*Eval("10 - 4 - 3", {}) == 3);
  CHECK(*Eval("-2 * -3", {}) == 6);
  CHECK(*Eval("1e3 / 4", {}) == 250);
  CHECK(*Eval(".5", {}) == 0.5);
}

TEST_CASE("names are events as written, braces hold names with other characters") {
  const std::map<std::string, double> v = {
      {"l2_miss:u", 30}, {"l2_access:u", 120}, {"L1-dcache-load-misses", 5}, {"kernel_time", 2}};
  CHECK(*Eval("l2_miss:u / l2_access:u", v) == 0.25);
  CHECK(*Eval("{L1-dcache-load-misses} / kernel_time", v) == 2.5);
  auto expr = Expr::Parse("a + b * a + {c-d}");
  REQUIRE(expr.ok());
  CHECK(expr->names() == std::vector<std::string>{"a", "b", "c-d"});
}

TEST_CASE("missing inputs and division by zero are reported, never turned into numbers") {
  auto missing = Eval("l2_miss / l2_access", {{"l2_access", 3}});
  CHECK(missing.status().message() == "missing input l2_miss");
  auto zero = Eval("a / b", {{"a", 1}, {"b", 0}});
  CHECK(zero.status().message() == "division by zero");
  CHECK(*Eval("0 / 1", {}) == 0);
}

TEST_CASE("comparisons, logic and remainders for constraints") {
  const std::map<std::string, double> v = {{"M", 16}, {"N", 32}, {"K", 0}};
  CHECK(*Eval("M * N <= 512", v) == 1);
  CHECK(*Eval("M * N < 512", v) == 0);
  CHECK(*Eval("M == 16 && N != 16", v) == 1);
  CHECK(*Eval("M > N || N >= 32", v) == 1);
  CHECK(*Eval("!(M < N)", v) == 0);
  CHECK(*Eval("!K", v) == 1);
  CHECK(*Eval("N % M == 0", v) == 1);
  CHECK(*Eval("7 % 4", {}) == 3);
  CHECK(*Eval("1 + 2 < 2 * 2", {}) == 1);  // arithmetic binds tighter than comparison
  // && and || stop once decided, so a guard keeps the right side from dividing by zero.
  CHECK(*Eval("K != 0 && M % K == 0", v) == 0);
  CHECK(*Eval("K == 0 || M / K > 1", v) == 1);
  CHECK(Eval("M % K", v).status().message() == "remainder by zero");
  CHECK(Eval("M <", v).status().message().find("at column 4") != std::string::npos);
}

TEST_CASE("syntax errors say what was expected where") {
  CHECK(Eval("a +", {}).status().message().find("expected a number, a name or '(' at column 4") !=
        std::string::npos);
  CHECK(Eval("(a", {}).status().message().find("expected ')'") != std::string::npos);
  CHECK(Eval("a b", {}).status().message().find("expected an operator at column 3") !=
        std::string::npos);
  CHECK_FALSE(Expr::Parse("{}").ok());
  CHECK_FALSE(Expr::Parse("").ok());
  CHECK_FALSE(Expr::Parse("a $ b").ok());
}

}  // namespace
}  // namespace ktune::host
