// DICOM SEG reading on the SEGs other tools wrote (../shared/data/dicom-seg: highdicom, dcmqi, Orthanc/TCGA-GBM,
// pydicom-data, QIN-HEADNECK). Expected figures come from the files' headers (dumped by hand) and, where the tool
// shipped one, from its own label map of the same segmentation (dcmqi's NRRDs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/volume/image_file.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using delineate::test::ScratchDir;
using delineate::test::sharedFile;
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> segFile(const std::string& relative) { return sharedFile("data/dicom-seg/" + relative); }

struct LoadedSource {
  core::Geometry grid;
  std::string frameOfReferenceUid;
};

LoadedSource loadSource(const fs::path& folder) {
  auto index = io::indexDicomFolder(folder.string());
  REQUIRE(index.ok());
  const io::DicomSeries* image = nullptr;
  for (const auto* s : index->allSeries())
    if (s->isImage) {
      REQUIRE(image == nullptr);
      image = s;
    }
  REQUIRE(image != nullptr);
  auto loaded = io::loadDicomSeries(*image);
  if (!loaded) FAIL(loaded.error().describe());
  return {loaded->image.geometry(), image->frameOfReferenceUid};
}

bool maskAt(const io::SegSegmentMask& m, const core::Index3& ijk) {
  if (!m.box.contains(ijk)) return false;
  const std::int64_t nx = m.box.max[0] - m.box.min[0] + 1, ny = m.box.max[1] - m.box.min[1] + 1;
  return m.voxels[std::size_t((ijk[0] - m.box.min[0]) + nx * ((ijk[1] - m.box.min[1]) + ny * (ijk[2] - m.box.min[2])))] != 0;
}

// Every voxel of the grid: mask `number` set exactly where the label map holds `label`.
void requireMaskEqualsLabel(const io::DicomSegDocument& doc, int number, const core::LabelMap& labels, core::Label label) {
  REQUIRE(doc.grid.isCloseTo(labels.geometry()));
  const io::SegSegmentMask* m = doc.findMask(number);
  REQUIRE(m != nullptr);
  const auto& d = doc.grid.dimensions();
  std::int64_t mismatches = 0, expected = 0;
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        const bool want = labels.at({x, y, z}) == label;
        expected += want;
        mismatches += want != maskAt(*m, {x, y, z});
      }
  CHECK(expected > 0);
  CHECK(m->count() == expected);
  CHECK(mismatches == 0);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// A synthetic BINARY SEG written byte by byte (tests/common/dicom_builder.h): frames of rows x columns, each with
// its position, referenced segment and set pixels (pixel(frame, column, row)); 1-bit pixels packed LSB first with
// no padding between frames, as PS3.5 8.1.1 packs them.
struct SynthFrame {
  core::Vec3 positionLps{0, 0, 0};
  int segment = 1;
};
struct SynthSeg {
  int rows = 3, columns = 5;
  std::vector<SynthFrame> frames;
  std::vector<int> segments{1};
  double rowSpacing = 0.5, columnSpacing = 0.5;  // PixelSpacing[0] (between rows), [1] (between columns)
  core::Vec3 rowDir{1, 0, 0}, colDir{0, 1, 0};
  std::string frameOfReferenceUid = "2.25.40112233445566778899.9";
  std::function<bool(int frame, int c, int r)> pixel = [](int f, int c, int r) { return (c + r + f) % 3 == 0; };
};

test::DicomBuilder buildSeg(const SynthSeg& p) {
  test::DicomBuilder b(test::TransferSyntax::ExplicitLittle);
  b.ui(0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.66.4")
      .ui(0x0008, 0x0018, "2.25.77.1")
      .str(0x0008, 0x0060, "CS", "SEG")
      .str(0x0008, 0x103E, "LO", "synthetic")
      .ui(0x0020, 0x000D, "2.25.77.2")
      .ui(0x0020, 0x000E, "2.25.77.3")
      .ui(0x0020, 0x0052, p.frameOfReferenceUid)
      .us(0x0028, 0x0002, 1)
      .str(0x0028, 0x0004, "CS", "MONOCHROME2")
      .is(0x0028, 0x0008, static_cast<long long>(p.frames.size()))
      .us(0x0028, 0x0010, std::uint16_t(p.rows))
      .us(0x0028, 0x0011, std::uint16_t(p.columns))
      .us(0x0028, 0x0100, 1)
      .us(0x0028, 0x0101, 1)
      .us(0x0028, 0x0102, 0)
      .us(0x0028, 0x0103, 0)
      .str(0x0062, 0x0001, "CS", "BINARY");
  b.beginSequence(0x0062, 0x0002);
  for (int n : p.segments) {
    b.beginItem().us(0x0062, 0x0004, std::uint16_t(n)).str(0x0062, 0x0005, "LO", "segment " + std::to_string(n));
    b.str(0x0062, 0x0008, "CS", "MANUAL").endItem();
  }
  b.endSequence();
  b.beginSequence(0x5200, 0x9229).beginItem();
  b.beginSequence(0x0020, 0x9116).beginItem();
  b.ds(0x0020, 0x0037, test::formatDs(p.rowDir) + "\\" + test::formatDs(p.colDir));
  b.endItem().endSequence();
  b.beginSequence(0x0028, 0x9110).beginItem();
  b.ds(0x0028, 0x0030, test::formatDs(p.rowSpacing) + "\\" + test::formatDs(p.columnSpacing)).ds(0x0018, 0x0050, 1.0);
  b.endItem().endSequence();
  b.endItem().endSequence();
  b.beginSequence(0x5200, 0x9230);
  for (const SynthFrame& f : p.frames) {
    b.beginItem();
    b.beginSequence(0x0020, 0x9113).beginItem().ds(0x0020, 0x0032, test::formatDs(f.positionLps)).endItem().endSequence();
    b.beginSequence(0x0062, 0x000A).beginItem().us(0x0062, 0x000B, std::uint16_t(f.segment)).endItem().endSequence();
    b.endItem();
  }
  b.endSequence();
  const std::size_t total = std::size_t(p.rows) * std::size_t(p.columns) * p.frames.size();
  std::string bits((total + 7) / 8, '\0');
  std::size_t n = 0;
  for (std::size_t f = 0; f < p.frames.size(); ++f)
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.columns; ++c, ++n)
        if (p.pixel(int(f), c, r)) bits[n / 8] = char(bits[n / 8] | (1 << (n % 8)));
  b.binary(0x7FE0, 0x0010, "OB", bits);
  return b;
}

