// downloadModel (model_store.h): libcurl's easy interface, resumed with HTTP Range.
#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>

#include "io/base/file_modes.h"
#include "io/base/posix_util.h"
#include "io/base/process_info.h"
#include "io/base/sha256.h"
#include "io/models/model_store.h"
#include "io/models/model_store_internal.h"

namespace delineate::io {

namespace fs = std::filesystem;

namespace {

// A URL as messages show it: any "user:password@" removed.
std::string shownUrl(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto hostEnd = url.find('/', scheme + 3);
  const auto at = url.rfind('@', hostEnd == std::string::npos ? std::string::npos : hostEnd);
  if (at == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + url.substr(at + 1);
}

// The URL's last path segment when it makes a valid file name ("model.pt" otherwise).
std::string fileNameOf(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? std::string() : path.substr(slash + 1);
  return validModelName(name) ? name : "model.pt";
}

struct Transfer {
  CURL* curl = nullptr;
  int fd = -1;
  std::uint64_t offset = 0;    // bytes the file held when this attempt started
  std::uint64_t received = 0;  // bytes this attempt wrote
  std::uint64_t expectedSize = 0;
  bool checked = false;
  bool restarted = false;  // the server sent the whole file though a range was asked
  int writeErrno = 0;
  core::ProgressSink* progress = nullptr;
};

std::size_t onWrite(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->checked) {
    t->checked = true;
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    if (t->offset > 0 && status == 200) {
      // No range support: the whole file comes again, so the part starts over.
      if (::ftruncate(t->fd, 0) != 0) {
        t->writeErrno = errno;
        return 0;
      }
      t->offset = 0;
      t->restarted = true;
    }
  }
  const std::size_t bytes = size * count;
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(t->fd, data + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      t->writeErrno = n < 0 ? errno : ENOSPC;
      return 0;
    }
    done += static_cast<std::size_t>(n);
  }
  t->received += bytes;
  return bytes;
}

int onProgress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->progress) return 0;
  if (t->progress->cancelled()) return 1;
  const double whole = t->expectedSize ? static_cast<double>(t->expectedSize)
                                       : static_cast<double>(t->offset) + static_cast<double>(total);
  if (whole > 0) t->progress->report(std::min(1.0, (static_cast<double>(t->offset) + static_cast<double>(now)) / whole), "download");
  return 0;
}

bool brokenConnection(CURLcode rc) {
  return rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR || rc == CURLE_OPERATION_TIMEDOUT ||
         rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_HTTP2_STREAM || rc == CURLE_HTTP2;
}

std::uint64_t sizeOf(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

struct CurlHandle {
  CURL* handle = curl_easy_init();
  ~CurlHandle() {
    if (handle) curl_easy_cleanup(handle);
  }
};

// One pass over the connection: appends to `part` from its current size. OK when the server sent the rest (or had
// nothing more: 416 on a part that is already whole); otherwise the error, with `t` telling how far it came.
core::Status transferOnce(const ModelDownload& r, const std::string& part, Transfer& t, char* curlError) {
  CurlHandle curl;
  if (!curl.handle) return core::makeError(core::ErrorCode::ReadFailed, shownUrl(r.url), "libcurl could not start");
  t.curl = curl.handle;
  t.offset = sizeOf(part);
  t.received = 0;
  t.checked = false;
  t.fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (t.fd < 0) return core::makeError(core::ErrorCode::WriteFailed, part, detail::errnoText(errno));
  applyFileMode(t.fd, FileAccess::Private);
  CURL* c = curl.handle;
  curl_easy_setopt(c, CURLOPT_URL, r.url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#endif
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "Delineate model fetch");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(r.connectTimeoutSeconds));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(r.stallSeconds));
  curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(t.offset));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &onWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &onProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curlError);
  curlError[0] = '\0';
  const CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  const bool synced = ::fsync(t.fd) == 0;
  ::close(t.fd);
  t.fd = -1;
  const std::string url = shownUrl(r.url);
  if (rc == CURLE_OK) {
    if (!synced) return core::makeError(core::ErrorCode::WriteFailed, part, detail::errnoText(errno));
    return core::Status::success();
  }
  if (rc == CURLE_HTTP_RETURNED_ERROR && status == 416 && t.offset > 0) return core::Status::success();
  if (rc == CURLE_RANGE_ERROR && t.offset > 0) {
    // The server cannot resume (curl saw the whole file coming): the part starts over, from the first byte.
    std::error_code ec;
    fs::resize_file(part, 0, ec);
    if (ec) return core::makeError(core::ErrorCode::WriteFailed, part, ec.message());
    t.restarted = true;
    return core::makeError(core::ErrorCode::Unsupported, url, "the server does not resume (no byte ranges)");
  }
  if (rc == CURLE_HTTP_RETURNED_ERROR)
    return core::makeError(core::ErrorCode::ReadFailed, url, "HTTP " + std::to_string(status) + " (" + curlError + ")");
  if (rc == CURLE_ABORTED_BY_CALLBACK && r.progress && r.progress->cancelled())
    return core::makeError(core::ErrorCode::Cancelled, url, "cancelled; what arrived is kept to resume");
  if (rc == CURLE_WRITE_ERROR && t.writeErrno)
    return core::makeError(core::ErrorCode::WriteFailed, part, detail::errnoText(t.writeErrno));
  return core::makeError(brokenConnection(rc) ? core::ErrorCode::ReadFailed : core::ErrorCode::NotFound, url,
                         std::string(curl_easy_strerror(rc)) + (curlError[0] ? std::string(": ") + curlError : ""));
}

}  // namespace

