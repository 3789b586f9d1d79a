#include "common/status.h"

#include <cstring>

namespace ktune {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kProtocol:
      return "protocol error";
    case ErrorCode::kVersionMismatch:
      return "version mismatch";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kResourceExhausted:
      return "resource exhausted";
    case ErrorCode::kUnauthenticated:
      return "unauthenticated";
  }
  return "unknown error";
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

Status ErrnoError(const std::string& what, int errno_value) {
  return IoError(what + ": " + std::strerror(errno_value));
}

}  // namespace ktune
