#include "io/share_revisions.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/audit_log.h"
#include "io/sha256.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

constexpr int kMaxRevision = 999999;
constexpr int kMaxClaimAttempts = 64;

bool validName(const std::string& s) {
  if (s.empty() || s.size() > 128 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

std::string stem(int number) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%06d", number);
  return buf;
}

core::Result<RevisionInfo> readMetadata(const fs::path& file, int number) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return makeError(ErrorCode::ParseError, file.string(), "revision metadata is not a JSON object");
  RevisionInfo r;
  r.number = number;
  try {
    r.sha256 = j.at("sha256").get<std::string>();
    r.bytes = j.at("bytes").get<std::uint64_t>();
    r.author = j.at("author").get<std::string>();
    r.time = j.at("time").get<std::string>();
    r.base = j.at("base").get<int>();
    r.message = j.value("message", std::string());
    r.conflict = j.value("conflict", false);
    r.latestAtSave = j.value("latestAtSave", 0);
  } catch (const nlohmann::json::exception& e) {
    return makeError(ErrorCode::ParseError, file.string(), std::string("revision metadata field missing or wrong: ") + e.what());
  }
  if (r.sha256.size() != 64) return makeError(ErrorCode::ParseError, file.string(), "sha256 is not 64 hex digits");
  return r;
}

}  // namespace

core::Result<LabelSetRevisions> LabelSetRevisions::open(const ShareStore& store, const std::string& study,
                                                        const std::string& labelSet) {
  if (!validName(study)) return makeError(ErrorCode::InvalidArgument, study, "not a valid study name");
  if (!validName(labelSet)) return makeError(ErrorCode::InvalidArgument, labelSet, "not a valid label-set name");
  return LabelSetRevisions(store, "studies/" + study + "/labelsets/" + labelSet);
}

core::Result<RevisionList> LabelSetRevisions::list() const {
  auto folder = m_store->resolve(m_folder);
  if (!folder) return folder.error();
  RevisionList out;
  std::error_code ec;
  if (!fs::exists(*folder, ec)) return out;
  std::vector<int> claimed;
  for (fs::directory_iterator it(*folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    int number = 0;
    char tail[8] = {};
    if (name.size() == 12 && std::sscanf(name.c_str(), "r%6d.%4s", &number, tail) == 2 && std::string(tail) == "json")
      claimed.push_back(number);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, *folder, "cannot list the revisions: " + ec.message());
  std::sort(claimed.begin(), claimed.end());
  for (int n : claimed) {
    const fs::path meta = fs::path(*folder) / (stem(n) + ".json");
    if (!fs::exists(fs::path(*folder) / (stem(n) + ".bin"), ec)) {
      out.incomplete.push_back(n);
      continue;
    }
    auto info = readMetadata(meta, n);
    if (!info) return info.error();
    out.revisions.push_back(*info);
  }
  return out;
}

core::Result<RevisionInfo> LabelSetRevisions::save(const void* data, std::size_t size, const std::string& author,
                                                   int baseRevision, const std::string& message) const {
  if (core::Status s = m_store->checkMounted(); !s) return s.error();
  RevisionInfo info;
  info.sha256 = sha256Hex(data, size);
  info.bytes = size;
  info.author = author;
  info.base = baseRevision;
  info.message = message;
  for (int attempt = 0; attempt < kMaxClaimAttempts; ++attempt) {
    auto current = list();
    if (!current) return current.error();
    int next = current->latest();
    for (int n : current->incomplete) next = std::max(next, n);
    ++next;
    if (next > kMaxRevision) return makeError(ErrorCode::SizeLimit, m_folder, "more than 999999 revisions");
    info.number = next;
    // Claimed but unfinished numbers count: another writer may be publishing its content right now. (A save killed
    // long ago also counts; that errs on the side of telling the user.)
    info.latestAtSave = next - 1;
    info.conflict = next - 1 != baseRevision;
    info.time = utcNowIso();
    const nlohmann::json j{{"format", 1},          {"sha256", info.sha256}, {"bytes", info.bytes},
                           {"author", info.author}, {"time", info.time},     {"base", info.base},
                           {"message", info.message}, {"conflict", info.conflict},
                           {"latestAtSave", info.latestAtSave}};
    const std::string meta = j.dump(2) + "\n";
    auto claimed = m_store->writeFile(m_folder + "/" + stem(next) + ".json", meta.data(), meta.size(), true);
    if (!claimed) {
      if (isAlreadyExists(claimed.error())) continue;  // lost the race: next
      return claimed.error();
    }
    auto written = m_store->writeFile(m_folder + "/" + stem(next) + ".bin", data, size, true);
    if (!written) return written.error();  // the claimed number stays incomplete; earlier revisions are untouched
    return info;
  }
  return makeError(ErrorCode::WriteFailed, m_folder, "could not claim a revision number after 64 attempts");
}

core::Result<std::vector<std::uint8_t>> LabelSetRevisions::load(int revision) const {
  auto folder = m_store->resolve(m_folder);
  if (!folder) return folder.error();
  const fs::path meta = fs::path(*folder) / (stem(revision) + ".json");
  const fs::path content = fs::path(*folder) / (stem(revision) + ".bin");
  std::error_code ec;
  if (!fs::exists(meta, ec) || !fs::exists(content, ec))
    return makeError(ErrorCode::NotFound, content.string(), "no complete revision " + std::to_string(revision));
  auto info = readMetadata(meta, revision);
  if (!info) return info.error();
  const auto size = fs::file_size(content, ec);
  if (ec) return makeError(ErrorCode::ReadFailed, content.string(), ec.message());
  if (size != info->bytes)
    return makeError(ErrorCode::Corrupt, content.string(),
                     "holds " + std::to_string(size) + " bytes, its metadata says " + std::to_string(info->bytes) +
                         " (truncated or damaged)");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  std::ifstream in(content, std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) return makeError(ErrorCode::ReadFailed, content.string(), "cannot read the revision");
  const std::string hash = sha256Hex(bytes.data(), bytes.size());
  if (hash != info->sha256)
    return makeError(ErrorCode::Corrupt, content.string(),
                     "SHA-256 " + hash + " differs from the one recorded at save (" + info->sha256 +
                         "): the file was damaged or altered; earlier revisions are unaffected");
  return bytes;
}

}  // namespace delineate::io