struct ExpectedSegment {
  int number;
  const char* label;
  std::size_t frames;
  std::int64_t voxels;  // on the SEG's own grid (-1: no voxel, no mask)
};

struct ExpectedSeg {
  const char* file;
  const char* type;
  int frames, rows, columns;
  std::vector<ExpectedSegment> segments;
};

// From the headers: SegmentationType, NumberOfFrames, Rows, Columns, the Segment Sequence (number, label) and the
// frames whose Segment Identification references each segment. Voxel counts are what we decoded; the tests below
// hold the ones that an independent source (a tool's label map) confirms.
const std::vector<ExpectedSeg>& expectedSegs() {
  static const std::vector<ExpectedSeg> table = {
      {"highdicom/seg_image_ct_binary.dcm", "BINARY", 3, 16, 16, {{1, "first segment", 3, 638}}},
      {"highdicom/seg_image_ct_binary_fractional.dcm", "FRACTIONAL", 3, 16, 16, {{1, "first segment", 3, 638}}},
      {"highdicom/seg_image_ct_true_fractional.dcm", "FRACTIONAL", 3, 16, 16, {{1, "first segment", 3, 638}}},
      {"highdicom/seg_image_ct_binary_overlap.dcm", "BINARY", 8, 16, 16,
       {{1, "first segment", 4, 64}, {2, "second segment", 4, 16}}},
      {"highdicom/seg_image_ct_binary_single_frame.dcm", "BINARY", 1, 128, 128, {{1, "first segment", 1, 1832}}},
      {"dcmqi/segmentations/liver.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"dcmqi/segmentations/partial_overlaps.dcm", "BINARY", 7, 512, 512,
       {{1, "GREEN", 1, 9602}, {2, "ORANGE", 1, 11888}, {3, "PURPLE", 3, 10743}, {4, "LIGHT_BLUE", 1, 6693},
        {5, "DARK_BLUE", 1, 4713}}},
      {"dcmqi/segmentations/sparse-labelmap-noppv.dcm", "LABELMAP", 2, 38, 24,
       {{0, "Background", 0, -1}, {1, "Liver", 2, 630}}},
      {"dcmqi/segmentations/sparse-labelmap-ppv5.dcm", "LABELMAP", 2, 38, 24,
       {{0, "Background", 0, -1}, {1, "Liver", 2, 630}}},
      {"dcmqi/segmentations/23x38x3/seg/label.seg", "BINARY", 3, 38, 23, {{1, "Liver", 3, 322}}},
      {"dcmqi/segmentations/24x38x3/seg/label.seg", "BINARY", 3, 38, 24, {{1, "Liver", 3, 315}}},
      {"dcmqi/sr-example/seg.dcm", "BINARY", 13, 128, 128, {{1, "Neoplasm, Primary", 13, 795}}},
      {"orthanc-tcga-gbm/DicomSeg.dcm", "BINARY", 96, 256, 256,
       {{1, "Necrosis", 32, 683}, {2, "Edema", 32, 3333}, {3, "Enhancing Lesion", 32, 2364}}},
      {"pydicom-data/liver.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"pydicom-data/liver_deflate.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"pydicom-data/liver_expb.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"pydicom-data/liver_j2k.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"pydicom-data/liver_nonbyte_aligned.dcm", "BINARY", 3, 510, 510, {{1, "Liver", 3, 107098}}},
      {"pydicom-data/liver_rle.dcm", "BINARY", 3, 512, 512, {{1, "Liver", 3, 107098}}},
      {"qin-headneck-pet/bitpacking_23x38x3/mask/mask.dcm", "BINARY", 3, 38, 23, {{1, "Liver", 3, 322}}},
      {"qin-headneck-pet/mask/mask.dcm", "BINARY", 171, 168, 168,
       {{1, "Neoplasm, Primary", 27, 1697}, {2, "Neoplasm, Secondary", 8, 113},
        {3, "Neoplasm, Secondary", 14, 457}, {4, "Neoplasm, Secondary", 34, 4230},
        {5, "Neoplasm, Secondary", 12, 211}, {6, "Neoplasm, Secondary", 13, 375},
        {7, "Neoplasm, Secondary", 19, 922}, {8, "Neoplasm, Secondary", 18, 950},
        {9, "Neoplasm, Secondary", 12, 222}, {10, "Neoplasm, Secondary", 8, 43},
        {11, "Neoplasm, Secondary", 6, 62}}},
  };
  return table;
}

