#include "io/pacs/http_internal.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

namespace delineate::io::web_detail {
namespace {
using core::ErrorCode;
using core::makeError;

// curl_global_init is not thread-safe: once per process, before the first handle.
void initCurl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

const char* standardReason(long status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

struct TransferState {
  const HttpRequest* request = nullptr;
  HttpAnswer answer;
  bool bodyRefused = false;
  bool cancelled = false;
  bool stopped = false;
  core::ProgressSink* progress = nullptr;
  const std::atomic<bool>* stop = nullptr;
};

std::size_t onHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.compare(0, 5, "HTTP/") == 0) {
    // A new status line (after a 100 Continue, say): what follows belongs to it.
    state->answer = HttpAnswer{};
    const std::size_t a = line.find(' ');
    if (a != std::string::npos) {
      const std::size_t b = line.find(' ', a + 1);
      state->answer.status = std::atol(line.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1).c_str());
      if (b != std::string::npos) state->answer.reason = line.substr(b + 1);
    }
  } else if (line.size() > 13) {
    std::string name = line.substr(0, 13);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (name == "content-type:") {
      std::string v = line.substr(13);
      v.erase(0, v.find_first_not_of(" \t"));
      state->answer.contentType = v;
    }
  }
  return size * count;
}

std::size_t onWrite(char* data, std::size_t size, std::size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  if (state->request->onBody && !state->request->onBody(state->answer, data, size * count)) {
    state->bodyRefused = true;
    return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
  }
  return size * count;
}

std::size_t onRead(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  std::size_t given = 0;
  if (!state->request->bodyReader || !state->request->bodyReader(buffer, size * count, given)) {
    state->bodyRefused = true;
    return CURL_READFUNC_ABORT;
  }
  return given;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* state = static_cast<TransferState*>(user);
  if (state->progress && state->progress->cancelled()) {
    state->cancelled = true;
    return 1;
  }
  if (state->stop && state->stop->load()) {
    state->stopped = true;
    return 1;
  }
  return 0;
}

// curl's failure in words a user can act on; TLS verification is named as such.
std::string transferFailure(CURLcode code, const char* buffer, const DicomWebService& service) {
  const std::string detail = buffer && *buffer ? buffer : curl_easy_strerror(code);
  // TLS 1.3 sends the server's refusal of our client certificate after the handshake: curl sees it on the first read.
  const bool ours = !service.tls.certificateFile.empty();
  if (detail.find("alert certificate required") != std::string::npos)
    return "TLS: the server requires a client certificate" +
           (ours ? " and did not take ours (" + service.tls.certificateFile + ")" : std::string(" and none is set")) +
           " (" + detail + ")";
  if (detail.find("alert unknown ca") != std::string::npos || detail.find("alert bad certificate") != std::string::npos ||
      detail.find("alert certificate unknown") != std::string::npos)
    return "TLS: the server refused our client certificate " + service.tls.certificateFile +
           " (it does not trust who signed it) (" + detail + ")";
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS verification failed: the server's certificate is not trusted" +
             (service.tls.caFile.empty() ? std::string(" by the system's certificate authorities")
                                         : " by the CA file " + service.tls.caFile) +
             " (" + detail + ")";
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot use the CA file " + service.tls.caFile + " (" + detail + ")";
    case CURLE_SSL_CONNECT_ERROR:
      return "TLS handshake failed (" + detail + ")";
    case CURLE_SSL_CERTPROBLEM:
      return "TLS: our client certificate cannot be used (" + detail + ")";
    case CURLE_COULDNT_CONNECT:
      return "cannot connect (" + detail + ")";
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve the host (" + detail + ")";
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out (" + detail + ")";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      // Over TLS a server that refuses the client's certificate (or wants one) may close before its alert is read.
      if (service.baseUrl.rfind("https://", 0) == 0)
        return "the connection broke (" + detail + ")" +
               (ours ? "; if the server checks client certificates, it may have refused ours (" +
                           service.tls.certificateFile + ")"
                     : std::string("; if the server requires a client certificate: none is set"));
      return "the connection broke (" + detail + ")";
    default:
      return detail;
  }
}
}  // namespace

std::string redactedUrl(const std::string& url) {
  DicomWebService s;
  s.baseUrl = url;
  return s.describe();
}

