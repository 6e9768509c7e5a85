#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>


#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "app/cli/segment_output.h"
#include "core/annotation_session.h"
#include "core/statistics.h"
#include "inference/engine.h"
#include "io/report/statistics_report.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {
namespace {

using namespace delineate::core;

// Direction cosines such as -0.0 print as "-0.0000", which reads like a flipped axis.
double unsigned0(double v) { return v == 0.0 ? 0.0 : v; }

void printText(const InfoOptions& o, ImageView image, const std::string& labelSource,
               const LabelTable& table, const std::vector<LabelStatistics>* stats) {
  const Geometry& g = image.geometry();
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  const auto& p = g.originLps();
  const auto& m = g.direction().m;
  std::printf("Image        %s\n", o.image.c_str());
  std::printf("  dimensions %lld x %lld x %lld voxels (%lld)\n", (long long)d[0], (long long)d[1], (long long)d[2],
              (long long)g.voxelCount());
  std::printf("  spacing    %.4f x %.4f x %.4f mm\n", s[0], s[1], s[2]);
  std::printf("  origin     %.3f, %.3f, %.3f mm (LPS)\n", p[0], p[1], p[2]);
  std::printf("  direction  [%.4f %.4f %.4f; %.4f %.4f %.4f; %.4f %.4f %.4f] (columns = i, j, k in LPS)\n",
              unsigned0(m[0]), unsigned0(m[1]), unsigned0(m[2]), unsigned0(m[3]), unsigned0(m[4]), unsigned0(m[5]),
              unsigned0(m[6]), unsigned0(m[7]), unsigned0(m[8]));
  std::printf("  axes       %s (i, j, k point to)\n", g.orientationCode().c_str());
  std::printf("  extent     %.1f x %.1f x %.1f mm, voxel %.4f mm^3\n", double(d[0]) * s[0], double(d[1]) * s[1],
              double(d[2]) * s[2], g.voxelVolumeMm3());
  if (!stats) return;
  std::printf("\nLabels       %s\n", labelSource.c_str());
  std::printf("%5s  %-28s %10s %11s %9s %8s %8s %8s  %-26s %s\n", "id", "name", "voxels", "volume", "mean",
              "std", "min", "max", "centroid LPS mm", "bounding box (ijk)");
  for (const LabelStatistics& st : *stats) {
    char centroid[64];
    std::snprintf(centroid, sizeof centroid, "%.1f, %.1f, %.1f", st.centroidLps[0], st.centroidLps[1],
                  st.centroidLps[2]);
    // The unit fits the size (mL, or mm3 below 1 mL), three significant digits; --format csv|json keep mL.
    const core::VolumeText vt = core::volumeText(st.volumeMl * 1000.0);
    char volume[32];
    std::snprintf(volume, sizeof volume, "%.*f %s", vt.decimals, vt.value, vt.millilitres ? "mL" : "mm3");
    std::printf("%5u  %-28.28s %10llu %11s %9.1f %8.1f %8.1f %8.1f  %-26s [%lld..%lld, %lld..%lld, %lld..%lld]\n",
                unsigned(st.label), io::labelDisplayName(table, st.label).c_str(), (unsigned long long)st.voxelCount,
                volume, st.mean, st.stddev, st.min, st.max, centroid, (long long)st.box.min[0],
                (long long)st.box.max[0], (long long)st.box.min[1], (long long)st.box.max[1],
                (long long)st.box.min[2], (long long)st.box.max[2]);
  }
  if (stats->empty()) std::printf("  (no labelled voxels)\n");
}

void printCsv(const LabelTable& table, const std::vector<LabelStatistics>& stats) {
  std::fputs(io::statisticsCsv(stats, table).c_str(), stdout);
}

void printJson(const InfoOptions& o, ImageView image, const std::string& labelSource,
               const LabelTable& table, const std::vector<LabelStatistics>* stats) {
  io::StatisticsReportInfo info;
  info.image = o.image;
  info.labelSource = labelSource;
  info.geometry = image.geometry();
  info.slices = o.slices;
  std::fputs(io::statisticsJson(stats ? *stats : std::vector<LabelStatistics>{}, table, info).c_str(), stdout);
}

}  // namespace

