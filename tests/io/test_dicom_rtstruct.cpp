// RT structure sets (io/dicom/dicom_rtstruct.h): the tracing and rasterising conventions on small slices, round trips
// of label maps on real series (the TCIA CT, the mouse atlas on a series made for it) checked voxel for voxel and by
// dciodvfy, plastimatch as the peer in both directions, and damaged or hostile files refused by name.
#include <catch2/catch.hpp>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "io/dicom/dicom.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/volume/image_file.h"
#include "tests/common/dciodvfy.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using delineate::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

using Polygon = std::vector<std::pair<double, double>>;

std::vector<std::uint8_t> raster(const std::vector<Polygon>& polys, int nx, int ny) {
  std::vector<std::uint8_t> out(std::size_t(nx * ny), 0);
  io::rasterizeEvenOdd(polys, nx, ny, out.data());
  return out;
}

std::vector<std::uint8_t> fromPicture(const std::vector<std::string>& rows) {
  std::vector<std::uint8_t> m;
  for (const auto& r : rows)
    for (char c : r) m.push_back(c == '#');
  return m;
}

double signedArea(const Polygon& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto& [x0, y0] = p[i];
    const auto& [x1, y1] = p[(i + 1) % p.size()];
    a += x0 * y1 - x1 * y0;
  }
  return a / 2;
}

struct Series {
  io::DicomIndex index;
  io::DicomSeries series;
  core::Geometry grid;
};

Series indexSeries(const fs::path& folder) {
  auto index = io::indexDicomFolder(folder.string());
  if (!index) FAIL(index.error().describe());
  const io::DicomSeries* image = nullptr;
  for (const auto* s : index->allSeries())
    if (s->isImage) image = s;
  REQUIRE(image != nullptr);
  REQUIRE(image->geometry.has_value());
  return {*index, *image, *image->geometry};
}

// Labels made from the TCIA CT's own anatomy: bone (> 300 HU), fat (-150..-50), lung and bowel gas (< -400 inside the
// body's rows), soft tissue (20..80) and a sphere: islands, holes and holes in holes on every slice.
core::LabelMap anatomyLabels(const core::ImageVolume& ct) {
  auto v = core::Volume<core::Label>::create(ct.geometry(), 0);
  REQUIRE(v.ok());
  const auto& d = ct.geometry().dimensions();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        const float hu = ct.at({x, y, z});
        core::Label l = 0;
        if (hu > 300) l = 1;
        else if (hu >= -150 && hu <= -50) l = 2;
        else if (hu < -400 && y > 150 && y < 400 && x > 60 && x < 450) l = 3;
        else if (hu >= 20 && hu <= 80) l = 4;
        const double r2 = double((x - 300) * (x - 300) + (y - 250) * (y - 250)) + 64.0 * double((z - 20) * (z - 20));
        if (r2 < 40 * 40) l = 5;
        v->at({x, y, z}) = l;
      }
  return core::LabelMap(std::move(v).value());
}

core::LabelTable tableFor(const std::vector<std::pair<core::Label, std::string>>& names) {
  core::LabelTable t;
  for (const auto& [id, name] : names) {
    core::LabelEntry e;
    e.id = id;
    e.name = name;
    e.color = core::LabelTable::defaultColor(id);
    REQUIRE(t.add(e));
  }
  return t;
}

std::map<core::Label, std::int64_t> countLabels(const core::LabelMap& m) {
  std::map<core::Label, std::int64_t> n;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i]) ++n[m[i]];
  return n;
}

// dciodvfy on the structure sets we write: warnings accepted here, each with the reason.
const std::vector<std::string> kAcceptedWarnings = {
    // Study Date / Time / ID are type 2: copied as the source has them (or emptied when de-identifying).
    "Missing attribute or value that would be needed to build DICOMDIR",
    // Patient Name is copied verbatim from the source series.
    "Retired Person Name form",
};

std::optional<Series> tciaSeries() {
  auto p = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!p) return std::nullopt;
  return indexSeries(*p);
}

// A DICOM series made for a volume that has none (the mouse atlas): one CT slice per k on `grid`, pixel values 0.
void writeSeriesFor(const core::Geometry& grid, const fs::path& folder) {
  fs::create_directories(folder);
  const auto& d = grid.dimensions();
  const auto& dir = grid.direction();
  for (std::int64_t k = 0; k < d[2]; ++k) {
    test::CtSliceParams p;
    p.rows = int(d[1]);
    p.columns = int(d[0]);
    p.positionLps = grid.indexToLps(core::Index3{0, 0, k});
    p.rowDirection = core::Vec3{dir(0, 0), dir(1, 0), dir(2, 0)};
    p.columnDirection = core::Vec3{dir(0, 1), dir(1, 1), dir(2, 1)};
    p.columnSpacingMm = grid.spacingMm()[0];
    p.rowSpacingMm = grid.spacingMm()[1];
    p.sliceThicknessMm = grid.spacingMm()[2];
    p.instanceNumber = int(k + 1);
    p.pixel = [](int, int) { return 0; };
    test::writeFileBytes(folder / ("slice" + std::to_string(k) + ".dcm"), test::makeCtSlice(p).bytes());
  }
}

