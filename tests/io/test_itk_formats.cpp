// GIPL, Analyze 7.5 and VTK legacy structured points, read through io::readImageFile / readLabelFile (ITK's ImageIO
// inside). Every file here is written byte by byte from the formats' own layouts, not by ITK, so the tests check
// the reading against the formats rather than ITK against itself.

#include <catch2/catch.hpp>

#include "core/scalar_image.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/label_map.h"
#include "core/volume.h"
#include "io/volume/image_file.h"
#include "tests/common/byte_support.h"
#include "tests/common/test_support.h"

using namespace delineate;
using core::ErrorCode;
using io::ImageFileFormat;
using test::contains;
using test::put;
using test::ScratchDir;

namespace {

struct Grid {
  std::array<std::uint16_t, 3> dims{3, 2, 2};
  std::array<double, 3> spacing{0.5, 1.5, 2.0};
  std::array<double, 3> origin{-10.0, 20.5, 3.25};
};

// The 12 voxel values used throughout: negative, zero and positive, in x-fastest order.
std::vector<std::int16_t> sampleValues() {
  std::vector<std::int16_t> v;
  for (int i = 0; i < 12; ++i) v.push_back(static_cast<std::int16_t>(i * 100 - 300));
  return v;
}

template <class T>
std::vector<std::uint8_t> payload(const std::vector<T>& values, bool bigEndian) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i) put<T>(out, i * sizeof(T), values[i], bigEndian);
  return out;
}

// GIPL: a 256-byte big-endian header (dims[4] u16 at 0, image type u16 at 8, pixdim[4] f32 at 10, text at 26,
// matrix at 106, flags at 186, min/max f64 at 188/196, origin[4] f64 at 204, ..., magic u32 at 252), then the voxels.
enum GiplType : std::uint16_t { kGiplShort = 15, kGiplUShort = 16, kGiplFloat = 64 };

std::vector<std::uint8_t> giplHeader(const Grid& g, std::uint16_t type, std::uint32_t magic = 0xefffe9b0u) {
  std::vector<std::uint8_t> h(256, 0);
  for (std::size_t i = 0; i < 3; ++i) put<std::uint16_t>(h, 2 * i, g.dims[i], true);
  put<std::uint16_t>(h, 6, 1, true);
  put<std::uint16_t>(h, 8, type, true);
  for (std::size_t i = 0; i < 3; ++i) put<float>(h, 10 + 4 * i, static_cast<float>(g.spacing[i]), true);
  put<float>(h, 22, 1.0f, true);
  for (std::size_t i = 0; i < 3; ++i) put<double>(h, 204 + 8 * i, g.origin[i], true);
  put<std::uint32_t>(h, 252, magic, true);
  return h;
}

// Analyze 7.5: a 348-byte header (little-endian here; sizeof_hdr 348 at 0, extents at 32, regular 'r' at 38, dim[8]
// i16 at 40, datatype i16 at 70, bitpix at 72, pixdim[8] f32 at 76, vox_offset f32 at 108, orient at 252), and a
// separate .img of raw voxels.
enum AnalyzeType : std::int16_t { kAnalyzeUChar = 2, kAnalyzeShort = 4, kAnalyzeFloat = 16 };

std::vector<std::uint8_t> analyzeHeader(const Grid& g, std::int16_t datatype, std::int16_t bitpix,
                                        std::array<float, 3> pixdim) {
  std::vector<std::uint8_t> h(348, 0);
  put<std::int32_t>(h, 0, 348, false);
  put<std::int32_t>(h, 32, 16384, false);
  h[38] = 'r';
  put<std::int16_t>(h, 40, 4, false);
  for (std::size_t i = 0; i < 3; ++i) put<std::int16_t>(h, 42 + 2 * i, static_cast<std::int16_t>(g.dims[i]), false);
  put<std::int16_t>(h, 48, 1, false);
  put<std::int16_t>(h, 70, datatype, false);
  put<std::int16_t>(h, 72, bitpix, false);
  put<float>(h, 76, 0.0f, false);
  for (std::size_t i = 0; i < 3; ++i) put<float>(h, 80 + 4 * i, pixdim[i], false);
  put<float>(h, 92, 1.0f, false);
  put<float>(h, 108, 0.0f, false);
  return h;
}

