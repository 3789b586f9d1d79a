#include "host/lava/http.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace ktune::host {
namespace {

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t Append(char* data, size_t size, size_t count, void* out) {
  auto* body = static_cast<std::string*>(out);
  const size_t bytes = size * count;
  if (body->size() + bytes > kMaxHttpBodyBytes) return 0;  // libcurl then fails the transfer
  body->append(data, bytes);
  return bytes;
}

}  // namespace

Result<HttpResponse> SendHttp(const HttpRequest& request) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return InternalError("libcurl could not start a request to " + request.url);
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const std::string& h : request.headers) {
    curl_slist* l = curl_slist_append(headers.get(), h.c_str());
    if (!l) return InternalError("libcurl could not add a header for " + request.url);
    headers.release();
    headers.reset(l);
  }
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = "";
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, request.timeout_s);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (request.post) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  const CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    return Unavailable(request.url + ": " + (*error ? error : curl_easy_strerror(code)));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace ktune::host
