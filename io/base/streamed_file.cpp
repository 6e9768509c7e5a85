#include "io/base/streamed_file.h"

#include <utility>

#include "io/base/atomic_file.h"
#include "io/base/gzip.h"

namespace delineate::io {

StreamedFileWriter::~StreamedFileWriter() = default;  // m_file's destructor discards an uncommitted temporary file

core::Result<std::unique_ptr<StreamedFileWriter>> StreamedFileWriter::create(const std::string& path, int gzipLevel) {
  if (gzipLevel != kNoCompression)
    if (core::Status s = checkGzipLevel(gzipLevel, path); !s) return s.error();
  auto file = AtomicFileWriter::create(path);
  if (!file) return file.error();
  std::unique_ptr<StreamedFileWriter> w(new StreamedFileWriter());
  w->m_path = path;
  w->m_file = std::make_unique<AtomicFileWriter>(std::move(*file));
  if (gzipLevel != kNoCompression) {
    AtomicFileWriter* target = w->m_file.get();
    w->m_gzip = std::make_unique<GzipStream>(gzipLevel, path, [target](const std::uint8_t* bytes, std::size_t n) {
      return target->write(bytes, n);
    });
  }
  return w;
}

core::Status StreamedFileWriter::fail(core::Status why) {
  m_file->discard();
  m_failed = why;
  return why;
}

core::Status StreamedFileWriter::writePlain(const void* data, std::size_t size) {
  if (!m_failed) return m_failed;
  if (m_bodyBegun)
    return fail(core::makeError(core::ErrorCode::InvalidArgument, m_path, "a header written after the voxels began"));
  if (core::Status s = m_file->write(data, size); !s) return fail(s);
  return core::Status::success();
}

core::Status StreamedFileWriter::writeBody(const void* data, std::size_t size) {
  if (!m_failed) return m_failed;
  core::Status s = m_gzip ? m_gzip->append(data, size) : m_file->write(data, size);
  if (!s) return fail(s);
  m_bodyBegun = m_bodyBegun || size > 0;
  return s;
}

core::Status StreamedFileWriter::commit() {
  if (!m_failed) return m_failed;
  if (m_gzip)
    if (core::Status s = m_gzip->finish(); !s) return fail(s);
  if (core::Status s = m_file->commit(); !s) return fail(s);
  return core::Status::success();
}

}  // namespace delineate::io
