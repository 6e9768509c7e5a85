#include "inference/training/case_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace delineate::inference::training {

namespace {

core::Status writeAll(int fd, const void* data, std::size_t size, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return core::makeError(core::ErrorCode::WriteFailed, path, std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return core::Status::success();
}

// Writes `size` bytes at the end of the file, encrypted first (in pieces of 1 MiB) when there is a cipher; `offset` is
// where they land in the file.
core::Status writeSpill(int fd, const void* data, std::size_t size, std::uint64_t offset, const SpillCipher* cipher,
                        std::uint32_t file, const std::string& path) {
  if (!cipher) return writeAll(fd, data, size, path);
  std::vector<char> piece(std::min<std::size_t>(size, std::size_t(1) << 20));
  const auto* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < size;) {
    const std::size_t n = std::min(piece.size(), size - done);
    std::memcpy(piece.data(), p + done, n);
    if (core::Status s = cipher->apply(piece.data(), n, offset + done, file); !s) return s;
    if (core::Status s = writeAll(fd, piece.data(), n, path); !s) return s;
    done += n;
  }
  return core::Status::success();
}

core::Status readAll(int fd, void* data, std::size_t size, off_t offset, const std::string& path,
                     const SpillCipher* cipher, std::uint32_t file) {
  if (cipher) {
    if (core::Status s = readAll(fd, data, size, offset, path, nullptr, 0); !s) return s;
    return cipher->apply(data, size, static_cast<std::uint64_t>(offset), file);
  }
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return core::makeError(core::ErrorCode::ReadFailed, path, n == 0 ? "spill file shorter than its case" : std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += n;
  }
  return core::Status::success();
}

}  // namespace

CaseCache::Case::~Case() {
  if (fd >= 0) ::close(fd);
  if (!spillPath.empty()) {
    std::error_code ec;
    std::filesystem::remove(spillPath, ec);
  }
}

CaseCache::CaseCache(std::size_t budgetBytes, std::string spillFolder, std::shared_ptr<const SpillCipher> cipher)
    : m_budget(budgetBytes), m_spillFolder(std::move(spillFolder)), m_cipher(std::move(cipher)) {}

CaseCache::~CaseCache() {
  m_cases.clear();
  std::error_code ec;
  if (!m_spillFolder.empty() && std::filesystem::is_empty(m_spillFolder, ec)) std::filesystem::remove(m_spillFolder, ec);
}

core::Status CaseCache::add(PreparedCase prepared) {
  auto c = std::make_unique<Case>();
  c->info.id = prepared.id;
  c->info.split = prepared.split;
  c->info.size = prepared.size;
  c->info.classVoxels = std::move(prepared.classVoxels);
  const std::size_t bytes = prepared.bytes();
  if (m_resident + bytes <= m_budget) {
    c->image = std::move(prepared.image);
    c->labels = std::move(prepared.labels);
    m_resident += bytes;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(m_spillFolder, ec);
    if (ec) return core::makeError(core::ErrorCode::WriteFailed, m_spillFolder, ec.message());
    (void)::chmod(m_spillFolder.c_str(), 0700);  // voxels of patients' images: this user's alone (a run's own folder)
    // Named by this process and the case: two runs sharing an output folder never write each other's files.
    c->spillPath = (std::filesystem::path(m_spillFolder) /
                    ("case-" + std::to_string(::getpid()) + "-" + std::to_string(m_cases.size()) + ".raw")).string();
    c->fd = ::open(c->spillPath.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (c->fd < 0) return core::makeError(core::ErrorCode::WriteFailed, c->spillPath, std::strerror(errno));
    const std::size_t imageBytes = prepared.image.size() * sizeof(float);
    c->spillNumber = static_cast<std::uint32_t>(m_cases.size());
    if (core::Status s = writeSpill(c->fd, prepared.image.data(), imageBytes, 0, m_cipher.get(), c->spillNumber, c->spillPath);
        !s)
      return s;
    if (core::Status s = writeSpill(c->fd, prepared.labels.data(), prepared.labels.size() * sizeof(std::uint16_t), imageBytes,
                                    m_cipher.get(), c->spillNumber, c->spillPath);
        !s)
      return s;
    c->info.spilled = true;
    m_spilled += bytes;
  }
  m_cases.push_back(std::move(c));
  return core::Status::success();
}

core::Status CaseCache::readBox(std::size_t k, const std::array<std::int64_t, 3>& start,
                                const std::array<std::int64_t, 3>& extent, float* image, std::uint16_t* labels) const {
  const Case& c = *m_cases.at(k);
  const auto& n = c.info.size;
  const std::size_t count = static_cast<std::size_t>(extent[0] * extent[1] * extent[2]);
  std::fill(image, image + count, 0.0f);
  std::fill(labels, labels + count, std::uint16_t{0});
  std::int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max<std::int64_t>(0, start[static_cast<std::size_t>(a)]);
    hi[a] = std::min<std::int64_t>(n[static_cast<std::size_t>(a)], start[static_cast<std::size_t>(a)] + extent[static_cast<std::size_t>(a)]);
    if (hi[a] <= lo[a]) return core::Status::success();
  }
  const std::int64_t run = hi[2] - lo[2];
  const auto imageBytes = static_cast<off_t>(c.info.size[0] * c.info.size[1] * c.info.size[2] * static_cast<std::int64_t>(sizeof(float)));
  for (std::int64_t x = lo[0]; x < hi[0]; ++x)
    for (std::int64_t y = lo[1]; y < hi[1]; ++y) {
      const std::int64_t src = (x * n[1] + y) * n[2] + lo[2];
      const std::int64_t dst = ((x - start[0]) * extent[1] + (y - start[1])) * extent[2] + (lo[2] - start[2]);
      if (c.fd < 0) {
        std::memcpy(image + dst, c.image.data() + src, static_cast<std::size_t>(run) * sizeof(float));
        std::memcpy(labels + dst, c.labels.data() + src, static_cast<std::size_t>(run) * sizeof(std::uint16_t));
      } else {
        if (core::Status s = readAll(c.fd, image + dst, static_cast<std::size_t>(run) * sizeof(float),
                                     static_cast<off_t>(src * static_cast<std::int64_t>(sizeof(float))), c.spillPath,
                                     m_cipher.get(), c.spillNumber);
            !s)
          return s;
        if (core::Status s = readAll(c.fd, labels + dst, static_cast<std::size_t>(run) * sizeof(std::uint16_t),
                                     imageBytes + static_cast<off_t>(src * static_cast<std::int64_t>(sizeof(std::uint16_t))), c.spillPath,
                                     m_cipher.get(), c.spillNumber);
            !s)
          return s;
      }
    }
  return core::Status::success();
}

}  // namespace delineate::inference::training