std::string plastimatch() {
  int status = 0;
  test::runCommand("plastimatch --version", &status);
  if (status == 0) return "plastimatch";
  if (test::runningInCi()) FAIL("plastimatch is not installed (scripts/setup.sh installs it)");
  WARN("plastimatch is not installed: the peer comparison did not run");
  return "";
}

std::string shellQuoted(const std::string& s) { return "'" + s + "'"; }

double dice(std::int64_t both, std::int64_t a, std::int64_t b) { return a + b == 0 ? 1.0 : 2.0 * double(both) / double(a + b); }

// Edits a written structure set with dcmdata and saves it as `out`.
void edit(const fs::path& in, const fs::path& out, const std::function<void(DcmDataset*)>& change) {
  DcmFileFormat ff;
  REQUIRE(ff.loadFile(in.c_str()).good());
  change(ff.getDataset());
  REQUIRE(ff.saveFile(out.c_str(), EXS_LittleEndianExplicit).good());
}

DcmItem* contourItem(DcmDataset* d, unsigned long roi, unsigned long contour) {
  DcmItem* rc = nullptr;
  REQUIRE(d->findAndGetSequenceItem(DCM_ROIContourSequence, rc, long(roi)).good());
  DcmItem* c = nullptr;
  REQUIRE(rc->findAndGetSequenceItem(DCM_ContourSequence, c, long(contour)).good());
  return c;
}

}  // namespace

TEST_CASE("rtstruct contours: holes run the other way, diagonal neighbours are separate regions, and every centre "
          "reads back", "[io][dicom][rtstruct]") {
  // A ring with an island in its hole, and two pixels touching only at a corner.
  const std::vector<std::string> picture = {
      "..........",
      ".#######..",
      ".#.....#..",
      ".#.###.#..",
      ".#.###.#..",
      ".#.....#..",
      ".#######..",
      "........#.",
      ".........#",
  };
  const int nx = 10, ny = int(picture.size());
  const auto mask = fromPicture(picture);
  const auto loops = io::traceSliceContours(mask.data(), nx, ny, 0.25);
  REQUIRE(loops.size() == 5);  // ring outside, ring inside, island, two corner pixels
  int positive = 0, negative = 0;
  for (const auto& l : loops) (signedArea(l) > 0 ? positive : negative)++;
  CHECK(negative == 4);  // outer boundaries one way (clockwise on the screen: y grows downwards)...
  CHECK(positive == 1);  // ...the ring's hole the other
  CHECK(raster(loops, nx, ny) == mask);
  // Simplified: a 7 x 7 square ring is 4 corners (cut), its hole too.
  CHECK(loops[0].size() == 8);
  // Without simplification only collinear points go: the same polygons (a square has nothing but collinear points).
  CHECK(raster(io::traceSliceContours(mask.data(), nx, ny, 0), nx, ny) == mask);
}

