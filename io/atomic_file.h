#pragma once
// Crash-safe file replacement: data goes to a temporary file beside the target, is flushed to disk, and only then
// renamed over the target. Readers see either the complete old file or the complete new one, never a mix, and a
// failed save leaves the previous file byte-identical (ARCHITECTURE.md: "a failed save leaves the previous file
// untouched"). POSIX only: rename(2) within one folder is what provides the atomicity.

#include <cstddef>
#include <string>

#include "core/error.h"

namespace delineate::io {

class AtomicFileWriter {
 public:
  // Creates "<folder>/.<name>.tmp-<random>" beside `targetPath`. The folder must exist; it is not created, so a
  // typo in a path cannot scatter folders across a share. When the target exists its permission bits are copied,
  // so replacing a file does not silently change who may read it.
  static core::Result<AtomicFileWriter> create(const std::string& targetPath);

  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();  // discards the temporary file unless commit() succeeded

  // Appends to the temporary file. After a failure the writer is discarded (temp removed) and every later call fails.
  core::Status write(const void* data, std::size_t size);

  // fsync, close, rename over the target, fsync the folder. On failure the temporary file is removed and the target
  // is exactly as it was before create().
  core::Status commit();

  // Removes the temporary file; the target is not touched. Safe to call more than once.
  void discard();

  const std::string& targetPath() const { return m_target; }
  const std::string& tempPath() const { return m_temp; }

 private:
  AtomicFileWriter() = default;
  core::Status fail(const std::string& what, int errnoValue);

  std::string m_target;
  std::string m_temp;
  int m_fd = -1;
  bool m_done = false;  // committed or discarded
};

// One-shot helper for a buffer already in memory.
core::Status writeFileAtomically(const std::string& targetPath, const void* data, std::size_t size);

}  // namespace delineate::io