std::string urlEncode(const std::string& value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : value) {
    // Unreserved characters, and those DICOM values use that need no escape inside a query value (wildcards, the
    // PN group separators, date-range hyphens, list commas): several servers (Orthanc 1.10 with DICOMweb 1.7 among
    // them) match the value as sent, without decoding percent-escapes.
    if (std::isalnum(c) || std::strchr("-._~*?^=,:/@!$'()", c) != nullptr) {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string mediaType(const std::string& value) {
  std::string t = value.substr(0, value.find(';'));
  t.erase(0, t.find_first_not_of(" \t"));
  t.erase(t.find_last_not_of(" \t") + 1);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return t;
}

std::string headerParameter(const std::string& value, const std::string& name) {
  std::size_t i = value.find(';');
  while (i != std::string::npos) {
    ++i;
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) ++i;
    const std::size_t eq = value.find('=', i);
    if (eq == std::string::npos) return {};
    std::string key = value.substr(i, eq - i);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::size_t j = eq + 1;
    std::string v;
    if (j < value.size() && value[j] == '"') {
      for (++j; j < value.size() && value[j] != '"'; ++j) {
        if (value[j] == '\\' && j + 1 < value.size()) ++j;
        v += value[j];
      }
      i = value.find(';', j);
    } else {
      const std::size_t end = value.find(';', j);
      v = value.substr(j, end == std::string::npos ? std::string::npos : end - j);
      v.erase(v.find_last_not_of(" \t") + 1);
      i = end;
    }
    if (key == name) return v;
  }
  return {};
}

HttpConnection::HttpConnection(const DicomWebService& service, core::ProgressSink* progress,
                               const std::atomic<bool>* stop)
    : m_service(service), m_progress(progress), m_stop(stop) {
  initCurl();
  m_curl = curl_easy_init();
}

HttpConnection::~HttpConnection() {
  if (m_curl) curl_easy_cleanup(static_cast<CURL*>(m_curl));
}

core::Result<HttpAnswer> HttpConnection::perform(const HttpRequest& request) {
  const std::string shownUrl = redactedUrl(request.url);
  CURL* curl = static_cast<CURL*>(m_curl);
  if (!curl) return makeError(ErrorCode::OutOfMemory, shownUrl, "libcurl could not make a handle");
  // Reset keeps the live connections (keep-alive) and drops the previous request's options.
  curl_easy_reset(curl);
  TransferState state;
  state.request = &request;
  state.progress = m_progress;
  state.stop = m_stop;
  char errorBuffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 256L * 1024);  // fewer, larger reads of a WADO stream
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, long(std::max(1, m_service.connectTimeoutSeconds)));
  const long requestTimeout = long(std::max(1, m_service.requestTimeoutSeconds));
  if (request.wholeRequestTimeout) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, requestTimeout);
  } else {
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, requestTimeout);
  }
  // TLS is always verified; BCP 195 asks for TLS 1.2 or later.
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_SSLVERSION, long(CURL_SSLVERSION_TLSv1_2));
  if (!m_service.tls.caFile.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, m_service.tls.caFile.c_str());
  if (!m_service.tls.certificateFile.empty())
    curl_easy_setopt(curl, CURLOPT_SSLCERT, m_service.tls.certificateFile.c_str());
  if (!m_service.tls.privateKeyFile.empty())
    curl_easy_setopt(curl, CURLOPT_SSLKEY, m_service.tls.privateKeyFile.c_str());
  if (!m_service.bearerToken.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, m_service.bearerToken.c_str());
  } else if (!m_service.user.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, m_service.user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, m_service.password.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &state);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onWrite);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &state);
  curl_slist* headers = nullptr;
  for (const auto& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, onRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &state);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.bodySize));
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);
  if (state.cancelled) return makeError(ErrorCode::Cancelled, shownUrl, "cancelled");
  if (state.stopped) return makeError(ErrorCode::Cancelled, shownUrl, "stopped: another request failed");
  if (state.bodyRefused) return makeError(ErrorCode::ParseError, shownUrl, "");
  if (code != CURLE_OK)
    return makeError(ErrorCode::ReadFailed, shownUrl, transferFailure(code, errorBuffer, m_service));
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  state.answer.status = status;
  if (state.answer.reason.empty()) state.answer.reason = standardReason(status);
  return state.answer;
}

core::Error statusError(const std::string& url, const HttpAnswer& answer, const std::string& body,
                        const DicomWebService& service) {
  std::string detail = "HTTP " + std::to_string(answer.status) + (answer.reason.empty() ? "" : " " + answer.reason);
  if (answer.status == 401)
    detail = std::string("401: ") +
             (!service.bearerToken.empty() ? "the bearer token was refused"
              : service.user.empty()       ? "the server wants a user name and password (none given)"
                                           : "the user name or password was refused") +
             " (HTTP 401 " + (answer.reason.empty() ? "Unauthorized" : answer.reason) + ")";
  else if (answer.status == 403)
    detail += ": this user may not do this";
  // A short plain-text explanation from the server helps; a long body or binary does not.
  std::string excerpt = body.substr(0, 300);
  excerpt.erase(std::remove_if(excerpt.begin(), excerpt.end(), [](unsigned char c) { return c < 0x20 && c != ' '; }),
                excerpt.end());
  if (!excerpt.empty() && answer.status != 401) detail += ": " + excerpt;
  return core::makeError(answer.status == 404 ? ErrorCode::NotFound : ErrorCode::ReadFailed, redactedUrl(url), detail);
}

}  // namespace delineate::io::web_detail
