#include "io/share/share_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/posix_util.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/share/share_trust_internal.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

using detail::errnoText;
constexpr std::size_t kBlockBytes = std::size_t(8) << 20;

const char* const kFolders[] = {"studies", "checkpoints", "reports", "audit"};  // trust/: made by the first roster

core::Result<std::string> readSentinel(const fs::path& root) {
  const fs::path sentinel = root / ShareStore::kSentinel;
  std::error_code ec;
  if (!fs::exists(sentinel, ec))
    return makeError(ErrorCode::NotFound, root.string(),
                     std::string("no ") + ShareStore::kSentinel +
                         " here: the share is not mounted (or this folder is not a Delineate store); nothing is written");
  auto text = readWholeFile(sentinel.string(), kMaxRecordBytes, "store sentinel");
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j["id"].is_string() || j.value("format", 0) != 1)
    return makeError(ErrorCode::ParseError, sentinel.string(), "the sentinel is not a Delineate store sentinel (format 1)");
  // The id names local folders (the study index, fetched series): hex digits only, as initialize() writes it.
  const std::string id = j["id"].get<std::string>();
  if (id.size() < 16 || id.size() > 64 ||
      !std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return makeError(ErrorCode::ParseError, sentinel.string(), "the sentinel's id is not 16 to 64 hex digits");
  return id;
}

std::string newStoreId() {
  std::random_device rd;
  std::mt19937_64 rng((std::uint64_t(rd()) << 32) ^ rd());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace

ShareStore::ShareStore(std::string root, std::string id)
    : m_root(std::move(root)), m_id(std::move(id)), m_trust(std::make_shared<ShareTrustCache>()) {}

core::Result<ShareStore> ShareStore::initialize(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return makeError(ErrorCode::NotFound, root, "no such folder");
  if (auto existing = readSentinel(root); existing) return ShareStore(root, *existing);
  for (const char* f : kFolders)
    if (core::Status s = createFolders((fs::path(root) / f).string(), FileAccess::Share); !s) return s.error();
  const std::string id = newStoreId();
  const std::string text = nlohmann::json{{"format", 1}, {"id", id}}.dump() + "\n";
  AtomicWriteOptions options;
  options.verifyReadBack = true;
  options.noReplace = true;  // two initialisations at once: one sentinel wins, the other opens it
  options.access = FileAccess::Share;
  const std::string sentinel = (fs::path(root) / kSentinel).string();
  if (core::Status s = writeFileAtomically(sentinel, text.data(), text.size(), options); !s) {
    if (auto raced = readSentinel(root); raced) return ShareStore(root, *raced);
    return s.error();
  }
  return ShareStore(root, id);
}

core::Result<ShareStore> ShareStore::open(const std::string& root) {
  auto id = readSentinel(root);
  if (!id) return id.error();
  return ShareStore(root, *id);
}

core::Status ShareStore::checkMounted() const {
  auto id = readSentinel(m_root);
  if (!id) return id.error();
  if (*id != m_id)
    return makeError(ErrorCode::Corrupt, m_root, "the store's sentinel changed since it was opened (another share mounted here?)");
  return core::Status::success();
}

core::Result<std::string> ShareStore::resolve(const std::string& relativePath) const {
  const fs::path rel(relativePath);
  if (relativePath.empty() || rel.is_absolute())
    return makeError(ErrorCode::InvalidArgument, relativePath, "a path inside the store is needed, not an absolute one");
  for (const auto& part : rel.lexically_normal())
    if (part == "..") return makeError(ErrorCode::InvalidArgument, relativePath, "the path leaves the store");
  return (fs::path(m_root) / rel.lexically_normal()).string();
}

core::Result<Claim> ShareStore::createExclusive(const std::string& relativePath, const void* data,
                                                std::size_t size) const {
  auto written = writeFile(relativePath, data, size, true);
  if (written) return Claim::Created;
  if (isAlreadyExists(written.error())) return Claim::Taken;
  return written.error();
}

core::Result<AtomicFileWriter> ShareStore::startWrite(const std::string& relativePath, bool mustBeNew,
                                                      const std::string& expectedSha256, ShareFile kind) const {
  auto path = resolve(relativePath);
  if (!path) return path.error();
  if (core::Status s = checkMounted(); !s) return s.error();
  std::shared_ptr<const AtRestKey> sealKey;
  if (kind == ShareFile::Content) {
    auto k = contentSealKey(*this, *path);
    if (!k) return k.error();
    sealKey = std::move(*k);
  }
  if (core::Status s = createFolders(fs::path(*path).parent_path().string(), FileAccess::Share); !s) return s.error();
  AtomicWriteOptions options;
  options.access = FileAccess::Share;
  options.verifyReadBack = true;
  options.noReplace = mustBeNew;
  options.expectedSha256 = expectedSha256;
  options.times = m_times;
  options.sealKey = std::move(sealKey);
  return AtomicFileWriter::create(*path, options);
}

core::Status ShareStore::makeFolder(const std::string& relativePath) const {
  auto path = resolve(relativePath);
  if (!path) return path.error();
  return createFolders(*path, FileAccess::Share);
}

core::Result<std::string> ShareStore::writeFile(const std::string& relativePath, const void* data, std::size_t size,
                                                bool mustBeNew, ShareFile kind) const {
  auto writer = startWrite(relativePath, mustBeNew, {}, kind);
  if (!writer) return writer.error();
  if (core::Status s = writer->write(data, size); !s) return s.error();
  if (core::Status s = writer->commit(); !s) return s.error();
  return writer->sha256Hex();
}

namespace {
// Opens `path` to be streamed and allocates the copy buffer: the descriptor, or an error naming the file.
core::Result<int> openToStream(const std::string& path, std::vector<std::uint8_t>& block) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return makeError(e == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot open: " + errnoText(e));
  }
  try {
    block.resize(kBlockBytes);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the copy buffer");
  }
  return fd;
}
}  // namespace

