// dicom-index: list the patients/studies/series of a folder. convert: a DICOM series or a volume file -> a volume file.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {
namespace {

using namespace delineate::core;
using namespace delineate::io;

// Progress on stderr for interactive use: one line, rewritten, only when stderr is a terminal.
class TerminalProgress final : public ProgressSink {
 public:
  TerminalProgress() : m_enabled(isatty(2) != 0) {}
  ~TerminalProgress() override {
    if (m_enabled && m_shown) std::fprintf(stderr, "\r%60s\r", "");
  }
  void report(double fraction, const std::string& stage) override {
    if (!m_enabled) return;
    const int percent = int(fraction * 100.0);
    if (percent == m_last) return;
    m_last = percent;
    m_shown = true;
    std::fprintf(stderr, "\r%s %3d%%", stage.c_str(), percent);
    std::fflush(stderr);
  }
  bool cancelled() const override { return false; }

 private:
  bool m_enabled;
  bool m_shown = false;
  int m_last = -1;
};

std::string describeFormat(const DicomSeries& s) {
  if (!s.isImage) return "-";
  return std::to_string(s.format.columns) + "x" + std::to_string(s.format.rows) + "x" +
         std::to_string(s.geometry ? s.geometry->dimensions()[2] : std::int64_t(s.slices.size()));
}

nlohmann::json unreadableJson(const std::vector<DicomSkippedFile>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : files) {
    nlohmann::json j{{"path", f.path}, {"reason", f.reason}};
    if (!f.seriesInstanceUid.empty()) j["seriesInstanceUid"] = f.seriesInstanceUid;
    if (f.instanceNumber) j["instanceNumber"] = *f.instanceNumber;
    if (f.positionLps) j["positionLps"] = {(*f.positionLps)[0], (*f.positionLps)[1], (*f.positionLps)[2]};
    out.push_back(j);
  }
  return out;
}

nlohmann::json seriesJson(const DicomSeries& s) {
  nlohmann::json j;
  j["key"] = s.key();
  j["seriesInstanceUid"] = s.seriesInstanceUid;
  j["seriesNumber"] = s.seriesNumber;
  j["description"] = s.seriesDescription;
  j["modality"] = s.modality;
  j["sopClassUid"] = s.sopClassUid;
  j["isImage"] = s.isImage;
  j["instances"] = s.instanceCount;
  j["folder"] = s.folder;
  if (s.splitIndex > 0) {
    j["splitIndex"] = s.splitIndex;
    j["splitReason"] = s.splitReason;
  }
  if (s.isImage) {
    j["rows"] = s.format.rows;
    j["columns"] = s.format.columns;
    j["frames"] = s.slices.size();
    j["bitsAllocated"] = s.format.bitsAllocated;
    j["transferSyntax"] = s.format.transferSyntaxName;
    j["transferSyntaxUid"] = s.format.transferSyntaxUid;
    j["regular"] = s.isRegular();
    j["sliceSpacingMm"] = s.sliceSpacingMm;
    if (s.gantryTiltDegrees > 0) j["gantryTiltDegrees"] = s.gantryTiltDegrees;
    if (s.geometry) {
      const auto& g = *s.geometry;
      j["dimensions"] = {g.dimensions()[0], g.dimensions()[1], g.dimensions()[2]};
      j["spacingMm"] = {g.spacingMm()[0], g.spacingMm()[1], g.spacingMm()[2]};
      j["originLps"] = {g.originLps()[0], g.originLps()[1], g.originLps()[2]};
      j["direction"] = g.direction().m;
      j["orientation"] = g.orientationCode();
    }
  }
  if (s.isImage) j["unreadable"] = unreadableJson(s.unreadable);
  nlohmann::json issues = nlohmann::json::array();
  for (const auto& i : s.issues) issues.push_back({{"kind", seriesIssueName(i.kind)}, {"detail", i.detail}});
  j["issues"] = issues;
  return j;
}

}  // namespace

