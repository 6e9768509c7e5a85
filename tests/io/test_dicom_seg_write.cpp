// DICOM SEG writing (io/dicom/dicom_seg_write.h): label maps drawn on real and synthetic DICOM series, written as BINARY
// and LABELMAP SEGs, read back with io::readDicomSeg onto the same grid, and checked with dicom3tools' dciodvfy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#if defined(DELINEATE_TEST_DCMSEG)
// DCMTK's own SEG loader as a second opinion. test_io does not link dcmseg yet: define DELINEATE_TEST_DCMSEG and add
// DCMTK::dcmseg to test_io's LIBS (tests/CMakeLists.txt) to enable it.
#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmseg/segdoc.h>
#endif

#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_seg_write.h"
#include "tests/common/dciodvfy.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using delineate::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

struct Source {
  io::DicomIndex index;
  io::DicomSeries series;
  core::Geometry grid;
};

Source indexSource(const fs::path& folder) {
  auto index = io::indexDicomFolder(folder.string());
  if (!index) FAIL(index.error().describe());
  const io::DicomSeries* image = nullptr;
  for (const auto* s : index->allSeries())
    if (s->isImage) {
      REQUIRE(image == nullptr);
      image = s;
    }
  REQUIRE(image != nullptr);
  REQUIRE(image->geometry.has_value());
  return {*index, *image, *image->geometry};
}

std::optional<Source> ct3slice() {
  auto p = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  if (!p) return std::nullopt;
  return indexSource(*p);
}

core::LabelMap makeMap(const core::Geometry& g, const std::function<core::Label(std::int64_t, std::int64_t, std::int64_t)>& f) {
  auto v = core::Volume<core::Label>::create(g, 0);
  REQUIRE(v.ok());
  const auto& d = g.dimensions();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) v->at({x, y, z}) = f(x, y, z);
  return core::LabelMap(std::move(v).value());
}

// Three labels on dcmqi's 512 x 512 x 3 CT: 1 a box over two slices, 7 an odd-sized blob (37 x 13 on slice 0 only),
// 12 a disc growing over all three slices.
core::LabelMap threeLabels(const core::Geometry& g) {
  return makeMap(g, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    if (z <= 1 && x >= 100 && x < 164 && y >= 200 && y < 260) return 1;
    if (z == 0 && x >= 301 && x < 338 && y >= 51 && y < 64) return 7;
    if ((x - 256) * (x - 256) + (y - 380) * (y - 380) < 900 + 100 * z) return 12;
    return 0;
  });
}

bool maskAt(const io::SegSegmentMask& m, const core::Index3& ijk) {
  if (!m.box.contains(ijk)) return false;
  const std::int64_t nx = m.box.max[0] - m.box.min[0] + 1, ny = m.box.max[1] - m.box.min[1] + 1;
  return m.voxels[std::size_t((ijk[0] - m.box.min[0]) + nx * ((ijk[1] - m.box.min[1]) + ny * (ijk[2] - m.box.min[2])))] != 0;
}

// The document's masks flattened (no overlap expected) equal the label map voxel for voxel. Segment n stands for the
// n-th smallest label id present (`ids`, increasing).
void requireSameLabels(const io::DicomSegDocument& doc, const core::LabelMap& labels, const std::vector<int>& ids) {
  REQUIRE(doc.grid.isCloseTo(labels.geometry()));
  CHECK(doc.overlappingVoxels == 0);
  REQUIRE(doc.masks.size() == ids.size());
  std::map<int, const io::SegSegmentMask*> masks;
  for (const auto& m : doc.masks) {
    REQUIRE(m.number >= 1);
    REQUIRE(m.number <= int(ids.size()));
    masks[ids[std::size_t(m.number - 1)]] = &m;
  }
  const auto& d = labels.geometry().dimensions();
  std::int64_t mismatches = 0;
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        int got = 0;
        for (const auto& [n, m] : masks)
          if (maskAt(*m, {x, y, z})) got = n;
        mismatches += got != labels.at({x, y, z});
      }
  CHECK(mismatches == 0);
}

// dciodvfy must report no "Error" line; warnings are listed here, each with why it is accepted.
const std::vector<std::string> kAcceptedWarnings = {
    // Labels without a code get the local scheme 99DELINEATE (declared in the Coding Scheme Identification
    // Sequence); dciodvfy only knows registered designators.
    "Unrecognized defined term <99DELINEATE> for value 1 of attribute",
    // Study Date / Time / ID are type 2 in a SEG: copied as the source has them (the synthetic series has no Study
    // ID) or emptied by deidentify. Only a DICOMDIR would need them.
    "Missing attribute or value that would be needed to build DICOMDIR",
    // PatientName is copied verbatim from the source series (dcmqi's CT has "JANCT000", with no '^').
    "Retired Person Name form",
};

// acceptedErrors: Error lines accepted for this file (substrings), each listed with its reason by the caller.
void requireValidIod(const fs::path& file, const std::vector<std::string>& acceptedErrors = {}) {
  test::requireDciodvfyClean(file, kAcceptedWarnings, acceptedErrors);
}