// Slide-microscopy label-map SEGs: frames positioned on a tiled total pixel matrix (slide coordinates), no patient
// positions, so there is no volume grid to place them on. Read as an explicit Unsupported error.
const std::vector<std::string>& skippedSegs() {
  static const std::vector<std::string> files = {"highdicom/seg_image_sm_control_labelmap.dcm",
                                                 "highdicom/seg_image_sm_control_labelmap_palette_color.dcm"};
  return files;
}

}  // namespace

TEST_CASE("dicom-seg: every SEG in the shared data reads with the type, frames, segments and labels its header declares",
          "[dicom-seg]") {
  for (const ExpectedSeg& e : expectedSegs()) {
    auto path = segFile(e.file);
    if (!path) return;
    INFO(e.file);
    auto doc = io::readDicomSeg(path->string());
    if (!doc) FAIL(doc.error().describe());
    CHECK(doc->segmentationType == e.type);
    CHECK(doc->frameCount == e.frames);
    CHECK(doc->rows == e.rows);
    CHECK(doc->columns == e.columns);
    REQUIRE(doc->segments.size() == e.segments.size());
    std::size_t masks = 0;
    for (std::size_t i = 0; i < e.segments.size(); ++i) {
      const ExpectedSegment& s = e.segments[i];
      INFO("segment " << s.number);
      CHECK(doc->segments[i].number == s.number);
      CHECK(doc->segments[i].entry.name == s.label);
      CHECK(doc->segments[i].frames == s.frames);
      const io::SegSegmentMask* m = doc->findMask(s.number);
      if (s.voxels < 0) {
        CHECK(m == nullptr);
        continue;
      }
      REQUIRE(m != nullptr);
      ++masks;
      CHECK(m->count() == s.voxels);
      CHECK(m->voxels.size() == std::size_t(m->box.voxelCount()));
      CHECK(doc->grid.contains(m->box.min));
      CHECK(doc->grid.contains(m->box.max));
      // The box is tight: every face holds a set voxel.
      for (int axis = 0; axis < 3; ++axis) {
        bool atMin = false, atMax = false;
        for (std::int64_t z = m->box.min[2]; z <= m->box.max[2]; ++z)
          for (std::int64_t y = m->box.min[1]; y <= m->box.max[1]; ++y)
            for (std::int64_t x = m->box.min[0]; x <= m->box.max[0]; ++x) {
              const core::Index3 p{x, y, z};
              if (!maskAt(*m, p)) continue;
              atMin = atMin || p[std::size_t(axis)] == m->box.min[std::size_t(axis)];
              atMax = atMax || p[std::size_t(axis)] == m->box.max[std::size_t(axis)];
            }
        CHECK(atMin);
        CHECK(atMax);
      }
    }
    CHECK(doc->masks.size() == masks);
  }
  for (const std::string& file : skippedSegs()) {
    auto path = segFile(file);
    if (!path) return;
    INFO(file);
    auto doc = io::readDicomSeg(path->string());
    REQUIRE_FALSE(doc.ok());
    CHECK(doc.error().code == core::ErrorCode::Unsupported);
    CHECK(doc.error().subject == path->string());
    CHECK(lower(doc.error().detail).find("plane position") != std::string::npos);
  }
}

TEST_CASE("dicom-seg: the table above covers every SEG file in the shared folder", "[dicom-seg]") {
  auto root = segFile("");
  if (!root) return;
  std::set<std::string> known;
  for (const auto& e : expectedSegs()) known.insert(e.file);
  for (const auto& f : skippedSegs()) known.insert(f);
  std::set<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(*root)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".dcm" && ext != ".seg") continue;
    // Source image folders hold CT/PET slices only.
    if (entry.path().parent_path().filename() == "image") continue;
    auto doc = io::readDicomSeg(entry.path().string());
    const bool isSeg = doc.ok() || doc.error().detail.find("not a DICOM SEG") == std::string::npos;
    if (isSeg) found.insert(fs::relative(entry.path(), *root).generic_string());
  }
  CHECK(found == known);
}

