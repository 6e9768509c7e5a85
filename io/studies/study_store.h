#pragma once
// Studies in the share store (issue 24, item 1): the images of a study as imported, beside its label sets.
//
// Layout under the store root:
//   studies/<study>/series/<series>/<sha256><ext>   the series' files, each named by its content's SHA-256: DICOM
//                                                   instances exactly as received (".dcm"), or one volume file (its
//                                                   own suffix). Identical instances are one file.
//   studies/<study>/series/<series>.json            the series manifest, published last and never changed: a series
//                                                   without one is an import in progress (or killed) and is not
//                                                   listed; its files are re-used when the import runs again.
//   studies/<study>/labelsets/<set>/...             label-set revisions (io/share/share_revisions.h), each bound to
//                                                   one series by its metadata's "extra.image" (study, series,
//                                                   geometry).
// Names: a DICOM study is named by its StudyInstanceUID and a series by its SeriesInstanceUID (both valid share
// names: digits and dots), so two importers of the same study meet in the same folders and end with one study. A
// volume file's series is "v-" and the first 16 hex digits of its SHA-256; its study is named by the caller.
//
// Shares written before studies held images (labelsets only) open as they are: their studies list with no series,
// and `study reindex` puts them into the catalogue (io/share/share_catalogue.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/progress.h"
#include "core/scalar_image.h"
#include "io/base/process_info.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct SeriesFile {
  std::string name;    // in the series folder: "<sha256>.dcm"
  std::string sha256;
  std::uint64_t bytes = 0;
  std::string source;  // the file name it was imported from (for people; not a path on anyone's disk)
};

struct SeriesManifest {
  std::string study, series;
  std::string kind;  // "dicom" or "volume"
  std::string studyInstanceUid, seriesInstanceUid, seriesNumber;
  std::string patientId, patientName, studyDate, modality, studyDescription, seriesDescription;
  std::optional<core::Geometry> geometry;  // the image grid (absent for non-image DICOM: SEG, SR)
  std::vector<SeriesFile> files;           // sorted by name
  bool deidentified = false;
  std::string importedBy, host, time;
  std::uint64_t totalBytes() const;
  // The manifest's path relative to the store.
  std::string path() const { return "studies/" + study + "/series/" + series + ".json"; }
};

std::string seriesManifestJson(const SeriesManifest& manifest);
core::Result<SeriesManifest> parseSeriesManifest(const std::string& text, const std::string& path);
// The manifest's catalogue record ("series"), with the manifest's SHA-256.
std::string catalogueSeriesRecord(const SeriesManifest& manifest, const std::string& manifestSha256);

struct StudyLabelSet {
  std::string name;
  int latestRevision = 0;
  std::string latestAuthor, latestTime;
  std::string boundSeries;  // of the latest revision ("" when unbound: written before studies held images)
};

struct StudyListing {
  std::string study;
  std::vector<SeriesManifest> series;
  std::vector<std::string> seriesInProgress;   // series folders without a manifest (an import running or killed)
  std::vector<std::string> damaged;            // "<file>: <reason>" for manifests that cannot be read (skipped)
  std::vector<std::string> leftovers;          // temporary files of copies running or killed ("series/<s>/<name>")
  std::vector<StudyLabelSet> labelSets;
};

// Reads one study's folder: its manifests and label sets.
core::Result<StudyListing> listStudy(const ShareStore& store, const std::string& study);
// The study folder names under studies/, sorted.
core::Result<std::vector<std::string>> listStudyNames(const ShareStore& store);
// One manifest (NotFound naming it when the series has none).
core::Result<SeriesManifest> readSeriesManifest(const ShareStore& store, const std::string& study,
                                                const std::string& series);

// The series' files copied to `localFolder` (created) and verified against the manifest (size and SHA-256), in
// parallel; files already there from an earlier fetch (named by their hash, written atomically) are kept. A folder
// holding anything else is refused (InvalidArgument naming a file): nothing of the user's in it is ever removed.
// One fetch into a folder at a time (an exclusive flock on the folder; a second waits): holding it, the temporary
// files a killed fetch left there are removed. Returns what to open: the folder for DICOM, the volume file for a
// volume. Progress stage "fetch". A fetch that fails or is cancelled removes the files it wrote (and the folder when
// it made it): the folder is left as it was, never holding part of a series.
struct FetchedSeries {
  SeriesManifest manifest;
  std::string openPath;
  int copied = 0, reused = 0;
};
// `access`: Sealed (the default: a copy Delineate keeps, sealed at rest with this user's key, io/base/sealed_file.h;
// every io reader opens it) or Private (plain files at a folder the user chose: `study get`). A file there sealed
// the other way, or under another key, is copied again.
core::Result<FetchedSeries> fetchSeries(const ShareStore& store, const std::string& study, const std::string& series,
                                        const std::string& localFolder, core::ProgressSink* progress = nullptr,
                                        FileAccess access = FileAccess::Sealed);
// The image of a fetched series, in its stored type: the volume file, or the DICOM folder's one image series (split,
// irregular, incomplete or several series are refused naming the folder: what a person would be asked about is not
// decided for them). Non-finite voxels are refused naming the file.
core::Result<core::ScalarImage> readFetchedSeries(const FetchedSeries& fetched, core::ProgressSink* progress = nullptr);
// userCacheFolder(): io/base/process_info.h.
// Where fetchSeries puts a series by default: $XDG_CACHE_HOME (or ~/.cache)/delineate/studies/<store id>/<study>/<series>.
std::string defaultSeriesCacheFolder(const ShareStore& store, const std::string& study, const std::string& series);

// Keeps the series cache (userCacheFolder()/studies) under `budgetBytes`: whole series folders are removed, least
// recently fetched first (their folder's modification time, which every fetch renews), never `keep` nor one fetched
// within the last `graceSeconds` (another window may be opening it). Returns the bytes removed. A cache is only a
// copy: what goes is fetched again, verified, when next opened.
std::uint64_t pruneSeriesCache(const std::string& cacheRoot, std::uint64_t budgetBytes, const std::string& keep,
                               int graceSeconds = 3600);

// The "image" object a label revision bound to this series carries in its metadata's extra.
std::string labelBindingJson(const SeriesManifest& manifest);
// Reads a label revision's binding back from its extra JSON: false when it has none.
bool parseLabelBinding(const std::string& extraJson, std::string* study, std::string* series);

// The series a label map on `geometry` saved into `study` is bound to: `series` when named (an error naming it when
// its grid differs), else the one image series of the study on that grid; nullopt when there is none (a study without
// images, as shares written before studies held images) or several (`ambiguous` then lists them: the caller names one).
core::Result<std::optional<SeriesManifest>> seriesForLabels(const ShareStore& store, const std::string& study,
                                                            const core::Geometry& geometry, const std::string& series,
                                                            std::vector<std::string>* ambiguous = nullptr);
// The extra JSON of a label revision bound to `manifest` ({"image": ...}), merged into `extraJson` (may be empty).
std::string withLabelBinding(const std::string& extraJson, const SeriesManifest& manifest);

// The catalogue records of every study, from their folders (the upgrade of a share written before the catalogue, and
// the repair after a record could not be written), published as one snapshot. Damaged manifests and revision records
// are reported in `problems` and skipped.
struct ReindexReport {
  int studies = 0, series = 0, labelSets = 0;
  std::string snapshot;
  std::vector<std::string> problems;
};
core::Result<ReindexReport> reindexStudies(const ShareStore& store, core::ProgressSink* progress = nullptr);

}  // namespace delineate::io