// VTK legacy: five text lines (version, title, ASCII|BINARY, DATASET, then the grid), POINT_DATA and one SCALARS
// array; BINARY data are big-endian.
std::string vtkHeader(const Grid& g, const std::string& encoding, const std::string& scalars,
                      const std::string& dimensions = "") {
  char grid[256];
  std::snprintf(grid, sizeof grid, "SPACING %.17g %.17g %.17g\nORIGIN %.17g %.17g %.17g\n", g.spacing[0],
                g.spacing[1], g.spacing[2], g.origin[0], g.origin[1], g.origin[2]);
  const std::string dims = dimensions.empty() ? std::to_string(g.dims[0]) + " " + std::to_string(g.dims[1]) + " " +
                                                    std::to_string(g.dims[2])
                                              : dimensions;
  return "# vtk DataFile Version 3.0\nwritten by the Delineate tests\n" + encoding +
         "\nDATASET STRUCTURED_POINTS\nDIMENSIONS " + dims + "\n" + grid + "POINT_DATA 12\nSCALARS values " +
         scalars + "\nLOOKUP_TABLE default\n";
}

void checkGrid(const core::Geometry& geo, const Grid& g, const core::Mat3& direction = core::Mat3::identity()) {
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("axis " << i);
    CHECK(geo.dimensions()[i] == g.dims[i]);
    CHECK(geo.spacingMm()[i] == Approx(g.spacing[i]).margin(1e-6));
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) CHECK(geo.direction()(r, c) == Approx(direction(r, c)).margin(1e-12));
}

void checkOrigin(const core::Geometry& geo, const std::array<double, 3>& originLps) {
  for (std::size_t i = 0; i < 3; ++i) CHECK(geo.originLps()[i] == Approx(originLps[i]).margin(1e-9));
}

template <class V>
void checkValues(const V& volume, const std::vector<std::int16_t>& expected) {
  REQUIRE(volume.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("voxel " << i);
    CHECK(static_cast<double>(volume.buffer()[i]) == static_cast<double>(expected[i]));
  }
}

// Read in its stored type (issue 27): `type`, the same grid and values as the float32 read.
void checkTyped(const std::string& path, core::ScalarType type, const std::vector<std::int16_t>& expected) {
  auto typed = io::readImageFileTyped(path);
  INFO((typed ? std::string() : typed.error().describe()));
  REQUIRE(typed.ok());
  CHECK(typed->type() == type);
  auto floats = io::readImageFile(path);
  REQUIRE(floats.ok());
  CHECK(typed->geometry().isCloseTo(floats->geometry()));
  REQUIRE(typed->size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("voxel " << i);
    CHECK(typed->value(i) == static_cast<double>(expected[i]));
  }
}

void checkError(const core::Error& e, ErrorCode code, const std::string& subject, const std::string& words) {
  INFO(e.describe());
  CHECK(e.code == code);
  CHECK(e.subject == subject);
  CHECK(contains(e.detail, words));
}

}  // namespace

TEST_CASE("itk formats: GIPL, Analyze and VTK are chosen by extension, read only", "[image_file][itk_formats]") {
  CHECK(io::imageFileFormatFromPath("a/ct.gipl") == ImageFileFormat::Gipl);
  CHECK(io::imageFileFormatFromPath("CT.GIPL.GZ") == ImageFileFormat::Gipl);
  CHECK(io::imageFileFormatFromPath("brain.hdr") == ImageFileFormat::Analyze);
  CHECK(io::imageFileFormatFromPath("brain.IMG") == ImageFileFormat::Analyze);
  CHECK(io::imageFileFormatFromPath("brain.img.gz") == ImageFileFormat::Analyze);
  CHECK(io::imageFileFormatFromPath("grid.vtk") == ImageFileFormat::VtkLegacy);
  for (auto f : {ImageFileFormat::Gipl, ImageFileFormat::Analyze, ImageFileFormat::VtkLegacy, ImageFileFormat::Unknown})
    CHECK_FALSE(io::imageFileFormatWritable(f));
  for (auto f : {ImageFileFormat::Nifti, ImageFileFormat::Nrrd, ImageFileFormat::MetaImage})
    CHECK(io::imageFileFormatWritable(f));

  ScratchDir dir("itk-readonly");
  const core::Geometry g({2, 2, 2}, {1, 1, 1}, {0, 0, 0});
  auto image = core::ImageVolume::create(g);
  REQUIRE(image.ok());
  const std::string p = (dir / "out.gipl").string();
  const auto e = io::writeImageFile(p, *image).error();
  checkError(e, ErrorCode::Unsupported, p, "does not write it");
  CHECK(contains(e.detail, ".nii, .nii.gz, .nrrd, .nhdr, .mha or .mhd"));
}

