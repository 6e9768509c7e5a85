#include "io/base/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/base/posix_util.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

std::string tooLong(std::string_view what, std::uintmax_t maxBytes) {
  return "longer than a " + std::string(what) + " may be (" + std::to_string(maxBytes) + " bytes)";
}

}  // namespace

core::Result<std::optional<std::string>> readWholeFileIfPresent(const std::string& path, std::uintmax_t maxBytes,
                                                                std::string_view what) {
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return std::optional<std::string>();
    if (e == EISDIR) return makeError(ErrorCode::ReadFailed, path, "is a folder, not a file");
    return makeError(ErrorCode::ReadFailed, path, "cannot open the " + std::string(what) + ": " + detail::errnoText(e));
  }
  detail::FdGuard closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return makeError(ErrorCode::ReadFailed, path, "cannot stat the " + std::string(what) + ": " + detail::errnoText(errno));
  if (S_ISDIR(st.st_mode)) return makeError(ErrorCode::ReadFailed, path, "is a folder, not a file");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string text;
  if (S_ISREG(st.st_mode)) {
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    if (size > maxBytes)
      return makeError(ErrorCode::SizeLimit, path, std::to_string(size) + " bytes: " + tooLong(what, maxBytes));
    text.reserve(static_cast<std::size_t>(size));
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::ReadFailed, path, "cannot read the " + std::string(what) + ": " + detail::errnoText(errno));
    }
    if (n == 0) break;
    // A file that grows while it is read (or a device without end) stops at the cap.
    if (text.size() + static_cast<std::size_t>(n) > maxBytes)
      return makeError(ErrorCode::SizeLimit, path, tooLong(what, maxBytes));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return std::optional<std::string>(std::move(text));
}

core::Result<std::string> readWholeFile(const std::string& path, std::uintmax_t maxBytes, std::string_view what) {
  auto text = readWholeFileIfPresent(path, maxBytes, what);
  if (!text) return text.error();
  if (!text->has_value()) return makeError(ErrorCode::NotFound, path, "file does not exist");
  return std::move(**text);
}

}  // namespace delineate::io