TEST_CASE("dicom-seg: dcmqi's liver SEG read onto its CT equals dcmqi's own label map voxel for voxel, in every transfer syntax",
          "[dicom-seg]") {
  auto ct = segFile("dcmqi/segmentations/ct-3slice");
  auto nrrd = segFile("dcmqi/segmentations/liver_seg.nrrd");
  if (!ct || !nrrd) return;
  const LoadedSource source = loadSource(*ct);
  CHECK(source.grid.dimensions() == core::Size3{512, 512, 3});
  auto labels = io::readLabelFile(nrrd->string());
  REQUIRE(labels.ok());
  for (const char* file : {"dcmqi/segmentations/liver.dcm", "pydicom-data/liver.dcm", "pydicom-data/liver_deflate.dcm",
                           "pydicom-data/liver_expb.dcm", "pydicom-data/liver_j2k.dcm", "pydicom-data/liver_rle.dcm"}) {
    auto path = segFile(file);
    if (!path) return;
    INFO(file);
    io::DicomSegReadOptions options;
    options.referenceFrameOfReferenceUid = source.frameOfReferenceUid;
    auto doc = io::readDicomSeg(path->string(), source.grid, options);
    if (!doc) FAIL(doc.error().describe());
    CHECK(doc->grid == source.grid);
    CHECK(doc->frameOfReferenceUid == source.frameOfReferenceUid);
    CHECK(doc->referencedSeriesUid == "1.2.392.200103.20080913.113635.1.2009.6.22.21.43.10.23430.1");
    CHECK(doc->seriesDescription == "Liver Segmentation");
    REQUIRE(doc->segments.size() == 1);
    const io::SegSegmentInfo& s = doc->segments[0];
    CHECK(s.algorithmType == "SEMIAUTOMATIC");
    CHECK(s.algorithmName == "SlicerEditor");
    CHECK(s.entry.terminology.category == core::CodedConcept{"SRT", "T-D0050", "Tissue"});
    CHECK(s.entry.terminology.type == core::CodedConcept{"SRT", "T-62000", "Liver"});
    // Recommended Display CIELab back to Slicer's liver colour.
    CHECK(s.entry.color == core::Rgba{221, 130, 101, 255});
    requireMaskEqualsLabel(*doc, 1, *labels, 1);
  }
  // A reference grid whose rows run the other way (origin at the last row, y axis flipped): the same voxels, mirrored.
  {
    const core::Geometry& g = source.grid;
    core::Mat3 d = g.direction();
    for (int r = 0; r < 3; ++r) d(r, 1) = -d(r, 1);
    const core::Vec3 origin = g.indexToLps(core::Vec3{0, double(g.dimensions()[1] - 1), 0});
    const core::Geometry flipped(g.dimensions(), g.spacingMm(), origin, d);
    auto path = segFile("dcmqi/segmentations/liver.dcm");
    auto doc = io::readDicomSeg(path->string(), flipped);
    if (!doc) FAIL(doc.error().describe());
    const io::SegSegmentMask& m = *doc->findMask(1);
    std::int64_t mismatches = 0;
    const auto& dims = g.dimensions();
    for (std::int64_t z = 0; z < dims[2]; ++z)
      for (std::int64_t y = 0; y < dims[1]; ++y)
        for (std::int64_t x = 0; x < dims[0]; ++x)
          mismatches += (labels->at({x, y, z}) == 1) != maskAt(m, {x, dims[1] - 1 - y, z});
    CHECK(m.count() == 107098);
    CHECK(mismatches == 0);
  }
  // 510 x 510 frames (not a multiple of 8: frames do not start on byte boundaries) with the same origin and spacing
  // fall on the 512 x 512 grid.
  auto odd = segFile("pydicom-data/liver_nonbyte_aligned.dcm");
  if (!odd) return;
  auto doc = io::readDicomSeg(odd->string(), source.grid);
  if (!doc) FAIL(doc.error().describe());
  requireMaskEqualsLabel(*doc, 1, *labels, 1);
}

TEST_CASE("dicom-seg: bit-packed frames of odd size (23 x 38) and label-map SEGs match dcmqi's label maps on their source images",
          "[dicom-seg]") {
  struct Case {
    const char* images;
    const char* seg;
    const char* nrrd;
  };
  for (const Case& c : {Case{"dcmqi/segmentations/23x38x3/image", "dcmqi/segmentations/23x38x3/seg/label.seg",
                             "dcmqi/segmentations/23x38x3/nrrd/label.nrrd"},
                        Case{"qin-headneck-pet/bitpacking_23x38x3/image", "qin-headneck-pet/bitpacking_23x38x3/mask/mask.dcm",
                             "dcmqi/segmentations/23x38x3/nrrd/label.nrrd"},
                        Case{"dcmqi/segmentations/24x38x3/image", "dcmqi/segmentations/24x38x3/seg/label.seg",
                             "dcmqi/segmentations/24x38x3/nrrd/label.nrrd"},
                        Case{"dcmqi/segmentations/24x38x3/image", "dcmqi/segmentations/sparse-labelmap-noppv.dcm",
                             "dcmqi/segmentations/sparse_labelmap_noppv_seg.nrrd"},
                        Case{"dcmqi/segmentations/24x38x3/image", "dcmqi/segmentations/sparse-labelmap-ppv5.dcm",
                             "dcmqi/segmentations/sparse_labelmap_ppv5_seg.nrrd"}}) {
    auto images = segFile(c.images);
    auto seg = segFile(c.seg);
    auto nrrd = segFile(c.nrrd);
    if (!images || !seg || !nrrd) return;
    INFO(c.seg);
    const LoadedSource source = loadSource(*images);
    io::DicomSegReadOptions options;
    options.referenceFrameOfReferenceUid = source.frameOfReferenceUid;
    auto doc = io::readDicomSeg(seg->string(), source.grid, options);
    if (!doc) FAIL(doc.error().describe());
    auto labels = io::readLabelFile(nrrd->string());
    REQUIRE(labels.ok());
    requireMaskEqualsLabel(*doc, 1, *labels, 1);
    // As a label map: the same voxels; a label map SEG's background segment 0 is label 0, not an entry. (dcmqi's
    // ppv5 NRRD writes its Pixel Padding Value 5 on the slice the SEG has no frame for: background here.)
    auto map = io::segToLabelMap(*doc, false);
    if (!map) FAIL(map.error().describe());
    CHECK(map->second.size() == 1);
    CHECK(map->second.find(1)->name == "Liver");
    std::int64_t differ = 0;
    for (std::size_t v = 0; v < labels->size(); ++v) differ += map->first[v] != ((*labels)[v] == 1 ? 1 : 0);
    CHECK(differ == 0);
  }
}