core::LabelEntry entry(int id, const std::string& name, core::Rgba color) {
  core::LabelEntry e;
  e.id = core::Label(id);
  e.name = name;
  e.color = color;
  return e;
}

// Label 1 of threeLabels, coded as the liver.
core::LabelEntry liverEntry() {
  core::LabelEntry liver = entry(1, "Liver", {221, 130, 101, 255});
  liver.terminology.category = {"SCT", "123037004", "Anatomical Structure"};
  liver.terminology.type = {"SCT", "10200004", "Liver"};
  return liver;
}

// DcmSegmentation::loadFile (dcmseg) accepts the file with the expected segment and frame counts (checked by hand on
// DCMTK 3.6.7 for dcmqi's CT: it loads; the suite runs it only where built with DELINEATE_TEST_DCMSEG).
void requireDcmsegLoads(const fs::path& file, std::size_t segments, std::size_t frames) {
#if defined(DELINEATE_TEST_DCMSEG)
  DcmSegmentation* seg = nullptr;
  const OFCondition c = DcmSegmentation::loadFile(file.string().c_str(), seg);
  std::unique_ptr<DcmSegmentation> owner(seg);
  INFO("DcmSegmentation::loadFile: " << c.text());
  REQUIRE(c.good());
  CHECK(seg->getNumberOfSegments() == segments);
  CHECK(seg->getNumberOfFrames() == frames);
#else
  (void)file;
  (void)segments;
  (void)frames;
#endif
}

int countColourDiff(const core::Rgba& a, const core::Rgba& b) {
  return std::max({std::abs(int(a.r) - int(b.r)), std::abs(int(a.g) - int(b.g)), std::abs(int(a.b) - int(b.b))});
}

}  // namespace

TEST_CASE("dicom-seg-write: a 3-label map on dcmqi's CT round trips voxel for voxel with names, codes and colours",
          "[dicom-seg-write]") {
  auto src = ct3slice();
  if (!src) return;
  const core::Geometry& g = src->grid;
  REQUIRE(g.dimensions() == core::Size3{512, 512, 3});
  const core::LabelMap labels = threeLabels(g);
  core::LabelTable table;
  const core::LabelEntry liver = liverEntry();
  REQUIRE(table.add(liver).ok());
  REQUIRE(table.add(entry(7, "odd blob", {10, 200, 30, 255})).ok());
  core::LabelEntry kidney = entry(12, "Left kidney", {185, 102, 83, 255});
  kidney.terminology.category = {"SCT", "123037004", "Anatomical Structure"};
  kidney.terminology.type = {"SCT", "64033007", "Kidney"};
  kidney.terminology.typeModifier = {"SCT", "7771000", "Left"};
  REQUIRE(table.add(kidney).ok());
  REQUIRE(table.add(entry(20, "unused", {1, 2, 3, 255})).ok());  // in the table, not in the map

  ScratchDir dir("seg-write");
  const fs::path out = dir / "seg.dcm";
  io::SegWriteOptions options;
  options.seriesDescription = "round trip";
  const core::Status st = io::writeDicomSeg(out.string(), labels, table, src->series, options);
  if (!st) FAIL(st.error().describe());

  io::DicomSegReadOptions ro;
  ro.referenceFrameOfReferenceUid = src->series.frameOfReferenceUid;
  auto doc = io::readDicomSeg(out.string(), g, ro);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->segmentationType == "BINARY");
  CHECK(doc->sopClassUid == "1.2.840.10008.5.1.4.1.1.66.4");
  CHECK(doc->seriesDescription == "round trip");
  CHECK(doc->referencedSeriesUid == src->series.seriesInstanceUid);
  CHECK(doc->frameOfReferenceUid == src->series.frameOfReferenceUid);
  CHECK(doc->rows == 512);
  CHECK(doc->columns == 512);
  CHECK(doc->frameCount == 2 + 1 + 3);  // label 1 on 2 slices, 7 on 1, 12 on 3
  REQUIRE(doc->segments.size() == 3);   // the unused label is not written
  // Segment Numbers run 1..n (PS3.3 C.8.20.2) in increasing label id order.
  const std::vector<int> ids{1, 7, 12};
  CHECK(doc->segments[0].number == 1);
  CHECK(doc->segments[1].number == 2);
  CHECK(doc->segments[2].number == 3);
  CHECK(doc->segments[0].frames == 2);
  CHECK(doc->segments[1].frames == 1);
  CHECK(doc->segments[2].frames == 3);
  for (const auto& s : doc->segments) {
    const core::LabelEntry* e = table.find(core::Label(ids[std::size_t(s.number - 1)]));
    REQUIRE(e != nullptr);
    INFO("segment " << s.number);
    CHECK(s.entry.name == e->name);
    CHECK(countColourDiff(s.entry.color, e->color) <= 1);
    CHECK(s.algorithmType == "SEMIAUTOMATIC");
    CHECK(s.algorithmName == "Delineate");
  }
  CHECK(doc->segments[0].entry.terminology == liver.terminology);
  CHECK(doc->segments[2].entry.terminology == kidney.terminology);
  const core::Terminology& local = doc->segments[1].entry.terminology;
  CHECK(local.category.scheme == "99DELINEATE");
  CHECK(local.type == core::CodedConcept{"99DELINEATE", "L7", "odd blob"});
  requireSameLabels(*doc, labels, ids);
  // Every source instance is referenced (Derivation Image / Source Image and the Referenced Series Sequence).
  const std::string bytes = test::readFileBytes(out);
  for (const auto& slice : src->series.slices) CHECK(bytes.find(slice.sopInstanceUid) != std::string::npos);
  CHECK(bytes.find(src->series.patientName) != std::string::npos);
  // Back to a label map: ids 1..3 in the same places, with the names.
  auto back = io::segToLabelMap(*doc, false);
  REQUIRE(back.ok());
  REQUIRE(back->first.size() == labels.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < labels.size(); ++i)
    mismatches += (labels[i] == 0 ? 0 : std::find(ids.begin(), ids.end(), labels[i]) - ids.begin() + 1) != back->first[i];
  CHECK(mismatches == 0);
  CHECK(back->second.find(2)->name == "odd blob");
  requireValidIod(out);
  requireDcmsegLoads(out, 3, 6);
}

