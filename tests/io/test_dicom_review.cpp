// Regression tests for defects found in review of the DICOM reader: each case failed (crash, wrong values, wrong
// grouping or a misleading message) before its fix.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "io/dicom/dicom.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

io::DicomIndex index(const fs::path& folder) {
  auto r = io::indexDicomFolder(folder.string());
  REQUIRE(r.ok());
  return std::move(*r);
}

std::vector<const io::DicomSeries*> images(const io::DicomIndex& idx) {
  std::vector<const io::DicomSeries*> out;
  for (const auto* s : idx.allSeries())
    if (s->isImage) out.push_back(s);
  return out;
}

bool hasIssue(const io::DicomSeries& s, io::SeriesIssueKind kind) {
  return std::any_of(s.issues.begin(), s.issues.end(), [&](const io::SeriesIssue& i) { return i.kind == kind; });
}

void writeAxialSeries(const fs::path& folder, CtSliceParams p, int slices) {
  fs::create_directories(folder);
  for (int k = 0; k < slices; ++k) {
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    makeCtSlice(p).write(folder / ("s" + std::to_string(k) + ".dcm"));
  }
}

}  // namespace

TEST_CASE("dicom review: a crafted NumberOfFrames is refused before any per-frame allocation", "[dicom]") {
  ScratchDir dir("dicom-review-frames");
  CtSliceParams p;
  p.syntax = TransferSyntax::RleLossless;
  p.rows = 1;
  p.columns = 1;
  // 2^31-1 frames in a 1x1 image with one RLE fragment: the fragments cannot cover the frames.
  makeCtSlice(p).is(0x0028, 0x0008, 2147483647).write(dir / "frames.dcm");
  // Native data: above the frame limit.
  CtSliceParams n;
  n.rows = 1;
  n.columns = 1;
  makeCtSlice(n).is(0x0028, 0x0008, io::kMaxFrames + 1).write(dir / "limit.dcm");
  const io::DicomIndex idx = index(dir.path());
  REQUIRE(idx.skipped.size() == 2);
  for (const auto& s : idx.skipped) {
    INFO(s.reason);
    const bool fragments = s.reason.find("fragments") != std::string::npos;
    const bool limit = s.reason.find("limit") != std::string::npos;
    CHECK((fragments || limit));
  }
}

TEST_CASE("dicom review: slices whose bit layout differs are split, and each loads its own values", "[dicom]") {
  ScratchDir dir("dicom-review-bits");
  CtSliceParams p;
  p.rescaleIntercept = 0;
  p.pixel = [](int, int) { return 3000; };
  writeAxialSeries(dir / "a", p, 3);
  // Same series, two more slices storing 8 bits only (value 100).
  CtSliceParams q = p;
  q.pixel = [](int, int) { return 100; };
  for (int k = 3; k < 5; ++k) {
    q.instanceNumber = k + 1;
    q.positionLps = {0, 0, 2.0 * k};
    makeCtSlice(q).us(0x0028, 0x0101, 8).us(0x0028, 0x0102, 7).write(dir / "a" / ("b" + std::to_string(k) + ".dcm"));
  }
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 2);
  for (const io::DicomSeries* s : series) {
    CHECK(hasIssue(*s, io::SeriesIssueKind::Split));
    CHECK(s->splitReason.find("pixel format") != std::string::npos);
    auto loaded = io::loadDicomSeries(*s);
    REQUIRE(loaded.ok());
    const float expected = s->format.bitsStored == 8 ? 100.0f : 3000.0f;
    CHECK(std::all_of(loaded->image.buffer().begin(), loaded->image.buffer().end(),
                      [&](float v) { return v == expected; }));
  }
}

TEST_CASE("dicom review: orientation rounding noise around zero does not split a series", "[dicom]") {
  ScratchDir dir("dicom-review-noise");
  CtSliceParams p;
  fs::create_directories(dir / "s");
  for (int k = 0; k < 4; ++k) {
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    const double noise = (k % 2 == 0) ? 1e-5 : -1e-5;  // prints as 0.000 and -0.000 at three decimals
    p.rowDirection = {1, noise, 0};
    p.columnDirection = {-noise, 1, 0};
    makeCtSlice(p).write(dir / "s" / ("s" + std::to_string(k) + ".dcm"));
  }
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  CHECK(series[0]->slices.size() == 4);
  CHECK(series[0]->isRegular());
}

TEST_CASE("dicom review: a copied file is one instance, not a duplicate position", "[dicom]") {
  ScratchDir dir("dicom-review-copy");
  writeAxialSeries(dir / "s", CtSliceParams{}, 4);
  fs::copy_file(dir / "s" / "s2.dcm", dir / "s" / "copy-of-s2.dcm");
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  CHECK(series[0]->slices.size() == 4);
  CHECK(series[0]->isRegular());
  CHECK(hasIssue(*series[0], io::SeriesIssueKind::DuplicateInstances));
  CHECK(io::loadDicomSeries(*series[0]).ok());
}