TEST_CASE("dicom-seg: the QIN head-neck PET SEG lands on its PET series, 11 segments, and becomes a label map", "[dicom-seg]") {
  auto pet = segFile("qin-headneck-pet/image");
  auto seg = segFile("qin-headneck-pet/mask/mask.dcm");
  if (!pet || !seg) return;
  const LoadedSource source = loadSource(*pet);
  auto own = io::readDicomSeg(seg->string());
  REQUIRE(own.ok());
  io::DicomSegReadOptions options;
  options.referenceFrameOfReferenceUid = source.frameOfReferenceUid;
  auto doc = io::readDicomSeg(seg->string(), source.grid, options);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->grid == source.grid);
  CHECK(doc->overlappingVoxels == 0);
  REQUIRE(doc->masks.size() == 11);
  // The same voxels as on the SEG's own grid, shifted by one whole-voxel offset for every segment.
  const core::Vec3 shift = source.grid.lpsToIndex(own->grid.originLps());
  for (std::size_t i = 0; i < 11; ++i) {
    const io::SegSegmentMask& a = own->masks[i];
    const io::SegSegmentMask& b = doc->masks[i];
    CHECK(a.number == b.number);
    CHECK(a.count() == b.count());
    CHECK(a.voxels == b.voxels);
    for (int axis = 0; axis < 3; ++axis) {
      CHECK(double(b.box.min[std::size_t(axis)] - a.box.min[std::size_t(axis)]) ==
            Approx(shift[std::size_t(axis)]).margin(io::kSegPlacementTolerance));
      CHECK(b.box.max[std::size_t(axis)] - b.box.min[std::size_t(axis)] ==
            a.box.max[std::size_t(axis)] - a.box.min[std::size_t(axis)]);
    }
  }
  CHECK(doc->segments[0].entry.terminology.region.meaning == "base of tongue");
  CHECK(doc->segments[0].algorithmName == "Iowa QIN PET Tumor Segmentation 1.0");

  auto map = io::segToLabelMap(*doc, false);
  if (!map) FAIL(map.error().describe());
  const core::LabelMap& labels = map->first;
  const core::LabelTable& table = map->second;
  CHECK(labels.geometry() == source.grid);
  REQUIRE(table.size() == 11);
  CHECK(table.find(1)->name == "Neoplasm, Primary");
  CHECK(table.find(11)->name == "Neoplasm, Secondary");
  std::map<core::Label, std::int64_t> counts;
  for (std::size_t v = 0; v < labels.size(); ++v)
    if (labels[v]) counts[labels[v]]++;
  for (const auto& m : doc->masks) CHECK(counts[core::Label(m.number)] == m.count());

  SECTION("another frame of reference is refused, naming the file") {
    io::DicomSegReadOptions other;
    other.referenceFrameOfReferenceUid = "1.2.3.4";
    auto bad = io::readDicomSeg(seg->string(), source.grid, other);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(bad.error().subject == seg->string());
    CHECK(bad.error().detail.find("frame of reference") != std::string::npos);
  }
  SECTION("a grid shifted by half a voxel is refused: the planes do not fall on its voxels") {
    core::Vec3 origin = source.grid.originLps();
    origin[0] += 0.5 * source.grid.spacingMm()[0];
    const core::Geometry shifted(source.grid.dimensions(), source.grid.spacingMm(), origin, source.grid.direction());
    auto bad = io::readDicomSeg(seg->string(), shifted);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(bad.error().subject == seg->string());
    CHECK(bad.error().detail.find("does not fall on the reference grid") != std::string::npos);
  }
  SECTION("a grid too short for the SEG's planes is refused") {
    core::Size3 dims = source.grid.dimensions();
    dims[2] = 10;
    const core::Geometry shorter(dims, source.grid.spacingMm(), source.grid.originLps(), source.grid.direction());
    auto bad = io::readDicomSeg(seg->string(), shorter);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(bad.error().subject == seg->string());
  }
}

