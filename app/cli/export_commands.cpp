// export-dicom: a label map on a DICOM series -> DICOM SEG (+ TID 1500 SR). sr-show: what a measurement report says.
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "app/cli/dicom_export.h"
#include "core/statistics.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg_write.h"
#include "io/dicom/dicom_sr.h"
#include "io/volume/image_file.h"
#include "io/labels/label_table_io.h"

namespace delineate::app::cli {
namespace {

std::string code(const core::CodedConcept& c) {
  return c.empty() ? std::string() : "(" + c.value + ", " + c.scheme + ", \"" + c.meaning + "\")";
}

}  // namespace

core::Result<DicomExportResult> exportSegAndSr(const io::DicomSeries& series,
                                               const std::vector<core::LabelStatistics>* stats,
                                               const core::LabelMap& labels, const core::LabelTable& table,
                                               const std::string& segPath, const std::string& srPath,
                                               const DicomExportOptions& options) {
  io::SegWriteOptions segOptions;
  segOptions.deidentify = options.deidentify;
  segOptions.encoding = options.labelmap ? io::SegEncoding::Labelmap : io::SegEncoding::Binary;
  io::SrWriteOptions srOptions;
  srOptions.observerName = options.deidentify ? std::string() : options.observer;
  if (!srPath.empty() && stats == nullptr)
    return core::makeError(core::ErrorCode::InvalidArgument, srPath, "no statistics to report");
  const std::vector<core::LabelStatistics> none;
  const std::vector<core::LabelStatistics>& measured = stats ? *stats : none;
  auto info = io::writeDicomSegAndSr(segPath, srPath, labels, table, series, measured, segOptions, srOptions);
  if (!info) return info.error();
  DicomExportResult result;
  result.segments = info->segments.size();
  if (!srPath.empty()) result.groups = io::srGroupsFor(info->segments, measured, series.modality).size();
  return result;
}

int readLabelsOnSeries(const std::string& dicom, const std::string& seriesKey, const std::string& labelsPath,
                       const std::string& tablePath, bool tableBeside, LabelsOnSeries& out) {
  auto index = io::indexDicomFolder(dicom);
  if (!index) return fileError(index.error());
  out.index = std::move(index).value();
  if (int code = chooseImageSeries(out.index, dicom, seriesKey, out.series); code != 0) return code;
  auto labels = io::readLabelFile(labelsPath);
  if (!labels) return fileError(labels.error());
  // An export of no labels is no export: say so before any DICOM is written.
  if (core::Status s = requireLabels(labelsPresent(*labels), {}, labelsPath); !s) return fileError(s.error());
  out.labels = std::move(labels).value();
  if (!tablePath.empty()) {
    auto t = io::readLabelTableFile(tablePath);
    if (!t) return fileError(t.error());
    out.table = std::move(t).value();
  } else if (tableBeside) {
    auto beside = io::readLabelTableBeside(labelsPath);
    if (!beside) return fileError(beside.error());
    if (*beside) out.table = std::move((*beside)->table);
  }
  return 0;
}

int runExportDicom(const ExportDicomOptions& o) {
  if (o.sr == o.seg) return usageError("export-dicom", "--sr and --seg must be different files");
  LabelsOnSeries in;
  if (int code = readLabelsOnSeries(o.dicom, o.series, o.labels, o.table, false, in); code != 0) return code;
  const io::DicomSeries* series = in.series;
  const core::LabelMap& labels = in.labels;
  const core::LabelTable& table = in.table;
  // The statistics are taken on the series' own voxels (HU for CT), so the report says what the SEG covers.
  std::optional<std::vector<core::LabelStatistics>> stats;
  if (!o.sr.empty()) {
    auto loaded = io::loadDicomSeries(*series);
    if (!loaded) return fileError(loaded.error());
    auto computed = core::computeLabelStatistics(labels, &loaded->image);
    if (!computed) return fileError(computed.error());
    stats = std::move(computed).value();
  }
  DicomExportOptions options;
  options.labelmap = o.labelmap;
  options.deidentify = o.deidentify;
  options.observer = o.observer;
  auto result = exportSegAndSr(*series, stats ? &*stats : nullptr, labels, table, o.seg, o.sr, options);
  if (!result) return fileError(result.error());
  std::printf("wrote %s (%s SEG, %zu segments, referencing series %s)\n", o.seg.c_str(),
              o.labelmap ? "LABELMAP" : "BINARY", result->segments, series->key().c_str());
  if (!o.sr.empty())
    std::printf("wrote %s (TID 1500 measurement report, %zu measurement groups)\n", o.sr.c_str(), result->groups);
  if (!o.sr.empty() && o.deidentify && !o.observer.empty())
    std::fprintf(stderr, "note: the observer \"%s\" is not in %s: a de-identified report names no person (its observer is "
                         "the device)\n", o.observer.c_str(), o.sr.c_str());
  return 0;
}

int runSrShow(const SrShowOptions& o) {
  const std::string& file = o.file;
  const bool json = o.json;
  auto doc = io::readDicomSr(file);
  if (!doc) return fileError(doc.error());
  if (json) {
    auto concept = [](const core::CodedConcept& c) {
      return c.empty() ? nlohmann::json(nullptr)
                       : nlohmann::json{{"value", c.value}, {"scheme", c.scheme}, {"meaning", c.meaning}};
    };
    nlohmann::json j;
    j["file"] = file;
    j["title"] = concept(doc->title);
    j["template"] = doc->templateId;
    j["completion"] = doc->completionFlag;
    j["verification"] = doc->verificationFlag;
    j["observer"] = {{"type", doc->observerType}, {"name", doc->observerName}};
    j["imageLibraryEntries"] = doc->imageLibraryEntries;
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : doc->groups) {
      nlohmann::json gj{{"trackingIdentifier", g.trackingIdentifier},
                        {"trackingUid", g.trackingUid},
                        {"finding", concept(g.finding)},
                        {"findingSite", concept(g.findingSite)},
                        {"sourceSeries", g.sourceSeriesUid}};
      if (g.segment.segmentNumber > 0)
        gj["segment"] = {{"sopInstanceUid", g.segment.sopInstanceUid}, {"number", g.segment.segmentNumber}};
      nlohmann::json ms = nlohmann::json::array();
      for (const auto& m : g.measurements) {
        nlohmann::json mj{{"quantity", concept(m.quantity)}, {"units", concept(m.units)}, {"value", m.valueText}};
        if (!m.derivation.empty()) mj["derivation"] = concept(m.derivation);
        if (!m.method.empty()) mj["method"] = concept(m.method);
        ms.push_back(mj);
      }
      gj["measurements"] = ms;
      groups.push_back(gj);
    }
    j["groups"] = groups;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%s  %s%s\n", file.c_str(), doc->title.meaning.c_str(),
              doc->templateId.empty() ? "" : (" (TID " + doc->templateId + ")").c_str());
  std::printf("  %s, %s; observer: %s %s; %zu image library entries\n", doc->completionFlag.c_str(),
              doc->verificationFlag.c_str(), doc->observerType.c_str(), doc->observerName.c_str(),
              doc->imageLibraryEntries);
  for (const auto& g : doc->groups) {
    std::printf("\n  %s", g.trackingIdentifier.c_str());
    if (g.segment.segmentNumber > 0) std::printf("  [segment %d of %s]", g.segment.segmentNumber, g.segment.sopInstanceUid.c_str());
    std::printf("\n");
    if (!g.finding.empty()) std::printf("    finding      %s\n", code(g.finding).c_str());
    if (!g.findingSite.empty()) std::printf("    finding site %s\n", code(g.findingSite).c_str());
    for (const auto& m : g.measurements) {
      std::string name = m.quantity.meaning;
      if (!m.derivation.empty()) name += " (" + m.derivation.meaning + ")";
      std::printf("    %-40.40s %14s %s\n", name.c_str(), m.valueText.c_str(), m.units.value.c_str());
    }
  }
  return 0;
}

}  // namespace delineate::app::cli