TEST_CASE("dicom-seg-write: every colour survives the CIELab round trip within one RGB level", "[dicom-seg-write]") {
  int worst = 0;
  for (int r = 0; r < 256; r += 15)
    for (int g = 0; g < 256; g += 15)
      for (int b = 0; b < 256; b += 15) {
        const core::Rgba c{std::uint8_t(r), std::uint8_t(g), std::uint8_t(b), 255};
        std::uint16_t lab[3];
        io::rgbToCielab(c, lab);
        worst = std::max(worst, countColourDiff(io::cielabToRgb(lab[0], lab[1], lab[2]), c));
      }
  CHECK(worst <= 1);
}

namespace {
// A synthetic CT series of `slices` slices, rows x columns each, oblique-free, written into `folder`.
Source syntheticSeries(const fs::path& folder, int rows, int columns, int slices, const std::string& patientName,
                       const core::Mat3& direction = core::Mat3::identity()) {
  fs::create_directories(folder);
  for (int k = 0; k < slices; ++k) {
    test::CtSliceParams p;
    p.rows = rows;
    p.columns = columns;
    p.rowDirection = {direction(0, 0), direction(1, 0), direction(2, 0)};
    p.columnDirection = {direction(0, 1), direction(1, 1), direction(2, 1)};
    p.positionLps = {-10.0 + 2.5 * k * direction(0, 2), 20.0 + 2.5 * k * direction(1, 2), 5.0 + 2.5 * k * direction(2, 2)};
    p.rowSpacingMm = 0.75;
    p.columnSpacingMm = 0.6;
    p.sliceThicknessMm = 2.5;
    p.instanceNumber = k + 1;
    p.patientName = patientName;
    test::makeCtSlice(p).write(folder / ("slice" + std::to_string(k) + ".dcm"));
  }
  return indexSource(folder);
}
}  // namespace

TEST_CASE("dicom-seg-write: odd rows x columns (7 x 5) frames pack across byte boundaries and read back exactly",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-odd");
  const Source src = syntheticSeries(dir / "ct", 7, 5, 4, "Odd^Phantom");
  REQUIRE(src.grid.dimensions() == core::Size3{5, 7, 4});
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    if ((x + 2 * y + 3 * z) % 5 == 0) return 2;
    if ((x * y + z) % 3 == 1) return 3;
    return 0;
  });
  core::LabelTable table;
  // A name of 70 bytes ending in multi-byte UTF-8 (cut to 64 bytes on a character boundary) and an 18-digit SNOMED
  // extension code (too long for Code Value: written as Long Code Value).
  core::LabelEntry two = entry(2, std::string(62, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", {255, 0, 0, 255});
  two.terminology.category = {"SCT", "123037004", "Anatomical Structure"};
  two.terminology.type = {"SCT", "123456789012345678", "Long code"};
  REQUIRE(table.add(two).ok());
  // label 3 is not in the table: "Label 3", default colour
  const fs::path out = dir / "odd.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series);
  if (!st) FAIL(st.error().describe());
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->rows == 7);
  CHECK(doc->columns == 5);
  CHECK(doc->frameCount == 8);
  REQUIRE(doc->segments.size() == 2);
  CHECK(doc->segments[0].entry.name == std::string(62, 'a') + "\xc3\xa9");
  CHECK(doc->segments[0].entry.terminology == two.terminology);
  CHECK(doc->segments[1].entry.name == "Label 3");
  CHECK(doc->segments[1].entry.terminology.type == core::CodedConcept{"99DELINEATE", "L3", "Label 3"});
  CHECK(countColourDiff(doc->segments[1].entry.color, core::LabelTable::defaultColor(3)) <= 1);
  requireSameLabels(*doc, labels, {2, 3});
  requireValidIod(out);
}

