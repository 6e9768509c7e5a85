// A fault shim for tests, loaded with LD_PRELOAD into a program under test (the CLI's share commands): it makes the
// filesystem calls of the verified write path misbehave the way a failing machine or network share does, steered by
// environment variables. Nothing in the product links it.
//
//   DELINEATE_FAULT_FSYNC_NOOP=1           fsync and fdatasync return success without flushing (an fsync that lies)
//   DELINEATE_FAULT_KILL=WHEN:OP:MATCH     SIGKILL the process at the first OP call whose path contains MATCH
//                                          (or, with a trailing '$', ends with it),
//                                          WHEN = before (the call does not happen) or after (it has happened).
//                                          OP = fsync (the path of the fd; a folder's fsync too), link, rename.
//                                          For link and rename the path is the new name.
//   DELINEATE_FAULT_KILL_SIGNAL=INT|TERM   what DELINEATE_FAULT_KILL sends instead of SIGKILL (an interrupt the
//                                          program may handle: Ctrl-C, a scheduler's SIGTERM)
//   DELINEATE_FAULT_LIE=OP:MATCH:ERRNO     the first OP (link or rename) whose new name contains MATCH happens, then
//                                          reports failure with ERRNO (EIO or EEXIST): a reply lost on the network
//                                          and the retried call failing.
// Every fault fires once per process.
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Rule {
  bool set = false;
  bool fired = false;
  std::string when, op, match;
  int error = EIO;
};

Rule parse(const char* variable, bool withWhen) {
  Rule r;
  const char* v = std::getenv(variable);
  if (!v || !*v) return r;
  std::string s(v);
  auto next = [&s]() {
    const auto colon = s.find(':');
    std::string head = s.substr(0, colon);
    s = colon == std::string::npos ? std::string() : s.substr(colon + 1);
    return head;
  };
  if (withWhen) r.when = next();
  r.op = next();
  r.match = next();
  if (!withWhen) r.error = s == "EEXIST" ? EEXIST : EIO;
  r.set = true;
  return r;
}

Rule& killRule() {
  static Rule r = parse("DELINEATE_FAULT_KILL", true);
  return r;
}
Rule& lieRule() {
  static Rule r = parse("DELINEATE_FAULT_LIE", false);
  return r;
}

// MATCH is a substring of the path, or with a trailing '$' its end ("labels$": the folder itself, not its files).
bool matches(Rule& r, const char* op, const std::string& path) {
  if (!r.set || r.fired || r.op != op) return false;
  if (!r.match.empty() && r.match.back() == '$') {
    const std::string tail = r.match.substr(0, r.match.size() - 1);
    return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  }
  return path.find(r.match) != std::string::npos;
}

void killIf(const char* when, const char* op, const std::string& path) {
  Rule& r = killRule();
  if (matches(r, op, path) && r.when == when) {
    r.fired = true;
    const char* name = std::getenv("DELINEATE_FAULT_KILL_SIGNAL");
    const std::string signal = name ? name : "";
    const int number = signal == "INT" ? SIGINT : signal == "TERM" ? SIGTERM : SIGKILL;
    std::fprintf(stderr, "fs_faults: SIG%s %s %s %s\n", number == SIGKILL ? "KILL" : signal.c_str(), when, op, path.c_str());
    std::fflush(stderr);
    ::kill(::getpid(), number);
  }
}

std::string pathOfFd(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char target[4096];
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : std::string();
}

template <typename F>
F real(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

int syncCall(const char* name, int fd) {
  using Fn = int (*)(int);
  static Fn fsyncFn = real<Fn>("fsync");
  static Fn fdatasyncFn = real<Fn>("fdatasync");
  const std::string path = pathOfFd(fd);
  killIf("before", "fsync", path);
  const char* noop = std::getenv("DELINEATE_FAULT_FSYNC_NOOP");
  const int rc = noop && *noop == '1' ? 0 : (std::strcmp(name, "fsync") == 0 ? fsyncFn(fd) : fdatasyncFn(fd));
  killIf("after", "fsync", path);
  return rc;
}

int twoPathCall(const char* op, int (*fn)(const char*, const char*), const char* from, const char* to) {
  const std::string path = to ? to : "";
  killIf("before", op, path);
  const int rc = fn(from, to);
  const int saved = errno;
  killIf("after", op, path);
  Rule& lie = lieRule();
  if (rc == 0 && matches(lie, op, path)) {
    lie.fired = true;
    std::fprintf(stderr, "fs_faults: %s %s happened, reported as failed\n", op, path.c_str());
    errno = lie.error;
    return -1;
  }
  errno = saved;
  return rc;
}

}  // namespace

extern "C" {

int fsync(int fd) { return syncCall("fsync", fd); }
int fdatasync(int fd) { return syncCall("fdatasync", fd); }

int link(const char* from, const char* to) {
  using Fn = int (*)(const char*, const char*);
  static Fn fn = real<Fn>("link");
  return twoPathCall("link", fn, from, to);
}

int rename(const char* from, const char* to) {
  using Fn = int (*)(const char*, const char*);
  static Fn fn = real<Fn>("rename");
  return twoPathCall("rename", fn, from, to);
}

}  // extern "C"
