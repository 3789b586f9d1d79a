// The one error type of ktune: Status (code + message), Result<T> (a value or a Status), and the
// return-if-error macros. Library code returns these; exceptions are caught only at command
// boundaries (khost's main, agentd's session dispatch).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ktune {

// Numbering is shared with the wire's ErrorCode enum (protocol/ktune.proto); keep them in step.
enum class ErrorCode {
  kOk = 0,
  kInvalidArgument = 1,     // bad input from a user or a peer
  kNotFound = 2,            // a file, blob, bundle or event that does not exist
  kIo = 3,                  // a system call on a file or socket failed
  kProtocol = 4,            // malformed or unexpected message
  kVersionMismatch = 5,     // peers speak different protocol versions
  kUnavailable = 6,         // the peer cannot be reached or went away
  kUnsupported = 7,         // the host or agent cannot do this here
  kInternal = 8,            // a bug: an invariant did not hold
  kUnauthenticated = 9,     // the peer did not prove it holds the token
  kResourceExhausted = 10,  // a limit of the agent's (store quota, bundle size) is reached
};

const char* ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns this status with `context` prepended to the message ("context: message").
  Status WithContext(const std::string& context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {ErrorCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) {
  return {ErrorCode::kNotFound, std::move(m)};
}
inline Status IoError(std::string m) {
  return {ErrorCode::kIo, std::move(m)};
}
inline Status ProtocolError(std::string m) {
  return {ErrorCode::kProtocol, std::move(m)};
}
inline Status Unavailable(std::string m) {
  return {ErrorCode::kUnavailable, std::move(m)};
}
inline Status Unsupported(std::string m) {
  return {ErrorCode::kUnsupported, std::move(m)};
}
inline Status Unauthenticated(std::string m) {
  return Status(ErrorCode::kUnauthenticated, std::move(m));
}
inline Status ResourceExhausted(std::string m) {
  return Status(ErrorCode::kResourceExhausted, std::move(m));
}
inline Status InternalError(std::string m) {
  return {ErrorCode::kInternal, std::move(m)};
}

// An IoError whose message is "what: strerror(errno_value)".
Status ErrnoError(const std::string& what, int errno_value);

template <typename T>
class [[nodiscard]] Result {
 public:
  // The alternative named, not left to variant's converting constructor: with clang, a T whose
  // default member initializers make it an aggregate could be chosen for a Status.
  Result(T value) : v_(std::in_place_type<T>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::in_place_type<Status>, std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ktune

#define KT_CONCAT_INNER(a, b) a##b
#define KT_CONCAT(a, b) KT_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not ok.
#define KT_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::ktune::Status kt_status_ = (expr);     \
    if (!kt_status_.ok()) return kt_status_; \
  } while (0)

// `lhs = value of expr`, or returns its Status from the enclosing function.
#define KT_ASSIGN_OR_RETURN(lhs, expr) \
  KT_ASSIGN_OR_RETURN_IMPL(KT_CONCAT(kt_result_, __LINE__), lhs, expr)
#define KT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