TEST_CASE("rtstruct rasterising: centres inside, half-open edges, even-odd for nested and crossing contours",
          "[io][dicom][rtstruct]") {
  // A square from 1 to 3 holds the centres 1, 2 (left and top edges in), not 3 (right and bottom out).
  const Polygon square = {{1, 1}, {3, 1}, {3, 3}, {1, 3}};
  auto m = raster({square}, 5, 5);
  CHECK(std::count(m.begin(), m.end(), 1) == 4);
  CHECK(m[1 * 5 + 1] == 1);
  CHECK(m[2 * 5 + 2] == 1);
  CHECK(m[3 * 5 + 3] == 0);
  // Two squares sharing the edge x = 3: every centre along it in exactly one.
  const Polygon right = {{3, 1}, {5, 1}, {5, 3}, {3, 3}};
  const auto a = raster({square}, 8, 5), b = raster({right}, 8, 5);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(int(a[i]) + int(b[i]) <= 1);
  CHECK(std::count(b.begin(), b.end(), 1) == 4);
  // Nested: a hole. Crossing: the overlap is out. Twice the same: nothing.
  const Polygon outer = {{0.5, 0.5}, {8.5, 0.5}, {8.5, 8.5}, {0.5, 8.5}};
  const Polygon inner = {{2.5, 2.5}, {5.5, 2.5}, {5.5, 5.5}, {2.5, 5.5}};
  m = raster({outer, inner}, 10, 10);
  CHECK(std::count(m.begin(), m.end(), 1) == 64 - 9);
  CHECK(m[4 * 10 + 4] == 0);
  const Polygon shifted = {{4.5, 4.5}, {10.5, 4.5}, {10.5, 10.5}, {4.5, 10.5}};
  m = raster({outer, shifted}, 12, 12);
  CHECK(m[6 * 12 + 6] == 0);   // in both
  CHECK(m[2 * 12 + 2] == 1);   // in the first only
  CHECK(m[10 * 12 + 10] == 1); // in the second only
  m = raster({inner, inner}, 10, 10);
  CHECK(std::count(m.begin(), m.end(), 1) == 0);
  // An edge of almost no height (a slope that overflows): its crossing is still found, the pairing stays right.
  const Polygon flat = {{0, 0}, {10000, 1e-305}, {10000, 10}, {0, 10}};
  const Polygon second = {{100, -5}, {200, -5}, {200, 5}, {100, 5}};
  m = raster({flat, second}, 300, 12);
  CHECK(m[50] == 0);   // row 0 lies under the first's bottom edge (which rises to 1e-305): in neither...
  CHECK(m[150] == 1);  // ...but in the second: four crossings, 0, 0, 100, 200 (a lost one would fill 0..99)
  CHECK(m[250] == 0);
  CHECK(m[300 + 50] == 1);   // row 1: in the first only
  CHECK(m[300 + 150] == 0);  // in both
  CHECK(m[300 + 250] == 1);
  // Beyond the slice: clipped.
  m = raster({{{-5, -5}, {20, -5}, {20, 2.5}, {-5, 2.5}}}, 4, 4);
  CHECK(std::count(m.begin(), m.end(), 1) == 12);
}

TEST_CASE("rtstruct round trip on the TCIA CT: anatomy labels written, dciodvfy clean, read back voxel for voxel",
          "[io][dicom][rtstruct][data]") {
  auto src = tciaSeries();
  if (!src) return;
  auto ct = io::loadDicomSeries(src->series);
  REQUIRE(ct.ok());
  const core::LabelMap labels = anatomyLabels(ct->image);
  const auto table = tableFor({{1, "Bone"}, {2, "Fat"}, {3, "Gas"}, {4, "Soft tissue"}, {5, "Sphere"}});
  ScratchDir dir("rtstruct-tcia");
  io::RtStructWriteOptions options;
  options.author = "Doe^Jane";
  options.interpretedTypes[5] = "PTV";
  io::RtStructWriteInfo info;
  REQUIRE(io::writeRtStruct((dir / "rs.dcm").string(), labels, table, src->series, options, &info));
  CHECK(info.rois == 5);
  CHECK(info.contours > 1000);  // (dciodvfy takes a minute over these; it checks the mouse atlas's and a small one)
  CHECK(fs::file_size(dir / "rs.dcm") > 100000);

  io::RtStructReadOptions read;
  read.referenceFrameOfReferenceUid = src->series.frameOfReferenceUid;
  read.referenceSeriesUid = src->series.seriesInstanceUid;
  auto doc = io::readRtStruct((dir / "rs.dcm").string(), src->grid, read);
  REQUIRE(doc.ok());
  CHECK(doc->warnings.empty());
  CHECK(doc->overlappingVoxels == 0);
  CHECK(doc->referencedSeriesUid == src->series.seriesInstanceUid);
  REQUIRE(doc->rois.size() == 5);
  CHECK(doc->findRoi(5)->interpretedType == "PTV");
  CHECK(doc->findRoi(1)->interpretedType == "ORGAN");
  CHECK(doc->findRoi(1)->interpreter == "Doe^Jane");
  CHECK(doc->findRoi(4)->name == "Soft tissue");
  auto flat = io::rtStructToLabelMap(*doc);
  REQUIRE(flat.ok());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += flat->first[i] != labels[i];
  CHECK(differ == 0);  // the conventions make the round trip exact
  CHECK(countLabels(flat->first) == countLabels(labels));
  CHECK(flat->second.find(2)->name == "Fat");
  CHECK(flat->second.find(2)->color == table.find(2)->color);
}

