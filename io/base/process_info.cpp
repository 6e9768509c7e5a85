#include "io/base/process_info.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <vector>

namespace delineate::io {

std::string processUserName() {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && found->pw_name &&
      found->pw_name[0] != '\0')
    return found->pw_name;
  if (const char* user = std::getenv("USER"); user && user[0] != '\0') return user;
  return "uid-" + std::to_string(::geteuid());
}

std::string authorName() {
  if (const char* author = std::getenv("DELINEATE_AUTHOR"); author && author[0] != '\0') return author;
  return processUserName();
}

std::string localHostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string utcNowIso() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[80];  // room for any int fields, so -Wformat-truncation stays quiet
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

std::string userCacheFolder() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/delineate";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/delineate";
  return (std::filesystem::temp_directory_path() / "delineate-cache").string();
}

std::string userConfigFolder() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/delineate";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/delineate";
  return (std::filesystem::temp_directory_path() / "delineate-config").string();
}

}  // namespace delineate::io