core::Status streamFileBlocks(const std::string& path, std::uint64_t expectedBytes, const BlockSink& sink) {
  std::vector<std::uint8_t> block;
  auto opened = openToStream(path, block);
  if (!opened) return opened.error();
  const int fd = *opened;
  std::uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, block.data(), block.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return makeError(ErrorCode::ReadFailed, path, "read failed: " + errnoText(e));
    }
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (expectedBytes != UINT64_MAX && total > expectedBytes) {
      ::close(fd);
      return makeError(ErrorCode::Corrupt, path, "holds more than the " + std::to_string(expectedBytes) +
                                                     " bytes its metadata records (damaged or altered)");
    }
    if (core::Status s = sink(block.data(), static_cast<std::size_t>(n)); !s) {
      ::close(fd);
      return s;
    }
  }
  ::close(fd);
  if (expectedBytes != UINT64_MAX && total != expectedBytes)
    return makeError(ErrorCode::Corrupt, path,
                     "holds " + std::to_string(total) + " bytes, its metadata says " + std::to_string(expectedBytes) +
                         " (truncated or damaged)");
  return core::Status::success();
}

core::Result<std::string> ShareStore::copyFileIn(const std::string& relativePath, const std::string& sourcePath,
                                                 bool mustBeNew, const std::string& expectedSha256,
                                                 ShareFile kind) const {
  auto writer = startWrite(relativePath, mustBeNew, expectedSha256, kind);
  if (!writer) return writer.error();
  // A source sealed at rest on this machine is copied as its content.
  core::Status streamed = streamContentBlocks(*this, sourcePath, UINT64_MAX, [&](const std::uint8_t* p, std::size_t n) {
    return writer->write(p, n);
  });
  if (!streamed) return streamed.error();
  if (core::Status s = writer->commit(); !s) return s.error();
  return writer->sha256Hex();
}

core::Status ShareStore::copyFileOut(const std::string& relativePath, const std::string& sha256, std::uint64_t bytes,
                                     const std::string& targetPath, FileAccess access) const {
  auto path = resolve(relativePath);
  if (!path) return path.error();
  AtomicWriteOptions options;
  options.access = access;
  auto writer = AtomicFileWriter::create(targetPath, options);
  if (!writer) return writer.error();
  Sha256 hash;
  core::Status s = streamContentBlocks(*this, *path, bytes, [&](const std::uint8_t* p, std::size_t n) {
    hash.update(p, n);
    return writer->write(p, n);
  });
  if (!s) return s;  // the writer's destructor discards the temporary file
  const std::string found = toHex(hash.finish());
  if (found != sha256)
    return makeError(ErrorCode::Corrupt, *path,
                     "content SHA-256 " + found + " differs from the recorded " + sha256 + " (damaged or altered)");
  return writer->commit();
}

core::Result<std::uint64_t> contentFileSize(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    return makeError(e == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot read: " + errnoText(e));
  }
  if (!isSealedFile(path)) return std::uint64_t(st.st_size);
  const auto plain = plainSizeOfSealed(std::uint64_t(st.st_size));
  if (!plain) return makeError(ErrorCode::Corrupt, path, "a sealed file of a size no sealed file has (cut off or damaged)");
  return *plain;
}

core::Status streamContentBlocks(const ShareStore& store, const std::string& path, std::uint64_t expectedBytes,
                                 const BlockSink& sink) {
  if (!isSealedFile(path)) return streamFileBlocks(path, expectedBytes, sink);
  (void)shareContentKeys(store);  // makes the keys this user holds known to the sealed reader
  std::vector<std::uint8_t> block;
  auto opened = openToStream(path, block);
  if (!opened) return opened.error();
  const int fd = *opened;
  auto reader = SealedReader::open(fd, path);
  if (!reader) {
    ::close(fd);
    // Sealed under a key this user does not hold, on a share whose keys cannot be had at all (its roster is not
    // trusted): that is the reason, not a missing at-rest key.
    const auto keys = shareContentKeys(store);
    if (reader.error().code == ErrorCode::InvalidArgument && keys->generation == 0 && !keys->problem.empty())
      return makeError(ErrorCode::InvalidArgument, path,
                       "is encrypted for the share's members and cannot be read: " + keys->problem);
    return reader.error();
  }
  const std::uint64_t size = (*reader)->size();
  if (expectedBytes != UINT64_MAX && size != expectedBytes) {
    ::close(fd);
    return makeError(ErrorCode::Corrupt, path,
                     "holds " + std::to_string(size) + " bytes, its metadata says " + std::to_string(expectedBytes) +
                         " (truncated or damaged)");
  }
  core::Status result = core::Status::success();
  for (std::uint64_t offset = 0; offset < size;) {
    auto n = (*reader)->readAt(offset, block.data(), block.size());
    if (!n) {
      result = n.error();
      break;
    }
    if (*n == 0) {
      result = makeError(ErrorCode::Corrupt, path, "ends before its content does");
      break;
    }
    if (core::Status s = sink(block.data(), *n); !s) {
      result = s;
      break;
    }
    offset += *n;
  }
  ::close(fd);
  return result;
}

}  // namespace delineate::io
