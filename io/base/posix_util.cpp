#include "io/base/posix_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <cerrno>
#include <vector>

namespace delineate::io::detail {

std::string errnoText(int e) { return std::strerror(e); }

void syncFolder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

bool removeEmptyFolder(const std::string& folder) {
  constexpr int kWaits = 100;  // 20 ms each
  for (int attempt = 0;; ++attempt) {
    if (::rmdir(folder.c_str()) == 0 || errno == ENOENT) return true;
    if ((errno != ENOTEMPTY && errno != EEXIST) || attempt > kWaits) return false;
    DIR* d = ::opendir(folder.c_str());
    if (!d) return false;
    bool onlyHidden = true;
    std::vector<std::string> hidden;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (name.rfind(".fuse_hidden", 0) == 0) hidden.push_back(name);
      else onlyHidden = false;
    }
    ::closedir(d);
    if (!onlyHidden) return false;
    if (attempt == kWaits)  // still there: lost by libfuse, unlinked by hand (then one last rmdir)
      for (const std::string& name : hidden) ::unlink((folder + "/" + name).c_str());
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

namespace {
std::uint64_t entropySeed() {
  std::uint64_t seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) ^
                       (static_cast<std::uint64_t>(::getpid()) << 32);
  try {
    std::random_device rd;
    seed ^= (std::uint64_t(rd()) << 32) ^ rd();
  } catch (...) {  // no entropy source: time and pid, with the counter below, still keep names apart
  }
  return seed;
}
}  // namespace

std::string randomHex(std::size_t bytes) {
  static std::atomic<std::uint64_t> counter{0};
  thread_local std::mt19937_64 rng{entropySeed()};
  // A forked child inherits the generator and the counter: without a reseed it would repeat its parent's names
  // and tokens (two lease holders with one token).
  thread_local pid_t seededBy = ::getpid();
  if (const pid_t now = ::getpid(); now != seededBy) {
    rng.seed(entropySeed());
    seededBy = now;
  }
  std::string out;
  out.reserve(bytes * 2);
  char buf[17];
  for (std::size_t done = 0; done < bytes; done += 8) {
    const std::uint64_t v = rng() ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    out.append(buf, std::min<std::size_t>(16, (bytes - done) * 2));
  }
  return out;
}

FdGuard::~FdGuard() {
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace delineate::io::detail
