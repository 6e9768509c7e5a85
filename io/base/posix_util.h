#pragma once
// Small POSIX helpers shared by io's file-writing code (atomic writes, share store, audit log, autosave journal).
// Internal to io/: not part of its interface.

#include <cstddef>
#include <string>
#include <utility>

namespace delineate::io::detail {

// strerror(e) as a string.
std::string errnoText(int e);

// fsync of a folder, so a rename or link in it is durable. Best effort: some file systems (network shares) refuse
// fsync on folders, and by then the data itself is already on disk.
void syncFolder(const std::string& folder);

// Removes `folder` when it is empty (rmdir). On a FUSE mount (sshfs) a file unlinked just after its close can be kept
// as ".fuse_hidden..." until the close reaches the file system; while those are all the folder holds, this waits for
// them (up to about two seconds). libfuse can lose track of one (its release and the hiding rename racing: seen under
// ASan, where it stayed for good with no descriptor open anywhere), so after the wait the hidden files themselves are
// unlinked: they are files already deleted. Only for a folder the caller made and holds. Returns whether it is gone.
bool removeEmptyFolder(const std::string& folder);

// `bytes` random bytes as lowercase hex (2 x bytes digits), for temporary names, tokens and ids. Seeded per thread
// from random_device (with time and pid where it has no entropy), reseeded in a forked child, and mixed with a
// process-wide counter, so names never repeat within a process; exclusive creation resolves clashes between
// processes.
std::string randomHex(std::size_t bytes);

// Closes a descriptor at the end of its scope unless release()d.
class FdGuard {
 public:
  explicit FdGuard(int fd) : m_fd(fd) {}
  ~FdGuard();
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int release() { return std::exchange(m_fd, -1); }

 private:
  int m_fd;
};

}  // namespace delineate::io::detail
