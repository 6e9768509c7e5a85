// RT structure sets, whole processes beside plastimatch in one run: a label map of N ROIs (default 100) on a CT series
// (scripts/bench_rtstruct.sh makes a 512 x 512 x 300 one) written as an RTSTRUCT and read back onto the series, by
// `delineate-cli export-rtstruct` / `import-rtstruct` and by `plastimatch convert`. Each command is a child process:
// its wall time and peak resident memory (wait4) are what a user waits for and pays.
//
// Usage: bench_rtstruct SERIES_DIR --cli PATH [--rois N] [--out DIR]
//   The ROIs are wobbly ellipsoids of different sizes spread over the volume (every fifth with a hole through it),
//   so contours have the curved outlines and holes of real structures. plastimatch writes from one mask per ROI
//   (--input-prefix: its way in from images), and reads with --xor-contours (holes as we and the planning systems
//   write them) into one label map (--output-labelmap).
// Prints each command's seconds and peak RSS, the ratios, and the Dice between the two readers' label maps of the
// same structure set (ours and plastimatch's rasterisation of our file).

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "io/dicom/dicom.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

using Outcome = bench::ProcessOutcome;
Outcome run(const std::string& command, const fs::path& log) { return bench::runProcess(command, log.string()); }

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_rtstruct: %s\n", what.c_str());
  std::exit(1);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: bench_rtstruct SERIES_DIR --cli PATH [--rois N] [--out DIR]");
  const fs::path seriesDir = argv[1];
  std::string cli;
  int rois = 100;
  fs::path out = "/tmp/delineate-bench-rtstruct";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--cli") cli = argv[i + 1];
    else if (a == "--rois") rois = std::atoi(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
    else die("unknown option " + a);
  }
  if (cli.empty() || rois < 1 || rois > 65535) die("--cli PATH is required; --rois 1..65535");
  auto index = io::indexDicomFolder(seriesDir.string());
  if (!index) die(index.error().describe());
  const io::DicomSeries* series = nullptr;
  for (const auto* s : index->allSeries())
    if (s->isImage && s->geometry) series = s;
  if (series == nullptr) die("no image series in " + seriesDir.string());
  const core::Geometry grid = *series->geometry;
  const auto& d = grid.dimensions();
  fs::remove_all(out);
  fs::create_directories(out / "masks");

  // The ROIs: wobbly ellipsoids on a jittered lattice over the volume.
  auto volume = core::Volume<core::Label>::create(grid, 0);
  if (!volume) die(volume.error().describe());
  core::LabelTable table;
  const int perSide = int(std::ceil(std::cbrt(double(rois))));
  for (int n = 0; n < rois; ++n) {
    const int a = n % perSide, b = (n / perSide) % perSide, c = n / (perSide * perSide);
    const double cx = (a + 0.5) * double(d[0]) / perSide, cy = (b + 0.5) * double(d[1]) / perSide;
    const double cz = (c + 0.5) * double(d[2]) / perSide;
    const double rx = 0.18 * double(d[0]) / perSide * (1 + 0.8 * std::sin(n * 1.7)) + 3;
    const double ry = 0.18 * double(d[1]) / perSide * (1 + 0.8 * std::cos(n * 2.3)) + 3;
    const double rz = 0.3 * double(d[2]) / perSide * (1 + 0.5 * std::sin(n * 0.9)) + 2;
    const bool hole = n % 5 == 4;
    const core::Label id = core::Label(n + 1);
    for (std::int64_t z = std::max<std::int64_t>(0, std::int64_t(cz - rz)); z <= std::min<std::int64_t>(d[2] - 1, std::int64_t(cz + rz)); ++z)
      for (std::int64_t y = std::max<std::int64_t>(0, std::int64_t(cy - 1.3 * ry)); y <= std::min<std::int64_t>(d[1] - 1, std::int64_t(cy + 1.3 * ry)); ++y)
        for (std::int64_t x = std::max<std::int64_t>(0, std::int64_t(cx - 1.3 * rx)); x <= std::min<std::int64_t>(d[0] - 1, std::int64_t(cx + 1.3 * rx)); ++x) {
          const double dx = (double(x) - cx) / rx, dy = (double(y) - cy) / ry, dz = (double(z) - cz) / rz;
          const double theta = std::atan2(dy, dx);
          const double wobble = 1 + 0.15 * std::sin(5 * theta + n) + 0.05 * std::sin(13 * theta);
          const double r2 = (dx * dx + dy * dy) / (wobble * wobble) + dz * dz;
          if (r2 < 1 && !(hole && dx * dx + dy * dy < 0.12)) volume->at({x, y, z}) = id;
        }
    core::LabelEntry e;
    e.id = id;
    e.name = "ROI_" + std::to_string(n + 1);
    e.color = core::LabelTable::defaultColor(id);
    table.set(e);
  }
  const core::LabelMap labels(std::move(volume).value());
  std::map<core::Label, std::int64_t> counts;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i]) ++counts[labels[i]];
  if (auto s = io::writeLabelFile((out / "labels.nii.gz").string(), labels); !s) die(s.error().describe());
  if (auto s = io::writeLabelTableFile(out / "labels.label", table); !s) die(s.error().describe());
  for (const auto& [id, n] : counts) {
    auto m = core::Volume<core::Label>::create(grid, 0);
    if (!m) die(m.error().describe());
    for (std::size_t i = 0; i < labels.size(); ++i) m->data()[i] = labels[i] == id ? 1 : 0;
    if (auto s = io::writeLabelFile((out / "masks" / ("ROI_" + std::to_string(id) + ".nii.gz")).string(),
                                    core::LabelMap(std::move(m).value()));
        !s)
      die(s.error().describe());
  }
  std::printf("RT structure set of %zu ROIs on %lld x %lld x %lld (%s), whole processes:\n", counts.size(),
              static_cast<long long>(d[0]), static_cast<long long>(d[1]), static_cast<long long>(d[2]),
              seriesDir.string().c_str());

  const std::string pm = "plastimatch convert --referenced-ct " + q(seriesDir);
  const Outcome ourWrite = run(cli + " export-rtstruct " + q(seriesDir) + " " + q(out / "labels.nii.gz") + " " +
                                   q(out / "ours.dcm"),
                               out / "our_write.log");
  const Outcome theirWrite =
      run(pm + " --input-prefix " + q(out / "masks") + " --output-dicom " + q(out / "pm"), out / "pm_write.log");
  const Outcome ourRead = run(cli + " import-rtstruct " + q(seriesDir) + " " + q(out / "ours.dcm") + " " +
                                  q(out / "ours_read.nii.gz"),
                              out / "our_read.log");
  const Outcome ourMasks = run(cli + " import-rtstruct " + q(seriesDir) + " " + q(out / "ours.dcm") + " " +
                                   q(out / "ours_read2.nii.gz") + " --masks " + q(out / "our_masks"),
                               out / "our_masks.log");
  const Outcome theirRead = run(pm + " --input " + q(out / "ours.dcm") + " --xor-contours --output-labelmap " +
                                    q(out / "pm_read.nii.gz"),
                                out / "pm_read.log");
  const Outcome theirMasks = run(pm + " --input " + q(out / "ours.dcm") + " --xor-contours --output-prefix " +
                                     q(out / "pm_masks") + " --prefix-format nii.gz",
                                 out / "pm_masks.log");
  auto line = [](const char* what, const Outcome& o) {
    std::printf("  %-44s %8.2f s %7ld MB%s\n", what, o.seconds, o.peakMb, o.status == 0 ? "" : "  FAILED");
  };
  line("write: delineate-cli export-rtstruct", ourWrite);
  line("write: plastimatch convert (one mask per ROI)", theirWrite);
  line("read:  delineate-cli import-rtstruct", ourRead);
  line("read:  delineate-cli import-rtstruct --masks", ourMasks);
  line("read:  plastimatch convert --output-labelmap", theirRead);
  line("read:  plastimatch convert --output-prefix", theirMasks);
  if (ourWrite.status == 0 && theirWrite.status == 0)
    std::printf("  write: ours %.3fx plastimatch's time, %.2fx its memory\n", ourWrite.seconds / theirWrite.seconds,
                double(ourWrite.peakMb) / double(std::max(1L, theirWrite.peakMb)));
  if (ourRead.status == 0 && theirRead.status == 0)
    std::printf("  read:  ours %.3fx plastimatch's time, %.2fx its memory (one label map each)\n",
                ourRead.seconds / theirRead.seconds, double(ourRead.peakMb) / double(std::max(1L, theirRead.peakMb)));
  if (ourMasks.status == 0 && theirMasks.status == 0)
    std::printf("  read:  ours %.2fx plastimatch's time, %.2fx its memory (one mask per ROI)\n",
                ourMasks.seconds / theirMasks.seconds, double(ourMasks.peakMb) / double(std::max(1L, theirMasks.peakMb)));
  std::printf("  our structure set: %.1f MB\n", double(fs::file_size(out / "ours.dcm")) / 1e6);

  // Agreement: the label map read back by us equals the one written (the conventions promise it); plastimatch's
  // rasterisation of the same file, per ROI.
  auto ours = io::readLabelFile((out / "ours_read.nii.gz").string());
  auto theirs = io::readLabelFile((out / "pm_read.nii.gz").string());
  if (ours) {
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) differ += (*ours)[i] != labels[i];
    std::printf("  round trip through our reader: %lld voxels differ\n", static_cast<long long>(differ));
  }
  // plastimatch's label map fills holes whatever --xor-contours says (1.9.4); its per-ROI masks honour it.
  if (theirs && ours && theirs->size() == labels.size()) {
    std::int64_t filled = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) filled += (*theirs)[i] != 0 && (*ours)[i] == 0;
    std::printf("  plastimatch's label map: %lld voxels outside every ROI of ours (holes it filled)\n",
                static_cast<long long>(filled));
  }
  if (ours) {
    double worst = 1, sum = 0;
    int compared = 0;
    for (const auto& [id, n] : counts) {
      auto mask = io::readLabelFile((out / "pm_masks" / ("ROI_" + std::to_string(id) + ".nii.gz")).string());
      if (!mask || mask->size() != labels.size()) continue;
      std::int64_t both = 0, theirsCount = 0;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const bool t = (*mask)[i] != 0;
        theirsCount += t;
        both += t && (*ours)[i] == id;
      }
      const double dice = 2.0 * double(both) / double(n + theirsCount);
      worst = std::min(worst, dice);
      sum += dice;
      ++compared;
    }
    if (compared)
      std::printf("  plastimatch's masks of our file vs our reading of it: Dice per ROI mean %.5f, lowest %.5f (%d ROIs)\n",
                  sum / compared, worst, compared);
  }
  // Plastimatch's own structure set (from the masks), read by us: each ROI against the label it was made from.
  fs::path pmFile;
  if (fs::exists(out / "pm"))
    for (const auto& e : fs::recursive_directory_iterator(out / "pm"))
      if (e.path().filename().string().rfind("rtss", 0) == 0) pmFile = e.path();
  if (!pmFile.empty()) {
    const Outcome ourReadOfTheirs = run(cli + " import-rtstruct " + q(seriesDir) + " " + q(pmFile) + " " +
                                            q(out / "pm_by_ours.nii.gz"),
                                        out / "pm_by_ours.log");
    line("read plastimatch's: delineate-cli import-rtstruct", ourReadOfTheirs);
    auto read = io::readLabelFile((out / "pm_by_ours.nii.gz").string());
    auto names = io::readLabelTableBeside(out / "pm_by_ours.nii.gz");
    if (read && names && *names) {
      std::map<core::Label, core::Label> toOurs;  // plastimatch's ROI number -> the label it came from ("ROI_<id>")
      for (const auto& e : (*names)->table.entries())
        if (e.name.rfind("ROI_", 0) == 0) toOurs[e.id] = core::Label(std::atoi(e.name.c_str() + 4));
      std::map<core::Label, std::int64_t> both, got;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto it = toOurs.find((*read)[i]);
        if ((*read)[i] == 0 || it == toOurs.end()) continue;
        ++got[it->second];
        both[it->second] += labels[i] == it->second;
      }
      double worst = 1, sum = 0;
      for (const auto& [id, n] : counts) {
        const double dice = 2.0 * double(both[id]) / double(n + got[id]);
        worst = std::min(worst, dice);
        sum += dice;
      }
      std::printf("  plastimatch's structure set read by us vs the labels it was made from: Dice per ROI mean %.4f, "
                  "lowest %.4f\n", sum / double(counts.size()), worst);
    }
  }
  return 0;
}