TEST_CASE("dicom-seg-write: an oblique series (rotated about three axes) round trips onto its own grid",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-oblique");
  const Source src = syntheticSeries(dir / "ct", 9, 11, 5, "Oblique^Phantom", test::rotationMatrix(0.3, -0.2, 0.7));
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    return (x + y * z) % 4 == 0 ? 40 : (x > 7 && y < 3 ? 41 : 0);
  });
  const fs::path out = dir / "oblique.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series);
  if (!st) FAIL(st.error().describe());
  io::DicomSegReadOptions ro;
  ro.referenceFrameOfReferenceUid = src.series.frameOfReferenceUid;
  auto doc = io::readDicomSeg(out.string(), src.grid, ro);
  if (!doc) FAIL(doc.error().describe());
  requireSameLabels(*doc, labels, {40, 41});
  // Without a reference grid the SEG's own planes give the same grid.
  auto own = io::readDicomSeg(out.string());
  if (!own) FAIL(own.error().describe());
  CHECK(own->grid.isCloseTo(src.grid));
  requireValidIod(out);
}

TEST_CASE("dicom-seg-write: on a multi-frame Enhanced CT every frame references its source frame number",
          "[dicom-seg-write]") {
  auto file = test::sharedFile("data/dicom-seg/pydicom-data/eCT_Supplemental.dcm");
  if (!file) return;
  const Source src = indexSource(*file);
  REQUIRE(src.series.slices.size() >= 2);
  REQUIRE(src.series.slices.front().sopInstanceUid == src.series.slices.back().sopInstanceUid);
  const auto& d = src.grid.dimensions();
  const core::LabelMap labels = makeMap(src.grid, [&](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    return x < d[0] / 2 && y < d[1] / 3 + z ? 1 : 0;
  });
  ScratchDir dir("seg-write-enhanced");
  const fs::path out = dir / "enhanced.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series);
  if (!st) FAIL(st.error().describe());
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->frameCount == int(d[2]));
  requireSameLabels(*doc, labels, {1});
  // Referenced Frame Number (0008,1160) IS, explicit VR little endian: once per SEG frame.
  const std::string bytes = test::readFileBytes(out);
  const std::string tag("\x08\x00\x60\x11IS", 6);
  std::size_t count = 0;
  for (std::size_t at = bytes.find(tag); at != std::string::npos; at = bytes.find(tag, at + 1)) ++count;
  CHECK(count == std::size_t(d[2]));
  requireValidIod(out);
  requireDcmsegLoads(out, 1, std::size_t(d[2]));
}

TEST_CASE("dicom-seg-write: 210 labels (small cubes) round trip as 210 segments", "[dicom-seg-write]") {
  ScratchDir dir("seg-write-many");
  const Source src = syntheticSeries(dir / "ct", 60, 71, 5, "Many^Labels");
  // Cubes of 3 x 3 x 2 on a 14 x 15 lattice of cells, label = cell number + 1 (1..210).
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    const std::int64_t cx = x / 5, cy = y / 4;
    if (cx >= 14 || cy >= 15 || x % 5 >= 3 || y % 4 >= 3 || z < 1 || z > 2) return 0;
    return core::Label(cy * 14 + cx + 1);
  });
  core::LabelTable table;
  for (int i = 1; i <= 210; ++i)
    REQUIRE(table.add(entry(i, "cube " + std::to_string(i), core::LabelTable::defaultColor(core::Label(i)))).ok());
  const fs::path out = dir / "many.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series);
  if (!st) FAIL(st.error().describe());
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  REQUIRE(doc->segments.size() == 210);
  CHECK(doc->frameCount == 420);
  CHECK(doc->segments[209].entry.name == "cube 210");
  CHECK(doc->segments[209].number == 210);
  std::vector<int> ids;
  for (int i = 1; i <= 210; ++i) ids.push_back(i);
  requireSameLabels(*doc, labels, ids);
  requireValidIod(out);
  requireDcmsegLoads(out, 210, 420);
}

TEST_CASE("dicom-seg-write: a label map on another grid, an empty map and a bad algorithm type are errors naming the file",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-errors");
  const Source src = syntheticSeries(dir / "ct", 6, 8, 3, "Err^Phantom");
  core::LabelTable table;
  const fs::path out = dir / "bad.dcm";
  // A file already at the target stays byte for byte as it was after each failed write.
  test::writeFileBytes(out, "previous contents");
  {
    const core::Geometry other(core::Size3{8, 6, 4}, src.grid.spacingMm(), src.grid.originLps(), src.grid.direction());
    const core::LabelMap labels = makeMap(other, [](auto, auto, auto) -> core::Label { return 1; });
    const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(st.error().subject == out.string());
  }
  {
    core::Vec3 origin = src.grid.originLps();
    origin[0] += 0.3;  // half a voxel off
    const core::Geometry shifted(src.grid.dimensions(), src.grid.spacingMm(), origin, src.grid.direction());
    const core::LabelMap labels = makeMap(shifted, [](auto, auto, auto) -> core::Label { return 1; });
    const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::GeometryMismatch);
  }
  {
    const core::LabelMap empty = makeMap(src.grid, [](auto, auto, auto) -> core::Label { return 0; });
    const core::Status st = io::writeDicomSeg(out.string(), empty, table, src.series);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::InvalidArgument);
    CHECK(st.error().subject == out.string());
  }
  CHECK(test::readFileBytes(out) == "previous contents");
  {
    const core::LabelMap labels = makeMap(src.grid, [](auto x, auto, auto) -> core::Label { return x == 0 ? 1 : 0; });
    io::SegWriteOptions o;
    o.algorithmType = "GUESSED";
    const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series, o);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::InvalidArgument);
    CHECK(test::readFileBytes(out) == "previous contents");
    // MANUAL writes no algorithm name (and replaces the previous file)
    o.algorithmType = "MANUAL";
    REQUIRE(io::writeDicomSeg(out.string(), labels, table, src.series, o).ok());
    auto doc = io::readDicomSeg(out.string(), src.grid);
    REQUIRE(doc.ok());
    CHECK(doc->segments[0].algorithmType == "MANUAL");
    CHECK(doc->segments[0].algorithmName.empty());
    requireValidIod(out);
  }
}