TEST_CASE("dicom-seg: overlapping segments stay separate, and a label map needs allowOverlap", "[dicom-seg]") {
  auto path = segFile("highdicom/seg_image_ct_binary_overlap.dcm");
  if (!path) return;
  auto doc = io::readDicomSeg(path->string());
  if (!doc) FAIL(doc.error().describe());
  REQUIRE(doc->masks.size() == 2);
  // Frames of segment 2 repeat the planes of segment 1 (4 planes each); its 2 x 2 pixels lie inside segment 1's 4 x 4.
  const io::SegSegmentMask& one = *doc->findMask(1);
  const io::SegSegmentMask& two = *doc->findMask(2);
  CHECK(one.count() == 64);
  CHECK(two.count() == 16);
  CHECK(doc->overlappingVoxels == 16);
  CHECK(one.box.intersected(two.box) == two.box);
  CHECK(doc->segments[1].entry.terminology.type == core::CodedConcept{"SCT", "421060004", "Spine"});
  CHECK(doc->segments[0].entry.terminology.category == core::CodedConcept{"SCT", "85756007", "Tissue"});

  auto refused = io::segToLabelMap(*doc, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::InvalidArgument);
  CHECK(refused.error().detail.find("16 voxels") != std::string::npos);

  auto flattened = io::segToLabelMap(*doc, true);
  if (!flattened) FAIL(flattened.error().describe());
  std::map<core::Label, std::int64_t> counts;
  for (std::size_t v = 0; v < flattened->first.size(); ++v) counts[flattened->first[v]]++;
  CHECK(counts[1] == 64 - 16);
  CHECK(counts[2] == 16);  // the highest-numbered segment wins where they overlap
  CHECK(flattened->second.size() == 2);

  // dcmqi's partial overlaps: 5 segments on 3 slices.
  auto partial = segFile("dcmqi/segmentations/partial_overlaps.dcm");
  if (!partial) return;
  auto p = io::readDicomSeg(partial->string());
  if (!p) FAIL(p.error().describe());
  CHECK(p->overlappingVoxels == 3106);
  CHECK_FALSE(io::segToLabelMap(*p, false).ok());
  auto pm = io::segToLabelMap(*p, true);
  REQUIRE(pm.ok());
  std::int64_t labelled = 0, claimed = 0;
  for (std::size_t v = 0; v < pm->first.size(); ++v) labelled += pm->first[v] != 0;
  for (const auto& m : p->masks) claimed += m.count();
  // Voxels claimed k times count k times in the masks' sum: a voxel claimed by 3 segments makes the sum exceed the
  // labelled voxels by 2, so the difference is at least the overlapping voxels.
  CHECK(claimed - labelled >= std::int64_t(p->overlappingVoxels));
}

TEST_CASE("dicom-seg: fractional SEGs are thresholded at half the maximum fractional value", "[dicom-seg]") {
  for (const char* file : {"highdicom/seg_image_ct_binary_fractional.dcm", "highdicom/seg_image_ct_true_fractional.dcm"}) {
    auto path = segFile(file);
    if (!path) return;
    INFO(file);
    auto doc = io::readDicomSeg(path->string());
    if (!doc) FAIL(doc.error().describe());
    CHECK(doc->segmentationType == "FRACTIONAL");
    auto frames = io::readDicomFrames(path->string());
    REQUIRE(frames.ok());
    std::int64_t above = 0, nonZero = 0;
    for (std::int32_t v : frames->samples) {
      above += v * 2 >= 255;  // MaximumFractionalValue 255
      nonZero += v != 0;
    }
    REQUIRE(doc->masks.size() == 1);
    CHECK(doc->masks[0].count() == above);
    // The true fractional SEG holds 23 pixels at 64/255 (left out) and 638 at 128/255 (kept).
    if (std::string(file).find("true") != std::string::npos) {
      CHECK(nonZero == 661);
      CHECK(above == 638);
    }
  }
}

TEST_CASE("dicom-seg: the single-frame highdicom SEG lands on ct_image, the 16 x 16 ones do not", "[dicom-seg]") {
  auto ct = segFile("highdicom/ct_image.dcm");
  auto single = segFile("highdicom/seg_image_ct_binary_single_frame.dcm");
  auto small = segFile("highdicom/seg_image_ct_binary.dcm");
  if (!ct || !single || !small) return;
  auto index = io::indexDicomFiles({ct->string()});
  REQUIRE(index.ok());
  const io::DicomSeries* series = index->allSeries().front();
  REQUIRE(series->geometry);
  auto doc = io::readDicomSeg(single->string(), *series->geometry);
  if (!doc) FAIL(doc.error().describe());
  REQUIRE(doc->masks.size() == 1);
  CHECK(doc->masks[0].box == core::IndexBox{{5, 6, 0}, {101, 94, 0}});
  CHECK(doc->masks[0].count() == 1832);
  // Same pixels as on the SEG's own grid: the SEG's frame is the CT's plane.
  auto own = io::readDicomSeg(single->string());
  REQUIRE(own.ok());
  CHECK(own->masks[0].voxels == doc->masks[0].voxels);

  // 0.488 mm pixels on another frame of reference: not this CT's grid.
  auto bad = io::readDicomSeg(small->string(), *series->geometry);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
  CHECK(bad.error().subject == small->string());
  io::DicomSegReadOptions options;
  options.referenceFrameOfReferenceUid = series->frameOfReferenceUid;
  auto badFor = io::readDicomSeg(small->string(), *series->geometry, options);
  REQUIRE_FALSE(badFor.ok());
  CHECK(badFor.error().detail.find("frame of reference") != std::string::npos);
}

