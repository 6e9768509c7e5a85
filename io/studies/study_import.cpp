#include "io/studies/study_import.h"
#include "io/base/sealed_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/parallel.h"
#include "io/base/process_info.h"
#include "io/base/regular_file.h"
#include "io/base/sha256.h"
#include "io/dicom/dicom.h"
#include "io/share/share_catalogue.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

// Volume files imported as they are: single-file formats only (a .mhd or .nhdr names a second file, which a study
// folder named by hashes could not keep beside it).
const char* const kVolumeSuffixes[] = {".nii.gz", ".nii", ".nrrd", ".mha"};

constexpr auto kStaleImportTemp = std::chrono::hours(1);

std::string volumeSuffix(const std::string& path) {
  std::string lower = fs::path(path).filename().string();
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* s : kVolumeSuffixes) {
    const std::string suffix = s;
    if (lower.size() > suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0)
      return suffix;
  }
  return {};
}

// One source file of a series to be stored.
struct SourceFile {
  std::string path;
  std::string sha256;  // filled by the copy pass
  std::uint64_t bytes = 0;
};

struct PlannedSeries {
  SeriesManifest manifest;  // files filled once copied
  std::string suffix;       // ".dcm" or the volume's
  std::vector<SourceFile> sources;
  std::set<std::string> copies;  // input files that are byte-identical copies of an instance read from another
  std::string refused;           // why the series is not imported ("" when it is)
};

// Batches catalogue records: one segment per second at most (and at the end).
class RecordBatcher {
 public:
  explicit RecordBatcher(const ShareStore& store) : m_store(store) {}
  void add(std::string record, std::vector<std::string>& warnings) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.push_back(std::move(record));
    if (std::chrono::steady_clock::now() - m_last > std::chrono::seconds(1)) flushLocked(warnings);
  }
  void flush(std::vector<std::string>& warnings) {
    std::lock_guard<std::mutex> lock(m_mutex);
    flushLocked(warnings);
  }

 private:
  void flushLocked(std::vector<std::string>& warnings) {
    if (m_pending.empty()) return;
    auto written = appendCatalogue(m_store, m_pending);
    if (!written)
      warnings.push_back(std::to_string(m_pending.size()) + " imported series are not in the study catalogue (" +
                         written.error().describe() + "): run `delineate-cli study reindex " + m_store.root() + "`");
    m_pending.clear();
    m_last = std::chrono::steady_clock::now();
  }
  const ShareStore& m_store;
  std::mutex m_mutex;
  std::vector<std::string> m_pending;
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

core::Status checkSameFiles(const SeriesManifest& existing, const SeriesManifest& ours) {
  std::set<std::string> a, b;
  for (const auto& f : existing.files) a.insert(f.sha256);
  for (const auto& f : ours.files) b.insert(f.sha256);
  if (a == b) return core::Status::success();
  std::size_t onlyOurs = 0;
  for (const auto& h : b) onlyOurs += a.count(h) ? 0 : 1;
  return makeError(ErrorCode::InvalidArgument, existing.path(),
                   "series " + existing.series + " was imported before with " + std::to_string(a.size()) +
                       " files; this import has " + std::to_string(b.size()) + " (" + std::to_string(onlyOurs) +
                       " not in it): the stored series is kept unchanged, nothing was added to it");
}

std::string shortHash(const std::string& text) { return sha256Hex(text.data(), text.size()).substr(0, 16); }

// A series without SeriesInstanceUID: its instances' SOPInstanceUIDs (else file names), number and modality.
std::string fallbackKey(const DicomSeries& s) {
  std::vector<std::string> ids;
  for (const DicomSlice& slice : s.slices)
    ids.push_back(slice.sopInstanceUid.empty() ? fs::path(slice.path).filename().string() : slice.sopInstanceUid);
  std::sort(ids.begin(), ids.end());
  std::string key = s.seriesNumber + "|" + s.modality + "|" + s.seriesDescription;
  for (const auto& id : ids) key += "|" + id;
  return key;  // hashed by the caller (keyed when de-identifying)
}

}  // namespace

core::Result<DeidentifyKey> readImportKey(const ShareStore& store, const std::string& keyFile) {
  std::error_code ec;
  const std::string key = fs::weakly_canonical(keyFile, ec).string();
  const std::string root = fs::weakly_canonical(store.root(), ec).string() + "/";
  if (key.rfind(root, 0) == 0)
    return makeError(ErrorCode::InvalidArgument, keyFile,
                     "the de-identification key lies on the share: keep it where share users cannot read it");
  return readDeidentifyKey(keyFile);
}

