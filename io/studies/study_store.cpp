#include "io/studies/study_store.h"
#include "io/base/sealed_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"
#include "io/base/file_read.h"
#include "io/base/parallel.h"
#include "io/base/posix_util.h"
#include "io/base/sha256.h"
#include "io/share/audit_log.h"
#include "io/share/share_catalogue.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;
using nlohmann::json;

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

json geometryJson(const core::Geometry& g) {
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  const auto& o = g.originLps();
  return json{{"size", {d[0], d[1], d[2]}},
              {"spacing", {s[0], s[1], s[2]}},
              {"origin", {o[0], o[1], o[2]}},
              {"direction", g.direction().m}};
}

core::Result<core::Geometry> geometryFromJson(const json& j, const std::string& path) {
  try {
    const auto size = j.at("size").get<std::array<std::int64_t, 3>>();
    const auto spacing = j.at("spacing").get<std::array<double, 3>>();
    const auto origin = j.at("origin").get<std::array<double, 3>>();
    core::Mat3 direction;
    direction.m = j.at("direction").get<std::array<double, 9>>();
    if (core::Status s = core::Geometry::validate(size, spacing, origin, direction, path); !s) return s.error();
    return core::Geometry(size, spacing, origin, direction);
  } catch (const json::exception& e) {
    return makeError(ErrorCode::ParseError, path, std::string("the geometry is not size/spacing/origin/direction: ") + e.what());
  }
}

}  // namespace

std::uint64_t SeriesManifest::totalBytes() const {
  std::uint64_t total = 0;
  for (const auto& f : files) total += f.bytes;
  return total;
}

// The manifest's text fields and their keys; `searched`: also in the series' catalogue record (what a search needs).
struct TextField {
  std::string SeriesManifest::*member;
  const char* key;
  bool searched;
};
const TextField kTextFields[] = {
    {&SeriesManifest::studyInstanceUid, "studyInstanceUid", false},
    {&SeriesManifest::seriesInstanceUid, "seriesInstanceUid", false},
    {&SeriesManifest::seriesNumber, "seriesNumber", false},
    {&SeriesManifest::patientId, "patientId", true},
    {&SeriesManifest::patientName, "patientName", true},
    {&SeriesManifest::studyDate, "studyDate", true},
    {&SeriesManifest::modality, "modality", true},
    {&SeriesManifest::studyDescription, "studyDescription", true},
    {&SeriesManifest::seriesDescription, "seriesDescription", true},
    {&SeriesManifest::importedBy, "importedBy", false},
    {&SeriesManifest::host, "host", false},
    {&SeriesManifest::time, "time", true},
};

std::string seriesManifestJson(const SeriesManifest& m) {
  json files = json::array();
  for (const auto& f : m.files)
    files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"bytes", f.bytes}, {"source", f.source}});
  json j{{"format", 1}, {"study", m.study}, {"series", m.series}, {"kind", m.kind}, {"deidentified", m.deidentified},
         {"files", files}};
  for (const TextField& f : kTextFields) j[f.key] = m.*f.member;
  if (m.geometry) j["geometry"] = geometryJson(*m.geometry);
  return j.dump(1) + "\n";
}

core::Result<SeriesManifest> parseSeriesManifest(const std::string& text, const std::string& path) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return makeError(ErrorCode::ParseError, path, "not a JSON object");
  if (j.value("format", 0) != 1) return makeError(ErrorCode::Unsupported, path, "not a series manifest of format 1");
  SeriesManifest m;
  try {
    m.study = j.at("study").get<std::string>();
    m.series = j.at("series").get<std::string>();
    m.kind = j.at("kind").get<std::string>();
    for (const TextField& f : kTextFields) m.*f.member = j.value(f.key, std::string());
    m.deidentified = j.value("deidentified", false);
    for (const json& f : j.at("files")) {
      SeriesFile file{f.at("name").get<std::string>(), f.at("sha256").get<std::string>(), f.at("bytes").get<std::uint64_t>(),
                      f.value("source", std::string())};
      if (!isValidShareName(file.name) || file.sha256.size() != 64)
        return makeError(ErrorCode::ParseError, path, "a file entry with an invalid name or SHA-256: " + file.name);
      m.files.push_back(std::move(file));
    }
  } catch (const json::exception& e) {
    return makeError(ErrorCode::ParseError, path, std::string("a field is missing or of the wrong type: ") + e.what());
  }
  if (m.kind != "dicom" && m.kind != "volume") return makeError(ErrorCode::ParseError, path, "kind is neither dicom nor volume");
  if (!isValidShareName(m.study) || !isValidShareName(m.series))
    return makeError(ErrorCode::ParseError, path, "an invalid study or series name");
  if (m.files.empty()) return makeError(ErrorCode::ParseError, path, "the manifest lists no files");
  if (j.contains("geometry")) {
    auto g = geometryFromJson(j["geometry"], path);
    if (!g) return g.error();
    m.geometry = *g;
  }
  return m;
}