TEST_CASE("dicom-seg: a truncated SEG, a non-SEG DICOM and a missing file give errors naming the file", "[dicom-seg]") {
  auto liver = segFile("dcmqi/segmentations/liver.dcm");
  auto ct = segFile("highdicom/ct_image.dcm");
  if (!liver || !ct) return;
  ScratchDir dir("dicom-seg");
  std::ifstream in(*liver, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  for (std::size_t keep : {bytes.size() - 1000, bytes.size() / 2, std::size_t(200)}) {
    const fs::path cut = dir / ("cut_" + std::to_string(keep) + ".dcm");
    {
      std::ofstream out(cut, std::ios::binary);
      out.write(bytes.data(), std::streamsize(keep));
    }
    INFO(keep << " of " << bytes.size() << " bytes");
    auto doc = io::readDicomSeg(cut.string());
    REQUIRE_FALSE(doc.ok());
    CHECK(doc.error().subject == cut.string());
    CHECK(doc.error().describe().find(cut.string()) != std::string::npos);
  }

  auto notSeg = io::readDicomSeg(ct->string());
  REQUIRE_FALSE(notSeg.ok());
  CHECK(notSeg.error().code == core::ErrorCode::Unsupported);
  CHECK(notSeg.error().subject == ct->string());
  CHECK(notSeg.error().detail.find("not a DICOM SEG") != std::string::npos);

  const std::string missing = (dir / "missing.dcm").string();
  auto none = io::readDicomSeg(missing);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == core::ErrorCode::NotFound);
  CHECK(none.error().subject == missing);
}

TEST_CASE("dicom-seg: CIELab colours convert to sRGB", "[dicom-seg]") {
  // White, black and dcmqi's scaled CIELab for Slicer's liver colour (221, 130, 101).
  CHECK(io::cielabToRgb(65535, 32896, 32896) == core::Rgba{255, 255, 255, 255});
  CHECK(io::cielabToRgb(0, 32896, 32896) == core::Rgba{0, 0, 0, 255});
}

TEST_CASE("dicom-seg: synthetic odd-sized frames (5 x 3, packed across byte boundaries) land where their positions say",
          "[dicom-seg]") {
  ScratchDir dir("dicom-seg-synth");
  SynthSeg p;
  p.segments = {1, 2};
  // Slices at z = 0, 2, 4 (spacing 2 mm); segment 2 only on z = 2; frames listed out of order.
  p.frames = {{{0, 0, 4}, 1}, {{0, 0, 0}, 1}, {{0, 0, 2}, 2}, {{0, 0, 2}, 1}};
  const fs::path file = dir / "odd.dcm";
  buildSeg(p).write(file);
  const core::Geometry grid({5, 3, 3}, {0.5, 0.5, 2}, {0, 0, 0});
  auto doc = io::readDicomSeg(file.string(), grid);
  if (!doc) FAIL(doc.error().describe());
  auto own = io::readDicomSeg(file.string());
  if (!own) FAIL(own.error().describe());
  CHECK(own->grid.isCloseTo(grid));
  for (const io::DicomSegDocument* d : {&*doc, &*own}) {
    REQUIRE(d->masks.size() == 2);
    CHECK(d->findSegment(1)->frames == 3);
    CHECK(d->findSegment(2)->frames == 1);
    std::int64_t mismatches = 0;
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
      const io::SegSegmentMask& m = *d->findMask(p.frames[f].segment);
      const std::int64_t k = std::int64_t(std::lround(p.frames[f].positionLps[2] / 2));
      for (int r = 0; r < p.rows; ++r)
        for (int c = 0; c < p.columns; ++c) mismatches += maskAt(m, {c, r, k}) != p.pixel(int(f), c, r);
    }
    CHECK(mismatches == 0);
    // Segment 2 repeats frame 2's plane: its set pixels that segment 1's frame 3 also sets overlap.
    std::int64_t overlap = 0;
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.columns; ++c) overlap += p.pixel(2, c, r) && p.pixel(3, c, r);
    CHECK(d->overlappingVoxels == std::size_t(overlap));
  }

  SECTION("rows running the other way on the reference grid: mirrored in y") {
    const core::Geometry flipped({5, 3, 3}, {0.5, 0.5, 2}, {0, 1.0, 0},
                                 core::Mat3{{1, 0, 0, 0, -1, 0, 0, 0, 1}});
    // A y-flipped grid with z kept: its direction is not right-handed, which Geometry allows (determinant -1).
    auto m = io::readDicomSeg(file.string(), flipped);
    if (!m) FAIL(m.error().describe());
    const io::SegSegmentMask& one = *m->findMask(1);
    std::int64_t mismatches = 0;
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.columns; ++c) mismatches += maskAt(one, {c, 2 - r, 0}) != p.pixel(1, c, r);
    CHECK(mismatches == 0);
  }
  SECTION("sagittal frames on an axial grid: columns along y, rows down z") {
    SynthSeg q;
    q.rows = 3;
    q.columns = 4;
    q.rowDir = {0, 1, 0};
    q.colDir = {0, 0, -1};
    q.rowSpacing = 2;  // rows run down z, 2 mm apart as the axial grid's slices
    q.frames = {{{1.0, 0, 4}, 1}, {{2.0, 0, 4}, 1}};  // x = 1 and 2 mm: i = 2 and 4 at 0.5 mm
    buildSeg(q).write(dir / "sagittal.dcm");
    const core::Geometry axial({6, 4, 3}, {0.5, 0.5, 2}, {0, 0, 0});
    auto m = io::readDicomSeg((dir / "sagittal.dcm").string(), axial);
    if (!m) FAIL(m.error().describe());
    const io::SegSegmentMask& one = *m->findMask(1);
    std::int64_t mismatches = 0, set = 0;
    for (int f = 0; f < 2; ++f)
      for (int r = 0; r < q.rows; ++r)
        for (int c = 0; c < q.columns; ++c) {
          // column c: y = 0.5 c mm (j = c); row r: z = 4 - 2 r mm (k = 2 - r)
          mismatches += maskAt(one, {2 + 2 * f, c, 2 - r}) != q.pixel(f, c, r);
          set += q.pixel(f, c, r);
        }
    CHECK(one.count() == set);
    CHECK(mismatches == 0);
  }
  SECTION("frames at other in-plane positions widen a derived grid") {
    SynthSeg q = p;
    q.segments = {1};
    q.frames = {{{0, 0, 0}, 1}, {{1.0, -0.5, 2}, 1}};
    q.pixel = [](int, int, int) { return true; };
    buildSeg(q).write(dir / "shifted.dcm");
    auto w = io::readDicomSeg((dir / "shifted.dcm").string());
    if (!w) FAIL(w.error().describe());
    CHECK(w->grid.dimensions() == core::Size3{7, 4, 2});
    CHECK(w->grid.originLps()[1] == Approx(-0.5));
    const io::SegSegmentMask& m = *w->findMask(1);
    CHECK(m.count() == 30);
    CHECK(maskAt(m, {0, 1, 0}));
    CHECK_FALSE(maskAt(m, {0, 0, 0}));
    CHECK(maskAt(m, {2, 0, 1}));
    CHECK(maskAt(m, {6, 2, 1}));
    CHECK_FALSE(maskAt(m, {1, 0, 1}));
  }
  SECTION("set pixels outside the reference grid are refused") {
    const core::Geometry small({4, 3, 3}, {0.5, 0.5, 2}, {0, 0, 0});
    auto bad = io::readDicomSeg(file.string(), small);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(bad.error().subject == file.string());
  }
  SECTION("another pixel spacing is refused") {
    const core::Geometry coarse({5, 3, 3}, {1.0, 1.0, 2}, {0, 0, 0});
    auto bad = io::readDicomSeg(file.string(), coarse);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == core::ErrorCode::GeometryMismatch);
  }
}

