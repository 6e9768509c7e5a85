#include "io/base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/base/posix_util.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

core::Error notRegular(const std::string& path, std::string_view what, const std::string& kind) {
  return makeError(ErrorCode::ReadFailed, path,
                   "the " + std::string(what) + " is " + kind + ", not a regular file");
}

core::Error statFailed(const std::string& path, std::string_view what, int e) {
  return makeError(e == ENOENT || e == ENOTDIR ? ErrorCode::NotFound : ErrorCode::ReadFailed, path,
                   "cannot open the " + std::string(what) + ": " + detail::errnoText(e));
}

}  // namespace

std::string specialFileKind(unsigned mode) {
  const auto m = static_cast<mode_t>(mode);
  if (S_ISREG(m)) return {};
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a named pipe (FIFO)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a file";
}

core::Status checkRegularFile(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return statFailed(path, what, errno);
  if (const std::string kind = specialFileKind(st.st_mode); !kind.empty()) return notRegular(path, what, kind);
  return core::Status::success();
}

core::Result<int> openRegularFile(const std::string& path, std::string_view what) {
  if (core::Status s = checkRegularFile(path, what); !s) return s.error();
  // O_NONBLOCK: if the path became a pipe after the stat, the open must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return statFailed(path, what, errno);
  detail::FdGuard closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return makeError(ErrorCode::ReadFailed, path, "cannot stat the " + std::string(what) + ": " + detail::errnoText(errno));
  if (const std::string kind = specialFileKind(st.st_mode); !kind.empty()) return notRegular(path, what, kind);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return closer.release();
}

}  // namespace delineate::io
