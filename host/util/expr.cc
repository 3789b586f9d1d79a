#include "host/util/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "common/strings.h"

namespace ktune::host {

class ExprParser {
 public:
  ExprParser(std::string_view text, Expr* expr) : text_(text), expr_(expr) {}

  Result<int> Formula() {
    KT_ASSIGN_OR_RETURN(int node, Or());
    SkipSpaces();
    if (pos_ != text_.size()) return Error("an operator");
    return node;
  }

 private:
  Result<int> Or() {
    KT_ASSIGN_OR_RETURN(int left, And());
    while (Take("||")) {
      KT_ASSIGN_OR_RETURN(int right, And());
      left = Add({'|', 0, "", left, right});
    }
    return left;
  }

  Result<int> And() {
    KT_ASSIGN_OR_RETURN(int left, Not());
    while (Take("&&")) {
      KT_ASSIGN_OR_RETURN(int right, Not());
      left = Add({'&', 0, "", left, right});
    }
    return left;
  }

  Result<int> Not() {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == '!' && !At("!=")) {
      ++pos_;
      KT_RETURN_IF_ERROR(Deeper());
      KT_ASSIGN_OR_RETURN(int operand, Not());
      --depth_;
      return Add({'!', 0, "", operand, -1});
    }
    return Compare();
  }

  Result<int> Compare() {
    KT_ASSIGN_OR_RETURN(int left, Sum());
    // Two-character operators first, so "<=" is not read as "<".
    static constexpr std::pair<const char*, char> kOps[] = {{"<=", 'l'}, {">=", 'g'}, {"==", '='},
                                                            {"!=", 'x'}, {"<", '<'},  {">", '>'}};
    for (const auto& [text, op] : kOps) {
      if (!Take(text)) continue;
      KT_ASSIGN_OR_RETURN(int right, Sum());
      return Add({op, 0, "", left, right});
    }
    return left;
  }

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
      if (pos_ >= text_.size() ||
          (text_[pos_] != '*' && text_[pos_] != '/' && text_[pos_] != '%')) {
        return left;
      }
      const char op = text_[pos_++];
      KT_ASSIGN_OR_RETURN(int right, Unary());
      left = Add({op, 0, "", left, right});
    }
  }

  Result<int> Unary() {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      KT_RETURN_IF_ERROR(Deeper());
      KT_ASSIGN_OR_RETURN(int operand, Unary());
      --depth_;
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
      KT_RETURN_IF_ERROR(Deeper());
      KT_ASSIGN_OR_RETURN(int inner, Or());
      --depth_;
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
      size_t consumed = 0;
      const std::optional<double> v = ParseDoublePrefix(text_.substr(pos_), &consumed);
      if (!v) return Error("a number");
      pos_ += consumed;
      return Add({'#', *v, "", -1, -1});
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

  int Add(Expr::Node node) {
    expr_->nodes_.push_back(std::move(node));
    return static_cast<int>(expr_->nodes_.size()) - 1;
  }

  bool At(std::string_view op) const { return text_.substr(pos_, op.size()) == op; }

  // Skips spaces, then consumes `op` if it comes next.
  bool Take(std::string_view op) {
    SkipSpaces();
    if (!At(op)) return false;
    pos_ += op.size();
    return true;
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Parsing and evaluation recurse: nesting is bounded so no input can exhaust the stack.
  Status Deeper() {
    if (++depth_ > kMaxExprDepth) {
      return InvalidArgument("nested more than " + std::to_string(kMaxExprDepth) + " levels deep");
    }
    return Status::Ok();
  }

  Status Error(const std::string& expected) const {
    return InvalidArgument("formula '" + std::string(text_) + "': expected " + expected +
                           " at column " + std::to_string(pos_ + 1));
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  Expr* expr_;
};

Result<Expr> Expr::Parse(std::string_view text) {
  // A long chain of operators makes a deep tree too (evaluation recurses along it).
  if (text.size() > kMaxExprChars) {
    return InvalidArgument("longer than " + std::to_string(kMaxExprChars) + " characters");
  }
  Expr expr;
  ExprParser parser(text, &expr);
  KT_ASSIGN_OR_RETURN(expr.root_, parser.Formula());
  return expr;
}

Result<double> Expr::Evaluate(const Lookup& lookup) const {
  return Eval(root_, lookup);
}

Result<double> Expr::Eval(int index, const Lookup& lookup) const {
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
    case '!': {
      KT_ASSIGN_OR_RETURN(double v, Eval(n.left, lookup));
      return v == 0 ? 1.0 : 0.0;
    }
    case '&':
    case '|': {
      KT_ASSIGN_OR_RETURN(double a, Eval(n.left, lookup));
      if ((a != 0) == (n.op == '|')) return a != 0 ? 1.0 : 0.0;
      KT_ASSIGN_OR_RETURN(double b, Eval(n.right, lookup));
      return b != 0 ? 1.0 : 0.0;
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
    case '<':
      return a < b ? 1.0 : 0.0;
    case 'l':
      return a <= b ? 1.0 : 0.0;
    case '>':
      return a > b ? 1.0 : 0.0;
    case 'g':
      return a >= b ? 1.0 : 0.0;
    case '=':
      return a == b ? 1.0 : 0.0;
    case 'x':
      return a != b ? 1.0 : 0.0;
    case '%':
      if (b == 0) return InvalidArgument("remainder by zero");
      return std::fmod(a, b);
    default:
      if (b == 0) return InvalidArgument("division by zero");
      return a / b;
  }
}

}  // namespace ktune::host
