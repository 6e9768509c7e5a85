#include "io/base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/base/posix_util.h"
#include "io/base/sealed_file.h"

#include <cstdint>
#include <utility>

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

namespace {

// The one open of every reader: checked as a regular file before and after the open (never blocking), the descriptor
// returned in blocking mode with its size, and whether it holds a file io sealed at rest (one small read of the first
// bytes, which the reader's own first read finds in the page cache).
struct OpenedFile {
  int fd = -1;
  std::uint64_t size = 0;
  bool sealed = false;
};
core::Result<OpenedFile> openChecked(const std::string& path, std::string_view what) {
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
  OpenedFile opened;
  opened.size = std::uint64_t(st.st_size);
  char magic[sizeof kSealMagic];
  opened.sealed = opened.size >= sizeof magic && ::pread(fd, magic, sizeof magic, 0) == ssize_t(sizeof magic) &&
                  looksSealed(magic, sizeof magic);
  opened.fd = closer.release();
  return opened;
}

}  // namespace

core::Result<int> openRegularFileUnsealed(const std::string& path, std::string_view what, bool* wasSealed) {
  if (wasSealed) *wasSealed = false;
  auto opened = openChecked(path, what);
  if (!opened) return opened.error();
  detail::FdGuard closer(opened->fd);
  // A sealed file (io/base/sealed_file.h) is read through a memory file holding its content, so every reader of a
  // descriptor (images, DICOM, label maps) reads it as the plain file.
  if (opened->sealed) {
    if (wasSealed) *wasSealed = true;
    return unsealToMemoryFile(opened->fd, path);  // `closer` closes the sealed file
  }
  return closer.release();
}

core::Result<int> openRegularFile(const std::string& path, std::string_view what) {
  return openRegularFileUnsealed(path, what, nullptr);
}

RandomAccessFile::RandomAccessFile() = default;
RandomAccessFile::RandomAccessFile(RandomAccessFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_size(other.m_size),
      m_sealed(std::move(other.m_sealed)) {}
RandomAccessFile& RandomAccessFile::operator=(RandomAccessFile&& other) noexcept {
  std::swap(m_path, other.m_path);
  std::swap(m_fd, other.m_fd);
  std::swap(m_size, other.m_size);
  std::swap(m_sealed, other.m_sealed);
  return *this;
}
RandomAccessFile::~RandomAccessFile() {
  m_sealed.reset();
  if (m_fd >= 0) ::close(m_fd);
}

core::Result<RandomAccessFile> RandomAccessFile::open(const std::string& path, std::string_view what) {
  auto opened = openChecked(path, what);
  if (!opened) return opened.error();
  RandomAccessFile f;
  f.m_path = path;
  f.m_fd = opened->fd;
  f.m_size = opened->size;
  if (opened->sealed) {
    auto reader = SealedReader::open(f.m_fd, path);
    if (!reader) return reader.error();
    f.m_sealed = std::move(*reader);
    f.m_size = f.m_sealed->size();
  }
  return f;
}

core::Result<std::size_t> RandomAccessFile::readAt(std::uint64_t offset, void* dst, std::size_t n) {
  if (m_sealed) return m_sealed->readAt(offset, dst, n);
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(m_fd, out + done, n - done, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return makeError(ErrorCode::ReadFailed, m_path, "cannot read: " + detail::errnoText(errno));
    if (r == 0) break;
    done += std::size_t(r);
  }
  return done;
}

core::Result<ReadableFile> ReadableFile::open(const std::string& path, std::string_view what) {
  bool sealed = false;
  auto fd = openRegularFileUnsealed(path, what, &sealed);
  if (!fd) return fd.error();
  ReadableFile f;
  f.m_fd = *fd;
  f.m_path = sealed ? "/proc/self/fd/" + std::to_string(*fd) : path;
  f.m_sealed = sealed;
  return f;
}

ReadableFile::ReadableFile(ReadableFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path)), m_sealed(other.m_sealed) {}

ReadableFile& ReadableFile::operator=(ReadableFile&& other) noexcept {
  std::swap(m_fd, other.m_fd);
  std::swap(m_path, other.m_path);
  std::swap(m_sealed, other.m_sealed);
  return *this;
}

ReadableFile::~ReadableFile() {
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace delineate::io
