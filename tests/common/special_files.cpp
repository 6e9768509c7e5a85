#include "tests/common/special_files.h"

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>

namespace delineate::test {

void bindSocket(const std::filesystem::path& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = path.string();
  REQUIRE(p.size() < sizeof addr.sun_path);
  std::copy(p.begin(), p.end(), addr.sun_path);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
}

std::vector<SpecialFile> makeSpecialFiles(const ScratchDir& dir, const std::string& extension) {
  namespace fs = std::filesystem;
  const fs::path fifo = dir / ("pipe" + extension), sock = dir / ("sock" + extension),
                 zero = dir / ("zero" + extension), folder = dir / ("folder" + extension);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  bindSocket(sock);
  fs::create_symlink("/dev/zero", zero);
  fs::create_directory(folder);
  return {{fifo, "named pipe (FIFO)"}, {sock, "socket"}, {zero, "character device"}, {folder, "folder"}};
}

}  // namespace delineate::test
