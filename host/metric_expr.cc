#include "host/metric_expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ktune {

class MetricParser {
 public:
  MetricParser(std::string_view text, MetricExpr* expr) : text_(text), expr_(expr) {}

  Result<int> Formula() {
    KT_ASSIGN_OR_RETURN(int node, Sum());
    SkipSpaces();
    if (pos_ != text_.size()) return Error("an operator");
    return node;
  }

 private:
  Result<int> Sum() {
    KT_ASSIGN_OR_RETURN(int left, Product());
    for (;;) {
      SkipSpaces();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return left;
      const char op = text_[pos_++];
      KT_ASSIGN_OR_RETURN(int right, Product());
      left = Add({op, 0, "", left, right});
    }
  }

  Result<int> Product() {
    KT_ASSIGN_OR_RETURN(int left, Unary());
    for (;;) {
      SkipSpaces();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) return left;
      const char op = text_[pos_++];
      KT_ASSIGN_OR_RETURN(int right, Unary());
      left = Add({op, 0, "", left, right});
    }
  }

  Result<int> Unary() {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      KT_ASSIGN_OR_RETURN(int operand, Unary());
      return Add({'n', 0, "", operand, -1});
    }
    return Atom();
  }

  Result<int> Atom() {
    SkipSpaces();
    if (pos_ >= text_.size()) return Error("a number, a name or '('");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      KT_ASSIGN_OR_RETURN(int inner, Sum());
      SkipSpaces();
      if (pos_ >= text_.size() || text_[pos_] != ')') return Error("')'");
      ++pos_;
      return inner;
    }
    if (c == '{') {
      const size_t close = text_.find('}', pos_);
      if (close == std::string_view::npos || close == pos_ + 1) return Error("a name and '}'");
      std::string name(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      return AddName(std::move(name));
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      double v = 0;
      auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
      if (ec != std::errc()) return Error("a number");
      pos_ = static_cast<size_t>(end - text_.data());
      return Add({'#', v, "", -1, -1});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
              text_[pos_] == '.' || text_[pos_] == ':')) {
        ++pos_;
      }
      return AddName(std::string(text_.substr(start, pos_ - start)));
    }
    return Error("a number, a name or '('");
  }

  int AddName(std::string name) {
    if (std::find(expr_->names_.begin(), expr_->names_.end(), name) == expr_->names_.end()) {
      expr_->names_.push_back(name);
    }
    return Add({'$', 0, std::move(name), -1, -1});
  }

  int Add(MetricExpr::Node node) {
    expr_->nodes_.push_back(std::move(node));
    return static_cast<int>(expr_->nodes_.size()) - 1;
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  Status Error(const std::string& expected) const {
    return InvalidArgument("formula '" + std::string(text_) + "': expected " + expected +
                           " at column " + std::to_string(pos_ + 1));
  }

  std::string_view text_;
  size_t pos_ = 0;
  MetricExpr* expr_;
};

Result<MetricExpr> MetricExpr::Parse(std::string_view text) {
  MetricExpr expr;
  MetricParser parser(text, &expr);
  KT_ASSIGN_OR_RETURN(expr.root_, parser.Formula());
  return expr;
}

Result<double> MetricExpr::Evaluate(const Lookup& lookup) const {
  return Eval(root_, lookup);
}

Result<double> MetricExpr::Eval(int index, const Lookup& lookup) const {
  const Node& n = nodes_[static_cast<size_t>(index)];
  switch (n.op) {
    case '#':
      return n.number;
    case '$': {
      std::optional<double> v = lookup(n.name);
      if (!v) return NotFound("missing input " + n.name);
      return *v;
    }
    case 'n': {
      KT_ASSIGN_OR_RETURN(double v, Eval(n.left, lookup));
      return -v;
    }
    default:
      break;
  }
  KT_ASSIGN_OR_RETURN(double a, Eval(n.left, lookup));
  KT_ASSIGN_OR_RETURN(double b, Eval(n.right, lookup));
  switch (n.op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      if (b == 0) return InvalidArgument("division by zero");
      return a / b;
  }
}

}  // namespace ktune