core::Result<ModelDownloadResult> downloadModel(const ModelDownload& r) {
  const std::string cache = models_detail::cacheOrDefault(r.cache);
  const std::string url = shownUrl(r.url);
  if (!validModelName(r.name))
    return core::makeError(core::ErrorCode::InvalidArgument, r.name, "not a model name (1-64 of A-Z a-z 0-9 . _ -)");
  if (r.url.rfind("https://", 0) != 0 && r.url.rfind("http://", 0) != 0)
    return core::makeError(core::ErrorCode::InvalidArgument, url, "only http:// and https:// URLs are fetched");
  if (auto s = models_detail::checkSha256Text("--sha256", r.expectedSha256); !s) return s.error();
  const std::string expected = models_detail::lowerCase(r.expectedSha256);
  const std::string file = r.file.empty() ? fileNameOf(r.url) : r.file;
  if (!validModelName(file) || file == "model.json")
    return core::makeError(core::ErrorCode::InvalidArgument, file, "not a file name for a model");
  const std::string folder = cache + "/" + r.name;
  if (auto s = createFolders(folder, FileAccess::Private); !s) return s.error();
  const std::string part = folder + "/" + file + ".part";
  const std::string target = folder + "/" + file;

  ModelDownloadResult result;
  result.resumedFrom = sizeOf(part);
  Transfer t;
  t.progress = r.progress;
  char curlError[CURL_ERROR_SIZE];
  bool fromZero = result.resumedFrom == 0;
  bool rangeless = false;
  std::string hash;
  for (;;) {
    for (;;) {
      const core::Status s = transferOnce(r, part, t, curlError);
      if (s) break;
      if (s.error().code == core::ErrorCode::Unsupported && !rangeless) {
        rangeless = true;  // once: from zero, without a range
        continue;
      }
      const bool progressed = t.received > 0;
      if (s.error().code == core::ErrorCode::ReadFailed && s.error().detail.rfind("HTTP ", 0) != 0 && progressed &&
          result.reconnects < r.retries) {
        ++result.reconnects;  // a broken connection that had brought bytes: resume where it stopped
        continue;
      }
      core::Error e = s.error();
      if (sizeOf(part) > 0 && e.code != core::ErrorCode::WriteFailed)
        e.detail += " (" + std::to_string(sizeOf(part)) + " bytes kept in " + part + ": fetch again to resume)";
      return e;
    }
    if (t.restarted) {
      result.restarted = true;
      fromZero = true;
    }
    if (r.progress) r.progress->report(1.0, "verify");
    auto digest = sha256OfFile(part);
    if (!digest) return digest.error();
    hash = *digest;
    if (expected.empty() || hash == expected) break;
    std::error_code ec;
    fs::remove(part, ec);
    if (!fromZero) {
      // The part an earlier run left was not the start of this file: once more from the first byte.
      fromZero = true;
      result.restarted = true;
      continue;
    }
    return core::makeError(core::ErrorCode::Corrupt, target,
                           "the download from " + url + " has SHA-256 " + hash + ", not the expected " + expected +
                               ": it was deleted (a wrong URL or hash, or a damaged transfer)");
  }
  std::error_code ec;
  fs::rename(part, target, ec);
  if (ec) return core::makeError(core::ErrorCode::WriteFailed, target, ec.message());
  detail::syncFolder(folder);
  CachedModel& m = result.model;
  m.name = r.name;
  m.path = target;
  m.url = url;
  m.sha256 = hash;
  m.verified = !expected.empty();
  m.licence = r.licence;
  m.size = sizeOf(target);
  m.source = "download";
  m.when = utcNowIso();
  if (auto s = models_detail::writeRecord(cache, m); !s) return s.error();
  return result;
}

}  // namespace delineate::io
