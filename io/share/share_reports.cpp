#include "io/share/share_reports.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/share/audit_log.h"
#include "io/share/share_revisions.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;
namespace fs = std::filesystem;

namespace {

// Report files are read whole before the verified write (a SEG of a large study with many labels is a few hundred
// MB at most); anything larger is refused rather than half-published.
constexpr std::uintmax_t kMaxReportFileBytes = std::uintmax_t(4) << 30;
constexpr const char* kManifest = "manifest.json";
constexpr const char* kClaim = ".claim";

bool allDigits(std::string::const_iterator a, std::string::const_iterator b) {
  return std::all_of(a, b, [](char c) { return c >= '0' && c <= '9'; });
}

std::string pad(int n, int width) {
  std::string s = std::to_string(n);
  return std::string(std::size_t(std::max(0, width - int(s.size()))), '0') + s;
}

std::string revisionFolder(const std::string& study, const std::string& labelSet, int revision) {
  return "reports/" + study + "/" + labelSet + "/r" + pad(revision, 6);
}

// Not the manifest's name in any case: a share on SMB may not tell "Manifest.json" from it.
bool isValidFileName(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return isValidShareName(name) && name[0] != '.' && lower != kManifest;
}

core::Result<std::string> readReportFile(const std::string& path) {
  return readWholeFile(path, kMaxReportFileBytes, "report file");
}

// The publications under a revision's folder: (number, folder name) for every name that is a number, manifest or
// not, by number. A folder that does not exist yet has none; one that cannot be listed is an error.
core::Result<std::vector<std::pair<int, std::string>>> publicationsIn(const std::string& folder) {
  std::vector<std::pair<int, std::string>> out;
  std::error_code ec;
  if (!fs::exists(folder, ec)) return out;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.size() > 6 || !allDigits(name.begin(), name.end())) continue;
    out.emplace_back(std::stoi(name), name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, folder, "cannot list the reports: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

core::Result<PublishedReport> readManifest(const std::string& path, const std::string& folder) {
  auto text = readWholeFile(path, kMaxRecordBytes, "report manifest");
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return makeError(ErrorCode::Corrupt, path, "the report manifest is not JSON");
  try {
    PublishedReport r;
    r.folder = folder;
    r.revision = j.at("revision").get<int>();
    r.number = j.at("number").get<int>();
    r.author = j.value("author", "");
    r.time = j.value("time", "");
    r.message = j.value("message", "");
    r.deidentified = j.value("deidentified", false);
    for (const auto& f : j.at("files")) r.files.push_back({f.at("name"), f.at("sha256"), f.at("bytes").get<std::uint64_t>()});
    return r;
  } catch (const nlohmann::json::exception& e) {
    return makeError(ErrorCode::Corrupt, path, std::string("the report manifest lacks a field: ") + e.what());
  }
}

}  // namespace

core::Result<PublishedReport> publishReport(const ShareStore& store, const ReportPublishRequest& request) {
  if (!isValidShareName(request.study) || !isValidShareName(request.labelSet))
    return makeError(ErrorCode::InvalidArgument, request.study + "/" + request.labelSet,
                     "study and label-set names take letters, digits, '-', '_' and '.'");
  if (request.files.empty())
    return makeError(ErrorCode::InvalidArgument, store.root(), "a report needs at least one file");
  std::set<std::string> names;
  for (const ReportFile& f : request.files) {
    if (!isValidFileName(f.name))
      return makeError(ErrorCode::InvalidArgument, f.name,
                       "report file names take letters, digits, '-', '_' and '.', do not start with '.' and are not " +
                           std::string(kManifest));
    if (!names.insert(f.name).second) return makeError(ErrorCode::InvalidArgument, f.name, "named twice in one report");
  }
  // The report describes a revision that exists.
  auto set = LabelSetRevisions::open(store, request.study, request.labelSet);
  if (!set) return set.error();
  auto revisions = set->list();
  if (!revisions) return revisions.error();
  if (revisions->find(request.revision) == nullptr)
    return makeError(ErrorCode::NotFound, store.root() + "/" + set->folder(),
                     "the label set has no revision " + std::to_string(request.revision));
  // Read everything first: a missing local file fails before anything is claimed on the share.
  std::vector<std::string> contents;
  for (const ReportFile& f : request.files) {
    auto bytes = readReportFile(f.localPath);
    if (!bytes) return bytes.error();
    contents.push_back(std::move(bytes).value());
  }

  const std::string base = revisionFolder(request.study, request.labelSet, request.revision);
  auto absoluteBase = store.resolve(base);
  if (!absoluteBase) return absoluteBase.error();
  auto existing = publicationsIn(*absoluteBase);
  if (!existing) return existing.error();
  const int first = existing->empty() ? 1 : existing->back().first + 1;
  // Racing publishers: the one whose claim is published first has the number, the others try the next.
  const auto round = [&](int attempt) -> core::Result<std::optional<int>> {
    const int candidate = first + attempt;
    if (candidate > 999999) return makeError(ErrorCode::SizeLimit, *absoluteBase, "no publication number left");
    const std::string claim = std::to_string(candidate) + "\n";
    auto claimed = store.createExclusive(base + "/" + pad(candidate, 4) + "/" + kClaim, claim.data(), claim.size());
    if (!claimed) return claimed.error();
    if (*claimed == Claim::Taken) return std::optional<int>();
    return std::optional<int>(candidate);
  };
  auto claimedNumber = claimExclusively<int>(*absoluteBase, "a publication number", round);
  if (!claimedNumber) return claimedNumber.error();
  const int number = *claimedNumber;
  const std::string folder = base + "/" + pad(number, 4);

  PublishedReport report;
  report.revision = request.revision;
  report.number = number;
  report.folder = folder;
  report.author = request.author;
  report.time = utcNowIso();
  report.message = request.message;
  report.deidentified = request.deidentified;
  for (std::size_t i = 0; i < request.files.size(); ++i) {
    if (request.progress && request.progress->cancelled())
      return makeError(ErrorCode::Cancelled, store.root() + "/" + folder, "publication cancelled before its manifest");
    auto sha = store.writeFile(folder + "/" + request.files[i].name, contents[i].data(), contents[i].size(), true);
    if (!sha) return sha.error();
    report.files.push_back({request.files[i].name, *sha, contents[i].size()});
    if (request.progress) request.progress->report(double(i + 1) / double(request.files.size() + 1), "write");
  }
  if (request.progress && request.progress->cancelled())
    return makeError(ErrorCode::Cancelled, store.root() + "/" + folder, "publication cancelled before its manifest");
  nlohmann::json files = nlohmann::json::array();
  for (const PublishedFile& f : report.files) files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  const nlohmann::json manifest{{"format", "delineate-report-1"}, {"study", request.study},
                                {"labelSet", request.labelSet},    {"revision", report.revision},
                                {"number", report.number},         {"author", report.author},
                                {"time", report.time},             {"message", report.message},
                                {"deidentified", report.deidentified}, {"files", files}};
  const std::string text = manifest.dump(2) + "\n";
  if (auto written = store.writeFile(folder + "/" + kManifest, text.data(), text.size(), true); !written)
    return written.error();

  AuditRecord record;
  record.action = "export";
  record.study = request.study;
  record.labelSet = request.labelSet;
  record.revision = request.revision;
  record.detail = "report " + folder + " (" + std::to_string(report.files.size()) + " files" +
                  (request.deidentified ? ", de-identified" : "") + ")";
  const core::Status audited = appendStoreAudit(store.root(), record);
  if (!audited) report.auditWarning = audited.error().describe();
  return report;
}

core::Result<ReportList> listReports(const ShareStore& store, const std::string& study, const std::string& labelSet) {
  if (!isValidShareName(study) || !isValidShareName(labelSet))
    return makeError(ErrorCode::InvalidArgument, study + "/" + labelSet,
                     "study and label-set names take letters, digits, '-', '_' and '.'");
  ReportList list;
  const std::string base = "reports/" + study + "/" + labelSet;
  auto root = store.resolve(base);
  if (!root) return root.error();
  std::error_code ec;
  if (!fs::exists(*root, ec)) return list;
  std::vector<std::string> revisionFolders;
  for (fs::directory_iterator it(*root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == 7 && name[0] == 'r' && allDigits(name.begin() + 1, name.end()))
      revisionFolders.push_back(name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, *root, "cannot list the reports: " + ec.message());
  std::sort(revisionFolders.begin(), revisionFolders.end());
  for (const std::string& r : revisionFolders) {
    auto publications = publicationsIn(*root + "/" + r);
    if (!publications) return publications.error();
    for (const auto& [number, name] : *publications) {
      const std::string folder = base + "/" + r + "/" + name;
      const std::string manifest = store.root() + "/" + folder + "/" + kManifest;
      if (!fs::exists(manifest, ec)) {
        list.incomplete.push_back(folder);
        continue;
      }
      // One damaged manifest does not hide the other reports: it is listed apart, with why.
      auto report = readManifest(manifest, folder);
      if (report) list.reports.push_back(std::move(report).value());
      else list.damaged.push_back(report.error());
    }
  }
  return list;
}

}  // namespace delineate::io
