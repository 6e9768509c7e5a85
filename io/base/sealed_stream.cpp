#include "io/base/sealed_stream.h"

#include <algorithm>
#include <cstring>
#include <streambuf>
#include <vector>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/regular_file.h"
#include "io/base/sealed_file.h"

namespace delineate::io {


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

// A training run's output through io's atomic writer (io/base/atomic_file.h), which seals (FileAccess::Sealed with
// sealing on), sets the mode whatever the umask, syncs, and removes its temporary file when dropped unfinished.
class WriterFile final : public core::OutputFile {
 public:
  explicit WriterFile(AtomicFileWriter writer) : m_writer(std::move(writer)) {}
  core::Status write(const void* data, std::size_t size) override { return m_writer.write(data, size); }
  core::Status finish() override { return m_writer.commit(); }

 private:
  AtomicFileWriter m_writer;
};

class AtRestFileSource final : public core::FileSource {
 public:
  explicit AtRestFileSource(OutputFiles outputs) : m_outputs(outputs) {}
  core::Result<std::unique_ptr<std::istream>> openRead(const std::string& path) const override {
    return openContentStream(path, "file");
  }
  core::Result<std::unique_ptr<core::OutputFile>> create(const std::string& path) const override {
    AtomicWriteOptions options;
    options.access = m_outputs == OutputFiles::Sealed ? FileAccess::Sealed : FileAccess::Personal;
    auto writer = AtomicFileWriter::create(path, options);
    if (!writer) return writer.error();
    return std::unique_ptr<core::OutputFile>(std::make_unique<WriterFile>(std::move(*writer)));
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