TEST_CASE("dicom-seg-write: a write into a missing folder fails naming it and leaves nothing behind",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-missing");
  const Source src = syntheticSeries(dir / "ct", 4, 4, 2, "Missing^Folder");
  const core::LabelMap labels = makeMap(src.grid, [](auto x, auto, auto) -> core::Label { return x == 1 ? 4 : 0; });
  const fs::path out = dir / "no-such-folder" / "seg.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == core::ErrorCode::WriteFailed);
  CHECK(st.error().describe().find("no-such-folder") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "no-such-folder"));
  // Only the source series is in the scratch folder.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.path().filename() != "ct";
  CHECK(entries == 0);
}

TEST_CASE("dicom-seg-write: deidentify replaces patient name and ID, and the original name is nowhere in the file",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-deid");
  const std::string name = "Sensitive^Patientname";
  const Source src = syntheticSeries(dir / "ct", 6, 5, 3, name);
  REQUIRE(src.series.patientName.find("Sensitive") != std::string::npos);
  const core::LabelMap labels = makeMap(src.grid, [](auto x, auto y, auto) -> core::Label { return x == y ? 5 : 0; });
  io::SegWriteOptions o;
  o.deidentify = true;
  o.contentCreator = "Doctor^Sensitivecreator";  // who made the labels goes too
  const fs::path out = dir / "deid.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, o);
  if (!st) FAIL(st.error().describe());
  const std::string bytes = test::readFileBytes(out);
  CHECK(bytes.find("Sensitive") == std::string::npos);
  CHECK(bytes.find("Patientname") == std::string::npos);
  CHECK(bytes.find("Sensitivecreator") == std::string::npos);
  CHECK(bytes.find(src.series.patientId) == std::string::npos);
  // UIDs taken from the source are replaced by fresh ones.
  CHECK(bytes.find(src.series.studyInstanceUid) == std::string::npos);
  CHECK(bytes.find(src.series.frameOfReferenceUid) == std::string::npos);
  CHECK(bytes.find(src.series.slices.front().sopInstanceUid) == std::string::npos);
  auto index = io::indexDicomFiles({out.string()});
  REQUIRE(index.ok());
  REQUIRE(index->patients.size() == 1);
  CHECK(index->patients[0].patientName.find("Anonymous") == 0);
  CHECK(index->patients[0].patientId != src.series.patientId);
  CHECK_FALSE(index->patients[0].patientId.empty());
  // Still a consistent SEG on the same grid (frame of reference replaced consistently, so no reference UID given).
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  requireSameLabels(*doc, labels, {5});
  requireValidIod(out);
  // It claims the basic profile (113100), so the profile's rows apply to what the SEG itself says too: the dates it
  // was made become dummies, the series description (free text) goes, the device serial number is a dummy.
  {
    DcmFileFormat ff;
    REQUIRE(ff.loadFile(out.c_str()).good());
    DcmDataset* d = ff.getDataset();
    OFString v;
    CHECK(d->findAndGetOFString(DCM_InstanceCreationDate, v).good());
    CHECK(v == "19000101");
    CHECK(d->findAndGetOFString(DCM_ContentDate, v).good());
    CHECK(v == "19000101");
    CHECK_FALSE(d->tagExists(DCM_SeriesDescription));
    CHECK(d->findAndGetOFString(DCM_DeviceSerialNumber, v).good());
    CHECK(v == "ANONYMIZED");
  }
  // Without deidentify the patient is copied, and the labels' author is the Content Creator.
  io::SegWriteOptions named;
  named.contentCreator = "Walker^Ann\\Second=Ideographic";
  REQUIRE(io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, named).ok());
  CHECK(test::readFileBytes(out).find(name) != std::string::npos);
  {
    DcmFileFormat ff;
    REQUIRE(ff.loadFile(out.c_str()).good());
    OFString v;
    REQUIRE(ff.getDataset()->findAndGetOFStringArray(DCM_ContentCreatorName, v).good());
    CHECK(v == "Walker^Ann Second Ideographic");  // one value, one component group
  }
  requireValidIod(out);
}