TEST_CASE("itk formats: the unknown-extension error lists every readable format", "[image_file][itk_formats]") {
  ScratchDir dir("itk-unknown");
  const std::string p = (dir / "scan.dcm").string();
  test::writeTextFile(p, "not an image");
  for (const core::Error& e : {io::readImageFile(p).error(), io::readLabelFile(p).error()}) {
    checkError(e, ErrorCode::Unsupported, p, "unknown image file type");
    for (const char* ext : {".nii", ".nii.gz", ".nrrd", ".nhdr", ".mha", ".mhd", ".gipl", ".gipl.gz", ".hdr", ".img",
                            ".vtk"})
      CHECK(contains(e.detail, ext));
  }
}

TEST_CASE("itk formats: GIPL int16 reads with its spacing, origin and values", "[image_file][itk_formats]") {
  ScratchDir dir("itk-gipl");
  const Grid g;
  const auto values = sampleValues();
  const auto bytes = test::concat(giplHeader(g, kGiplShort), payload(values, true));
  // Upper-case names too: the extension picks the format case-insensitively, and ITK must then agree.
  for (const char* name : {"ct.gipl", "ct.gipl.gz", "CT2.GIPL", "CT2.GIPL.GZ"}) {
    INFO(name);
    const std::string p = (dir / name).string();
    test::writeBytes(p, test::contains(p, ".gz") || test::contains(p, ".GZ") ? test::gz(bytes) : bytes);
    auto image = io::readImageFile(p);
    INFO((image ? std::string() : image.error().describe()));
    REQUIRE(image.ok());
    checkGrid(image->geometry(), g);
    checkOrigin(image->geometry(), g.origin);  // GIPL's origin field, taken as ITK takes it (LPS, no flip)
    checkValues(*image, values);
    checkTyped(p, core::ScalarType::Int16, values);
    // Negative values are not labels: the refusal names the voxel and the value.
    auto labels = io::readLabelFile(p);
    REQUIRE_FALSE(labels.ok());
    checkError(labels.error(), ErrorCode::ParseError, p, "voxel (0, 0, 0) holds -300");
  }
}

TEST_CASE("itk formats: GIPL uint16 and float label maps, whose fractions are refused", "[image_file][itk_formats]") {
  ScratchDir dir("itk-gipl-labels");
  const Grid g;
  std::vector<std::uint16_t> labels;
  for (int i = 0; i < 12; ++i) labels.push_back(static_cast<std::uint16_t>(i % 3 == 0 ? 0 : 1000 + i));
  const std::string p = (dir / "seg.gipl").string();
  test::writeBytes(p, test::concat(giplHeader(g, kGiplUShort), payload(labels, true)));
  auto map = io::readLabelFile(p);
  INFO((map ? std::string() : map.error().describe()));
  REQUIRE(map.ok());
  checkGrid(map->voxels().geometry(), g);
  for (std::size_t i = 0; i < 12; ++i) CHECK(map->voxels().buffer()[i] == labels[i]);

  std::vector<float> fractions(12, 2.0f);
  fractions[7] = 2.5f;  // voxel (1, 0, 1)
  const std::string f = (dir / "frac.gipl").string();
  test::writeBytes(f, test::concat(giplHeader(g, kGiplFloat), payload(fractions, true)));
  auto refused = io::readLabelFile(f);
  REQUIRE_FALSE(refused.ok());
  checkError(refused.error(), ErrorCode::ParseError, f, "voxel (1, 0, 1) holds 2.5");
  auto image = io::readImageFile(f);
  REQUIRE(image.ok());
  CHECK(image->buffer()[7] == 2.5f);
}