TEST_CASE("rtstruct round trip of the mouse atlas on a series made for it: every structure voxel for voxel",
          "[io][dicom][rtstruct][data]") {
  const auto labelPath = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz");
  if (!labelPath) return;
  auto labels = io::readLabelFile(labelPath->string());
  REQUIRE(labels.ok());
  ScratchDir dir("rtstruct-mouse");
  writeSeriesFor(labels->geometry(), dir / "series");
  const Series src = indexSeries(dir / "series");
  REQUIRE(src.grid.isCloseTo(labels->geometry()));
  core::LabelTable table;  // names from nowhere: "Label <id>"
  REQUIRE(io::writeRtStruct((dir / "rs.dcm").string(), *labels, table, src.series));
  test::requireDciodvfyClean(dir / "rs.dcm", kAcceptedWarnings);
  auto doc = io::readRtStruct((dir / "rs.dcm").string(), src.grid);
  REQUIRE(doc.ok());
  auto flat = io::rtStructToLabelMap(*doc);
  REQUIRE(flat.ok());
  const auto expected = countLabels(*labels);
  CHECK(expected.size() > 30);
  CHECK(countLabels(flat->first) == expected);
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels->size(); ++i) differ += flat->first[i] != (*labels)[i];
  CHECK(differ == 0);
  CHECK(flat->second.find(expected.begin()->first)->name == "Label " + std::to_string(expected.begin()->first));
}

TEST_CASE("rtstruct overlapping ROIs: each its own mask, flattened smallest first with the overlap counted",
          "[io][dicom][rtstruct][data]") {
  auto src = tciaSeries();
  if (!src) return;
  ScratchDir dir("rtstruct-overlap");
  // Two structure sets of one ROI each on the same series, merged into one file: a big box (ROI 1) and a small one
  // inside it (ROI 2).
  auto box = [&](std::int64_t x0, std::int64_t x1, core::Label id) {
    auto v = core::Volume<core::Label>::create(src->grid, 0);
    REQUIRE(v.ok());
    for (std::int64_t z = 3; z < 10; ++z)
      for (std::int64_t y = x0; y < x1; ++y)
        for (std::int64_t x = x0; x < x1; ++x) v->at({x, y, z}) = id;
    return core::LabelMap(std::move(v).value());
  };
  REQUIRE(io::writeRtStruct((dir / "big.dcm").string(), box(100, 200, 1), tableFor({{1, "Body"}}), src->series));
  REQUIRE(io::writeRtStruct((dir / "small.dcm").string(), box(140, 160, 2), tableFor({{2, "Tumour"}}), src->series));
  DcmFileFormat small;
  REQUIRE(small.loadFile((dir / "small.dcm").c_str()).good());
  edit(dir / "big.dcm", dir / "both.dcm", [&](DcmDataset* d) {
    for (const DcmTagKey& key : {DCM_StructureSetROISequence, DCM_ROIContourSequence, DCM_RTROIObservationsSequence}) {
      DcmSequenceOfItems* from = nullptr;
      DcmSequenceOfItems* to = nullptr;
      REQUIRE(small.getDataset()->findAndGetSequence(key, from).good());
      REQUIRE(d->findAndGetSequence(key, to).good());
      to->append(new DcmItem(*from->getItem(0)));
    }
  });
  auto doc = io::readRtStruct((dir / "both.dcm").string(), src->grid);
  REQUIRE(doc.ok());
  REQUIRE(doc->masks.size() == 2);
  CHECK(doc->findMask(1)->count() == 100 * 100 * 7);
  CHECK(doc->findMask(2)->count() == 20 * 20 * 7);
  CHECK(doc->overlappingVoxels == 20 * 20 * 7);
  io::RtFlattenReport report;
  auto flat = io::rtStructToLabelMap(*doc, &report);
  REQUIRE(flat.ok());
  const auto n = countLabels(flat->first);
  CHECK(n.at(2) == 20 * 20 * 7);  // the tumour stays whole inside the body
  CHECK(n.at(1) == 100 * 100 * 7 - 20 * 20 * 7);
  CHECK(report.reassigned.at(1) == 20 * 20 * 7);
}

