#pragma once
// Crash-safe file replacement: data goes to a temporary file beside the target, is flushed to disk, and only then
// renamed over the target. Readers see either the complete old file or the complete new one, never a mix, and a
// failed save leaves the previous file byte-identical (ARCHITECTURE.md: "a failed save leaves the previous file
// untouched"). POSIX only: rename(2) within one folder is what provides the atomicity.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "io/base/file_modes.h"

namespace delineate::io {

class Sha256;
class Sealer;
struct AtRestKey;

// The detail of the WriteFailed error for a target that exists where the write must create a new file
// (AtomicWriteOptions::noReplace): callers that race for a name (revision numbers, leases) test for it.
inline constexpr const char* kAlreadyExistsDetail = "the file already exists and must not be replaced";
inline bool isAlreadyExists(const core::Error& e) {
  return e.code == core::ErrorCode::WriteFailed && e.detail == kAlreadyExistsDetail;
}

// Wall-clock seconds spent in each phase of atomic writes, summed over every write that points at it (benchmarks
// and diagnostics; bench/share_store.cpp prints them). `write` includes hashing while writing, `verify` is the
// read-back and its hash, `publish` the rename or link plus the folder fsync.
struct WritePhaseTimes {
  double write = 0;
  double fsync = 0;
  double close = 0;
  double verify = 0;
  double publish = 0;
  std::uint64_t bytes = 0;
  int files = 0;  // committed
};

// What the share store asks of a write beyond atomic replacement (io/share/share_store.h).
struct AtomicWriteOptions {
  // Hash what is written (SHA-256), and after fsync + close read the temporary file back and compare, so a share
  // that loses or damages data on the way is caught before the file becomes visible. Also lets commit() recognise a
  // rename that succeeded although it reported failure (NFS retransmits): the target is re-read and compared.
  bool verifyReadBack = false;
  // Publish under the target name only if nothing is there yet (link(2), which is atomic and exclusive on NFS too);
  // an existing target is a WriteFailed error naming it. Where the file system has no hard links,
  // rename is used after checking the target is absent (a small window; said here rather than hidden).
  bool noReplace = false;
  // With verifyReadBack: the content's SHA-256 must be this (hex), else nothing is published (a file stored under its
  // hash's name never appears with other bytes, not even for a moment).
  std::string expectedSha256;
  // When set, each phase's time is added here (not thread-safe: one writer at a time per WritePhaseTimes).
  WritePhaseTimes* times = nullptr;
  // Who may read the file (io/base/file_modes.h): a path the user chose (0640 narrowed by the umask; a replaced
  // file keeps its mode and group), the share store (0640 exactly, the folder's group) or a local cache (0600).
  FileAccess access = FileAccess::Personal;
  // false: no fsync of the file or its folder. Only for a local cache whose reader checks what it finds (io/pacs's
  // instance folders: a PACS retrieve writes hundreds of files, and an fsync each cost more than the transfer); after
  // a crash a published file may be empty or short, never a mix of two files.
  bool sync = true;
  // Seal the content under this key (io/base/sealed_file.h), whatever `access` says: a share's content key for the
  // share's content files (io/share/share_store.h). Null: FileAccess::Sealed decides.
  std::shared_ptr<const AtRestKey> sealKey;
};

// Whether a file name is one of AtomicFileWriter's temporary files (".<name>.tmp-<random>"): what a writer killed
// before publishing leaves behind.
bool isAtomicTempFileName(const std::string& fileName);

class AtomicFileWriter {
 public:
  // Creates "<folder>/.<name>.tmp-<random>" beside `targetPath`. The folder must exist; it is not created, so a
  // typo in a path cannot scatter folders across a share. The file's mode is options.access's (never readable by
  // others); a Personal target that exists has its permission bits copied, so replacing a file does not silently
  // change who may read it.
  static core::Result<AtomicFileWriter> create(const std::string& targetPath, const AtomicWriteOptions& options = {});

  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();  // discards the temporary file unless commit() succeeded

  // Appends to the temporary file (sealed as it goes for FileAccess::Sealed with sealing on, or under
  // options.sealKey: io/base/sealed_file.h; then verifyReadBack reads the sealed bytes back, and sha256Hex() and
  // expectedSha256 are of the content). After a failure the writer is discarded (temp removed) and every later call
  // fails.
  core::Status write(const void* data, std::size_t size);

  // fsync, close, rename over the target, fsync the folder. On failure the temporary file is removed and the target
  // is exactly as it was before create().
  core::Status commit();

  // Removes the temporary file; the target is not touched. Safe to call more than once.
  void discard();

  const std::string& targetPath() const { return m_target; }
  const std::string& tempPath() const { return m_temp; }
  // Hex SHA-256 of the content written (before sealing); empty unless verifyReadBack. Final once commit() succeeded.
  const std::string& sha256Hex() const { return m_hashHex; }

 private:
  AtomicFileWriter() = default;
  core::Status fail(const std::string& what, int errnoValue);

  core::Status publish();
  core::Status writeRaw(const void* data, std::size_t size);

  std::string m_target;
  std::string m_temp;
  int m_fd = -1;
  bool m_done = false;  // committed or discarded
  // Bytes written, and up to where the kernel was asked to start writing them to disk (see write()).
  std::uint64_t m_written = 0, m_writebackStarted = 0;
  AtomicWriteOptions m_options;
  std::unique_ptr<Sha256> m_hash;  // when verifyReadBack
  std::string m_hashHex;
  std::unique_ptr<Sha256> m_contentHash;  // verifyReadBack on a sealed file: of the plaintext
  std::string m_rawHashHex;               // of the bytes on disk, what the read-back is checked against
  std::unique_ptr<Sealer> m_sealer;  // FileAccess::Sealed with sealing on, or options.sealKey
  std::string m_sealed;              // sealed bytes waiting to be written
};

// One-shot helper for a buffer already in memory.
core::Status writeFileAtomically(const std::string& targetPath, const void* data, std::size_t size,
                                 const AtomicWriteOptions& options = {});

}  // namespace delineate::io
