#pragma once
// Who else may read what we write (issue 40): a real second, non-root account tries to open files, in a child process
// that drops to it (setgroups, setgid, setuid), so the kernel's own permission check answers, not our reading of the
// mode bits. scripts/setup.sh creates the account and the group; the tests run as root (to become that account).

#include <catch2/catch.hpp>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/common/test_support.h"

namespace delineate::test {

// The account that must not read patient data, and a group standing for a share's group (the account is no member).
inline constexpr const char* kOtherUserName = "delineate-test-other";
inline constexpr const char* kShareGroupName = "delineate-test-share";

struct OtherUser {
  uid_t uid = 0;
  gid_t gid = 0;         // its own group
  gid_t shareGroup = 0;  // kShareGroupName's id
};

// The second account, or nothing (the test then returns): skipped with a warning where the tests do not run as root
// or the account is missing, and a failure under CI (CI=true), where the prerequisite must be there.
inline std::optional<OtherUser> otherUser() {
  const auto missing = [](const std::string& why) -> std::optional<OtherUser> {
    if (runningInCi()) FAIL("prerequisite missing under CI: " << why);
    WARN("skipped: " << why);
    return std::nullopt;
  };
  if (::geteuid() != 0)
    return missing("permission tests run as root, to open files as a second account (" + std::string(kOtherUserName) + ")");
  const passwd* pw = ::getpwnam(kOtherUserName);
  if (!pw) return missing(std::string("no account ") + kOtherUserName + " (run scripts/setup.sh)");
  if (pw->pw_uid == 0) return missing(std::string(kOtherUserName) + " is root");
  OtherUser u;
  u.uid = pw->pw_uid;
  u.gid = pw->pw_gid;
  const group* gr = ::getgrnam(kShareGroupName);
  if (!gr) return missing(std::string("no group ") + kShareGroupName + " (run scripts/setup.sh)");
  u.shareGroup = gr->gr_gid;
  return u;
}

// Whether `user`, a member of `groups` besides its own, can open `path` for reading (a folder: list it). Runs in a
// forked child that becomes the account; the child calls only async-signal-safe functions.
inline bool canRead(const OtherUser& user, const std::filesystem::path& path, const std::vector<gid_t>& groups = {}) {
  const std::string p = path.string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(user.gid) != 0 || ::setuid(user.uid) != 0)
      ::_exit(3);
    if (::geteuid() != user.uid) ::_exit(3);
    const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) ::_exit(1);
    char byte;
    struct stat st {};
    // A folder is read by listing it; a file by reading a byte of it.
    const bool ok = ::fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || ::read(fd, &byte, 1) >= 0);
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
  }
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) != 3);  // could not become the account: the answer would mean nothing
  return WEXITSTATUS(status) == 0;
}

// Every file and folder below `root` (not root itself), temporary files included.
inline std::vector<std::filesystem::path> everythingBelow(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> all;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) all.push_back(e.path());
  return all;
}

inline unsigned modeOf(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::lstat(path.string().c_str(), &st) == 0);
  return st.st_mode & 07777;
}

inline gid_t groupOf(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::lstat(path.string().c_str(), &st) == 0);
  return st.st_gid;
}

// Sets the process umask for a scope (the tests write under the usual 022, whatever the runner's is).
class UmaskScope {
 public:
  explicit UmaskScope(mode_t mask) : m_old(::umask(mask)) {}
  ~UmaskScope() { ::umask(m_old); }
  UmaskScope(const UmaskScope&) = delete;
  UmaskScope& operator=(const UmaskScope&) = delete;

 private:
  mode_t m_old;
};

// A scratch folder others may enter (mkdtemp makes it 0700, which alone would keep every file in it from them): what
// is tested is the modes of what we write, not those of the test's own folder.
inline void openToOthers(const std::filesystem::path& folder) {
  REQUIRE(::chmod(folder.string().c_str(), 0755) == 0);
}

}  // namespace delineate::test