TEST_CASE("itk formats: Analyze 7.5 reads from either file of the pair", "[image_file][itk_formats]") {
  ScratchDir dir("itk-analyze");
  const Grid g;
  const auto values = sampleValues();
  test::writeBytes(dir / "brain.hdr", analyzeHeader(g, kAnalyzeShort, 16, {0.5f, 1.5f, 2.0f}));
  test::writeBytes(dir / "brain.img", payload(values, false));
  test::writeBytes(dir / "LOUD.HDR", analyzeHeader(g, kAnalyzeShort, 16, {0.5f, 1.5f, 2.0f}));
  test::writeBytes(dir / "LOUD.IMG", payload(values, false));
  for (const char* name : {"brain.hdr", "brain.img", "LOUD.HDR", "LOUD.IMG"}) {
    INFO(name);
    const std::string p = (dir / name).string();
    auto image = io::readImageFile(p);
    INFO((image ? std::string() : image.error().describe()));
    REQUIRE(image.ok());
    // ITK's Analyze rule (its default "ITK4" flavour): spacing from pixdim, origin 0, identity direction.
    checkGrid(image->geometry(), g);
    checkOrigin(image->geometry(), {0, 0, 0});
    checkValues(*image, values);
    checkTyped(p, core::ScalarType::Int16, values);
  }
  // uint8 labels; an .img.gz beside the header is found as niftilib finds it.
  std::vector<std::uint8_t> labels;
  for (int i = 0; i < 12; ++i) labels.push_back(static_cast<std::uint8_t>(i * 20));
  test::writeBytes(dir / "seg.hdr", analyzeHeader(g, kAnalyzeUChar, 8, {0.5f, 1.5f, 2.0f}));
  test::writeBytes(dir / "seg.img.gz", test::gz(labels));
  auto map = io::readLabelFile((dir / "seg.hdr").string());
  INFO((map ? std::string() : map.error().describe()));
  REQUIRE(map.ok());
  for (std::size_t i = 0; i < 12; ++i) CHECK(map->voxels().buffer()[i] == labels[i]);
  // As an image: uint8, read by ITK straight into the result.
  auto typed = io::readImageFileTyped((dir / "seg.hdr").string());
  REQUIRE(typed.ok());
  CHECK(typed->type() == core::ScalarType::UInt8);
  for (std::size_t i = 0; i < 12; ++i) CHECK(typed->value(i) == double(labels[i]));
}

TEST_CASE("itk formats: an Analyze negative pixdim is a flipped axis with positive spacing", "[image_file][itk_formats]") {
  ScratchDir dir("itk-analyze-flip");
  const Grid g;
  test::writeBytes(dir / "flip.hdr", analyzeHeader(g, kAnalyzeShort, 16, {-0.5f, 1.5f, 2.0f}));
  test::writeBytes(dir / "flip.img", payload(sampleValues(), false));
  auto image = io::readImageFile((dir / "flip.hdr").string());
  INFO((image ? std::string() : image.error().describe()));
  REQUIRE(image.ok());
  core::Mat3 flipped = core::Mat3::identity();
  flipped(0, 0) = -1;
  checkGrid(image->geometry(), g, flipped);
  // Voxel i = 2 lies at x = 2 * -0.5 mm, exactly where ITK puts it.
  CHECK(image->geometry().indexToLps(core::Vec3{2, 0, 0})[0] == Approx(-1.0));
}

TEST_CASE("itk formats: VTK legacy structured points, binary and ASCII", "[image_file][itk_formats]") {
  ScratchDir dir("itk-vtk");
  const Grid g;
  const auto values = sampleValues();
  const std::string bin = (dir / "grid.vtk").string();
  test::writeBytes(bin, test::concat(test::bytesOf(vtkHeader(g, "BINARY", "short 1")), payload(values, true)));
  std::string text = vtkHeader(g, "ASCII", "float");
  for (std::size_t i = 0; i < values.size(); ++i) text += std::to_string(values[i]) + (i % 4 == 3 ? "\n" : " ");
  const std::string ascii = (dir / "text.vtk").string();
  test::writeTextFile(ascii, text);
  const std::string upper = (dir / "TEXT.VTK").string();
  test::writeTextFile(upper, text);
  for (const std::string& p : {bin, ascii, upper}) {
    INFO(p);
    auto image = io::readImageFile(p);
    INFO((image ? std::string() : image.error().describe()));
    REQUIRE(image.ok());
    // VTK's SPACING and ORIGIN as written (ITK takes them as LPS), identity direction.
    checkGrid(image->geometry(), g);
    checkOrigin(image->geometry(), g.origin);
    checkValues(*image, values);
    // Binary "short" stays int16; ASCII "float" stays float32, as a float32 NIfTI does.
    checkTyped(p, p == bin ? core::ScalarType::Int16 : core::ScalarType::Float32, values);
  }
  // "double" is no type we keep: converted from the same open file, then narrowed to the smallest exact type.
  std::string doubles = vtkHeader(g, "ASCII", "double");
  for (std::size_t i = 0; i < values.size(); ++i) doubles += std::to_string(values[i]) + (i % 4 == 3 ? "\n" : " ");
  const std::string wide = (dir / "wide.vtk").string();
  test::writeTextFile(wide, doubles);
  checkTyped(wide, core::ScalarType::Int16, values);
  std::vector<std::uint16_t> labels;
  for (int i = 0; i < 12; ++i) labels.push_back(static_cast<std::uint16_t>(i == 5 ? 65535 : i));
  const std::string seg = (dir / "seg.vtk").string();
  test::writeBytes(seg, test::concat(test::bytesOf(vtkHeader(g, "BINARY", "unsigned_short")), payload(labels, true)));
  auto map = io::readLabelFile(seg);
  INFO((map ? std::string() : map.error().describe()));
  REQUIRE(map.ok());
  for (std::size_t i = 0; i < 12; ++i) CHECK(map->voxels().buffer()[i] == labels[i]);
}

