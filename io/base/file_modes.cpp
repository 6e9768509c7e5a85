#include "io/base/file_modes.h"

#include "io/base/posix_util.h"

#include <sys/stat.h>

#include <cerrno>

namespace delineate::io {

mode_t fileModeFor(FileAccess access) {
  switch (access) {
    case FileAccess::Share: return 0640;
    case FileAccess::Private:
    case FileAccess::Sealed: return 0600;
    case FileAccess::Personal: break;
  }
  return 0640;
}

mode_t folderModeFor(FileAccess access) {
  switch (access) {
    case FileAccess::Share: return 02770;
    case FileAccess::Private:
    case FileAccess::Sealed: return 0700;
    case FileAccess::Personal: break;
  }
  return 0750;
}

bool modeIsExact(FileAccess access) { return access != FileAccess::Personal; }

void applyFileMode(int fd, FileAccess access) {
  if (modeIsExact(access)) (void)::fchmod(fd, fileModeFor(access));
}

core::Status createFolders(const std::string& folder, FileAccess access) {
  if (folder.empty()) return core::Status::success();
  struct stat st {};
  if (::stat(folder.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return core::Status::success();
    return core::makeError(core::ErrorCode::WriteFailed, folder, "cannot create the folder: a file is in the way");
  }
  std::string path = folder;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    if (core::Status s = createFolders(path.substr(0, slash), access); !s) return s;
  // Exact modes start at 0700, so the folder is never open to more than it will be while its mode is set; a
  // Personal folder takes its mode from mkdir(2), narrowed by the umask (reading the umask is not thread-safe).
  const bool exact = modeIsExact(access);
  if (::mkdir(path.c_str(), exact ? 0700 : folderModeFor(access)) != 0) {
    const int e = errno;
    if (e == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return core::Status::success();  // another process made it: its mode is that process's business
    return core::makeError(core::ErrorCode::WriteFailed, path, "cannot create the folder: " + detail::errnoText(e));
  }
  if (exact) (void)::chmod(path.c_str(), folderModeFor(access));  // best effort: some shares ignore modes
  return core::Status::success();
}

}  // namespace delineate::io