TEST_CASE("dicom-seg-write: the info out-parameter maps segment numbers 1..n to the labels present, increasing",
          "[dicom-seg-write]") {
  ScratchDir dir("seg-write-info");
  const Source src = syntheticSeries(dir / "ct", 6, 7, 3, "Info^Phantom");
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    if (x == 0) return 900;
    if (y == 1 && z == 2) return 3;
    return x == y ? 17 : 0;
  });
  core::LabelTable table;
  REQUIRE(table.add(entry(40, "unused", {1, 2, 3, 255})).ok());
  const fs::path out = dir / "info.dcm";
  io::SegWriteInfo info;
  const core::Status st = io::writeDicomSeg(out.string(), labels, table, src.series, {}, &info);
  if (!st) FAIL(st.error().describe());
  CHECK(info.sopClassUid == "1.2.840.10008.5.1.4.1.1.66.4");
  CHECK_FALSE(info.sopInstanceUid.empty());
  CHECK_FALSE(info.seriesInstanceUid.empty());
  CHECK(info.seriesInstanceUid != info.sopInstanceUid);
  CHECK(info.seriesInstanceUid != src.series.seriesInstanceUid);
  const std::vector<std::pair<std::uint16_t, core::Label>> expected{{1, 3}, {2, 17}, {3, 900}};
  CHECK(info.segments == expected);
  auto index = io::indexDicomFiles({out.string()});
  REQUIRE(index.ok());
  const auto series = index->allSeries();
  REQUIRE(series.size() == 1);
  CHECK(series.front()->seriesInstanceUid == info.seriesInstanceUid);
  const std::string bytes = test::readFileBytes(out);
  CHECK(bytes.find(info.sopInstanceUid) != std::string::npos);
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  REQUIRE(doc->segments.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(doc->segments[i].number == expected[i].first);
  requireSameLabels(*doc, labels, {3, 17, 900});

  // A failed write leaves the info as it was.
  io::SegWriteInfo untouched;
  untouched.sopInstanceUid = "unchanged";
  const core::LabelMap empty = makeMap(src.grid, [](auto, auto, auto) -> core::Label { return 0; });
  REQUIRE_FALSE(io::writeDicomSeg(out.string(), empty, table, src.series, {}, &untouched).ok());
  CHECK(untouched.sopInstanceUid == "unchanged");
  CHECK(untouched.segments.empty());
}

// --- LABELMAP (Label Map Segmentation Storage) -------------------------------------------------------------------

namespace {

// dciodvfy errors a LABELMAP may show, each with why it is accepted (pass it to requireValidIod).
const std::vector<std::string> kLabelmapAcceptedErrors = {
    // Debian 12's dicom3tools predates Supplement 243 and has no IOD for Label Map Segmentation Storage
    // (1.2.840.10008.5.1.4.1.1.66.7); it prints the same for dcmqi's LABELMAP SEGs in ../shared/data.
    "Error - Information Object Not found",
    // Segment Numbers are the label ids in our LABELMAP. Supplement 243 drops the "start at 1, increase by 1" rule
    // for LABELMAP (the pixel values are the segment numbers); the old dciodvfy applies it to every SEG (it reports
    // it for dcmqi's LABELMAP, whose first segment is 0, too). Only maps whose ids are not 1..n show it.
    "Error - SegmentNumber not monotonically increasing from one by one",
};

io::SegWriteOptions labelmapOptions() {
  io::SegWriteOptions o;
  o.encoding = io::SegEncoding::Labelmap;
  return o;
}

// An unsigned short attribute of the top-level dataset, explicit VR little endian, holding `value`.
bool hasUs(const std::string& bytes, std::uint16_t group, std::uint16_t element, std::uint16_t value) {
  const char tag[] = {char(group & 0xFF), char(group >> 8), char(element & 0xFF), char(element >> 8), 'U', 'S', 2, 0,
                      char(value & 0xFF), char(value >> 8)};
  return bytes.find(std::string(tag, sizeof tag)) != std::string::npos;
}

// The label map read back through io::readDicomSeg + io::segToLabelMap equals `labels` voxel for voxel, ids kept.
void requireLabelmapRoundTrip(const fs::path& file, const core::LabelMap& labels, const std::vector<int>& ids,
                              const std::string& frameOfReferenceUid = {}) {
  io::DicomSegReadOptions ro;
  ro.referenceFrameOfReferenceUid = frameOfReferenceUid;
  auto doc = io::readDicomSeg(file.string(), labels.geometry(), ro);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->segmentationType == "LABELMAP");
  CHECK(doc->sopClassUid == "1.2.840.10008.5.1.4.1.1.66.7");
  CHECK(doc->overlappingVoxels == 0);
  REQUIRE(doc->segments.size() == ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) CHECK(doc->segments[i].number == ids[i]);
  auto back = io::segToLabelMap(*doc, false);
  if (!back) FAIL(back.error().describe());
  REQUIRE(back->first.geometry().isCloseTo(labels.geometry()));
  REQUIRE(back->first.size() == labels.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) mismatches += back->first[i] != labels[i];
  CHECK(mismatches == 0);
  for (int id : ids) CHECK(back->second.find(core::Label(id)) != nullptr);
}

}  // namespace