std::string shareNameFrom(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    out += ok ? c : '-';
  }
  if (out.size() > 128) out.resize(128);
  if (out.empty() || out[0] == '.') out.insert(out.begin(), 'x');
  return out;
}

std::string shareNameFromUid(const std::string& uid) {
  const bool plain = !uid.empty() && uid.size() <= 64 && uid[0] >= '0' && uid[0] <= '9' &&
                     uid.find_first_not_of("0123456789.") == std::string::npos;
  if (plain) return uid;
  std::string name = shareNameFrom(uid);
  if (name.size() > 111) name.resize(111);
  return name + "-" + shortHash(uid);
}

core::Result<StudyImportReport> importStudies(const ShareStore& store, const std::vector<std::string>& inputs,
                                              const StudyImportOptions& options) {
  if (core::Status s = store.checkMounted(); !s) return s.error();
  if (!options.study.empty() && !isValidShareName(options.study))
    return makeError(ErrorCode::InvalidArgument, options.study,
                     "not a valid study name (letters, digits, '-', '_', '.', at most 128 characters)");
  StudyImportReport report;
  core::ProgressSink* progress = options.progress;

  // 1. What the inputs hold: DICOM candidates and volume files.
  std::vector<std::string> dicomCandidates, volumes;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      for (fs::recursive_directory_iterator it(input, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string p = it->path().string();
        (volumeSuffix(p).empty() ? dicomCandidates : volumes).push_back(p);
      }
      if (ec) return makeError(ErrorCode::ReadFailed, input, "cannot list the folder: " + ec.message());
    } else {
      if (core::Status s = checkRegularFile(input, "import input"); !s) return s.error();
      (volumeSuffix(input).empty() ? dicomCandidates : volumes).push_back(input);
    }
  }
  std::sort(dicomCandidates.begin(), dicomCandidates.end());
  std::sort(volumes.begin(), volumes.end());

  std::vector<PlannedSeries> plan;
  int refusedSeries = 0;  // left out for instances in two files with different bytes
  const std::string user = options.author.empty() ? authorName() : options.author, host = localHostName(), now = utcNowIso();
  if (!dicomCandidates.empty()) {
    DicomScanOptions scan;
    scan.progress = progress;
    auto index = indexDicomFiles(dicomCandidates, scan);
    if (!index) return index.error();
    for (const auto& s : index->skipped) report.skipped.push_back(s.reason);
    if (index->nonDicomFiles > 0)
      report.skipped.push_back(std::to_string(index->nonDicomFiles) +
                               " files are neither DICOM nor a volume file (.nii, .nii.gz, .nrrd, .mha): not imported");
    // All pieces of one SeriesInstanceUID form one stored series (the files as received).
    std::map<std::pair<std::string, std::string>, std::size_t> byUid;
    std::map<std::size_t, int> imagePieces;
    std::set<std::string> seenPaths;
    for (const DicomSeries* s : index->allSeries()) {
      const std::string studyUid = s->studyInstanceUid, seriesUid = s->seriesInstanceUid;
      // Without UIDs, names come from what every importer of the same files sees alike (never from a path).
      // De-identified, a study and series are named by the UIDs the files will carry (pseudonyms).
      const DeidentifyKey* deid = options.deidentify ? &*options.deidentify : nullptr;
      const auto uidName = [&](const std::string& uid) {
        return shareNameFromUid(deid ? pseudonymUid(*deid, uid) : uid);
      };
      // De-identified, a series whose files name neither a patient nor a study cannot get a pseudonym of its own.
      const std::string patientKey = patientKeyOf(s->patientId, studyUid);
      if (deid && patientKey.empty()) {
        report.skipped.push_back((s->slices.empty() ? seriesUid : s->slices.front().path) +
                                 ": neither a Patient ID nor a Study Instance UID: nothing tells whose it is; not "
                                 "imported de-identified");
        continue;
      }
      // Names from hashes are keyed too when de-identifying: a plain hash of a patient's data could be guessed.
      const auto hashName = [&](const std::string& text) {
        return deid ? toHex(hmacSha256(deid->secret, "name:" + text)).substr(0, 16) : shortHash(text);
      };
      std::string seriesName = seriesUid.empty() ? "series-" + hashName(fallbackKey(*s)) : uidName(seriesUid);
      std::string studyName =
          !options.study.empty() ? options.study
          : !studyUid.empty()    ? uidName(studyUid)
                                 : "study-" + hashName(s->patientId + "|" + s->patientName + "|" + s->studyDate + "|" +
                                                       s->studyDescription);
      auto key = std::make_pair(studyName, seriesName);
      auto found = byUid.find(key);
      if (found == byUid.end()) {
        PlannedSeries p;
        p.suffix = ".dcm";
        SeriesManifest& m = p.manifest;
        m.study = studyName;
        m.series = seriesName;
        m.kind = "dicom";
        m.studyInstanceUid = studyUid;
        m.seriesInstanceUid = seriesUid;
        m.seriesNumber = s->seriesNumber;
        m.patientId = s->patientId;
        m.patientName = s->patientName;
        m.studyDate = s->studyDate;
        m.modality = s->modality;
        m.studyDescription = s->studyDescription;
        m.seriesDescription = s->seriesDescription;
        if (deid) {
          m.deidentified = true;
          m.studyInstanceUid = studyUid.empty() ? "" : pseudonymUid(*deid, studyUid);
          m.seriesInstanceUid = seriesUid.empty() ? "" : pseudonymUid(*deid, seriesUid);
          m.patientId = m.patientName = pseudonymFor(*deid, patientKey);
          m.studyDate = shiftedDate(*deid, patientKey, s->studyDate);
          m.studyDescription.clear();
          m.seriesDescription.clear();
        }
        found = byUid.emplace(key, plan.size()).first;
        plan.push_back(std::move(p));
      }
      // The grid of the series when it is one: exactly one image piece, not split by orientation or size.
      if (s->isImage) {
        ++imagePieces[found->second];
        if (s->splitIndex == 0 && s->geometry) plan[found->second].manifest.geometry = *s->geometry;
      }
      auto& sources = plan[found->second].sources;
      for (const DicomSlice& slice : s->slices)  // frames of one multi-frame file: one source
        if (seenPaths.insert(slice.path).second) sources.push_back({slice.path, {}, 0});
      for (const DicomSkippedFile& u : s->unreadable)
        report.skipped.push_back(u.reason + " (not imported with series " + seriesName + ")");
      // One instance in two files: identical copies are stored once and counted; different bytes refuse the series
      // (which file is the instance cannot be told), naming both files.
      for (const DicomDuplicateFile& d : s->duplicates)
        if (d.identical) plan[found->second].copies.insert(d.path);
      if (s->hasConflictingInstances() && plan[found->second].refused.empty())
        plan[found->second].refused = s->conflictDescription() +
                                      ": which file is the instance cannot be told; remove the wrong one and import again";
    }
    for (const auto& [p, pieces] : imagePieces)
      if (pieces != 1) plan[p].manifest.geometry.reset();
    // Refused series are not copied at all (a partial series on the share would look like the series).
    for (const PlannedSeries& p : plan)
      if (!p.refused.empty())
        report.skipped.push_back("series " + p.manifest.series + " of study " + p.manifest.study +
                                 " not imported: " + p.refused);
    const auto kept = std::remove_if(plan.begin(), plan.end(), [](const PlannedSeries& p) { return !p.refused.empty(); });
    refusedSeries = static_cast<int>(plan.end() - kept);
    plan.erase(kept, plan.end());
    std::sort(report.skipped.begin(), report.skipped.end());
    report.skipped.erase(std::unique(report.skipped.begin(), report.skipped.end()), report.skipped.end());
  }
  if (options.deidentify && !volumes.empty() && options.study.empty())
    return makeError(ErrorCode::InvalidArgument, volumes.front(),
                     "a volume file is imported de-identified only into a study named with --study (its file name "
                     "may name the patient)");
  // A file Delineate sealed at rest (a cached or fetched copy, a PACS retrieve: io/base/sealed_file.h) is imported as
  // its content: hashed, sized and copied through the decrypting readers (and sealed again under the share's content
  // key where the share encrypts its content), never as this user's ciphertext, which nobody else could read.
  for (const std::string& v : volumes) {
    auto image = readImageFile(v);
    if (!image) {
      report.skipped.push_back(image.error().describe());
      continue;
    }
    auto hash = contentSha256(v);
    if (!hash) return hash.error();
    PlannedSeries p;
    p.suffix = volumeSuffix(v);
    SeriesManifest& m = p.manifest;
    std::string stem = fs::path(v).filename().string();
    stem.resize(stem.size() - p.suffix.size());
    m.study = options.study.empty() ? shareNameFrom(stem) : options.study;
    m.series = "v-" + hash->substr(0, 16);
    m.kind = "volume";
    m.modality = options.modality;
    m.studyDescription = options.description.empty() && !options.deidentify ? stem : options.description;
    m.seriesDescription = options.deidentify ? std::string() : fs::path(v).filename().string();
    m.deidentified = options.deidentify.has_value();
    m.patientId = options.patientId;
    m.geometry = image->geometry();
    p.sources.push_back({v, *hash, 0});
    plan.push_back(std::move(p));
  }
  if (plan.empty()) {
    std::string why;  // every reason, so a refused series names its files here too
    for (std::size_t i = 0; i < report.skipped.size() && i < 8; ++i) why += (i ? "; " : "") + report.skipped[i];
    if (report.skipped.size() > 8) why += "; and " + std::to_string(report.skipped.size() - 8) + " more";
    if (refusedSeries > 0)
      return makeError(ErrorCode::InvalidArgument, inputs.front(), "nothing was imported: " + why);
    return makeError(ErrorCode::NotFound, inputs.empty() ? std::string("(no input)") : inputs.front(),
                     "nothing to import: no readable DICOM series or volume file" + (why.empty() ? std::string() : " (" + why + ")"));
  }

  // Temporary files a killed import left in a series folder (".<hash>.dcm.tmp-..."): never read as series files
  // (a manifest names its files), and removed by the next import of the series once an hour old (a younger one may
  // be the copy of an importer running now, on this or another machine; `study show` lists them meanwhile).
  for (const PlannedSeries& p : plan) {
    auto folder = store.resolve("studies/" + p.manifest.study + "/series/" + p.manifest.series);
    if (!folder) continue;
    std::error_code ec;
    const auto checkedAt = fs::file_time_type::clock::now();
    for (fs::directory_iterator it(*folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code e;
      if (!isAtomicTempFileName(it->path().filename().string())) continue;
      const auto time = fs::last_write_time(it->path(), e);
      if (!e && checkedAt - time > kStaleImportTemp && fs::remove(it->path(), e))
        report.warnings.push_back("removed " + it->path().string() + ", a temporary file an interrupted import left");
    }
  }

  // 2. Copy every file (in parallel over all series), then each series' manifest once its last file is in.
  struct Task {
    std::size_t series, file;
  };
  std::vector<Task> tasks;
  for (std::size_t s = 0; s < plan.size(); ++s)
    for (std::size_t f = 0; f < plan[s].sources.size(); ++f) tasks.push_back({s, f});
  std::vector<std::size_t> remaining(plan.size());
  for (std::size_t s = 0; s < plan.size(); ++s) remaining[s] = plan[s].sources.size();
  report.series.resize(plan.size());
  std::mutex mutex;
  std::optional<core::Error> failure;
  std::vector<std::string> skippedSeries(plan.size());  // why a series was left out ("" when it was not)
  std::size_t done = 0;
  RecordBatcher batcher(store);

  const auto finishSeries = [&](std::size_t s) -> core::Status {
    PlannedSeries& p = plan[s];
    SeriesManifest& m = p.manifest;
    ImportedSeries& r = report.series[s];
    r.duplicates = static_cast<int>(p.copies.size());
    std::map<std::string, SeriesFile> unique;
    for (const SourceFile& f : p.sources) {
      const std::string name = f.sha256 + p.suffix;
      if (unique.count(name)) {
        ++r.duplicates;
        continue;
      }
      unique[name] = SeriesFile{name, f.sha256, f.bytes, options.deidentify ? std::string() : fs::path(f.path).filename().string()};
    }
    m.files.clear();
    for (auto& [name, file] : unique) m.files.push_back(file);
    m.importedBy = user;
    m.host = host;
    m.time = now;
    r.study = m.study;
    r.series = m.series;
    r.kind = m.kind;
    r.files = int(m.files.size());
    r.bytes = m.totalBytes();
    const std::string text = seriesManifestJson(m);
    auto claimed = store.createExclusive(m.path(), text.data(), text.size());
    if (!claimed) return claimed.error();
    std::string manifestSha = sha256Hex(text.data(), text.size());
    if (*claimed == Claim::Taken) {
      auto existing = readSeriesManifest(store, m.study, m.series);
      if (!existing) return existing.error();
      if (core::Status same = checkSameFiles(*existing, m); !same) return same;
      r.manifestExisted = true;
      auto path = store.resolve(m.path());
      auto stored = readWholeFile(*path, kMaxRecordBytes, "series manifest");
      if (!stored) return stored.error();
      manifestSha = sha256Hex(stored->data(), stored->size());
      m = std::move(*existing);
    }
    batcher.add(catalogueSeriesRecord(m, manifestSha), report.warnings);
    return core::Status::success();
  };

  // De-identified instances are written here (local temporary folder) before they are stored.
  fs::path deidFolder;
  struct FolderGuard {
    fs::path path;
    ~FolderGuard() {
      std::error_code ec;
      if (!path.empty()) fs::remove_all(path, ec);
    }
  } deidGuard;
  if (options.deidentify) {
    std::string pattern = (fs::temp_directory_path() / "delineate-deid-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      return makeError(ErrorCode::WriteFailed, pattern, std::string("cannot make a temporary folder: ") + std::strerror(errno));
    deidFolder = deidGuard.path = pattern;
  }

  const std::string thrown = parallelFor(tasks.size(), resolveThreads(options.jobs), [&](std::size_t i, int) {
    if (progress && progress->cancelled()) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = makeError(ErrorCode::Cancelled, store.root(), "the import was cancelled (run it again to finish)");
      return false;
    }
    const Task t = tasks[i];
    PlannedSeries& p = plan[t.series];
    SourceFile& f = p.sources[t.file];
    core::Status status = core::Status::success();
    bool copied = false, there = false;
    std::string hash = f.sha256;
    // De-identified: the instance is rewritten into a local temporary file first, and that is what is stored
    // (the same input and key give the same bytes, so a resumed or racing import finds them stored).
    std::string source = f.path;
    struct TempFile {
      std::string path;
      ~TempFile() {
        if (!path.empty()) ::unlink(path.c_str());
      }
    } temp;
    if (status && options.deidentify && p.manifest.kind == "dicom") {
      temp.path = (deidFolder / (std::to_string(i) + ".dcm")).string();
      source = temp.path;
      status = deidentifyDicomFile(f.path, source, *options.deidentify);
      hash.clear();
    }
    if (status && hash.empty()) {
      auto h = contentSha256(source);
      if (h) hash = *h;
      else status = h.error();
    }
    std::uint64_t bytes = 0;
    if (status) {
      std::error_code ec;
      auto size = contentFileSize(source);
      if (size) bytes = *size;
      const std::string rel = "studies/" + p.manifest.study + "/series/" + p.manifest.series + "/" + hash + p.suffix;
      auto target = store.resolve(rel);
      if (!size) status = size.error();
      else if (!target) status = target.error();
      else if (fs::exists(*target, ec)) there = true;  // published whole by an earlier or concurrent import
      else {
        // Published only if its bytes still hash to its name (a source changing under us is refused, not stored).
        auto written = store.copyFileIn(rel, source, true, hash, ShareFile::Content);
        if (written) copied = true;
        else if (isAlreadyExists(written.error())) there = true;
        else if (written.error().code == ErrorCode::Corrupt)
          status = makeError(ErrorCode::ReadFailed, f.path, "the file changed while it was imported (its SHA-256 "
                                                            "differs between two reads); nothing was stored");
        else status = written.error();
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (!status) {
      // An instance the profile refuses (burned-in annotation) costs its series, not the import.
      if (status.error().code == ErrorCode::Unsupported) {
        if (skippedSeries[t.series].empty()) skippedSeries[t.series] = status.error().describe();
        return true;
      }
      if (!failure) failure = status.error();
      return false;
    }
    if (!skippedSeries[t.series].empty()) return true;
    f.sha256 = hash;
    f.bytes = bytes;
    ImportedSeries& r = report.series[t.series];
    r.copied += copied ? 1 : 0;
    r.alreadyThere += there ? 1 : 0;
    ++done;
    if (progress) progress->report(double(done) / double(tasks.size()), "copy");
    if (--remaining[t.series] == 0) {
      if (core::Status s = finishSeries(t.series); !s) {
        // Imported before with other files: that series is left as it was, the others go on.
        if (s.error().code == ErrorCode::InvalidArgument) {
          skippedSeries[t.series] = s.error().describe();
          return true;
        }
        if (!failure) failure = s.error();
        return false;
      }
    }
    return true;
  });
  batcher.flush(report.warnings);
  if (!thrown.empty()) return makeError(ErrorCode::WriteFailed, store.root(), "the import failed: " + thrown);
  if (failure) return *failure;
  std::vector<ImportedSeries> imported;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (skippedSeries[i].empty()) imported.push_back(std::move(report.series[i]));
    else report.skipped.push_back("series " + plan[i].manifest.series + " of study " + plan[i].manifest.study +
                                  " not imported: " + skippedSeries[i]);
  }
  report.series = std::move(imported);
  if (report.series.empty())
    return makeError(ErrorCode::InvalidArgument, store.root(),
                     "nothing was imported: " + (report.skipped.empty() ? std::string("no series") : report.skipped.back()));
  return report;
}

}  // namespace delineate::io
