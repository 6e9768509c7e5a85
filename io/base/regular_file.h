#pragma once
// The one check every reader of a user-given path makes before it opens the path: is it a regular file?
//
// A named pipe blocks open(2) until someone writes to it (`mkfifo x.nii; delineate-cli info x.nii` used to hang),
// /dev/zero never ends, a socket cannot be opened at all, and a folder is not an image. Readers of images, label
// maps, DICOM files and label tables therefore classify the path with stat(2) first, so such a path is refused with
// its kind named and is never opened (opening some devices has effects of its own), and then open it without
// blocking and check again on the descriptor, so a file swapped for a pipe between the two looks is refused too.
//
// io/base/file_read.h is different on purpose: it reads the store's own records (and pipes and devices there to
// their end, never waiting). User-given inputs that it reads (label tables) call checkRegularFile first.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"

namespace delineate::io {

// What a stat mode is, in words, when it is not a regular file ("a named pipe (FIFO)", "a socket", "a character
// device", "a block device", "a folder"); empty for a regular file.
std::string specialFileKind(unsigned mode);

// Success for a regular file (symbolic links followed). Otherwise an error naming `path`: NotFound (missing) or
// ReadFailed ("<what> is a named pipe (FIFO), not a regular file"). `what` names the kind of input ("image file").
core::Status checkRegularFile(const std::string& path, std::string_view what);

// As checkRegularFile, then open(2) read-only (close-on-exec) without ever blocking, the descriptor checked again
// with fstat and returned in blocking mode. The caller closes it.
// A file that io sealed at rest (io/base/sealed_file.h) gives a descriptor of a memory file holding its content
// (errors name `path`: damaged, another user's key), so it reads as the plain file would.
core::Result<int> openRegularFile(const std::string& path, std::string_view what);
// As openRegularFile; `wasSealed` says whether the descriptor is a sealed file's content.
core::Result<int> openRegularFileUnsealed(const std::string& path, std::string_view what, bool* wasSealed);

class SealedReader;

// A regular file read at offsets (openRegularFile's checks): its bytes, or for a sealed file its content, decrypted
// chunk by chunk as it is read (io/base/sealed_file.h), so a reader of a few parts (the DICOM pre-scan) decrypts only
// those. Not thread-safe.
class RandomAccessFile {
 public:
  static core::Result<RandomAccessFile> open(const std::string& path, std::string_view what);
  RandomAccessFile();
  RandomAccessFile(RandomAccessFile&& other) noexcept;
  RandomAccessFile& operator=(RandomAccessFile&& other) noexcept;
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;
  ~RandomAccessFile();
  const std::string& path() const { return m_path; }
  std::uint64_t size() const { return m_size; }
  bool sealed() const { return m_sealed != nullptr; }
  // Up to n bytes at offset; fewer only at the end. Errors name the file (ReadFailed; Corrupt for a sealed chunk
  // that fails its authentication).
  core::Result<std::size_t> readAt(std::uint64_t offset, void* dst, std::size_t n);

 private:
  std::string m_path;
  int m_fd = -1;
  std::uint64_t m_size = 0;
  std::unique_ptr<SealedReader> m_sealed;
};

// A path that a library opening files by name (DCMTK, ITK) can read: the file's own path, or for a sealed file
// "/proc/self/fd/N" of the memory file with its content, valid while this object lives. Errors as openRegularFile.
class ReadableFile {
 public:
  static core::Result<ReadableFile> open(const std::string& path, std::string_view what);
  ReadableFile() = default;
  ReadableFile(ReadableFile&& other) noexcept;
  ReadableFile& operator=(ReadableFile&& other) noexcept;
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;
  ~ReadableFile();
  const std::string& path() const { return m_path; }
  int fd() const { return m_fd; }
  // Whether path() is a sealed file's memory file: a reader that opens by name later (DCMTK's values read lazily)
  // must read everything at once, as the name dies with this object.
  bool sealed() const { return m_sealed; }

 private:
  int m_fd = -1;
  std::string m_path;
  bool m_sealed = false;
};

}  // namespace delineate::io
