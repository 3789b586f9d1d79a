// A small blocking HTTP client for the LAVA lab's REST API (host/lava/lava_api.h), on libcurl:
// http and https, the system's CA certificates and proxy variables, one request at a time. Only
// the LAVA layer talks HTTP.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct HttpResponse {
  long status = 0;   // the HTTP status code
  std::string body;  // at most kMaxHttpBodyBytes
};

// A larger body is an error (a job's log is read in pieces).
constexpr size_t kMaxHttpBodyBytes = 64 << 20;

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers = {};  // "Name: value"
  std::string body = "";                  // POSTed when `post`
  bool post = false;
  long timeout_s = 30;  // the whole request, connecting included
};

// Sends `request` and returns the response whatever its status; an error only when no response
// came (refused, unresolvable, timed out, TLS), naming the URL and libcurl's reason.
Result<HttpResponse> SendHttp(const HttpRequest& request);

}  // namespace ktune::host
