#include "io/share/share_revisions.h"

#include "io/share/share_catalogue.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/sealed_file.h"
#include "io/share/audit_log.h"
#include "io/share/share_trust_internal.h"
#include "io/volume/nifti.h"
#include "io/base/posix_util.h"
#include "io/base/sha256.h"

namespace delineate::io {
using detail::errnoText;

namespace {

// Large content is first streamed into "<folder>/.upload-<random><suffix>" (saveFile), then linked to its name.
constexpr const char* kStagingPrefix = ".upload-";

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

constexpr int kMaxRevision = 999999;
constexpr int kMaxClaimAttempts = 64;
constexpr std::size_t kBlockBytes = std::size_t(8) << 20;  // streaming block: large enough for network shares

std::string stem(int number) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%06d", number);
  return buf;
}

bool validSuffix(const std::string& s) {
  if (s.size() < 2 || s.size() > 32 || s[0] != '.' || s.find("..") != std::string::npos) return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}


// `role` non-empty: the record's signature is checked against the store's roster (`relativePath`: its path there).
core::Result<RevisionInfo> readMetadata(const fs::path& file, int number, const ShareStore& store,
                                        const std::string& relativePath, const std::string& role) {
  auto text = readWholeFile(file.string(), kMaxRecordBytes, "revision record");
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return makeError(ErrorCode::ParseError, file.string(), "revision metadata is not a JSON object");
  RevisionInfo r;
  r.number = number;
  try {
    r.content = j.value("content", stem(number) + ".bin");  // the first stores named every content .bin
    r.sha256 = j.at("sha256").get<std::string>();
    r.bytes = j.at("bytes").get<std::uint64_t>();
    r.author = j.at("author").get<std::string>();
    r.time = j.at("time").get<std::string>();
    r.base = j.at("base").get<int>();
    r.message = j.value("message", std::string());
    r.conflict = j.value("conflict", false);
    r.latestAtSave = j.value("latestAtSave", 0);
    r.extraJson = j.contains("extra") && j["extra"].is_object() ? j["extra"].dump() : "{}";
  } catch (const nlohmann::json::exception& e) {
    return makeError(ErrorCode::ParseError, file.string(), std::string("revision metadata field missing or wrong: ") + e.what());
  }
  if (r.sha256.size() != 64) return makeError(ErrorCode::ParseError, file.string(), "sha256 is not 64 hex digits");
  if (!role.empty()) r.trust = verifyRecord(store, relativePath, j, r.author, role);
  if (r.content.rfind(stem(number) + ".", 0) != 0 || r.content.find('/') != std::string::npos)
    return makeError(ErrorCode::ParseError, file.string(), "content name '" + r.content + "' is not this revision's");
  return r;
}


// Publishes an already verified staging file under a new name: link(2) (exclusive), or rename after a check where
// the share has no hard links. The staging file is gone afterwards either way.
core::Status publishStaged(const std::string& staged, const std::string& target) {
  if (::link(staged.c_str(), target.c_str()) == 0) {
    ::unlink(staged.c_str());
    detail::syncFolder(fs::path(target).parent_path().string());
    return core::Status::success();
  }
  const int e = errno;
  if (e == EEXIST) return makeError(ErrorCode::WriteFailed, target, kAlreadyExistsDetail);
  if (e == EPERM || e == ENOSYS || e == EOPNOTSUPP || e == EXDEV || e == EMLINK) {
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) return makeError(ErrorCode::WriteFailed, target, kAlreadyExistsDetail);
    if (::rename(staged.c_str(), target.c_str()) == 0) {
      detail::syncFolder(fs::path(target).parent_path().string());
      return core::Status::success();
    }
    return makeError(ErrorCode::WriteFailed, target, "cannot publish the uploaded file: " + errnoText(errno));
  }
  return makeError(ErrorCode::WriteFailed, target, "cannot publish the uploaded file: " + errnoText(e));
}


core::Error hashMismatch(const std::string& path, const std::string& found, const std::string& recorded) {
  return makeError(ErrorCode::Corrupt, path,
                   "SHA-256 " + found + " differs from the one recorded at save (" + recorded +
                       "): the file was damaged or altered; earlier revisions are unaffected");
}

}  // namespace

