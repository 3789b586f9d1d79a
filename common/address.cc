#include "common/address.h"

#include "common/strings.h"

namespace ktune {

std::string HostPort::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPort> ParseHostPort(std::string_view text, bool allow_port_zero) {
  const std::string shown(text);
  HostPort hp;
  std::string_view port;
  if (text.starts_with("[")) {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("malformed address '" + shown + "' (expected [IPv6]:PORT)");
    }
    hp.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) {
      return InvalidArgument("malformed address '" + shown + "' (expected HOST:PORT)");
    }
    hp.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  auto p = ParseUint64(port);
  if (hp.host.empty() || !p.ok() || *p > 65535 || (*p == 0 && !allow_port_zero)) {
    return InvalidArgument("malformed address '" + shown + "' (expected HOST:PORT)");
  }
  hp.port = static_cast<uint16_t>(*p);
  return hp;
}

}  // namespace ktune