TEST_CASE("rtstruct damaged and hostile files are refused by name, skipped contours are named",
          "[io][dicom][rtstruct][data]") {
  auto src = tciaSeries();
  if (!src) return;
  ScratchDir dir("rtstruct-bad");
  auto v = core::Volume<core::Label>::create(src->grid, 0);
  REQUIRE(v.ok());
  for (std::int64_t z = 2; z < 6; ++z)
    for (std::int64_t y = 200; y < 240; ++y)
      for (std::int64_t x = 200; x < 260; ++x) v->at({x, y, z}) = (x < 230 ? 3 : 8);
  const core::LabelMap labels(std::move(v).value());
  const fs::path good = dir / "good.dcm";
  io::RtStructWriteOptions coded;
  coded.deidentify = true;
  coded.author = "Doe^Jane";
  auto table = tableFor({{3, "Left"}, {8, "Right"}});
  table.find(3)->terminology.type = core::CodedConcept{"SCT", "10200004", "Liver"};
  REQUIRE(io::writeRtStruct(good.string(), labels, table, src->series, coded));
  test::requireDciodvfyClean(good, kAcceptedWarnings);
  {
    auto doc = io::readRtStruct(good.string(), src->grid);
    REQUIRE(doc.ok());
    CHECK(doc->findRoi(3)->code.value == "10200004");
    CHECK(doc->findRoi(3)->interpreter.empty());  // de-identified: no person named
    CHECK(doc->frameOfReferenceUid != src->series.frameOfReferenceUid);  // fresh UIDs
    DcmFileFormat ff;
    REQUIRE(ff.loadFile(good.c_str()).good());
    OFString name;
    ff.getDataset()->findAndGetOFString(DCM_PatientName, name);
    CHECK(std::string(name.c_str()) == "Anonymous^Patient");
  }
  // The rest refers to the series' own frame of reference.
  REQUIRE(io::writeRtStruct(good.string(), labels, table, src->series));
  REQUIRE(io::readRtStruct(good.string(), src->grid).ok());

  auto refused = [&](const std::string& name, const std::function<void(DcmDataset*)>& change, core::ErrorCode code,
                     const std::string& reason) {
    const fs::path bad = dir / (name + ".dcm");
    edit(good, bad, change);
    io::RtStructReadOptions options;
    options.referenceFrameOfReferenceUid = src->series.frameOfReferenceUid;
    auto r = io::readRtStruct(bad.string(), src->grid, options);
    INFO(name);
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == code);
    CHECK(r.error().subject == bad.string());
    CHECK(r.error().detail.find(reason) != std::string::npos);
  };
  refused("no-references", [](DcmDataset* d) { d->findAndDeleteElement(DCM_ReferencedFrameOfReferenceSequence); },
          core::ErrorCode::Corrupt, "no Referenced Frame of Reference Sequence");
  refused("other-frame", [](DcmDataset* d) {
    DcmItem* f = nullptr;
    REQUIRE(d->findAndGetSequenceItem(DCM_ReferencedFrameOfReferenceSequence, f, 0).good());
    f->putAndInsertString(DCM_FrameOfReferenceUID, "1.2.3.4.5");
  }, core::ErrorCode::GeometryMismatch, "frame of reference 1.2.3.4.5");
  refused("two-points", [](DcmDataset* d) {
    DcmItem* c = contourItem(d, 1, 0);
    c->putAndInsertString(DCM_NumberOfContourPoints, "2");
    c->putAndInsertString(DCM_ContourData, "0\\0\\-200\\1\\1\\-200");
  }, core::ErrorCode::Corrupt, "ROI 8 'Right', contour 1 is a CLOSED_PLANAR contour of 2 points");
  refused("nan", [](DcmDataset* d) {
    DcmItem* c = contourItem(d, 0, 1);
    c->putAndInsertString(DCM_NumberOfContourPoints, "3");
    c->putAndInsertString(DCM_ContourData, "0\\0\\-200\\NaN\\1\\-200\\5\\5\\-200");
  }, core::ErrorCode::Corrupt, "ROI 3 'Left', contour 2: point 2 is not a finite number");
  refused("count-mismatch", [](DcmDataset* d) { contourItem(d, 0, 0)->putAndInsertString(DCM_NumberOfContourPoints, "7"); },
          core::ErrorCode::Corrupt, "Number of Contour Points is 7");
  refused("not-numbers", [](DcmDataset* d) {
    contourItem(d, 0, 0)->putAndInsertString(DCM_ContourData, "0\\0\\-200\\1\\x\\-200\\5\\5\\-200");
  }, core::ErrorCode::Corrupt, "'x");
  refused("undeclared-roi", [](DcmDataset* d) {
    DcmItem* rc = nullptr;
    REQUIRE(d->findAndGetSequenceItem(DCM_ROIContourSequence, rc, 1).good());
    rc->putAndInsertString(DCM_ReferencedROINumber, "99");
  }, core::ErrorCode::Corrupt, "refers to ROI 99");
  refused("far-away", [](DcmDataset* d) {
    DcmItem* c = contourItem(d, 0, 1);
    c->putAndInsertString(DCM_NumberOfContourPoints, "3");
    c->putAndInsertString(DCM_ContourData, "0\\0\\-200\\1e300\\1\\-200\\5\\5\\-200");
  }, core::ErrorCode::Corrupt, "point 2 lies more than 10 km from the origin");
  // A zigzag of 70,000 points between the first and last row: 35 M row crossings from 1.5 MB of text.
  refused("zigzag", [&](DcmDataset* d) {
    const double z = src->grid.indexToLps(core::Vec3{0, 0, 3})[2];
    std::string data;
    for (int i = 0; i < 70000; ++i) {
      const core::Vec3 p = src->grid.indexToLps(core::Vec3{10 + 490.0 * i / 70000, i % 2 ? 511.0 : 0.0, 3});
      data += std::to_string(p[0]) + "\\" + std::to_string(p[1]) + "\\" + std::to_string(z) + "\\";
    }
    data.pop_back();
    DcmItem* c = contourItem(d, 0, 0);
    c->putAndInsertString(DCM_NumberOfContourPoints, "70000");
    c->putAndInsertString(DCM_ContourData, data.c_str());
  }, core::ErrorCode::SizeLimit, "cross the rows of pixel centres more than");
  // Ten million points in one contour (a 240 MB value): refused from its length before any parsing.
  refused("ten-million", [](DcmDataset* d) {
    std::string data;
    data.reserve(10'000'000 * 12);
    for (int i = 0; i < 10'000'000; ++i) data += "1\\2\\-200\\";
    data.pop_back();
    DcmItem* c = contourItem(d, 0, 0);
    c->putAndInsertString(DCM_NumberOfContourPoints, "10000000");
    c->putAndInsertString(DCM_ContourData, data.c_str());
  }, core::ErrorCode::SizeLimit, "ROI 3 'Left', contour 1 has more than");
  // Not a structure set at all.
  {
    auto r = io::readRtStruct(src->series.slices.front().path, src->grid);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::Unsupported);
    CHECK(r.error().detail.find("not an RT Structure Set") != std::string::npos);
  }

  // Skipped, with the reason: a POINT contour, a contour between two slices, one beyond the last slice.
  const fs::path odd = dir / "odd.dcm";
  edit(good, odd, [&](DcmDataset* d) {
    contourItem(d, 0, 0)->putAndInsertString(DCM_ContourGeometricType, "POINT");
    const double z = src->grid.indexToLps(core::Vec3{0, 0, 2.5})[2];
    const double beyond = src->grid.indexToLps(core::Vec3{0, 0, 60})[2];
    auto at = [](double x, double y, double zz) {
      return std::to_string(x) + "\\" + std::to_string(y) + "\\" + std::to_string(zz);
    };
    const core::Vec3 p = src->grid.indexToLps(core::Vec3{210, 210, 0});
    DcmItem* between = contourItem(d, 1, 0);
    between->putAndInsertString(DCM_ContourData,
                                (at(p[0], p[1], z) + "\\" + at(p[0] + 5, p[1], z) + "\\" + at(p[0] + 5, p[1] + 5, z)).c_str());
    between->putAndInsertString(DCM_NumberOfContourPoints, "3");
    DcmItem* far = contourItem(d, 1, 1);
    far->putAndInsertString(DCM_ContourData, (at(p[0], p[1], beyond) + "\\" + at(p[0] + 5, p[1], beyond) + "\\" +
                                              at(p[0] + 5, p[1] + 5, beyond)).c_str());
    far->putAndInsertString(DCM_NumberOfContourPoints, "3");
  });
  auto doc = io::readRtStruct(odd.string(), src->grid);
  REQUIRE(doc.ok());
  std::string all;
  for (const auto& w : doc->warnings) all += w + "\n";
  INFO(all);
  CHECK(all.find("ROI 3 'Left': 1 POINT contour skipped") != std::string::npos);
  CHECK(all.find("ROI 8 'Right': 1 contour off the series' slice planes skipped (first: contour 1 at slice index 2.5") !=
        std::string::npos);
  CHECK(all.find("ROI 8 'Right': 1 contour beyond the series' first or last slice skipped") != std::string::npos);
  CHECK(doc->findRoi(3)->skippedContours == 1);
  CHECK(doc->findRoi(8)->skippedContours == 2);
}

