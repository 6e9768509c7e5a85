#include "io/base/sealed_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <vector>

#include "io/base/file_modes.h"
#include "io/base/posix_util.h"
#include "io/base/regular_file.h"
#include "io/base/sealed_file.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;

namespace {

// A read-only, seekable stream buffer over a RandomAccessFile. Its window is one sealed chunk, aligned to the chunk
// grid, so each chunk is decrypted once per pass and straight into the window; reads of many chunks (a tensor) go
// straight into the caller's memory. A failed read throws, which std::istream turns into badbit.
class ContentBuffer final : public std::streambuf {
 public:
  explicit ContentBuffer(RandomAccessFile file) : m_file(std::move(file)), m_window(kSealChunkBytes) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::uint64_t at = m_windowStart + std::uint64_t(egptr() - eback());  // where the reader stands
    if (!fill(at)) return traits_type::eof();
    return traits_type::to_int_type(*gptr());
  }

  std::streamsize xsgetn(char* dst, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      if (gptr() < egptr()) {
        const std::streamsize take = std::min<std::streamsize>(n - done, egptr() - gptr());
        std::memcpy(dst + done, gptr(), std::size_t(take));
        gbump(int(take));
        done += take;
        continue;
      }
      const std::uint64_t at = position();
      const std::uint64_t left = std::uint64_t(n - done);
      if (left >= kSealChunkBytes) {
        // Whole chunks straight into the caller's memory; the window is left empty, positioned after them.
        const std::size_t want = std::size_t(left - left % kSealChunkBytes);
        const std::size_t got = read(at, dst + done, want);
        done += std::streamsize(got);
        m_windowStart = at + got;
        setg(m_window.data(), m_window.data(), m_window.data());
        if (got < want) break;
        continue;
      }
      if (!fill(at)) break;
    }
    return done;
  }

  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override {
    if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
    std::int64_t base = 0;
    if (dir == std::ios_base::cur) base = std::int64_t(position());
    else if (dir == std::ios_base::end) base = std::int64_t(m_file.size());
    return seekTo(base + off);
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
    return seekTo(std::int64_t(off_type(pos)));
  }
  std::streamsize showmanyc() override {
    const std::uint64_t at = position();
    return at < m_file.size() ? std::streamsize(m_file.size() - at) : -1;
  }

 private:
  std::uint64_t position() const { return m_windowStart + std::uint64_t(gptr() - eback()); }

  pos_type seekTo(std::int64_t target) {
    if (target < 0 || std::uint64_t(target) > m_file.size()) return pos_type(off_type(-1));
    const std::uint64_t t = std::uint64_t(target);
    if (t >= m_windowStart && t <= m_windowStart + std::uint64_t(egptr() - eback())) {
      setg(eback(), eback() + (t - m_windowStart), egptr());  // within the window
    } else {
      m_windowStart = t;
      setg(m_window.data(), m_window.data(), m_window.data());
    }
    return pos_type(off_type(target));
  }

  // The window holding `at`: the chunk it lies in, from its start.
  bool fill(std::uint64_t at) {
    if (at >= m_file.size()) return false;
    const std::uint64_t start = at - at % kSealChunkBytes;
    // The window holds nothing valid while it is read into (a read that throws leaves it empty, at `at`).
    m_windowStart = at;
    setg(m_window.data(), m_window.data(), m_window.data());
    const std::size_t got = read(start, m_window.data(), m_window.size());
    if (got <= at - start) {  // the file ended before `at` (a plain file cut short while read)
      m_windowStart = at;
      setg(m_window.data(), m_window.data(), m_window.data());
      return false;
    }
    m_windowStart = start;
    setg(m_window.data(), m_window.data() + (at - start), m_window.data() + got);
    return true;
  }

  std::size_t read(std::uint64_t at, char* dst, std::size_t n) {
    auto got = m_file.readAt(at, dst, n);
    if (!got) throw std::ios_base::failure(got.error().describe());
    return *got;
  }

  RandomAccessFile m_file;
  std::vector<char> m_window;
  std::uint64_t m_windowStart = 0;  // the file offset of eback()
};