int runDicomIndex(const DicomIndexOptions& o) {
  const std::string& folder = o.folder;
  const std::string& format = o.format;
  DicomScanOptions options;
  options.threads = o.threads;
  options.recursive = !o.noRecursive;
  TerminalProgress progress;
  options.progress = &progress;
  const auto start = std::chrono::steady_clock::now();
  auto index = io::indexDicomFolder(folder, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!index) return fileError(index.error());

  if (format == "json") {
    nlohmann::json j;
    j["root"] = index->root;
    j["filesVisited"] = index->filesVisited;
    j["nonDicomFiles"] = index->nonDicomFiles;
    j["seconds"] = seconds;
    nlohmann::json patients = nlohmann::json::array();
    for (const auto& p : index->patients) {
      nlohmann::json pj{{"patientId", p.patientId}, {"patientName", p.patientName}};
      nlohmann::json studies = nlohmann::json::array();
      for (const auto& st : p.studies) {
        nlohmann::json sj{{"studyInstanceUid", st.studyInstanceUid}, {"studyDate", st.studyDate},
                          {"description", st.studyDescription}};
        nlohmann::json series = nlohmann::json::array();
        for (const auto& se : st.series) series.push_back(seriesJson(se));
        sj["series"] = series;
        studies.push_back(sj);
      }
      pj["studies"] = studies;
      patients.push_back(pj);
    }
    j["patients"] = patients;
    j["skipped"] = unreadableJson(index->skipped);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }

  std::printf("%s: %lld files, %zu series, %lld not DICOM, %zu unreadable (%.2f s)\n", folder.c_str(),
              (long long)index->filesVisited, index->allSeries().size(), (long long)index->nonDicomFiles,
              index->skipped.size(), seconds);
  for (const auto& p : index->patients) {
    std::printf("\nPatient %s  %s\n", p.patientId.empty() ? "(no ID)" : p.patientId.c_str(), p.patientName.c_str());
    for (const auto& st : p.studies) {
      std::printf("  Study %s  %s  %s\n", st.studyDate.empty() ? "(no date)" : st.studyDate.c_str(),
                  st.studyDescription.c_str(), st.studyInstanceUid.c_str());
      for (const auto& s : st.series) {
        std::printf("    #%-4s %-4s %-14s %4d files  %-28.28s %s\n", s.seriesNumber.c_str(), s.modality.c_str(),
                    describeFormat(s).c_str(), s.instanceCount, s.seriesDescription.c_str(), s.key().c_str());
        if (s.isImage && s.geometry)
          std::printf("          %s, %.3g x %.3g x %.3g mm, %s%s\n", s.format.transferSyntaxName.c_str(),
                      s.geometry->spacingMm()[0], s.geometry->spacingMm()[1], s.geometry->spacingMm()[2],
                      s.geometry->orientationCode().c_str(), s.isRegular() ? "" : ", NOT A REGULAR GRID");
        for (const auto& i : s.issues)
          if (i.kind != SeriesIssueKind::UnreadableFiles)
            std::printf("          ! %s: %s\n", seriesIssueName(i.kind), i.detail.c_str());
        if (!s.unreadable.empty()) {
          std::printf("          ! INCOMPLETE: %zu unreadable file(s):\n", s.unreadable.size());
          for (const auto& f : s.unreadable) std::printf("            %s\n", f.reason.c_str());
        }
      }
    }
  }
  if (!index->skipped.empty()) {
    std::printf("\nUnreadable files:\n");
    for (const auto& s : index->skipped)
      std::printf("  %s%s\n", s.reason.c_str(),
                  s.seriesInstanceUid.empty() ? "" : ("  [series " + s.seriesInstanceUid + "]").c_str());
  }
  return 0;
}