TEST_CASE("itk formats: damaged and truncated files are errors naming the file", "[image_file][itk_formats]") {
  ScratchDir dir("itk-damaged");
  const Grid g;
  const auto values = sampleValues();
  const auto gipl = test::concat(giplHeader(g, kGiplShort), payload(values, true));

  const std::string shortHeader = (dir / "short.gipl").string();
  test::writeBytes(shortHeader, std::vector<std::uint8_t>(gipl.begin(), gipl.begin() + 100));
  checkError(io::readImageFile(shortHeader).error(), ErrorCode::Corrupt, shortHeader, "too short for a GIPL header");

  const std::string badMagic = (dir / "magic.gipl").string();
  test::writeBytes(badMagic, test::concat(giplHeader(g, kGiplShort, 0x12345678u), payload(values, true)));
  checkError(io::readImageFile(badMagic).error(), ErrorCode::ParseError, badMagic, "not a GIPL file");

  const std::string cut = (dir / "cut.gipl").string();
  test::writeBytes(cut, std::vector<std::uint8_t>(gipl.begin(), gipl.end() - 3));
  checkError(io::readImageFile(cut).error(), ErrorCode::Corrupt, cut, "truncated");

  auto zipped = test::gz(gipl);
  const std::string cutGz = (dir / "cut.gipl.gz").string();
  test::writeBytes(cutGz, std::vector<std::uint8_t>(zipped.begin(), zipped.end() - 12));
  checkError(io::readImageFile(cutGz).error(), ErrorCode::Corrupt, cutGz, "truncated");

  const std::string noImg = (dir / "lonely.hdr").string();
  test::writeBytes(noImg, analyzeHeader(g, kAnalyzeShort, 16, {1, 1, 1}));
  checkError(io::readImageFile(noImg).error(), ErrorCode::NotFound, noImg, "lonely.img");
  const std::string noHdr = (dir / "orphan.img").string();
  test::writeBytes(noHdr, payload(values, false));
  checkError(io::readImageFile(noHdr).error(), ErrorCode::NotFound, noHdr, "orphan.hdr");

  const std::string cutImg = (dir / "cutimg.hdr").string();
  test::writeBytes(cutImg, analyzeHeader(g, kAnalyzeShort, 16, {1, 1, 1}));
  test::writeBytes(dir / "cutimg.img", std::vector<std::uint8_t>(10, 0));
  checkError(io::readImageFile(cutImg).error(), ErrorCode::Corrupt, cutImg, "truncated");

  const std::string notAnalyze = (dir / "junk.hdr").string();
  test::writeBytes(notAnalyze, std::vector<std::uint8_t>(348, 0x41));
  test::writeBytes(dir / "junk.img", payload(values, false));
  checkError(io::readImageFile(notAnalyze).error(), ErrorCode::ParseError, notAnalyze, "Analyze");

  const std::string cutVtk = (dir / "cut.vtk").string();
  test::writeBytes(cutVtk, test::concat(test::bytesOf(vtkHeader(g, "BINARY", "short")),
                                        std::vector<std::uint8_t>(5, 0)));
  checkError(io::readImageFile(cutVtk).error(), ErrorCode::Corrupt, cutVtk, "truncated");

  const std::string badText = (dir / "word.vtk").string();
  test::writeTextFile(badText, vtkHeader(g, "ASCII", "float") + "1 2 3 4 5 six 7 8 9 10 11 12\n");
  checkError(io::readImageFile(badText).error(), ErrorCode::ParseError, badText, "'six', not a number");

  const std::string vectors = (dir / "rgb.vtk").string();
  test::writeBytes(vectors, test::concat(test::bytesOf(vtkHeader(g, "BINARY", "unsigned_char 3")),
                                         std::vector<std::uint8_t>(36, 7)));
  checkError(io::readImageFile(vectors).error(), ErrorCode::Unsupported, vectors, "3 components");

  const std::string polydata = (dir / "mesh.vtk").string();
  test::writeTextFile(polydata, "# vtk DataFile Version 3.0\nmesh\nASCII\nDATASET POLYDATA\nPOINTS 0 float\n");
  checkError(io::readImageFile(polydata).error(), ErrorCode::ParseError, polydata, "not a VTK");

  const std::string negative = (dir / "negative.vtk").string();
  Grid bad = g;
  bad.spacing[1] = -1.5;
  test::writeBytes(negative, test::concat(test::bytesOf(vtkHeader(bad, "BINARY", "short")), payload(values, true)));
  checkError(io::readImageFile(negative).error(), ErrorCode::InvalidGeometry, negative, "spacing");

  const std::string missing = (dir / "absent.gipl").string();
  checkError(io::readImageFile(missing).error(), ErrorCode::NotFound, missing, "");
}