bool isValidShareName(const std::string& s) {
  if (s.empty() || s.size() > 128 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

const RevisionInfo* RevisionList::find(int number) const {
  for (const auto& r : revisions)
    if (r.number == number) return &r;
  return nullptr;
}

core::Result<RevisionList> RevisionFolder::list() const {
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
    else if (name.rfind(kStagingPrefix, 0) == 0 || isAtomicTempFileName(name))
      out.leftovers.push_back(name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, *folder, "cannot list the revisions: " + ec.message());
  std::sort(claimed.begin(), claimed.end());
  std::sort(out.leftovers.begin(), out.leftovers.end());
  for (int n : claimed) {
    auto info = readMetadata(fs::path(*folder) / (stem(n) + ".json"), n, *m_store, m_folder + "/" + stem(n) + ".json",
                             m_role);
    if (!info) {
      // One damaged record is reported and skipped: it must not hide the other revisions.
      out.damaged.push_back({n, info.error().describe()});
      continue;
    }
    if (!fs::exists(fs::path(*folder) / info->content, ec)) {
      out.incomplete.push_back(n);
      continue;
    }
    out.revisions.push_back(*info);
  }
  return out;
}

core::Result<RevisionInfo> RevisionFolder::claimAndPublish(RevisionInfo info, const std::string& suffix,
                                                           const void* data, std::size_t size,
                                                           const std::string& stagedPath,
                                                           const SaveRequest& request) const {
  const core::ProgressSink* progress = request.progress;
  // On a signed store: this user's key signs the record, and the author is the roster's name for it.
  RecordSigner signer;
  if (!m_role.empty()) {
    auto s = recordSigner(*m_store, info.author, m_role, m_store->root() + "/" + m_folder);
    if (!s) return s.error();
    signer = std::move(*s);
    info.author = signer.author;
  }
  // One round: the next free number (claimed but unfinished ones count) and its record, created exclusively.
  const auto round = [&](int) -> core::Result<std::optional<RevisionInfo>> {
    if (progress && progress->cancelled())
      return makeError(ErrorCode::Cancelled, m_folder, "the save was cancelled before a revision was made");
    auto current = list();
    if (!current) return current.error();
    int next = current->latest();
    for (int n : current->incomplete) next = std::max(next, n);
    for (const auto& d : current->damaged) next = std::max(next, d.number);  // its name is taken all the same
    ++next;
    if (next > kMaxRevision) return makeError(ErrorCode::SizeLimit, m_folder, "more than 999999 revisions");
    if (request.expectedNumber != 0 && next != request.expectedNumber)
      return makeError(ErrorCode::InvalidArgument, m_store->root() + "/" + m_folder,
                       "revision " + std::to_string(request.expectedNumber) +
                           " was taken by another writer meanwhile: read the folder again");
    info.number = next;
    info.content = stem(next) + suffix;
    // Claimed but unfinished numbers count: another writer may be publishing its content right now. (A save killed
    // long ago also counts; that errs on the side of telling the user.)
    info.latestAtSave = next - 1;
    info.conflict = next - 1 != info.base;
    info.time = utcNowIso();
    nlohmann::json j{{"format", 1},          {"content", info.content}, {"sha256", info.sha256},
                     {"bytes", info.bytes},  {"author", info.author},   {"time", info.time},
                     {"base", info.base},    {"message", info.message}, {"conflict", info.conflict},
                     {"latestAtSave", info.latestAtSave}};
    if (!info.extraJson.empty() && info.extraJson != "{}") j["extra"] = nlohmann::json::parse(info.extraJson);
    signRecord(*m_store, signer, m_folder + "/" + stem(next) + ".json", j);
    const std::string meta = j.dump(2) + "\n";
    auto claimed = m_store->createExclusive(m_folder + "/" + stem(next) + ".json", meta.data(), meta.size());
    if (!claimed) return claimed.error();
    if (*claimed == Claim::Taken) return std::optional<RevisionInfo>();  // lost the race: look again
    // The claimed number stays incomplete if this fails; earlier revisions are untouched.
    if (stagedPath.empty()) {
      auto written = m_store->writeFile(m_folder + "/" + info.content, data, size, true, m_kind);
      if (!written) return written.error();
    } else {
      auto target = m_store->resolve(m_folder + "/" + info.content);
      if (!target) return target.error();
      if (core::Status s = m_store->checkMounted(); !s) return s.error();
      if (core::Status s = publishStaged(stagedPath, *target); !s) return s.error();
    }
    if (info.extraJson.empty()) info.extraJson = "{}";
    return std::optional<RevisionInfo>(info);
  };
  return claimExclusively<RevisionInfo>(m_folder, "a revision number", round);
}

namespace {
core::Status checkExtra(const std::string& folder, const std::string& extraJson) {
  if (extraJson.empty()) return core::Status::success();
  const auto j = nlohmann::json::parse(extraJson, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return makeError(ErrorCode::InvalidArgument, folder, "the revision's sidecar must be a JSON object");
  return core::Status::success();
}
}  // namespace

namespace {
// Freshness evidence against a rolled-back roster (README "The share's content"): the newest content file of the
// folder is sealed under a content key the roster this writer reads does not list. Then someone wrote with a newer
// roster than this one (which was cut back, or this user's view is behind): nothing is written, rather than sealed
// under an older key (one a removed member holds) or in the clear.
core::Status checkNewestSealing(const ShareStore& store, const std::string& folderRel) {
  auto folder = store.resolve(folderRel);
  if (!folder) return folder.error();
  std::string newest;
  std::error_code ec;
  for (fs::directory_iterator it(*folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };  // names may hold any byte
    if (name.size() > 8 && name[0] == 'r' && std::all_of(name.begin() + 1, name.begin() + 7, digit) &&
        name[7] == '.' && name.compare(name.size() - 5, 5, ".json") != 0 && name > newest)
      newest = name;
  }
  if (newest.empty()) return core::Status::success();
  const std::string path = *folder + "/" + newest;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::Status::success();  // a file that cannot be read is another check's business
  std::uint8_t header[kSealHeaderBytes];
  const ssize_t n = ::pread(fd, header, sizeof header, 0);
  ::close(fd);
  if (n != ssize_t(sizeof header) || !looksSealed(header, sizeof header)) return core::Status::success();
  std::array<std::uint8_t, 8> id{};
  std::memcpy(id.data(), header + 8, id.size());
  if (rosterListsContentKey(store, id)) return core::Status::success();
  return makeError(ErrorCode::InvalidArgument, path,
                   "is sealed under a content key that the share's roster, as this user reads it, does not list: a "
                   "newer roster wrote it (the roster was cut back, or this user has not seen its newest versions). "
                   "Nothing is written; compare 'delineate-cli trust show' with an admin's");
}
}  // namespace

core::Result<RevisionInfo> RevisionFolder::save(const void* data, std::size_t size, const SaveRequest& request) const {
  if (core::Status s = m_store->checkMounted(); !s) return s.error();
  if (core::Status s = checkExtra(m_folder, request.extraJson); !s) return s.error();
  if (m_kind == ShareFile::Content) {  // refused before a number is claimed, rather than leaving it incomplete
    if (auto key = contentSealKey(*m_store, m_store->root() + "/" + m_folder); !key) return key.error();
    if (core::Status s = checkNewestSealing(*m_store, m_folder); !s) return s.error();
  }
  RevisionInfo info;
  info.sha256 = sha256Hex(data, size);
  info.bytes = size;
  info.author = request.author;
  info.base = request.baseRevision;
  info.message = request.message;
  info.extraJson = request.extraJson;
  return claimAndPublish(std::move(info), m_suffix, data, size, {}, request);
}

core::Result<RevisionInfo> RevisionFolder::saveFile(const std::string& sourcePath, const SaveRequest& request,
                                                    const std::string& suffixIn) const {
  const std::string suffix = suffixIn.empty() ? m_suffix : suffixIn;
  if (!validSuffix(suffix))
    return makeError(ErrorCode::InvalidArgument, suffix, "a content suffix is a dot and letters, digits, '.', '_', '-'");
  if (core::Status s = checkExtra(m_folder, request.extraJson); !s) return s.error();
  if (core::Status s = m_store->checkMounted(); !s) return s.error();
  auto folder = m_store->resolve(m_folder);
  if (!folder) return folder.error();
  if (core::Status s = m_store->makeFolder(m_folder); !s) return s.error();

  // Stage: the verified write path hashes while it writes and reads the file back before it becomes visible.
  const std::string staged = *folder + "/" + kStagingPrefix + detail::randomHex(8) + suffix;
  AtomicWriteOptions options;
  options.verifyReadBack = true;
  options.noReplace = true;
  options.times = m_store->writeTimes();
  options.access = FileAccess::Share;
  if (m_kind == ShareFile::Content) {
    auto key = contentSealKey(*m_store, *folder);
    if (!key) return key.error();
    if (core::Status s = checkNewestSealing(*m_store, m_folder); !s) return s.error();
    options.sealKey = std::move(*key);
  }
  auto writer = AtomicFileWriter::create(staged, options);
  if (!writer) return writer.error();
  std::uint64_t bytes = 0;
  // A source sealed at rest (a checkpoint of the window's own training run, a copy from this user's caches) is stored
  // as its content, never as this user's ciphertext.
  core::Status streamed = streamContentBlocks(*m_store, sourcePath, UINT64_MAX, [&](const std::uint8_t* p, std::size_t n) {
    bytes += n;
    return writer->write(p, n);
  });
  if (!streamed) return streamed.error();
  if (core::Status s = writer->commit(); !s) return s.error();

  RevisionInfo info;
  info.sha256 = writer->sha256Hex();
  info.bytes = bytes;
  info.author = request.author;
  info.base = request.baseRevision;
  info.message = request.message;
  info.extraJson = request.extraJson;
  auto saved = claimAndPublish(std::move(info), suffix, nullptr, 0, staged, request);
  if (!saved) ::unlink(staged.c_str());
  return saved;
}

core::Result<RevisionInfo> RevisionFolder::info(int revision, std::string* contentPath) const {
  auto folder = m_store->resolve(m_folder);
  if (!folder) return folder.error();
  const fs::path meta = fs::path(*folder) / (stem(revision) + ".json");
  std::error_code ec;
  if (revision < 1 || revision > kMaxRevision || !fs::exists(meta, ec))
    return makeError(ErrorCode::NotFound, meta.string(), "no revision " + std::to_string(revision));
  auto r = readMetadata(meta, revision, *m_store, m_folder + "/" + stem(revision) + ".json", m_role);
  if (!r) return r.error();
  const fs::path content = fs::path(*folder) / r->content;
  if (!fs::exists(content, ec))
    return makeError(ErrorCode::NotFound, content.string(),
                     "revision " + std::to_string(revision) + " is incomplete (its save was interrupted)");
  if (contentPath) *contentPath = content.string();
  return r;
}

core::Status RevisionFolder::auditRead(int revision, const std::string& detail) const {
  if (!m_audited) return core::Status::success();
  AuditRecord record;
  record.action = "read";
  record.study = m_auditStudy;
  record.labelSet = m_auditName;
  record.revision = revision;
  record.detail = detail;
  if (core::Status s = appendReadAudit(m_store->root(), m_store->id(), record); !s)
    return makeError(ErrorCode::WriteFailed, m_store->root() + "/" + m_folder,
                     "revision " + std::to_string(revision) +
                         " was not read: every read is audited, and the audit record could not be written (" +
                         s.error().describe() + ")");
  return core::Status::success();
}

core::Result<std::vector<std::uint8_t>> RevisionFolder::load(int revision) const {
  std::string content;
  auto r = info(revision, &content);
  if (!r) return r.error();
  if (core::Status s = auditRead(revision, "loaded"); !s) return s.error();
  auto contentSize = contentFileSize(content);
  if (!contentSize) return contentSize.error();
  const std::uint64_t size = *contentSize;
  if (size != r->bytes)
    return makeError(ErrorCode::Corrupt, content,
                     "holds " + std::to_string(size) + " bytes, its metadata says " + std::to_string(r->bytes) +
                         " (truncated or damaged)");
  std::vector<std::uint8_t> bytes;
  try {
    bytes.reserve(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, content, "cannot allocate " + std::to_string(size) + " bytes");
  }
  Sha256 hash;
  core::Status s = streamContentBlocks(*m_store, content, r->bytes, [&](const std::uint8_t* p, std::size_t n) {
    hash.update(p, n);
    bytes.insert(bytes.end(), p, p + n);
    return core::Status::success();
  });
  if (!s) return s.error();
  const std::string found = toHex(hash.finish());
  if (found != r->sha256) return hashMismatch(content, found, r->sha256);
  return bytes;
}

core::Result<RevisionInfo> RevisionFolder::copyOut(int revision, const std::string& targetPath,
                                                   FileAccess access) const {
  std::string content;
  auto r = info(revision, &content);
  if (!r) return r.error();
  if (core::Status s = auditRead(revision, "copied to " + targetPath); !s) return s.error();
  AtomicWriteOptions options;
  options.access = access;
  auto writer = AtomicFileWriter::create(targetPath, options);
  if (!writer) return writer.error();
  Sha256 hash;
  core::Status s = streamContentBlocks(*m_store, content, r->bytes, [&](const std::uint8_t* p, std::size_t n) {
    hash.update(p, n);
    return writer->write(p, n);
  });
  if (!s) return s.error();  // the writer's destructor discards the temporary file
  const std::string found = toHex(hash.finish());
  if (found != r->sha256) return hashMismatch(content, found, r->sha256);
  if (core::Status c = writer->commit(); !c) return c.error();
  return r;
}

core::Result<RevisionInfo> RevisionFolder::verify(int revision) const {
  std::string content;
  auto r = info(revision, &content);
  if (!r) return r.error();
  Sha256 hash;
  core::Status s = streamContentBlocks(*m_store, content, r->bytes, [&](const std::uint8_t* p, std::size_t n) {
    hash.update(p, n);
    return core::Status::success();
  });
  if (!s) return s.error();
  const std::string found = toHex(hash.finish());
  if (found != r->sha256) return hashMismatch(content, found, r->sha256);
  return r;
}

LabelSetRevisions::LabelSetRevisions(const ShareStore& store, std::string study, std::string name)
    : RevisionFolder(store, "studies/" + study + "/labelsets/" + name, ".nii.gz"),
      m_study(std::move(study)),
      m_name(std::move(name)) {
  setSignerRole("annotator");
  setAuditedAs(m_study, m_name);
}

core::Result<LabelSetRevisions> LabelSetRevisions::open(const ShareStore& store, const std::string& study,
                                                        const std::string& labelSet) {
  if (!isValidShareName(study)) return makeError(ErrorCode::InvalidArgument, study, "not a valid study name");
  if (!isValidShareName(labelSet)) return makeError(ErrorCode::InvalidArgument, labelSet, "not a valid label-set name");
  return LabelSetRevisions(store, study, labelSet);
}

core::Result<RevisionInfo> LabelSetRevisions::save(const void* data, std::size_t size,
                                                   const SaveRequest& request) const {
  auto saved = RevisionFolder::save(data, size, request);
  if (!saved) return saved;
  std::string series;
  const auto extra = nlohmann::json::parse(saved->extraJson, nullptr, false);
  if (extra.is_object() && extra.contains("image") && extra["image"].is_object())
    series = extra["image"].value("series", std::string());
  saved->catalogueWarning = appendCatalogueOrWarn(
      store(), catalogueLabelsRecord(m_study, m_name, saved->number, saved->author, saved->time, series));
  return saved;
}

core::Result<RevisionInfo> LabelSetRevisions::saveLabels(const core::LabelMap& labels,
                                                         const SaveRequest& request) const {
  auto bytes = encodeNiftiLabelsGz(labels, folder() + "/(new revision)");
  if (!bytes) return bytes.error();
  return save(bytes->data(), bytes->size(), request);
}

core::Result<core::LabelMap> LabelSetRevisions::loadLabels(int revision) const {
  auto bytes = load(revision);
  if (!bytes) return bytes.error();
  auto path = store().resolve(folder() + "/" + stem(revision) + ".nii.gz");
  return decodeNiftiLabelsGz(std::move(bytes).value(), path ? *path : folder());
}

core::Result<ModelCheckpoints> ModelCheckpoints::open(const ShareStore& store, const std::string& model) {
  if (!isValidShareName(model)) return makeError(ErrorCode::InvalidArgument, model, "not a valid model name");
  return ModelCheckpoints(store, model);
}

}  // namespace delineate::io