TEST_CASE("rtstruct contours of thousands of points, names in another character set, names with a backslash",
          "[io][dicom][rtstruct][data]") {
  auto src = tciaSeries();
  if (!src) return;
  ScratchDir dir("rtstruct-long");
  // A region jagged on every side: one contour of more than 2,200 points (Contour Data beyond 64 KB).
  auto v = core::Volume<core::Label>::create(src->grid, 0);
  REQUIRE(v.ok());
  for (std::int64_t y = 40; y < 470; ++y)
    for (std::int64_t x = 40; x < 470; ++x) {
      const bool rows = x >= 50 + (y * 7919) % 13 && x <= 450 + (y * 104729) % 11;
      const bool columns = y >= 50 + (x * 7907) % 13 && y <= 450 + (x * 15485863) % 11;
      if (rows && columns) v->at({x, y, 5}) = 2;
    }
  const core::LabelMap labels(std::move(v).value());
  REQUIRE(io::writeRtStruct((dir / "long.dcm").string(), labels, tableFor({{2, "CTV\\PTV"}}), src->series));
  test::requireDciodvfyClean(dir / "long.dcm", kAcceptedWarnings);
  DcmFileFormat ff;
  REQUIRE(ff.loadFile((dir / "long.dcm").c_str()).good());
  DcmItem* c = contourItem(ff.getDataset(), 0, 0);
  Sint32 points = 0;
  REQUIRE(c->findAndGetSint32(DCM_NumberOfContourPoints, points).good());
  CHECK(points > 2200);
  DcmElement* data = nullptr;
  REQUIRE(c->findAndGetElement(DCM_ContourData, data).good());
  CHECK(data->getVR() == EVR_DS);  // not UN: the file is implicit VR, where DS has a 32-bit length
  auto doc = io::readRtStruct((dir / "long.dcm").string(), src->grid);
  REQUIRE(doc.ok());
  CHECK(doc->findRoi(2)->name == "CTV PTV");  // one value: the backslash would have made two
  auto flat = io::rtStructToLabelMap(*doc);
  REQUIRE(flat.ok());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += flat->first[i] != labels[i];
  CHECK(differ == 0);
  // A Latin-1 file: its names arrive in UTF-8.
  DcmItem* roi = nullptr;
  REQUIRE(ff.getDataset()->findAndGetSequenceItem(DCM_StructureSetROISequence, roi, 0).good());
  ff.getDataset()->putAndInsertString(DCM_SpecificCharacterSet, "ISO_IR 100");
  roi->putAndInsertString(DCM_ROIName, "Vessie \xe9largie");
  REQUIRE(ff.saveFile((dir / "latin1.dcm").c_str(), EXS_LittleEndianImplicit).good());
  auto latin = io::readRtStruct((dir / "latin1.dcm").string(), src->grid);
  REQUIRE(latin.ok());
  CHECK(latin->findRoi(2)->name == "Vessie \xc3\xa9largie");
}