TEST_CASE("itk formats: huge declared sizes are refused before anything is allocated", "[image_file][itk_formats]") {
  ScratchDir dir("itk-huge");
  Grid huge;
  // 1500^3 int16 = 6.75 GB that a 256-byte file cannot hold: refused on the file size, not by allocating first.
  huge.dims = {1500, 1500, 1500};
  const std::string gipl = (dir / "huge.gipl").string();
  test::writeBytes(gipl, giplHeader(huge, kGiplShort));
  checkError(io::readImageFile(gipl).error(), ErrorCode::Corrupt, gipl, "6750000256 bytes");
  const std::string giplGz = (dir / "huge.gipl.gz").string();
  test::writeBytes(giplGz, test::gz(giplHeader(huge, kGiplShort)));
  checkError(io::readImageFile(giplGz).error(), ErrorCode::SizeLimit, giplGz, "at most");
  // 65535^3 voxels: past core::Geometry::kMaxVoxels whatever the file holds.
  huge.dims = {65535, 65535, 65535};
  const std::string giplMax = (dir / "max.gipl").string();
  test::writeBytes(giplMax, giplHeader(huge, kGiplShort));
  checkError(io::readLabelFile(giplMax).error(), ErrorCode::SizeLimit, giplMax, "more than the limit");

  huge.dims = {30000, 30000, 30000};
  const std::string hdr = (dir / "huge.hdr").string();
  test::writeBytes(hdr, analyzeHeader(huge, kAnalyzeShort, 16, {1, 1, 1}));
  test::writeBytes(dir / "huge.img", std::vector<std::uint8_t>(64, 0));
  checkError(io::readImageFile(hdr).error(), ErrorCode::SizeLimit, hdr, "more than the limit");
  huge.dims = {2000, 2000, 2000};
  test::writeBytes(hdr, analyzeHeader(huge, kAnalyzeShort, 16, {1, 1, 1}));
  checkError(io::readImageFile(hdr).error(), ErrorCode::Corrupt, hdr, "16000000000 bytes");

  const std::string vtk = (dir / "huge.vtk").string();
  test::writeTextFile(vtk, vtkHeader(Grid{}, "BINARY", "float", "2000 2000 2000"));
  checkError(io::readImageFile(vtk).error(), ErrorCode::Corrupt, vtk, "truncated");
  test::writeTextFile(vtk, vtkHeader(Grid{}, "BINARY", "float", "100000 100000 100000"));
  checkError(io::readImageFile(vtk).error(), ErrorCode::SizeLimit, vtk, "more than the limit");
  test::writeTextFile(vtk, vtkHeader(Grid{}, "ASCII", "float", "2000 2000 2000") + "1 2 3\n");
  checkError(io::readImageFile(vtk).error(), ErrorCode::Corrupt, vtk, "truncated");
}