TEST_CASE("dicom-seg-write: LABELMAP on dcmqi's CT round trips voxel for voxel with the original label ids",
          "[dicom-seg-write][labelmap]") {
  auto src = ct3slice();
  if (!src) return;
  const core::Geometry& g = src->grid;
  REQUIRE(g.dimensions() == core::Size3{512, 512, 3});
  const core::LabelMap labels = threeLabels(g);
  core::LabelTable table;
  const core::LabelEntry liver = liverEntry();
  REQUIRE(table.add(liver).ok());
  REQUIRE(table.add(entry(7, "odd blob", {10, 200, 30, 255})).ok());
  REQUIRE(table.add(entry(20, "unused", {1, 2, 3, 255})).ok());  // in the table, not in the map

  ScratchDir dir("seg-write-labelmap");
  const fs::path out = dir / "labelmap.dcm";
  io::SegWriteOptions options = labelmapOptions();
  options.seriesDescription = "labelmap round trip";
  io::SegWriteInfo info;
  const core::Status st = io::writeDicomSeg(out.string(), labels, table, src->series, options, &info);
  if (!st) FAIL(st.error().describe());
  CHECK(info.sopClassUid == "1.2.840.10008.5.1.4.1.1.66.7");
  const std::vector<std::pair<std::uint16_t, core::Label>> expected{{1, 1}, {7, 7}, {12, 12}};
  CHECK(info.segments == expected);

  io::DicomSegReadOptions ro;
  ro.referenceFrameOfReferenceUid = src->series.frameOfReferenceUid;
  auto doc = io::readDicomSeg(out.string(), g, ro);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->seriesDescription == "labelmap round trip");
  CHECK(doc->referencedSeriesUid == src->series.seriesInstanceUid);
  CHECK(doc->rows == 512);
  CHECK(doc->columns == 512);
  CHECK(doc->frameCount == 3);  // one frame per slice holding any label
  REQUIRE(doc->segments.size() == 3);  // no background item, no item for the unused label
  CHECK(doc->segments[0].entry.name == "Liver");
  CHECK(doc->segments[0].entry.terminology == liver.terminology);
  CHECK(countColourDiff(doc->segments[0].entry.color, liver.color) <= 1);
  CHECK(doc->segments[1].entry.name == "odd blob");
  CHECK(doc->segments[2].entry.name == "Label 12");
  CHECK(doc->segments[2].entry.terminology.type == core::CodedConcept{"99DELINEATE", "L12", "Label 12"});
  CHECK(doc->segments[0].frames == 2);
  CHECK(doc->segments[1].frames == 1);
  CHECK(doc->segments[2].frames == 3);
  requireLabelmapRoundTrip(out, labels, {1, 7, 12}, src->series.frameOfReferenceUid);
  const std::string bytes = test::readFileBytes(out);
  CHECK(hasUs(bytes, 0x0028, 0x0100, 8));  // BitsAllocated
  CHECK(hasUs(bytes, 0x0028, 0x0101, 8));  // BitsStored
  CHECK(hasUs(bytes, 0x0028, 0x0102, 7));  // HighBit
  CHECK(hasUs(bytes, 0x0028, 0x0120, 0));  // PixelPaddingValue
  CHECK(bytes.find(std::string("\x62\x00\x13\x00" "CS\x02\x00NO", 10)) != std::string::npos);  // SegmentsOverlap
  for (const auto& slice : src->series.slices) CHECK(bytes.find(slice.sopInstanceUid) != std::string::npos);
  requireValidIod(out, kLabelmapAcceptedErrors);
}

TEST_CASE("dicom-seg-write: LABELMAP with label ids above 255 uses 16-bit frames and keeps the ids",
          "[dicom-seg-write][labelmap]") {
  ScratchDir dir("seg-write-labelmap16");
  const Source src = syntheticSeries(dir / "ct", 9, 11, 4, "Sixteen^Bits");
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    if ((x + y + z) % 4 == 0) return 300;
    if (x > 7 && y < 4) return 1000;
    return y == 8 ? 2 : 0;
  });
  const fs::path out = dir / "sixteen.dcm";
  io::SegWriteInfo info;
  const core::Status st =
      io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, labelmapOptions(), &info);
  if (!st) FAIL(st.error().describe());
  const std::vector<std::pair<std::uint16_t, core::Label>> expected{{2, 2}, {300, 300}, {1000, 1000}};
  CHECK(info.segments == expected);
  const std::string bytes = test::readFileBytes(out);
  CHECK(hasUs(bytes, 0x0028, 0x0100, 16));
  CHECK(hasUs(bytes, 0x0028, 0x0101, 16));
  CHECK(hasUs(bytes, 0x0028, 0x0102, 15));
  // 4 frames of 9 x 11 16-bit pixels as OW.
  CHECK(bytes.find(std::string("\xe0\x7f\x10\x00OW\x00\x00", 8) + char(0x18) + char(0x03) + std::string(2, '\0')) !=
        std::string::npos);
  requireLabelmapRoundTrip(out, labels, {2, 300, 1000});
  requireValidIod(out, kLabelmapAcceptedErrors);
}