TEST_CASE("dicom-seg: damaged synthetic SEGs give errors naming the file, before allocating", "[dicom-seg]") {
  ScratchDir dir("dicom-seg-bad");
  SynthSeg p;
  p.frames = {{{0, 0, 0}, 1}, {{0, 0, 2}, 1}};
  int n = 0;
  auto expectError = [&](test::DicomBuilder b, core::ErrorCode code, const std::string& words) {
    const fs::path file = dir / ("bad" + std::to_string(++n) + ".dcm");
    b.write(file);
    auto doc = io::readDicomSeg(file.string());
    REQUIRE_FALSE(doc.ok());
    INFO(doc.error().describe());
    CHECK(doc.error().code == code);
    CHECK(doc.error().subject == file.string());
    CHECK(doc.error().detail.find(words) != std::string::npos);
  };
  // 60000 x 60000 x 60000 frames declared over a few bytes of pixels.
  expectError(buildSeg(p).us(0x0028, 0x0010, 60000).us(0x0028, 0x0011, 60000).is(0x0028, 0x0008, 60000),
              core::ErrorCode::SizeLimit, "limit");
  // More frames declared than the pixel data holds.
  expectError(buildSeg(p).is(0x0028, 0x0008, 2000).us(0x0028, 0x0010, 300), core::ErrorCode::Corrupt, "pixel data");
  {
    SynthSeg q = p;
    q.frames[1].segment = 7;  // not in the Segment Sequence
    expectError(buildSeg(q), core::ErrorCode::Corrupt, "segment 7");
  }
  {
    // Per-frame functional groups for 3 frames, 2 declared.
    SynthSeg q = p;
    q.frames.push_back({{0, 0, 4}, 1});
    expectError(buildSeg(q).is(0x0028, 0x0008, 2), core::ErrorCode::Corrupt, "Per-frame");
  }
  // A BINARY SEG with 8-bit pixels.
  expectError(buildSeg(p).us(0x0028, 0x0100, 8), core::ErrorCode::Corrupt, "BitsAllocated");
  {
    SynthSeg q = p;
    q.frames.push_back({{0, 0, 1e9}, 1});  // planes 2 mm apart, and one 1e9 mm away
    expectError(buildSeg(q), core::ErrorCode::SizeLimit, "limit");
  }
  expectError(buildSeg(p).remove(0x0062, 0x0002), core::ErrorCode::Corrupt, "Segment Sequence");
  expectError(buildSeg(p).str(0x0062, 0x0001, "CS", "SOMETHING"), core::ErrorCode::Unsupported, "SOMETHING");
}