int chooseImageSeries(const io::DicomIndex& index, const std::string& input, const std::string& seriesKey,
                      const io::DicomSeries*& chosen) {
  std::vector<const DicomSeries*> images;
  for (const DicomSeries* s : index.allSeries())
    if (s->isImage) images.push_back(s);
  chosen = nullptr;
  if (!seriesKey.empty()) {
    chosen = index.findSeries(seriesKey);
    if (!chosen) {
      std::fprintf(stderr, "error: %s: no image series '%s' (or several with that number); series here:\n",
                   input.c_str(), seriesKey.c_str());
      for (const DicomSeries* s : images) std::fprintf(stderr, "  #%s %s\n", s->seriesNumber.c_str(), s->key().c_str());
      return 1;
    }
    return 0;
  }
  if (images.size() == 1) {
    chosen = images.front();
    return 0;
  }
  if (images.empty()) {
    std::fprintf(stderr, "error: %s: no DICOM image series found (%zu unreadable files)\n", input.c_str(),
                 index.skipped.size());
    for (const auto& s : index.skipped) std::fprintf(stderr, "  %s\n", s.reason.c_str());
    return 1;
  }
  std::fprintf(stderr, "error: %s: %zu image series; pick one with --series KEY:\n", input.c_str(), images.size());
  for (const DicomSeries* s : images)
    std::fprintf(stderr, "  #%s %s %s\n", s->seriesNumber.c_str(), s->seriesDescription.c_str(), s->key().c_str());
  return 2;
}

namespace {

// Takes over a chosen and checked DICOM series instead of the whole-volume load (convert streams it to its file): an
// exit code, or nothing to have it loaded as usual. `report` prints the series' issues as warnings.
using SeriesConsumer = std::function<std::optional<int>(
    const DicomSeries& series, const DicomLoadOptions& load,
    const std::function<void(const std::vector<SeriesIssue>&)>& report)>;

// The image of a volume file or a DICOM series: float32 into `image`, or in its own type into `typed` (given instead);
// a DICOM series goes to `consume` first when it is given.
int readInput(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable, int threads,
              ImageVolume* image, core::ScalarImage* typed, const SeriesConsumer& consume = {}) {
  if (io::imageFileFormatFromPath(input) != io::ImageFileFormat::Unknown) {
    if (typed) {
      auto read = io::readImageFileTyped(input);
      if (!read) return fileError(read.error());
      *typed = std::move(*read);
      return 0;
    }
    auto read = io::readImageFile(input);
    if (!read) return fileError(read.error());
    *image = std::move(*read);
    return 0;
  }
  TerminalProgress progress;
  DicomScanOptions scan;
  scan.threads = threads;
  scan.progress = &progress;
  auto index = io::indexDicomFolder(input, scan);
  if (!index) return fileError(index.error());
  const DicomSeries* chosen = nullptr;
  if (int code = chooseImageSeries(*index, input, series, chosen); code != 0) return code;
  // Unreadable files elsewhere under INPUT are not this series' (their UID says so, or they lie in another folder),
  // but the user is told they were there.
  for (const auto& f : index->skipped) {
    const bool member = std::any_of(chosen->unreadable.begin(), chosen->unreadable.end(),
                                    [&](const DicomSkippedFile& m) { return m.path == f.path; });
    if (!member) std::fprintf(stderr, "warning: %s (not part of series %s)\n", f.reason.c_str(), chosen->key().c_str());
  }
  if (!chosen->unreadable.empty() && !allowUnreadable) {
    // One line per file, so no file hides behind another in a long message.
    for (const auto& f : chosen->unreadable) std::fprintf(stderr, "error: %s\n", f.reason.c_str());
    std::fprintf(stderr,
                 "error: %s: series %s is incomplete: %zu file(s) of it or beside it cannot be read (above); "
                 "--allow-unreadable loads the rest\n",
                 input.c_str(), chosen->key().c_str(), chosen->unreadable.size());
    return 1;
  }
  DicomLoadOptions load;
  load.threads = threads;
  load.allowIrregular = allowIrregular;
  load.allowUnreadable = allowUnreadable;
  load.progress = &progress;
  auto report = [&](const std::vector<SeriesIssue>& issues) {
    for (const auto& i : issues)
      std::fprintf(stderr, "warning: %s: %s: %s\n", chosen->key().c_str(), seriesIssueName(i.kind), i.detail.c_str());
  };
  if (consume)
    if (std::optional<int> code = consume(*chosen, load, report)) return *code;
  if (typed) {
    auto loaded = io::loadDicomSeriesTyped(*chosen, load);
    if (!loaded) return fileError(loaded.error());
    report(loaded->issues);
    *typed = std::move(loaded->image);
    return 0;
  }
  auto loaded = io::loadDicomSeries(*chosen, load);
  if (!loaded) return fileError(loaded.error());
  report(loaded->issues);
  *image = std::move(loaded->image);
  return 0;
}

}  // namespace

