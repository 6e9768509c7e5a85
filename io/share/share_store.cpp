#include "io/share/share_store.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

const char* const kFolders[] = {"studies", "checkpoints", "reports", "audit"};

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
  return j["id"].get<std::string>();
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

core::Result<ShareStore> ShareStore::initialize(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return makeError(ErrorCode::NotFound, root, "no such folder");
  if (auto existing = readSentinel(root); existing) return ShareStore(root, *existing);
  for (const char* f : kFolders) {
    fs::create_directories(fs::path(root) / f, ec);
    if (ec) return makeError(ErrorCode::WriteFailed, (fs::path(root) / f).string(), "cannot create: " + ec.message());
  }
  const std::string id = newStoreId();
  const std::string text = nlohmann::json{{"format", 1}, {"id", id}}.dump() + "\n";
  AtomicWriteOptions options;
  options.verifyReadBack = true;
  options.noReplace = true;  // two initialisations at once: one sentinel wins, the other opens it
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

core::Result<std::string> ShareStore::writeFile(const std::string& relativePath, const void* data, std::size_t size,
                                                bool mustBeNew) const {
  auto path = resolve(relativePath);
  if (!path) return path.error();
  if (core::Status s = checkMounted(); !s) return s.error();
  std::error_code ec;
  const fs::path folder = fs::path(*path).parent_path();
  fs::create_directories(folder, ec);
  if (ec) return makeError(ErrorCode::WriteFailed, folder.string(), "cannot create the folder: " + ec.message());
  AtomicWriteOptions options;
  options.verifyReadBack = true;
  options.noReplace = mustBeNew;
  options.times = m_times;
  auto writer = AtomicFileWriter::create(*path, options);
  if (!writer) return writer.error();
  if (core::Status s = writer->write(data, size); !s) return s.error();
  if (core::Status s = writer->commit(); !s) return s.error();
  return writer->sha256Hex();
}

}  // namespace delineate::io
