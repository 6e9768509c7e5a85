#include "io/base/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/base/posix_util.h"
#include "io/base/sealed_file.h"
#include "io/base/regular_file.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

std::string tooLong(std::string_view what, std::uintmax_t maxBytes) {
  return "longer than a " + std::string(what) + " may be (" + std::to_string(maxBytes) + " bytes)";
}

char octal(unsigned v) { return char('0' + (v & 7)); }

// The permission bits as chmod writes them ("0644").
std::string modeText(unsigned mode) {
  return std::string{'0', octal(mode >> 6), octal(mode >> 3), octal(mode)};
}

core::Result<std::optional<std::string>> readWholeFileChecked(const std::string& path, std::uintmax_t maxBytes,
                                                              std::string_view what, bool secret) {
  // A secret is a user-given path: a device is refused without being opened (opening some has effects of its own).
  struct stat before {};
  if (secret && ::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode) && !S_ISDIR(before.st_mode))
    return makeError(ErrorCode::InvalidArgument, path,
                     "the " + std::string(what) + " is " + specialFileKind(before.st_mode) + ", not a regular file");
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
  if (secret && !S_ISREG(st.st_mode))
    return makeError(ErrorCode::InvalidArgument, path,
                     "the " + std::string(what) + " is " + specialFileKind(st.st_mode) + ", not a regular file");
  if (secret && (st.st_mode & 077) != 0)
    return makeError(ErrorCode::InvalidArgument, path,
                     "the " + std::string(what) + " may be read by " +
                         ((st.st_mode & 007) != 0 ? ((st.st_mode & 070) != 0 ? "its group and others" : "others")
                                                  : "its group") +
                         " (mode " + modeText(st.st_mode) + "); it is a secret: make it readable by its owner alone (chmod 600 '" +
                         path + "')");
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
  // A record io sealed at rest (io/base/sealed_file.h: the autosave journal's) reads as its content. A secret is
  // never sealed: the at-rest key is one.
  if (!secret && looksSealed(text.data(), text.size())) {
    auto plain = unsealBytes(text, path);
    if (!plain) return plain.error();
    return std::optional<std::string>(std::move(*plain));
  }
  return std::optional<std::string>(std::move(text));
}

core::Result<std::string> readWholeFileOrNotFound(const std::string& path, std::uintmax_t maxBytes,
                                                  std::string_view what, bool secret) {
  auto text = readWholeFileChecked(path, maxBytes, what, secret);
  if (!text) return text.error();
  if (!text->has_value()) return makeError(ErrorCode::NotFound, path, "file does not exist");
  return std::move(**text);
}

}  // namespace

core::Result<std::optional<std::string>> readWholeFileIfPresent(const std::string& path, std::uintmax_t maxBytes,
                                                                std::string_view what) {
  return readWholeFileChecked(path, maxBytes, what, false);
}

core::Result<std::string> readWholeFile(const std::string& path, std::uintmax_t maxBytes, std::string_view what) {
  return readWholeFileOrNotFound(path, maxBytes, what, false);
}

core::Result<std::string> readSecretFile(const std::string& path, std::uintmax_t maxBytes, std::string_view what) {
  return readWholeFileOrNotFound(path, maxBytes, what, true);
}

}  // namespace delineate::io