std::string catalogueSeriesRecord(const SeriesManifest& m, const std::string& manifestSha256) {
  json j{{"kind", "series"},          {"study", m.study},           {"series", m.series},
         {"manifest", m.path()},      {"manifestSha256", manifestSha256}, {"files", m.files.size()},
         {"bytes", m.totalBytes()}};
  for (const TextField& f : kTextFields)
    if (f.searched) j[f.key] = m.*f.member;
  return j.dump();
}

core::Result<std::vector<std::string>> listStudyNames(const ShareStore& store) {
  const fs::path folder = fs::path(store.root()) / "studies";
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(folder, ec), end;
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), "cannot list the studies: " + ec.message());
  for (; it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (isValidShareName(name) && name[0] != '.' && it->is_directory(ec)) names.push_back(name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), "cannot list the studies: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

core::Result<SeriesManifest> readSeriesManifest(const ShareStore& store, const std::string& study,
                                                const std::string& series) {
  if (!isValidShareName(study) || !isValidShareName(series))
    return makeError(ErrorCode::InvalidArgument, study + "/" + series, "not a valid study or series name");
  auto path = store.resolve("studies/" + study + "/series/" + series + ".json");
  if (!path) return path.error();
  auto text = readWholeFileIfPresent(*path, kMaxRecordBytes, "series manifest");
  if (!text) return text.error();
  if (!text->has_value())
    return makeError(ErrorCode::NotFound, *path, "no such series (or its import has not finished)");
  auto m = parseSeriesManifest(**text, *path);
  if (!m) return m.error();
  if (m->study != study || m->series != series)
    return makeError(ErrorCode::Corrupt, *path, "the manifest names " + m->study + "/" + m->series + ", not its own folder");
  return m;
}

core::Result<StudyListing> listStudy(const ShareStore& store, const std::string& study) {
  if (!isValidShareName(study)) return makeError(ErrorCode::InvalidArgument, study, "not a valid study name");
  auto studyPath = store.resolve("studies/" + study);
  if (!studyPath) return studyPath.error();
  std::error_code ec;
  if (!fs::is_directory(*studyPath, ec)) return makeError(ErrorCode::NotFound, *studyPath, "no such study");
  StudyListing listing;
  listing.study = study;
  std::vector<std::string> manifests, folders;
  const fs::path seriesDir = fs::path(*studyPath) / "series";
  if (fs::is_directory(seriesDir, ec)) {
    for (fs::directory_iterator it(seriesDir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      if (it->is_directory(ec)) folders.push_back(name);
      else if (endsWith(name, ".json")) manifests.push_back(name.substr(0, name.size() - 5));
    }
    if (ec) return makeError(ErrorCode::ReadFailed, seriesDir.string(), "cannot list the series: " + ec.message());
  }
  std::sort(manifests.begin(), manifests.end());
  for (const std::string& s : manifests) {
    auto m = readSeriesManifest(store, study, s);
    if (m) listing.series.push_back(std::move(*m));
    else listing.damaged.push_back(m.error().describe());
  }
  for (const std::string& f : folders) {
    if (!std::binary_search(manifests.begin(), manifests.end(), f)) listing.seriesInProgress.push_back(f);
    for (fs::directory_iterator it(seriesDir / f, ec), end; !ec && it != end; it.increment(ec))
      if (isAtomicTempFileName(it->path().filename().string()))
        listing.leftovers.push_back("series/" + f + "/" + it->path().filename().string());
  }
  std::sort(listing.leftovers.begin(), listing.leftovers.end());
  std::sort(listing.seriesInProgress.begin(), listing.seriesInProgress.end());

  const fs::path setsDir = fs::path(*studyPath) / "labelsets";
  std::vector<std::string> sets;
  if (fs::is_directory(setsDir, ec))
    for (fs::directory_iterator it(setsDir, ec), end; !ec && it != end; it.increment(ec))
      if (isValidShareName(it->path().filename().string()) && it->is_directory(ec))
        sets.push_back(it->path().filename().string());
  std::sort(sets.begin(), sets.end());
  for (const std::string& name : sets) {
    auto set = LabelSetRevisions::open(store, study, name);
    if (!set) return set.error();
    auto revisions = set->list();
    if (!revisions) {
      listing.damaged.push_back(revisions.error().describe());
      continue;
    }
    for (const auto& d : revisions->damaged) listing.damaged.push_back(d.reason);
    StudyLabelSet entry;
    entry.name = name;
    if (!revisions->revisions.empty()) {
      const RevisionInfo& latest = revisions->revisions.back();
      entry.latestRevision = latest.number;
      entry.latestAuthor = latest.author;
      entry.latestTime = latest.time;
      std::string boundStudy;
      parseLabelBinding(latest.extraJson, &boundStudy, &entry.boundSeries);
    }
    listing.labelSets.push_back(std::move(entry));
  }
  return listing;
}

std::string defaultSeriesCacheFolder(const ShareStore& store, const std::string& study, const std::string& series) {
  return userCacheFolder() + "/studies/" + store.id() + "/" + study + "/" + series;
}

namespace {

// Whether `path` is a complete copy of a `bytes`-long file as this fetch would write it: plain and that long, or
// sealed under this user's key and that long once unsealed.
bool isCachedCopy(const std::string& path, std::uint64_t bytes, bool sealed, const std::shared_ptr<const AtRestKey>& key) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return false;
  if (!sealed) {
    if (size != bytes) return false;
    if (size < kSealHeaderBytes + kSealTagBytes) return true;
  } else if (size != sealedSize(bytes)) {
    return false;
  }
  char header[kSealHeaderBytes];
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool read = ::pread(fd, header, sizeof header, 0) == ssize_t(sizeof header);
  ::close(fd);
  if (!read) return false;
  if (!sealed) return !looksSealed(header, sizeof header);
  return looksSealed(header, sizeof header) && std::memcmp(header + 8, key->id.data(), 8) == 0;
}

}  // namespace

core::Result<FetchedSeries> fetchSeries(const ShareStore& store, const std::string& study, const std::string& series,
                                        const std::string& localFolder, core::ProgressSink* progress,
                                        FileAccess access) {
  if (access != FileAccess::Sealed && access != FileAccess::Private)
    return makeError(ErrorCode::InvalidArgument, localFolder, "a fetched series is Sealed or Private");
  auto manifest = readSeriesManifest(store, study, series);
  if (!manifest) return manifest.error();
  // Every read of a series is audited before it happens, whoever reads it (the window, study get, training, batch),
  // also when the files are in the local cache already; no record, no read.
  AuditRecord record;
  record.action = "read";
  record.study = study;
  record.detail = "series " + series + " (" + std::to_string(manifest->files.size()) + " files) to " + localFolder;
  if (core::Status s = appendReadAudit(store.root(), store.id(), record); !s)
    return makeError(ErrorCode::WriteFailed, store.root() + "/studies/" + study,
                     "series " + series + " was not read: every read is audited, and the audit record could not be "
                     "written (" + s.error().describe() + ")");
  std::error_code ec;
  const bool existed = fs::exists(localFolder, ec);
  // A fetched series is one user's local copy of patient data: owner-only (io/base/file_modes.h).
  if (core::Status s = createFolders(localFolder, FileAccess::Private); !s) return s.error();
  // One fetch into a folder at a time (an exclusive lock on the folder itself, local disk: a second fetch waits and
  // then reuses the first one's files). Holding it, a temporary file there (".<name>.tmp-...") is one a killed fetch
  // left: removed, as the folder is opened as a DICOM folder and would read it as a damaged instance.
  struct FolderLock {
    int fd = -1;
    ~FolderLock() {
      if (fd >= 0) ::close(fd);  // releases the lock
    }
  } folderLock;
  folderLock.fd = ::open(localFolder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folderLock.fd < 0 || ::flock(folderLock.fd, LOCK_EX) != 0)
    return makeError(ErrorCode::WriteFailed, localFolder, std::string("cannot lock the folder: ") + std::strerror(errno));
  FetchedSeries out;
  out.manifest = std::move(*manifest);
  const auto& files = out.manifest.files;
  // The folder is what gets opened (a DICOM folder reader takes every file in it), so it must hold this series
  // alone: anything else there is refused, never deleted (it may be the user's).
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(localFolder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (isAtomicTempFileName(name)) {
      stale.push_back(it->path());
      continue;
    }
    if (std::none_of(files.begin(), files.end(), [&](const SeriesFile& f) { return f.name == name; }))
      return makeError(ErrorCode::InvalidArgument, localFolder,
                       "holds " + name + ", which is not a file of series " + series +
                           ": fetch into an empty folder (nothing was written or removed)");
  }
  if (ec) return makeError(ErrorCode::ReadFailed, localFolder, "cannot list the folder: " + ec.message());
  for (const fs::path& p : stale) fs::remove(p, ec);
  // A fetch that fails or is cancelled takes back what it wrote: the folder is left as it was (no part of a series
  // that a reader could open as if whole), and removed when this fetch made it.
  std::vector<fs::path> written;
  const auto takeBack = [&] {
    std::error_code e;
    for (const fs::path& p : written) fs::remove(p, e);
    if (!existed) detail::removeEmptyFolder(localFolder);  // only when empty
  };
  std::mutex mutex;
  std::optional<core::Error> failure;
  std::size_t done = 0;
  const std::string folderRel = "studies/" + study + "/series/" + series + "/";
  const bool sealed = access == FileAccess::Sealed && atRestSealingOn();
  std::shared_ptr<const AtRestKey> key;
  if (sealed) {
    auto loaded = loadAtRestKey(true);
    if (!loaded) {
      takeBack();
      return makeError(ErrorCode::WriteFailed, localFolder,
                       "cannot seal the series (patient data kept on this machine is encrypted at rest): " +
                           loaded.error().describe());
    }
    key = *loaded;
  }
  const std::string thrown = parallelFor(files.size(), resolveThreads(0), [&](std::size_t i, int) {
    if (progress && progress->cancelled()) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = makeError(ErrorCode::Cancelled, localFolder, "the fetch was cancelled");
      return false;
    }
    const SeriesFile& f = files[i];
    const fs::path target = fs::path(localFolder) / f.name;
    std::error_code e;
    // Files here were written atomically after their hash was checked, under their hash's name; sealed ones under
    // this user's key are authenticated again by every read.
    const bool reuse = fs::is_regular_file(target, e) && !e && isCachedCopy(target.string(), f.bytes, sealed, key);
    core::Status s = reuse ? core::Status::success()
                           : store.copyFileOut(folderRel + f.name, f.sha256, f.bytes, target.string(), access);
    std::lock_guard<std::mutex> guard(mutex);
    if (s && !reuse) written.push_back(target);
    if (!s) {
      if (!failure) failure = s.error();
      return false;
    }
    (reuse ? out.reused : out.copied)++;
    ++done;
    if (progress) progress->report(double(done) / double(files.size()), "fetch");
    return true;
  });
  if (!thrown.empty()) {
    takeBack();
    return makeError(ErrorCode::ReadFailed, localFolder, "the fetch failed: " + thrown);
  }
  if (failure) {
    takeBack();
    return *failure;
  }
  // The folder's time says when it was last fetched (the cache's pruning takes the oldest first).
  fs::last_write_time(localFolder, fs::file_time_type::clock::now(), ec);
  out.openPath = out.manifest.kind == "volume" ? (fs::path(localFolder) / files.front().name).string() : localFolder;
  return out;
}

