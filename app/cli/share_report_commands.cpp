// share report / share reports: the statistics (CSV, JSON), DICOM SEG and measurement report of a label-set revision,
// published on the share next to it (io/share/share_reports.h), and the list of what was published.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/dicom_export.h"
#include "core/statistics.h"
#include "io/share/audit_log.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_reports.h"
#include "io/share/share_revisions.h"
#include "io/report/statistics_report.h"

namespace delineate::app::cli {
namespace {

namespace fs = std::filesystem;

// A private folder for the files before they are published; removed with the object.
struct TempFolder {
  std::string path;
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "delineate-report-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

nlohmann::json reportJson(const io::PublishedReport& r) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : r.files) files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  return {{"revision", r.revision}, {"number", r.number}, {"folder", r.folder},
          {"author", r.author},     {"time", r.time},     {"message", r.message},
          {"deidentified", r.deidentified}, {"files", files}};
}

}  // namespace

int runShareReport(const ShareReportOptions& o) {
  if (o.dicom.empty() && o.image.empty())
    return usageError("share report", "share report takes the image as --dicom FOLDER or --image FILE");
  const int revision = o.revision;
  auto store = io::ShareStore::open(o.set.root);
  if (!store) return fileError(store.error());
  auto set = io::LabelSetRevisions::open(*store, o.set.study, o.set.labelSet);
  if (!set) return fileError(set.error());
  auto labels = set->loadLabels(revision);
  if (!labels) return fileError(labels.error());
  // The label table: given, else the one saved with the revision (the window keeps it in the revision's sidecar).
  core::LabelTable table;
  if (!o.table.empty()) {
    auto t = io::readLabelTableFile(o.table);
    if (!t) return fileError(t.error());
    table = std::move(t).value();
  } else if (auto list = set->list(); list && list->find(revision)) {
    const auto extra = nlohmann::json::parse(list->find(revision)->extraJson, nullptr, false);
    if (extra.is_object() && extra.contains("labelTable") && extra["labelTable"].is_string())
      if (auto t = io::readSlicerCsvString(extra["labelTable"].get<std::string>(), "revision label table"); t)
        table = std::move(t).value();
  }

  // The image: a DICOM series (then a SEG and an SR go with the statistics) or a volume file.
  std::optional<io::DicomIndex> index;
  const io::DicomSeries* series = nullptr;
  core::ImageVolume image;
  if (!o.dicom.empty()) {
    auto ix = io::indexDicomFolder(o.dicom);
    if (!ix) return fileError(ix.error());
    index = std::move(ix).value();
    if (int code = chooseImageSeries(*index, o.dicom, o.series, series); code != 0) return code;
    auto loaded = io::loadDicomSeries(*series);
    if (!loaded) return fileError(loaded.error());
    image = std::move(loaded->image);
  } else {
    auto read = io::readImageFile(o.image);
    if (!read) return fileError(read.error());
    image = std::move(read).value();
  }
  auto stats = core::computeLabelStatistics(*labels, &image);
  if (!stats) return fileError(stats.error());

  TempFolder temp;
  if (temp.path.empty()) return fileError(core::makeError(core::ErrorCode::WriteFailed, fs::temp_directory_path().string(),
                                                           "cannot make a temporary folder"));
  io::StatisticsReportInfo info;
  info.image = o.dicom.empty() ? o.image : series->key();
  info.labelSource = set->study() + "/" + set->name() + " r" + std::to_string(revision);
  info.intensityUnit = series && series->modality == "CT" ? "HU" : "";
  info.geometry = image.geometry();
  info.deidentified = o.deidentify;
  std::vector<io::ReportFile> files;
  for (const char* name : {"statistics.csv", "statistics.json"}) {
    const std::string path = temp.path + "/" + name;
    if (core::Status s = io::writeStatisticsFile(path, *stats, table, info); !s) return fileError(s.error());
    files.push_back({name, path});
  }
  if (series) {
    DicomExportOptions options;
    options.labelmap = o.labelmap;
    options.deidentify = o.deidentify;
    options.observer = o.observer;
    const std::string seg = temp.path + "/segmentation.dcm", sr = temp.path + "/measurements.dcm";
    auto exported = exportSegAndSr(*series, &*stats, *labels, table, seg, sr, options);
    if (!exported) return fileError(exported.error());
    files.push_back({"segmentation.dcm", seg});
    files.push_back({"measurements.dcm", sr});
  }

  io::ReportPublishRequest request;
  request.study = set->study();
  request.labelSet = set->name();
  request.revision = revision;
  request.author = o.author.empty() ? io::authorName() : o.author;
  request.message = o.message;
  request.deidentified = o.deidentify;
  request.files = files;
  auto published = io::publishReport(*store, request);
  if (!published) return fileError(published.error());
  if (!published->auditWarning.empty())
    std::fprintf(stderr, "warning: the audit record was not written: %s\n", published->auditWarning.c_str());
  if (o.json) {
    std::printf("%s\n", reportJson(*published).dump(2).c_str());
  } else {
    std::printf("published report %d of r%d to %s/%s\n", published->number, revision, store->root().c_str(),
                published->folder.c_str());
    for (const auto& f : published->files)
      std::printf("  %-20s %10llu B  %s\n", f.name.c_str(), static_cast<unsigned long long>(f.bytes), f.sha256.substr(0, 12).c_str());
  }
  return 0;
}

int runShareReports(const ShareListOptions& o) {
  auto store = io::ShareStore::open(o.set.root);
  if (!store) return fileError(store.error());
  auto list = io::listReports(*store, o.set.study, o.set.labelSet);
  if (!list) return fileError(list.error());
  if (o.json) {
    nlohmann::json reports = nlohmann::json::array();
    for (const auto& r : list->reports) reports.push_back(reportJson(r));
    nlohmann::json damaged = nlohmann::json::array();
    for (const auto& e : list->damaged) damaged.push_back(e.describe());
    std::printf("%s\n",
                nlohmann::json{{"reports", reports}, {"incomplete", list->incomplete}, {"damaged", damaged}}.dump(2).c_str());
    return 0;
  }
  for (const auto& r : list->reports) {
    std::printf("r%-6d #%-3d %s  %-12s %zu files%s%s\n", r.revision, r.number, r.time.c_str(), r.author.c_str(),
                r.files.size(), r.deidentified ? "  de-identified" : "",
                r.message.empty() ? "" : ("  \"" + r.message + "\"").c_str());
  }
  for (const auto& f : list->incomplete) std::printf("incomplete (no manifest): %s\n", f.c_str());
  for (const auto& e : list->damaged) std::printf("damaged: %s\n", e.describe().c_str());
  if (list->reports.empty() && list->incomplete.empty() && list->damaged.empty()) std::printf("no reports\n");
  return 0;
}

}  // namespace delineate::app::cli