TEST_CASE("rtstruct writing refuses what it cannot write and leaves an existing file alone",
          "[io][dicom][rtstruct][data]") {
  auto src = tciaSeries();
  if (!src) return;
  ScratchDir dir("rtstruct-write-bad");
  auto empty = core::Volume<core::Label>::create(src->grid, 0);
  REQUIRE(empty.ok());
  const core::LabelMap none(std::move(empty).value());
  const fs::path out = dir / "rs.dcm";
  test::writeTextFile(out, "previous");
  auto r = io::writeRtStruct(out.string(), none, {}, src->series);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::InvalidArgument);
  io::RtStructWriteOptions bad;
  bad.interpretedType = "ptv\\x";
  auto one = core::Volume<core::Label>::create(src->grid, 0);
  REQUIRE(one.ok());
  one->at({10, 10, 1}) = 4;
  const core::LabelMap dot(std::move(one).value());
  CHECK(io::writeRtStruct(out.string(), dot, {}, src->series, bad).error().code == core::ErrorCode::InvalidArgument);
  bad = {};
  bad.simplifyPixels = 0.5;
  CHECK(io::writeRtStruct(out.string(), dot, {}, src->series, bad).error().code == core::ErrorCode::InvalidArgument);
  // Another grid.
  auto other = core::Volume<core::Label>::create(
      core::Geometry({64, 64, 4}, {1, 1, 1}, {0, 0, 0}), 0);
  REQUIRE(other.ok());
  other->at({1, 1, 1}) = 1;
  CHECK(io::writeRtStruct(out.string(), core::LabelMap(std::move(other).value()), {}, src->series).error().code ==
        core::ErrorCode::GeometryMismatch);
  CHECK(test::readTextFile(out) == "previous");
  // A single voxel is a diamond around its centre and comes back as that voxel.
  REQUIRE(io::writeRtStruct((dir / "dot.dcm").string(), dot, {}, src->series));
  auto doc = io::readRtStruct((dir / "dot.dcm").string(), src->grid);
  REQUIRE(doc.ok());
  REQUIRE(doc->masks.size() == 1);
  CHECK(doc->masks[0].count() == 1);
  CHECK(doc->masks[0].box.min == core::Index3{10, 10, 1});
}

