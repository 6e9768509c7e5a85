// DICOM SEG export speed and memory: io::writeDicomSeg (BINARY and LABELMAP) and io::writeDicomSegAndSr beside
// DCMTK's own dcmseg writer (DcmSegmentation, the writer dcmqi uses) building the same BINARY SEG, on a label map
// drawn on a real DICOM series. Each writer runs in a child process of its own, so the peak resident memory
// (getrusage) is that writer's: the series' index and the label map (made before the fork) plus what writing takes.
//
// Usage: bench_dicom_seg_write SERIES_DIR [--labels N] [--out DIR]
//   SERIES_DIR  a folder with one CT series (scripts/bench_dicom_seg.sh makes a 512 x 512 x 300 one)
//   --labels N  label count (default 20): N boxes of different sizes spread over the volume
// Prints one line per writer: wall seconds, peak RSS, file size; and the ratios of ours to dcmseg's.

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/oflog/oflog.h>
#include <dcmtk/dcmfg/fgderimg.h>
#include <dcmtk/dcmfg/fgfracon.h>
#include <dcmtk/dcmfg/fgpixmsr.h>
#include <dcmtk/dcmfg/fgplanor.h>
#include <dcmtk/dcmfg/fgplanpo.h>
#include <dcmtk/dcmseg/segdoc.h>
#include <dcmtk/dcmseg/segment.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/statistics.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_seg_write.h"
#include "io/dicom/dicom_sr.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

struct Outcome {
  double seconds = 0;
  long peakKb = 0;
  bool ok = false;
};

// Runs `work` in a child; its wall time (measured in the child around `work` only) comes back through a pipe.
Outcome inChild(const std::function<bool()>& work) {
  std::fflush(stdout);  // or the child's exit would print what is buffered a second time
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = work();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double message[2] = {s, ok ? 1.0 : 0.0};
    (void)!write(fds[1], message, sizeof message);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  double message[2] = {0, 0};
  (void)!read(fds[0], message, sizeof message);
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  return {message[0], usage.ru_maxrss, message[1] > 0.5 && WIFEXITED(status) && WEXITSTATUS(status) == 0};
}

std::string ds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

CodeSequenceMacro code(const char* value, const char* scheme, const char* meaning) {
  return CodeSequenceMacro(value, scheme, meaning);
}

