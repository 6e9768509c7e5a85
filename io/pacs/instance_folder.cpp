#include "io/pacs/instance_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/sealed_file.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io {
namespace {
namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

constexpr const char* kSuffix = ".dcm";

// A Part 10 file starts with a 128-byte preamble and "DICM"; one cut short by a crash (written without an fsync)
// is empty or shorter than its meta header says the file is at least.
// A sealed one must also open under this user's key, its first chunk authenticated.
bool looksWhole(const fs::path& path) {
  if (isSealedFile(path.string())) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool whole = false;
    if (auto reader = SealedReader::open(fd, path.string()); reader && (*reader)->size() > 140) {
      char head[132];
      auto n = (*reader)->readAt(0, head, sizeof head);
      whole = n && *n == sizeof head && std::string(head + 128, 4) == "DICM";
    }
    ::close(fd);
    return whole;
  }
  std::ifstream in(path, std::ios::binary);
  char head[132];
  if (!in.read(head, sizeof head)) return false;
  if (std::string(head + 128, 4) != "DICM") return false;
  in.seekg(0, std::ios::end);
  return in.tellg() > 140;
}
}  // namespace

void InstanceFolder::flush() const {
  const int fd = ::open(m_folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::syncfs(fd);
  ::close(fd);
}

InstanceFolder::InstanceFolder(InstanceFolder&& other) noexcept
    : m_folder(std::move(other.m_folder)), m_access(other.m_access) {
  std::lock_guard<std::mutex> lock(other.m_mutex);
  m_here = std::move(other.m_here);
}

core::Result<InstanceFolder> InstanceFolder::open(const std::string& folder, FileAccess access) {
  if (folder.empty()) return makeError(ErrorCode::InvalidArgument, folder, "no folder given for the instances");
  if (core::Status s = createFolders(folder, FileAccess::Private); !s) return s.error();
  InstanceFolder out(folder, access == FileAccess::Sealed ? FileAccess::Sealed : FileAccess::Private);
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (isAtomicTempFileName(name)) {
      std::error_code e;
      fs::remove(it->path(), e);
      continue;
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, kSuffix) == 0 && it->is_regular_file(ec)) {
      const std::string uid = name.substr(0, name.size() - 4);
      if (!isDicomUid(uid)) continue;
      if (looksWhole(it->path())) {
        out.m_here.insert(uid);
      } else {
        std::error_code e;
        fs::remove(it->path(), e);
      }
    }
  }
  if (ec) return makeError(ErrorCode::ReadFailed, folder, "cannot list the folder: " + ec.message());
  return out;
}

bool InstanceFolder::has(const std::string& sopInstanceUid) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_here.count(sopInstanceUid) != 0;
}

std::vector<std::string> InstanceFolder::instances() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return {m_here.begin(), m_here.end()};
}

core::Result<InstanceFolder::Stored> InstanceFolder::store(const std::string& sopInstanceUid, const void* bytes,
                                                           std::size_t size) {
  if (!isDicomUid(sopInstanceUid))
    return makeError(ErrorCode::InvalidArgument, m_folder,
                     "an instance's SOP Instance UID \"" + sopInstanceUid.substr(0, 80) +
                         "\" is not a DICOM UID: not stored");
  const std::string path = pathOf(sopInstanceUid);
  if (has(sopInstanceUid)) {
    // Same UID: the same bytes are a duplicate; other bytes are kept out (the first one stays) and reported.
    auto existing = readWholeFile(path, std::uintmax_t(size) + 1, "DICOM instance");  // a sealed one: its content
    if (existing && existing->size() == size && std::equal(existing->begin(), existing->end(), static_cast<const char*>(bytes)))
      return Stored::SameAlreadyHere;
    return Stored::DifferentAlreadyHere;
  }
  AtomicWriteOptions options;
  options.access = m_access;
  options.noReplace = true;  // two writers of one UID: the first wins, the second sees it
  options.sync = false;      // flush() once at the end; open() drops a file a crash cut short
  core::Status s = writeFileAtomically(path, bytes, size, options);
  if (!s) {
    if (isAlreadyExists(s.error())) {
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_here.insert(sopInstanceUid);
      }
      return store(sopInstanceUid, bytes, size);  // compared with what the other writer stored
    }
    return s.error();
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  m_here.insert(sopInstanceUid);
  return Stored::Written;
}

}  // namespace delineate::io