TEST_CASE("rtstruct against plastimatch: each reads the other's structure sets of the TCIA anatomy labels",
          "[io][dicom][rtstruct][data][peer]") {
  auto src = tciaSeries();
  if (!src) return;
  const std::string pm = plastimatch();
  if (pm.empty()) return;
  auto ct = io::loadDicomSeries(src->series);
  REQUIRE(ct.ok());
  // Bone, gas and the sphere on the first 16 slices (plastimatch takes about a second per thousand contours).
  core::LabelMap labels = anatomyLabels(ct->image);
  {
    auto v = core::Volume<core::Label>::create(labels.geometry(), 0);
    REQUIRE(v.ok());
    const std::size_t slice = std::size_t(labels.geometry().dimensions()[0] * labels.geometry().dimensions()[1]);
    for (std::size_t i = 0; i < 16 * slice; ++i)
      if (labels[i] == 1 || labels[i] == 3 || labels[i] == 5) v->data()[i] = labels[i];
    labels = core::LabelMap(std::move(v).value());
  }
  const auto table = tableFor({{1, "Bone"}, {3, "Gas"}, {5, "Sphere"}});
  ScratchDir dir("rtstruct-plastimatch");
  const auto counts = countLabels(labels);

  // Ours, read by plastimatch (even-odd, as we write holes): one mask per structure.
  REQUIRE(io::writeRtStruct((dir / "ours.dcm").string(), labels, table, src->series));
  int status = 0;
  const std::string out = test::runCommand(pm + " convert --input " + shellQuoted((dir / "ours.dcm").string()) +
                                               " --referenced-ct " + shellQuoted(src->series.folder) +
                                               " --xor-contours --output-prefix " + shellQuoted((dir / "pm").string()) +
                                               " --prefix-format nii.gz",
                                           &status);
  INFO(out);
  REQUIRE(status == 0);
  for (const auto& [id, count] : counts) {
    const std::string name = table.find(id)->name;
    auto mask = io::readLabelFile((dir / "pm" / (name + ".nii.gz")).string());
    REQUIRE(mask.ok());
    REQUIRE(mask->geometry().isCloseTo(labels.geometry()));
    std::int64_t both = 0, theirs = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      theirs += (*mask)[i] != 0;
      both += (*mask)[i] != 0 && labels[i] == id;
    }
    const double d = dice(both, count, theirs);
    INFO(name << ": Dice " << d << " (" << count << " voxels ours, " << theirs << " plastimatch's)");
    CHECK(d >= 0.99);
  }

  // Plastimatch's, from one mask per structure, read by us.
  fs::create_directories(dir / "masks");
  for (const auto& [id, count] : counts) {
    auto v = core::Volume<core::Label>::create(labels.geometry(), 0);
    REQUIRE(v.ok());
    for (std::size_t i = 0; i < labels.size(); ++i) v->data()[i] = labels[i] == id ? 1 : 0;
    REQUIRE(io::writeLabelFile((dir / "masks" / (table.find(id)->name + ".nii.gz")).string(), core::LabelMap(std::move(v).value())));
  }
  const std::string made = test::runCommand(pm + " convert --input-prefix " + shellQuoted((dir / "masks").string()) +
                                                " --referenced-ct " + shellQuoted(src->series.folder) +
                                                " --output-dicom " + shellQuoted((dir / "theirs").string()),
                                            &status);
  INFO(made);
  REQUIRE(status == 0);
  fs::path theirs;
  for (const auto& e : fs::recursive_directory_iterator(dir / "theirs"))
    if (e.path().filename().string().rfind("rtss", 0) == 0) theirs = e.path();
  REQUIRE(!theirs.empty());
  auto doc = io::readRtStruct(theirs.string(), src->grid);
  REQUIRE(doc.ok());
  REQUIRE(doc->rois.size() == counts.size());
  for (const auto& roi : doc->rois) {
    const auto* entry = table.findByName(roi.name);
    REQUIRE(entry != nullptr);
    const auto* mask = doc->findMask(roi.number);
    REQUIRE(mask != nullptr);
    std::int64_t both = 0, theirsCount = mask->count();
    std::size_t v = 0;
    const auto& d = labels.geometry().dimensions();
    for (std::int64_t z = mask->box.min[2]; z <= mask->box.max[2]; ++z)
      for (std::int64_t y = mask->box.min[1]; y <= mask->box.max[1]; ++y)
        for (std::int64_t x = mask->box.min[0]; x <= mask->box.max[0]; ++x, ++v)
          both += mask->voxels[v] && labels[std::size_t((z * d[1] + y) * d[0] + x)] == entry->id;
    const double dc = dice(both, counts.at(entry->id), theirsCount);
    INFO(roi.name << ": Dice " << dc << " (" << counts.at(entry->id) << " voxels ours, " << theirsCount
                  << " from plastimatch's contours)");
    CHECK(dc >= 0.95);
  }
}