int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, ImageVolume& image) {
  return readInput(input, series, allowIrregular, allowUnreadable, threads, &image, nullptr);
}

int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, core::ScalarImage& image) {
  return readInput(input, series, allowIrregular, allowUnreadable, threads, nullptr, &image);
}

int runConvert(const ConvertOptions& o) {
  const std::string& input = o.input;
  const std::string& output = o.output;
  if (!io::imageFileFormatWritable(io::imageFileFormatFromPath(output)))
    return usageError("convert", std::string("OUTPUT must end in ") + io::writableImageExtensions() + ": " + output);

  // In the type the values need, never through float32 when they are whole numbers (issue 27): a DICOM series is
  // decoded straight into it, a volume file narrowed to the smallest exact type (CT in HU: int16, half of float32).
  // A series bound for NIfTI or NRRD (.nrrd) is streamed: each slab of slices is written as it is decoded, so the
  // volume is never held (a series with missing slices loads whole: their fill value is known only at the end).
  struct Written {
    core::Geometry geometry;
    core::ScalarType type;
  };
  std::optional<Written> streamed;  // set once a stream was committed
  const bool streamable = io::imageStreamWritable(output);
  const SeriesConsumer stream = [&](const DicomSeries& chosen, const DicomLoadOptions& load,
                                    const std::function<void(const std::vector<SeriesIssue>&)>& report)
      -> std::optional<int> {
    if (!streamable || !io::dicomSeriesStreamable(chosen)) return std::nullopt;
    const core::Geometry& g = *chosen.geometry;
    const std::size_t plane = std::size_t(g.dimensions()[0]) * std::size_t(g.dimensions()[1]);
    std::optional<io::ImageStreamWriter> writer;
    io::DicomSlabSink sink;
    sink.begin = [&](const core::Geometry& geometry, core::ScalarType type) -> Status {
      writer.reset();  // a restart in a wider type drops the file begun
      auto created = io::ImageStreamWriter::create(output, geometry, type);
      if (!created) return created.error();
      writer.emplace(std::move(*created));
      return Status::success();
    };
    sink.slab = [&](std::int64_t, std::int64_t slices, const void* voxels) {
      return writer->append(voxels, std::size_t(slices) * plane);
    };
    auto result = io::streamDicomSeriesTyped(chosen, load, sink);
    if (!result) return fileError(result.error());
    report(result->issues);
    if (Status s = writer->commit(); !s) return fileError(s.error());
    streamed = Written{g, result->type};
    return 0;
  };
  core::ScalarImage image;
  if (int code = readInput(input, o.series, o.allowIrregular, o.allowUnreadable, o.threads, nullptr, &image, stream);
      code != 0)
    return code;
  if (!streamed)
    if (Status s = io::writeImageFile(output, image); !s) return fileError(s.error());
  const core::Geometry& g = streamed ? streamed->geometry : image.geometry();
  const auto& d = g.dimensions();
  std::printf("wrote %s (%lld x %lld x %lld, %s, %s)\n", output.c_str(), (long long)d[0], (long long)d[1], (long long)d[2],
              g.orientationCode().c_str(), core::scalarTypeName(streamed ? streamed->type : image.type()));
  return 0;
}

}  // namespace delineate::app::cli