class ContentStream final : public std::istream {
 public:
  explicit ContentStream(RandomAccessFile file) : std::istream(nullptr), m_buffer(std::move(file)) { rdbuf(&m_buffer); }

 private:
  ContentBuffer m_buffer;
};

core::Status writeAll(int fd, const char* data, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return makeError(ErrorCode::WriteFailed, path, detail::errnoText(errno));
    data += w;
    n -= std::size_t(w);
  }
  return core::Status::success();
}

// A file being written, sealed as it is written when a key is given.
class OutputFile final : public core::OutputFile {
 public:
  OutputFile(int fd, std::string path, std::shared_ptr<const AtRestKey> key) : m_fd(fd), m_path(std::move(path)) {
    if (key) m_sealer = std::make_unique<Sealer>(std::move(key));
  }
  ~OutputFile() override {
    if (m_fd >= 0) ::close(m_fd);
  }
  core::Status write(const void* data, std::size_t size) override {
    if (m_fd < 0) return makeError(ErrorCode::WriteFailed, m_path, "written after it was finished");
    if (!m_sealer) return writeAll(m_fd, static_cast<const char*>(data), size, m_path);
    if (core::Status s = m_sealer->add(data, size, m_out); !s) return named(s);
    if (m_out.size() < (std::size_t(1) << 20)) return core::Status::success();
    return drain();
  }
  core::Status finish() override {
    if (m_fd < 0) return makeError(ErrorCode::WriteFailed, m_path, "finished twice");
    if (m_sealer) {
      if (core::Status s = m_sealer->finish(m_out); !s) return named(s);
      if (core::Status s = drain(); !s) return s;
    }
    if (::fsync(m_fd) != 0) return makeError(ErrorCode::WriteFailed, m_path, detail::errnoText(errno));
    const int rc = ::close(m_fd);
    m_fd = -1;
    if (rc != 0) return makeError(ErrorCode::WriteFailed, m_path, detail::errnoText(errno));
    return core::Status::success();
  }

 private:
  // The sealer's errors name its key; this file's name the file being written.
  core::Status named(const core::Status& s) const {
    return makeError(s.error().code, m_path, "cannot seal: " + s.error().detail);
  }
  core::Status drain() {
    core::Status s = writeAll(m_fd, m_out.data(), m_out.size(), m_path);
    m_out.clear();
    return s;
  }
  int m_fd;
  std::string m_path;
  std::unique_ptr<Sealer> m_sealer;
  std::string m_out;  // sealed bytes not yet written
};

class AtRestFileSource final : public core::FileSource {
 public:
  explicit AtRestFileSource(OutputFiles outputs) : m_outputs(outputs) {}
  core::Result<std::unique_ptr<std::istream>> openRead(const std::string& path) const override {
    return openContentStream(path, "file");
  }
  core::Result<std::unique_ptr<core::OutputFile>> create(const std::string& path) const override {
    const FileAccess access = m_outputs == OutputFiles::Sealed ? FileAccess::Sealed : FileAccess::Personal;
    std::shared_ptr<const AtRestKey> key;
    if (access == FileAccess::Sealed && atRestSealingOn()) {
      auto loaded = loadAtRestKey(true);
      if (!loaded) return loaded.error();
      key = *loaded;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, fileModeFor(access));
    if (fd < 0) return makeError(ErrorCode::WriteFailed, path, "cannot create: " + detail::errnoText(errno));
    applyFileMode(fd, access);  // Sealed: exactly 0600, also for a file that was there
    return std::unique_ptr<core::OutputFile>(std::make_unique<OutputFile>(fd, path, std::move(key)));
  }

 private:
  OutputFiles m_outputs;
};

}  // namespace

core::Result<std::unique_ptr<std::istream>> openContentStream(const std::string& path, std::string_view what) {
  auto file = RandomAccessFile::open(path, what);
  if (!file) return file.error();
  return std::unique_ptr<std::istream>(std::make_unique<ContentStream>(std::move(*file)));
}

std::shared_ptr<const core::FileSource> atRestFileSource(OutputFiles outputs) {
  return std::make_shared<const AtRestFileSource>(outputs);
}

}  // namespace delineate::io