std::optional<SliceRange> parseSliceRange(const std::string& text) {
  const auto c1 = text.find(':'), c2 = text.find(':', c1 == std::string::npos ? 0 : c1 + 1);
  if (c1 == std::string::npos || c2 == std::string::npos) return std::nullopt;
  SliceRange r;
  const std::string axis = text.substr(0, c1);
  if (axis == "i" || axis == "0") r.axis = 0;
  else if (axis == "j" || axis == "1") r.axis = 1;
  else if (axis == "k" || axis == "2") r.axis = 2;
  else return std::nullopt;
  try {
    std::size_t n1 = 0, n2 = 0;
    const std::string a = text.substr(c1 + 1, c2 - c1 - 1), b = text.substr(c2 + 1);
    r.first = std::stoll(a, &n1);
    r.last = std::stoll(b, &n2);
    if (n1 != a.size() || n2 != b.size()) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return r;
}

int runInfo(const InfoOptions& o) {

  // In its stored type: statistics and the engines read any (a CT costs int16, not float32).
  Result<ScalarImage> image = ScalarImage();
  if (int code = readInputImage(o.image, o.series, o.allowIrregular, o.allowUnreadable, 0, *image); code != 0)
    return code;
  // The geometry of an all-NaN image is still worth printing; statistics or a segmentation of it are not.
  if (!o.labels.empty() || !o.engine.empty())
    if (Status s = core::requireFiniteVoxels(*image, o.image); !s) return fileError(s.error());

  LabelTable table;
  if (!o.table.empty()) {
    Result<LabelTable> t = io::readLabelTableFile(o.table);
    if (!t) return fileError(t.error());
    table = std::move(t).value();
  }

  // Labels enter the session the way every edit does: through one undoable transaction.
  Result<AnnotationSession> session = AnnotationSession::create(std::move(image).value(), table);
  if (!session) return fileError(session.error());
  std::string labelSource;
  std::string namesFrom;  // the table beside the label map, when it names them
  if (!o.labels.empty()) {
    Result<LabelMap> labels = io::readLabelFile(o.labels);
    if (!labels) return fileError(labels.error());
    if (Status s = requireLabels(labelsPresent(*labels), {}, o.labels); !s) return fileError(s.error());
    Status s = session->replaceLabels(labels->voxels(), "Import labels");
    if (!s) return fileError(makeError(s.error().code, o.labels, s.error().detail));
    labelSource = o.labels;
    // Without --table, the map's own names: the table beside it (`segment` writes one), as the window reads it.
    if (o.table.empty()) {
      auto beside = io::readLabelTableBeside(o.labels);
      if (!beside) {
        std::fprintf(stderr, "warning: %s (the labels stay unnamed)\n", beside.error().describe().c_str());
      } else if (*beside) {
        namesFrom = (*beside)->path.string();
        session->setTable(std::move((*beside)->table));
      }
    }
  } else if (!o.engine.empty()) {
    std::unique_ptr<inference::SegmentationEngine> engine = inference::createEngine(o.engine);
    if (!engine) return usageError("info", "unknown engine '" + o.engine + "'");
    Result<LabelPatch> patch = engine->segment(session->image(), inference::SegmentationRequest{}, nullptr);
    if (!patch) return fileError(patch.error());
    EditTransaction tx = session->beginEdit("Segment (" + o.engine + ")");
    if (Result<std::size_t> w = tx.applyPatch(*patch, false); !w) return fileError(w.error());
    session->commit(tx);
    // The same names as `segment` prints (engineLabelTable): a --table only renames what it lists.
    session->setTable(engineLabelTable(engine->info(), table));
    labelSource = "computed by " + o.engine;
  }

  std::optional<std::vector<LabelStatistics>> stats;
  if (!labelSource.empty()) {
    StatisticsOptions options;
    options.slices = o.slices;
    Result<std::vector<LabelStatistics>> r = computeLabelStatistics(session->labels(), &session->image(), options);
    if (!r) return fileError(r.error());
    stats = std::move(r).value();
  }
  const std::vector<LabelStatistics>* statsPtr = stats ? &*stats : nullptr;
  // Values of the map that a given --table does not name are counted and said (a 255 left by another tool).
  if (statsPtr && !o.table.empty() && !o.labels.empty()) {
    std::string unnamed;
    std::size_t count = 0;
    for (const LabelStatistics& st : *statsPtr)
      if (!table.contains(st.label)) {
        if (++count <= 5) unnamed += (unnamed.empty() ? "" : ", ") + std::to_string(st.label) + " (" +
                                     std::to_string(st.voxelCount) + " voxels)";
      }
    if (count > 5) unnamed += ", ...";
    if (count > 0)
      std::fprintf(stderr, "warning: %s: %zu value(s) that %s does not name: %s\n", o.labels.c_str(), count,
                   o.table.c_str(), unnamed.c_str());
  }
  if (o.format == "text")
    printText(o, session->image(), namesFrom.empty() ? labelSource : labelSource + " (names: " + namesFrom + ")",
              session->table(), statsPtr);
  else if (o.format == "json") printJson(o, session->image(), labelSource, session->table(), statsPtr);
  else if (statsPtr) printCsv(session->table(), *statsPtr);
  else return usageError("info", "--format csv prints label statistics: give --labels or --segment");
  return 0;
}

}  // namespace delineate::app::cli
