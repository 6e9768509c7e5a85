#pragma once
// io/pacs's own small wrapper of libcurl's easy interface for DICOMweb (dicomweb_client.cpp). One HttpConnection per
// thread: its easy handle keeps its connections alive between requests. Every request applies the service's
// authentication, TLS (always verified), timeouts and cancel; every failure is an Error naming the URL without
// credentials and what happened (HTTP status with its phrase, curl's words, TLS verification named as such).

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io::web_detail {

// A URL as errors may show it: any "user:password@" removed.
std::string redactedUrl(const std::string& url);
// Percent-encoding of a query parameter's value: what would end or break the value ('&', '#', '+', '%', space,
// control and non-ASCII bytes) is escaped; wildcards and DICOM's separators are sent as they are (RFC 3986 allows them
// in a query).
std::string urlEncode(const std::string& value);

struct HttpAnswer {
  long status = 0;
  std::string reason;       // the status line's phrase ("Not Found"), or the standard one where the server sent none
  std::string contentType;  // of the answer
};

struct HttpRequest {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<std::string> headers;  // "Accept: ...", "Content-Type: ..."
  // POST: the body's length and a reader filling a buffer (returns bytes given, 0 at the end; false: abort).
  std::uint64_t bodySize = 0;
  std::function<bool(char* buffer, std::size_t size, std::size_t& given)> bodyReader;
  // The answer's body as it arrives. false aborts the transfer: perform() then answers an Error whose detail is
  // empty, for the caller to fill with its own reason.
  std::function<bool(const HttpAnswer& answer, const char* data, std::size_t size)> onBody;
  // true: the service's requestTimeoutSeconds bound the whole request; false: they bound a stall (no byte for that
  // long), for WADO streams whose length is that of a series.
  bool wholeRequestTimeout = true;
};


class HttpConnection {
 public:
  // `stop` (may be null): another thread's request to give up (a failed sibling transfer).
  HttpConnection(const DicomWebService& service, core::ProgressSink* progress, const std::atomic<bool>* stop = nullptr);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Performs the request. A transfer failure, a cancel or a body refused by onBody is an Error; an HTTP status is
  // not (the answer says it: see statusError).
  core::Result<HttpAnswer> perform(const HttpRequest& request);

 private:
  const DicomWebService& m_service;
  core::ProgressSink* m_progress;
  const std::atomic<bool>* m_stop;
  void* m_curl = nullptr;
};

// The error for an answer whose status is not a success: "HTTP 404 Not Found", 401 explained as a refused user name or
// password (or token), with the start of the body where the server explained itself.
core::Error statusError(const std::string& url, const HttpAnswer& answer, const std::string& body,
                        const DicomWebService& service);

// Parameter `name` of a header value like `multipart/related; type="application/dicom"; boundary=x` (quotes
// removed); empty when absent. mediaType(): the part before the first ';', lower case, trimmed.
std::string headerParameter(const std::string& value, const std::string& name);
std::string mediaType(const std::string& value);

}  // namespace delineate::io::web_detail
