#pragma once
// A file written as its content arrives, never held whole: plain bytes first (a text header), then a body that goes
// through gzip (io::GzipStream, the indexed members every reader of ours inflates in parallel) or straight to the
// file. Written through AtomicFileWriter, so nothing is visible before commit(); any failure discards the temporary
// file at once, leaves the target as it was, and is the answer to every later call.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"

namespace delineate::io {

class AtomicFileWriter;
class GzipStream;

class StreamedFileWriter {
 public:
  // gzipLevel: libdeflate level 0..12 for a compressed body, or kNoCompression.
  static constexpr int kNoCompression = -1;
  static core::Result<std::unique_ptr<StreamedFileWriter>> create(const std::string& path, int gzipLevel);
  ~StreamedFileWriter();
  StreamedFileWriter(const StreamedFileWriter&) = delete;
  StreamedFileWriter& operator=(const StreamedFileWriter&) = delete;

  // Uncompressed bytes before the body (refused once the body has begun).
  core::Status writePlain(const void* data, std::size_t size);
  core::Status writeBody(const void* data, std::size_t size);
  // Ends the body (its last gzip member) and publishes the file.
  core::Status commit();
  // Discards the temporary file, recording `why` as the answer from now on (a caller's own refusal).
  core::Status fail(core::Status why);
  const std::string& path() const { return m_path; }

 private:
  StreamedFileWriter() = default;

  std::string m_path;
  std::unique_ptr<AtomicFileWriter> m_file;
  std::unique_ptr<GzipStream> m_gzip;
  bool m_bodyBegun = false;  // writePlain is refused once a body byte came
  core::Status m_failed = core::Status::success();
};

}  // namespace delineate::io
