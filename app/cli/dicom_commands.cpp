// dicom-index: list the patients/studies/series of a folder. convert: a DICOM series or a volume file -> a volume file.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <type_traits>
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

// A DICOM input on its way to a load or a stream: the folder indexed, one image series chosen, checked for files that
// cannot be read, and the options it loads with.
struct OpenedSeries {
  TerminalProgress progress;
  std::optional<io::DicomIndex> index;
  const DicomSeries* chosen = nullptr;
  DicomLoadOptions load;

  // The series' issues as warnings.
  void report(const std::vector<SeriesIssue>& issues) const {
    for (const auto& i : issues)
      std::fprintf(stderr, "warning: %s: %s: %s\n", chosen->key().c_str(), seriesIssueName(i.kind), i.detail.c_str());
  }
};

int indexInput(const std::string& input, int threads, OpenedSeries& in) {
  DicomScanOptions scan;
  scan.threads = threads;
  scan.progress = &in.progress;
  auto index = io::indexDicomFolder(input, scan);
  if (!index) return fileError(index.error());
  in.index = std::move(*index);
  return 0;
}

// Unreadable files elsewhere under INPUT are not the series' (their UID says so, or they lie in another folder), but
// the user is told they were there; the series' own refuse it unless allowed.
int checkChosenSeries(const std::string& input, bool allowUnreadable, const OpenedSeries& in) {
  const DicomSeries& chosen = *in.chosen;
  for (const auto& f : in.index->skipped) {
    const bool member = std::any_of(chosen.unreadable.begin(), chosen.unreadable.end(),
                                    [&](const DicomSkippedFile& m) { return m.path == f.path; });
    if (!member) std::fprintf(stderr, "warning: %s (not part of series %s)\n", f.reason.c_str(), chosen.key().c_str());
  }
  if (!chosen.unreadable.empty() && !allowUnreadable) {
    // One line per file, so no file hides behind another in a long message.
    for (const auto& f : chosen.unreadable) std::fprintf(stderr, "error: %s\n", f.reason.c_str());
    std::fprintf(stderr,
                 "error: %s: series %s is incomplete: %zu file(s) of it or beside it cannot be read (above); "
                 "--allow-unreadable loads the rest\n",
                 input.c_str(), chosen.key().c_str(), chosen.unreadable.size());
    return 1;
  }
  return 0;
}

// Index, choose, check: an exit code on the way, else 0 with `in` ready to load.
int openDicomInput(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, OpenedSeries& in) {
  if (int code = indexInput(input, threads, in); code != 0) return code;
  if (int code = chooseImageSeries(*in.index, input, series, in.chosen); code != 0) return code;
  if (int code = checkChosenSeries(input, allowUnreadable, in); code != 0) return code;
  in.load.threads = threads;
  in.load.allowIrregular = allowIrregular;
  in.load.allowUnreadable = allowUnreadable;
  in.load.progress = &in.progress;
  return 0;
}

bool isVolumeFile(const std::string& input) {
  return io::imageFileFormatFromPath(input) != io::ImageFileFormat::Unknown;
}

}  // namespace

namespace {

// A volume file, or a DICOM series loaded whole: float32 (ImageVolume) or in its own type (ScalarImage).
template <class Image>
int readInputAs(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                int threads, Image& image) {
  constexpr bool typed = std::is_same_v<Image, core::ScalarImage>;
  if (isVolumeFile(input)) {
    auto read = [&] {
      if constexpr (typed) return io::readImageFileTyped(input);
      else return io::readImageFile(input);
    }();
    if (!read) return fileError(read.error());
    image = std::move(*read);
    return 0;
  }
  OpenedSeries in;
  if (int code = openDicomInput(input, series, allowIrregular, allowUnreadable, threads, in); code != 0) return code;
  auto loaded = [&] {
    if constexpr (typed) return io::loadDicomSeriesTyped(*in.chosen, in.load);
    else return io::loadDicomSeries(*in.chosen, in.load);
  }();
  if (!loaded) return fileError(loaded.error());
  in.report(loaded->issues);
  image = std::move(loaded->image);
  return 0;
}

}  // namespace

int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, ImageVolume& image) {
  return readInputAs(input, series, allowIrregular, allowUnreadable, threads, image);
}

int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, core::ScalarImage& image) {
  return readInputAs(input, series, allowIrregular, allowUnreadable, threads, image);
}

namespace {

// A checked DICOM series streamed slab by slab into OUTPUT (NIfTI or .nrrd): the volume is never held. Returns the
// type written.
Result<ScalarType> streamSeries(const OpenedSeries& in, const std::string& output) {
  const core::Geometry& g = *in.chosen->geometry;
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
  auto result = io::streamDicomSeriesTyped(*in.chosen, in.load, sink);
  if (!result) return result.error();
  in.report(result->issues);
  if (Status s = writer->commit(); !s) return s.error();
  return result->type;
}

void printWritten(const std::string& output, const core::Geometry& g, ScalarType type) {
  const auto& d = g.dimensions();
  std::printf("wrote %s (%lld x %lld x %lld, %s, %s)\n", output.c_str(), (long long)d[0], (long long)d[1], (long long)d[2],
              g.orientationCode().c_str(), core::scalarTypeName(type));
}

}  // namespace

int runConvert(const ConvertOptions& o) {
  const std::string& input = o.input;
  const std::string& output = o.output;
  if (!io::imageFileFormatWritable(io::imageFileFormatFromPath(output)))
    return usageError("convert", std::string("OUTPUT must end in ") + io::writableImageExtensions() + ": " + output);

  // In the type the values need, never through float32 when they are whole numbers (issue 27): a DICOM series is
  // decoded straight into it, a volume file narrowed to the smallest exact type (CT in HU: int16, half of float32).
  // A series bound for NIfTI or NRRD (.nrrd) is streamed: each slab of slices is written as it is decoded, so the
  // volume is never held (a series with missing slices loads whole: their fill value is known only at the end).
  core::ScalarImage image;
  if (!isVolumeFile(input)) {
    OpenedSeries in;
    if (int code = openDicomInput(input, o.series, o.allowIrregular, o.allowUnreadable, o.threads, in); code != 0)
      return code;
    if (io::imageStreamWritable(output) && io::dicomSeriesStreamable(*in.chosen)) {
      auto written = streamSeries(in, output);
      if (!written) return fileError(written.error());
      printWritten(output, *in.chosen->geometry, *written);
      return 0;
    }
    auto loaded = io::loadDicomSeriesTyped(*in.chosen, in.load);
    if (!loaded) return fileError(loaded.error());
    in.report(loaded->issues);
    image = std::move(loaded->image);
  } else if (int code = readInputImage(input, o.series, o.allowIrregular, o.allowUnreadable, o.threads, image);
             code != 0) {
    return code;
  }
  if (Status s = io::writeImageFile(output, image); !s) return fileError(s.error());
  printWritten(output, image.geometry(), image.type());
  return 0;
}

}  // namespace delineate::app::cli