TEST_CASE("dicom-seg-write: LABELMAP on odd rows x columns (7 x 5) is sparse: slices without labels have no frame",
          "[dicom-seg-write][labelmap]") {
  ScratchDir dir("seg-write-labelmap-odd");
  const Source src = syntheticSeries(dir / "ct", 7, 5, 5, "Odd^Sparse");
  REQUIRE(src.grid.dimensions() == core::Size3{5, 7, 5});
  // Slices 1 and 3 empty: 3 frames of 35 bytes, an odd total that Pixel Data pads to an even length.
  const core::LabelMap labels = makeMap(src.grid, [](std::int64_t x, std::int64_t y, std::int64_t z) -> core::Label {
    if (z == 1 || z == 3) return 0;
    if ((x + 2 * y + 3 * z) % 5 == 0) return 2;
    if ((x * y + z) % 3 == 1) return 3;
    return 0;
  });
  const fs::path out = dir / "odd.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, labelmapOptions());
  if (!st) FAIL(st.error().describe());
  auto doc = io::readDicomSeg(out.string(), src.grid);
  if (!doc) FAIL(doc.error().describe());
  CHECK(doc->rows == 7);
  CHECK(doc->columns == 5);
  CHECK(doc->frameCount == 3);
  // Pixel Data (OB) of 3 x 35 = 105 bytes, padded to 106.
  const std::string pixelData = std::string("\xe0\x7f\x10\x00OB\x00\x00", 8) + char(106) + std::string(3, '\0');
  CHECK(test::readFileBytes(out).find(pixelData) != std::string::npos);
  requireLabelmapRoundTrip(out, labels, {2, 3});
  requireValidIod(out, kLabelmapAcceptedErrors);
}

TEST_CASE("dicom-seg-write: LABELMAP with deidentify replaces the patient and every source UID",
          "[dicom-seg-write][labelmap]") {
  ScratchDir dir("seg-write-labelmap-deid");
  const std::string name = "Sensitive^Patientname";
  const Source src = syntheticSeries(dir / "ct", 6, 5, 3, name);
  const core::LabelMap labels = makeMap(src.grid, [](auto x, auto y, auto) -> core::Label { return x == y ? 5 : 0; });
  io::SegWriteOptions o = labelmapOptions();
  o.deidentify = true;
  const fs::path out = dir / "deid.dcm";
  const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, o);
  if (!st) FAIL(st.error().describe());
  const std::string bytes = test::readFileBytes(out);
  CHECK(bytes.find("Sensitive") == std::string::npos);
  CHECK(bytes.find("Patientname") == std::string::npos);
  CHECK(bytes.find("Sensitivecreator") == std::string::npos);
  CHECK(bytes.find(src.series.patientId) == std::string::npos);
  CHECK(bytes.find(src.series.studyInstanceUid) == std::string::npos);
  CHECK(bytes.find(src.series.seriesInstanceUid) == std::string::npos);
  CHECK(bytes.find(src.series.frameOfReferenceUid) == std::string::npos);
  for (const auto& slice : src.series.slices) CHECK(bytes.find(slice.sopInstanceUid) == std::string::npos);
  auto index = io::indexDicomFiles({out.string()});
  REQUIRE(index.ok());
  REQUIRE(index->patients.size() == 1);
  CHECK(index->patients[0].patientName.find("Anonymous") == 0);
  requireLabelmapRoundTrip(out, labels, {5});
  requireValidIod(out, kLabelmapAcceptedErrors);
}

TEST_CASE("dicom-seg-write: LABELMAP refuses an empty map and another grid, leaving the existing file untouched",
          "[dicom-seg-write][labelmap]") {
  ScratchDir dir("seg-write-labelmap-errors");
  const Source src = syntheticSeries(dir / "ct", 6, 8, 3, "Err^Labelmap");
  const fs::path out = dir / "bad.dcm";
  test::writeFileBytes(out, "previous contents");
  io::SegWriteInfo info;
  info.sopInstanceUid = "unchanged";
  {
    const core::LabelMap empty = makeMap(src.grid, [](auto, auto, auto) -> core::Label { return 0; });
    const core::Status st =
        io::writeDicomSeg(out.string(), empty, core::LabelTable{}, src.series, labelmapOptions(), &info);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::InvalidArgument);
    CHECK(st.error().subject == out.string());
  }
  {
    const core::Geometry other(core::Size3{8, 6, 4}, src.grid.spacingMm(), src.grid.originLps(), src.grid.direction());
    const core::LabelMap labels = makeMap(other, [](auto, auto, auto) -> core::Label { return 1000; });
    const core::Status st =
        io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, labelmapOptions(), &info);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::GeometryMismatch);
    CHECK(st.error().subject == out.string());
  }
  {
    const core::LabelMap labels = makeMap(src.grid, [](auto x, auto, auto) -> core::Label { return x == 0 ? 1 : 0; });
    io::SegWriteOptions o = labelmapOptions();
    o.algorithmType = "GUESSED";
    const core::Status st = io::writeDicomSeg(out.string(), labels, core::LabelTable{}, src.series, o, &info);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == core::ErrorCode::InvalidArgument);
  }
  CHECK(test::readFileBytes(out) == "previous contents");
  CHECK(info.sopInstanceUid == "unchanged");
  CHECK(info.segments.empty());
}