// The same BINARY SEG through DCMTK's DcmSegmentation: one segment per label, one frame (a byte per pixel, which
// dcmseg packs) per segment and slice holding it, plane position, frame content and source image per frame.
bool writeWithDcmseg(const std::string& path, const core::LabelMap& labels, const io::DicomSeries& series,
                     const std::vector<core::Label>& present) {
  const core::Geometry& g = labels.geometry();
  const auto nx = g.dimensions()[0], ny = g.dimensions()[1], nz = g.dimensions()[2];
  DcmSegmentation* raw = nullptr;
  IODGeneralEquipmentModule::EquipmentInfo equipment("Delineate bench", "peer", "1", "1");
  ContentIdentificationMacro content("1", "SEGMENTATION", "dcmseg peer", "Bench^Peer");
  if (DcmSegmentation::createBinarySegmentation(raw, Uint16(ny), Uint16(nx), equipment, content).bad()) return false;
  std::unique_ptr<DcmSegmentation> seg(raw);
  seg->getSeries().setSeriesNumber("300");
  if (const OFCondition c = seg->importFromSourceImage(OFString(series.slices.front().path.c_str())); c.bad()) {
    std::fprintf(stderr, "dcmseg: importFromSourceImage: %s\n", c.text());
    return false;
  }
  const std::string dimensionUid = [] {
    char buf[100];
    return std::string(dcmGenerateUniqueIdentifier(buf, SITE_INSTANCE_UID_ROOT));
  }();
  seg->getDimensions().addDimensionIndex(DCM_ReferencedSegmentNumber, dimensionUid.c_str(),
                                         DCM_SegmentIdentificationSequence, "ReferencedSegmentNumber");
  seg->getDimensions().addDimensionIndex(DCM_ImagePositionPatient, dimensionUid.c_str(), DCM_PlanePositionSequence,
                                         "ImagePositionPatient");
  FGPixelMeasures measures;
  measures.setPixelSpacing((ds(g.spacingMm()[1]) + "\\" + ds(g.spacingMm()[0])).c_str());
  measures.setSliceThickness(ds(g.spacingMm()[2]).c_str());
  if (seg->addForAllFrames(measures).bad()) return false;
  const core::Mat3& d = g.direction();
  std::unique_ptr<FGPlaneOrientationPatient> orientation(FGPlaneOrientationPatient::createMinimal(
      ds(d(0, 0)).c_str(), ds(d(1, 0)).c_str(), ds(d(2, 0)).c_str(), ds(d(0, 1)).c_str(), ds(d(1, 1)).c_str(),
      ds(d(2, 1)).c_str()));
  if (!orientation || seg->addForAllFrames(*orientation).bad()) return false;

  std::vector<const io::DicomSlice*> sliceOf(std::size_t(nz), nullptr);
  for (const auto& s : series.slices)
    if (s.gridIndex >= 0 && s.gridIndex < nz) sliceOf[std::size_t(s.gridIndex)] = &s;
  const std::size_t sliceSize = std::size_t(nx * ny);
  std::vector<Uint8> frame(sliceSize);
  for (core::Label label : present) {
    DcmSegment* segment = nullptr;
    if (DcmSegment::create(segment, ("Label " + std::to_string(label)).c_str(),
                           code("123037004", "SCT", "Anatomical Structure"),
                           code(("L" + std::to_string(label)).c_str(), "99DELINEATE", "Label"),
                           DcmSegTypes::SAT_AUTOMATIC, "Delineate")
            .bad())
      return false;
    Uint16 number = 0;
    if (seg->addSegment(segment, number).bad()) return false;
    for (std::int64_t k = 0; k < nz; ++k) {
      const core::Label* p = labels.data() + std::size_t(k) * sliceSize;
      bool any = false;
      for (std::size_t i = 0; i < sliceSize; ++i) any |= (frame[i] = p[i] == label ? 1 : 0) != 0;
      if (!any) continue;
      const core::Vec3 pos = g.indexToLps(core::Index3{0, 0, k});
      FGPlanePosPatient* position = FGPlanePosPatient::createMinimal(ds(pos[0]).c_str(), ds(pos[1]).c_str(), ds(pos[2]).c_str());
      auto* frameContent = new FGFrameContent();
      frameContent->setDimensionIndexValues(number, 0);
      frameContent->setDimensionIndexValues(Uint32(k + 1), 1);
      auto* derivation = new FGDerivationImage();
      DerivationImageItem* item = nullptr;
      derivation->addDerivationImageItem(code("113076", "DCM", "Segmentation"), "", item);
      auto* source = new SourceImageItem();
      source->getImageSOPInstanceReference().setReferencedSOPClassUID(series.sopClassUid.c_str());
      source->getImageSOPInstanceReference().setReferencedSOPInstanceUID(sliceOf[std::size_t(k)]->sopInstanceUid.c_str());
      source->getPurposeOfReferenceCode().set("121322", "DCM", "Source image for image processing operation");
      item->getSourceImageItems().push_back(source);
      OFVector<FGBase*> perFrame;
      perFrame.push_back(position);
      perFrame.push_back(frameContent);
      perFrame.push_back(derivation);
      const OFCondition added = seg->addFrame(frame.data(), number, perFrame);
      for (FGBase* group : perFrame) delete group;
      if (added.bad()) {
        std::fprintf(stderr, "dcmseg: addFrame: %s\n", added.text());
        return false;
      }
    }
  }
  OFLog::configure(OFLogger::ERROR_LOG_LEVEL);  // why a save fails, not its warnings
  const OFCondition saved = seg->saveFile(path.c_str());
  if (saved.bad()) std::fprintf(stderr, "dcmseg: saveFile: %s\n", saved.text());
  return saved.good();
}