std::uint64_t pruneSeriesCache(const std::string& cacheRoot, std::uint64_t budgetBytes, const std::string& keep,
                               int graceSeconds) {
  // <cacheRoot>/<store id>/<study>/<series>/
  struct Entry {
    fs::path folder;
    fs::file_time_type time;
    std::uint64_t bytes = 0;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  // Best effort, each level with its own error: what cannot be read is left alone.
  std::error_code e1, e2, e3, e4, ec;
  for (fs::directory_iterator store(cacheRoot, e1), end; !e1 && store != end; store.increment(e1))
    for (fs::directory_iterator study(store->path(), e2); !e2 && study != end; study.increment(e2))
      for (fs::directory_iterator series(study->path(), e3); !e3 && series != end; series.increment(e3)) {
        if (!series->is_directory(ec)) continue;
        Entry e{series->path(), fs::last_write_time(series->path(), ec), 0};
        if (ec) continue;
        for (fs::directory_iterator f(series->path(), e4); !e4 && f != end; f.increment(e4))
          if (f->is_regular_file(ec)) e.bytes += f->file_size(ec);
        e4.clear();
        total += e.bytes;
        entries.push_back(std::move(e));
      }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  const auto now = fs::file_time_type::clock::now();
  std::uint64_t removed = 0;
  for (const Entry& e : entries) {
    if (total - removed <= budgetBytes) break;
    if (fs::equivalent(e.folder, keep, ec) || now - e.time < std::chrono::seconds(graceSeconds)) continue;
    fs::remove_all(e.folder, ec);
    if (!ec) removed += e.bytes;
  }
  return removed;
}

std::string labelBindingJson(const SeriesManifest& m) {
  json j{{"study", m.study}, {"series", m.series}, {"seriesInstanceUid", m.seriesInstanceUid}};
  if (m.geometry) j["geometry"] = geometryJson(*m.geometry);
  return j.dump();
}

bool parseLabelBinding(const std::string& extraJson, std::string* study, std::string* series) {
  const json j = json::parse(extraJson, nullptr, false);
  if (!j.is_object() || !j.contains("image") || !j["image"].is_object()) return false;
  const json& image = j["image"];
  if (!image.contains("study") || !image["study"].is_string() || !image.contains("series") || !image["series"].is_string())
    return false;
  *study = image["study"].get<std::string>();
  *series = image["series"].get<std::string>();
  return true;
}

core::Result<std::optional<SeriesManifest>> seriesForLabels(const ShareStore& store, const std::string& study,
                                                            const core::Geometry& geometry, const std::string& series,
                                                            std::vector<std::string>* ambiguous) {
  if (!series.empty()) {
    auto m = readSeriesManifest(store, study, series);
    if (!m) return m.error();
    if (!m->geometry)
      return makeError(ErrorCode::InvalidArgument, m->path(), "series " + series + " has no single image grid to bind labels to");
    if (!m->geometry->isCloseTo(geometry))
      return makeError(ErrorCode::GeometryMismatch, m->path(),
                       "the label map's grid differs from series " + series + "'s image grid");
    return std::optional<SeriesManifest>(std::move(*m));
  }
  std::error_code ec;
  auto folder = store.resolve("studies/" + study + "/series");
  if (!folder) return folder.error();
  if (!fs::is_directory(*folder, ec)) return std::optional<SeriesManifest>();
  auto listing = listStudy(store, study);
  if (!listing) return listing.error();
  std::vector<const SeriesManifest*> matches;
  for (const auto& m : listing->series)
    if (m.geometry && m.geometry->isCloseTo(geometry)) matches.push_back(&m);
  if (matches.size() == 1) return std::optional<SeriesManifest>(*matches.front());
  if (ambiguous)
    for (const auto* m : matches) ambiguous->push_back(m->series);
  return std::optional<SeriesManifest>();
}

std::string withLabelBinding(const std::string& extraJson, const SeriesManifest& manifest) {
  json extra = extraJson.empty() ? json::object() : json::parse(extraJson, nullptr, false);
  if (!extra.is_object()) extra = json::object();
  extra["image"] = json::parse(labelBindingJson(manifest));
  return extra.dump();
}

core::Result<ReindexReport> reindexStudies(const ShareStore& store, core::ProgressSink* progress) {
  if (core::Status s = store.checkMounted(); !s) return s.error();
  auto names = listStudyNames(store);
  if (!names) return names.error();
  ReindexReport report;
  CatalogueSnapshot snapshot;
  for (std::size_t i = 0; i < names->size(); ++i) {
    if (progress && progress->cancelled())
      return makeError(ErrorCode::Cancelled, store.root(), "the reindex was cancelled; nothing was published");
    const std::string& study = (*names)[i];
    auto listing = listStudy(store, study);
    if (!listing) {
      report.problems.push_back(listing.error().describe());
      continue;
    }
    for (auto& d : listing->damaged) report.problems.push_back(d);
    ++report.studies;
    for (const SeriesManifest& m : listing->series) {
      auto path = store.resolve(m.path());
      auto text = path ? readWholeFile(*path, kMaxRecordBytes, "series manifest") : core::Result<std::string>(path.error());
      if (!text) {
        report.problems.push_back(text.error().describe());
        continue;
      }
      snapshot.records.push_back(catalogueSeriesRecord(m, sha256Hex(text->data(), text->size())));
      ++report.series;
    }
    for (const StudyLabelSet& set : listing->labelSets) {
      ++report.labelSets;
      if (set.latestRevision == 0) continue;
      snapshot.records.push_back(
          catalogueLabelsRecord(study, set.name, set.latestRevision, set.latestAuthor, set.latestTime, set.boundSeries));
      auto revisions = LabelSetRevisions::open(store, study, set.name);
      if (!revisions) continue;
      auto reviews = LabelSetReviews(*revisions).all();
      if (!reviews) {
        report.problems.push_back(reviews.error().describe());
        continue;
      }
      for (const RevisionReview& r : *reviews)
        for (const ReviewRecord& step : r.history)
          snapshot.records.push_back(catalogueReviewRecord(study, set.name, r.revision, reviewActionName(step.action),
                                                           step.user, step.time, step.sequence));
    }
    if (progress) progress->report(double(i + 1) / double(names->size()), "reindex");
  }
  auto name = writeCatalogueSnapshot(store, snapshot, "reindex");
  if (!name) return name.error();
  report.snapshot = *name;
  return report;
}

core::Result<core::ScalarImage> readFetchedSeries(const FetchedSeries& fetched, core::ProgressSink* progress) {
  core::ScalarImage image;
  if (fetched.manifest.kind == "volume") {
    auto read = readImageFileTyped(fetched.openPath);
    if (!read) return read.error();
    image = std::move(read).value();
  } else {
    auto index = indexDicomFolder(fetched.openPath);
    if (!index) return index.error();
    std::vector<const DicomSeries*> images;
    for (const DicomSeries* s : index->allSeries())
      if (s->isImage) images.push_back(s);
    if (images.empty())
      return core::makeError(core::ErrorCode::NotFound, fetched.openPath, "holds no DICOM image series");
    if (images.size() > 1)
      return core::makeError(core::ErrorCode::InvalidArgument, fetched.openPath,
                             "holds " + std::to_string(images.size()) + " image series, not one");
    if (!images.front()->isRegular() || !images.front()->isComplete()) {
      // What is wrong, said (an unreadable file is named with its reason: a damaged or foreign sealed file too).
      std::string why;
      for (const SeriesIssue& issue : images.front()->issues) why += (why.empty() ? ": " : "; ") + issue.detail;
      return core::makeError(core::ErrorCode::InvalidArgument, fetched.openPath,
                             "series " + images.front()->key() + " is not one regular, complete grid (split, "
                             "irregular spacing or missing slices)" + why);
    }
    DicomLoadOptions options;
    options.progress = progress;
    auto loaded = loadDicomSeriesTyped(*images.front(), options);
    if (!loaded) return loaded.error();
    image = std::move(loaded->image);
  }
  if (core::Status s = core::requireFiniteVoxels(image, fetched.openPath); !s) return s.error();
  return image;
}

}  // namespace delineate::io