// Issue 40: one SOPInstanceUID in two files with different bytes (a pixel changed): which is the instance cannot be
// told, so the series is refused naming both files; never one of them dropped silently.
TEST_CASE("dicom review: an instance in two files with different bytes refuses the series, naming both", "[dicom]") {
  ScratchDir dir("dicom-review-conflict");
  writeAxialSeries(dir / "s", CtSliceParams{}, 4);
  std::string bytes = readTextFile(dir / "s" / "s2.dcm");
  bytes[bytes.size() - 1] = static_cast<char>(bytes[bytes.size() - 1] ^ 0x01);
  writeTextFile(dir / "s" / "t-changed.dcm", bytes);
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  CHECK(hasIssue(*series[0], io::SeriesIssueKind::ConflictingInstances));
  CHECK_FALSE(hasIssue(*series[0], io::SeriesIssueKind::DuplicateInstances));
  REQUIRE(series[0]->duplicates.size() == 1);
  CHECK_FALSE(series[0]->duplicates[0].identical);
  CHECK(series[0]->duplicates[0].sameAs == (dir / "s" / "s2.dcm").string());
  CHECK(series[0]->duplicates[0].path == (dir / "s" / "t-changed.dcm").string());
  auto loaded = io::loadDicomSeries(*series[0], io::DicomLoadOptions{});
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().subject == (dir / "s" / "s2.dcm").string());
  CHECK(loaded.error().detail.find((dir / "s" / "s2.dcm").string() + " and " + (dir / "s" / "t-changed.dcm").string() +
                                   " carry SOPInstanceUID ") != std::string::npos);
  io::DicomLoadOptions lenient;
  lenient.allowIrregular = lenient.allowUnreadable = true;
  CHECK_FALSE(io::loadDicomSeries(*series[0], lenient).ok());
}

TEST_CASE("dicom review: a sheared orientation says why the series has no geometry", "[dicom]") {
  ScratchDir dir("dicom-review-shear");
  CtSliceParams p;
  p.rowDirection = {1, 0, 0};
  p.columnDirection = {0.05, 0.99875, 0};  // unit length, 2.9 degrees off perpendicular
  writeAxialSeries(dir / "s", p, 3);
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  CHECK(!series[0]->geometry);
  REQUIRE(hasIssue(*series[0], io::SeriesIssueKind::MissingGeometry));
  auto loaded = io::loadDicomSeries(*series[0]);
  REQUIRE(!loaded.ok());
  INFO(loaded.error().describe());
  CHECK(loaded.error().detail.find("orthogonal") != std::string::npos);
}

TEST_CASE("dicom review: zero padding after the dataset and an undefined-length UN are read like DCMTK reads them",
          "[dicom]") {
  ScratchDir dir("dicom-review-pad");
  fs::create_directories(dir / "s");
  for (int k = 0; k < 2; ++k) {
    CtSliceParams p;
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    DicomBuilder b = makeCtSlice(p);
    // A private element of VR UN with undefined length holding one implicit-VR item (CP-246).
    std::string un;
    un += std::string("\x09\x00\x10\x10", 4) + "UN" + std::string(2, '\0') + std::string("\xFF\xFF\xFF\xFF", 4);
    un += std::string("\xFE\xFF\x00\xE0", 4) + std::string("\xFF\xFF\xFF\xFF", 4);                   // item
    un += std::string("\x09\x00\x11\x10", 4) + std::string("\x04\x00\x00\x00", 4) + "ABCD";        // implicit LO
    un += std::string("\xFE\xFF\x0D\xE0", 4) + std::string(4, '\0');                               // item end
    un += std::string("\xFE\xFF\xDD\xE0", 4) + std::string(4, '\0');                               // sequence end
    b.rawElement(0x0009, 0x1010, un);
    std::string bytes = b.bytes() + std::string(64, '\0');  // zero padding after the pixel data
    writeFileBytes(dir / "s" / ("s" + std::to_string(k) + ".dcm"), bytes);
  }
  const io::DicomIndex idx = index(dir.path());
  for (const auto& s : idx.skipped) INFO(s.reason);
  CHECK(idx.skipped.empty());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  CHECK(io::loadDicomSeries(*series[0]).ok());
}

TEST_CASE("dicom review: old-style multi-frame follows GridFrameOffsetVector", "[dicom]") {
  ScratchDir dir("dicom-review-grid");
  CtSliceParams p;
  p.rows = 2;
  p.columns = 3;
  DicomBuilder b = makeCtSlice(p);
  std::vector<std::int16_t> pixels;
  for (int f = 0; f < 3; ++f)
    for (int v = 0; v < 6; ++v) pixels.push_back(std::int16_t(100 * f + v));
  b.is(0x0028, 0x0008, 3).ds(0x3004, 0x000C, "0\\2.5\\5").pixelsNative(pixels);
  fs::create_directories(dir / "s");
  b.write(dir / "s" / "multi.dcm");
  const io::DicomIndex idx = index(dir.path());
  const auto series = images(idx);
  REQUIRE(series.size() == 1);
  REQUIRE(series[0]->geometry);
  CHECK(series[0]->isRegular());
  CHECK(series[0]->geometry->dimensions() == core::Size3{3, 2, 3});
  CHECK(series[0]->geometry->spacingMm()[2] == Approx(2.5));
  auto loaded = io::loadDicomSeries(*series[0]);
  REQUIRE(loaded.ok());
  CHECK(loaded->image.at({1, 1, 2}) == float(200 + 4 - 1024));
}

TEST_CASE("dicom review: float pixel data is listed as a non-image object, not as a damaged file", "[dicom]") {
  auto p = sharedFile("data/dicom-seg/pydicom-data/parametric_map_float.dcm");
  if (!p) return;
  auto idx = io::indexDicomFolder(p->string());
  REQUIRE(idx.ok());
  CHECK(idx->skipped.empty());
  REQUIRE(idx->allSeries().size() == 1);
  CHECK(!idx->allSeries().front()->isImage);
}