void print(const char* name, const Outcome& o, const fs::path& file) {
  std::error_code ec;
  const auto bytes = fs::file_size(file, ec);
  std::printf("  %-34s %8.2f s  %8.1f MB peak RSS  %8.1f MB file%s\n", name, o.seconds, double(o.peakKb) / 1024.0,
              ec ? 0.0 : double(bytes) / 1e6, o.ok ? "" : "  FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_dicom_seg_write SERIES_DIR [--labels N] [--out DIR]\n");
    return 2;
  }
  const std::string folder = argv[1];
  int labelCount = 20;
  fs::path out = fs::temp_directory_path() / "delineate-bench-seg";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--labels") labelCount = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--out") out = argv[i + 1];
  }
  fs::create_directories(out);
  auto index = io::indexDicomFolder(folder);
  if (!index) {
    std::fprintf(stderr, "error: %s\n", index.error().describe().c_str());
    return 1;
  }
  const io::DicomSeries* series = nullptr;
  for (const auto* s : index->allSeries())
    if (s->isImage && (!series || s->slices.size() > series->slices.size())) series = s;
  if (!series || !series->geometry) {
    std::fprintf(stderr, "error: %s: no regular image series\n", folder.c_str());
    return 1;
  }
  auto loaded = io::loadDicomSeries(*series);
  if (!loaded) {
    std::fprintf(stderr, "error: %s\n", loaded.error().describe().c_str());
    return 1;
  }
  // N boxes of growing size along a diagonal, each over a run of slices.
  const core::Geometry& g = *series->geometry;
  auto voxels = core::Volume<core::Label>::create(g, 0);
  const auto n = g.dimensions();
  std::vector<core::Label> present;
  for (int l = 0; l < labelCount; ++l) {
    const std::int64_t cx = n[0] * (l + 1) / (labelCount + 1), cy = n[1] / 2 + (l % 2 ? n[1] / 6 : -n[1] / 6);
    const std::int64_t cz = n[2] * (l + 1) / (labelCount + 1), r = 8 + (l * 7) % 40, rz = std::max<std::int64_t>(1, n[2] / 8);
    for (std::int64_t z = std::max<std::int64_t>(0, cz - rz); z < std::min(n[2], cz + rz); ++z)
      for (std::int64_t y = std::max<std::int64_t>(0, cy - r); y < std::min(n[1], cy + r); ++y)
        for (std::int64_t x = std::max<std::int64_t>(0, cx - r); x < std::min(n[0], cx + r); ++x)
          voxels->at({x, y, z}) = core::Label(l + 1);
  }
  const core::LabelMap labels(std::move(voxels).value());
  auto stats = core::computeLabelStatistics(labels, &loaded->image);
  if (!stats) return 1;
  for (const auto& s : *stats) present.push_back(s.label);
  loaded->image = core::ImageVolume();  // the children do not need the image (the SR's statistics are computed here)
  long baselineKb = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    long pages = 0, resident = 0;
    if (std::fscanf(f, "%ld %ld", &pages, &resident) == 2) baselineKb = resident * (sysconf(_SC_PAGESIZE) / 1024);
    std::fclose(f);
  }
  std::printf("SEG export, %lld x %lld x %lld series, %zu labels (%s)\n", (long long)n[0], (long long)n[1],
              (long long)n[2], present.size(), folder.c_str());
  std::printf("  every writer starts from the same %.1f MB (series index + label map, resident before the fork)\n",
              double(baselineKb) / 1024.0);

  const fs::path peer = out / "dcmseg.dcm", ours = out / "ours.dcm", oursMap = out / "ours-labelmap.dcm",
                 pairSeg = out / "pair-seg.dcm", pairSr = out / "pair-sr.dcm";
  const Outcome p = inChild([&] { return writeWithDcmseg(peer.string(), labels, *series, present); });
  const Outcome o = inChild([&] { return io::writeDicomSeg(ours.string(), labels, {}, *series).ok(); });
  const Outcome m = inChild([&] {
    io::SegWriteOptions options;
    options.encoding = io::SegEncoding::Labelmap;
    return io::writeDicomSeg(oursMap.string(), labels, {}, *series, options).ok();
  });
  const Outcome s = inChild([&] {
    return io::writeDicomSegAndSr(pairSeg.string(), pairSr.string(), labels, {}, *series, *stats, {}, {}).ok();
  });
  print("DCMTK dcmseg (DcmSegmentation)", p, peer);
  print("Delineate writeDicomSeg BINARY", o, ours);
  print("Delineate writeDicomSeg LABELMAP", m, oursMap);
  print("Delineate SEG + TID 1500 SR pair", s, pairSr);
  // Both SEGs hold the same thing: read back onto the series' grid, the same segments with the same voxels.
  if (p.ok && o.ok) {
    auto a = io::readDicomSeg(peer.string(), g), b = io::readDicomSeg(ours.string(), g);
    bool same = a && b && a->frameCount == b->frameCount && a->masks.size() == b->masks.size();
    for (std::size_t i = 0; same && i < a->masks.size(); ++i)
      same = a->masks[i].box == b->masks[i].box && a->masks[i].voxels == b->masks[i].voxels;
    std::printf("  dcmseg's and our BINARY SEG read back equal (frames, segments, voxels): %s\n", same ? "yes" : "NO");
    if (!same) return 1;
  }
  if (p.ok && o.ok && o.seconds > 0 && o.peakKb > 0)
    std::printf("  ours / dcmseg (BINARY): time %.2fx, peak RSS %.2fx\n", o.seconds / p.seconds,
                double(o.peakKb) / double(p.peakKb));
  return p.ok && o.ok && m.ok && s.ok ? 0 : 1;
}
