#pragma once
// Where retrieved and received instances land: a local folder (owner-only) holding one file per SOP Instance UID,
// "<uid>.dcm", each written atomically. C-GET, C-MOVE, WADO-RS and the storage SCP all write through this, so a
// folder filled by any of them can be resumed by any other: an instance already here with the same bytes is not
// written again, and one with other bytes under the same UID is kept as it was and reported.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/base/file_modes.h"

namespace delineate::io {

class InstanceFolder {
 public:
  // Creates the folder (owner-only) when missing and lists the instances already in it; a leftover temporary file of
  // an interrupted write is removed, and so is a "<uid>.dcm" that is not a whole DICOM file's start (files are
  // written without an fsync each, see store(): after a crash one may be empty), so it is retrieved again.
  // `access`: Private (a folder the user chose: plain files) or Sealed (Delineate's own cache: each file sealed at
  // rest under this user's key, io/base/sealed_file.h; a file sealed under another key, or damaged, is dropped and
  // retrieved again). The folder itself is owner-only either way.
  static core::Result<InstanceFolder> open(const std::string& folder, FileAccess access = FileAccess::Private);

  InstanceFolder(InstanceFolder&& other) noexcept;
  InstanceFolder& operator=(InstanceFolder&&) = delete;
  InstanceFolder(const InstanceFolder&) = delete;
  InstanceFolder& operator=(const InstanceFolder&) = delete;

  const std::string& folder() const { return m_folder; }
  // Whether an instance with this SOP Instance UID is here (thread-safe).
  bool has(const std::string& sopInstanceUid) const;
  // The SOP Instance UIDs here, sorted.
  std::vector<std::string> instances() const;

  enum class Stored { Written, SameAlreadyHere, DifferentAlreadyHere };
  // Writes one DICOM Part 10 file's bytes as "<uid>.dcm" (thread-safe), atomically but without an fsync (one per
  // instance cost more than the transfer: bench_pacs.sh); flush() makes the folder durable at the end. The UID must
  // be a DICOM UID (isDicomUid): anything else is refused by name and nothing is written.
  core::Result<Stored> store(const std::string& sopInstanceUid, const void* bytes, std::size_t size);

  // Makes everything stored so far durable (syncfs of the folder's file system).
  void flush() const;

  std::string pathOf(const std::string& sopInstanceUid) const { return m_folder + "/" + sopInstanceUid + ".dcm"; }

 private:
  InstanceFolder(std::string folder, FileAccess access) : m_folder(std::move(folder)), m_access(access) {}
  std::string m_folder;
  FileAccess m_access = FileAccess::Private;
  mutable std::mutex m_mutex;
  std::set<std::string> m_here;
};

}  // namespace delineate::io
