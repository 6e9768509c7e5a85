#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/label_map.h"
#include "core/volume.h"
#include "io/base/gzip.h"
#include "io/volume/nrrd.h"
#include "tests/common/byte_support.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace delineate;
using core::ErrorCode;
using core::Geometry;
using core::Mat3;
using test::ScratchDir;
using test::sharedFile;
using test::contains;
using test::num;
using test::rampImage;
using test::checkError;
using test::readBytes;
using test::writeBytes;
using test::bytesOf;
using test::concat;
using test::gz;
using test::hostBigEndian;
using test::encode;
using test::asText;

namespace {

std::string vec(double x, double y, double z) { return "(" + num(x) + "," + num(y) + "," + num(z) + ")"; }

// The oblique grid every crafted file uses: 2x3x4 voxels.
const core::Vec3 kSpacing{0.7, 0.8, 2.5};
const core::Vec3 kOrigin{-12.25, 30.5, 101.0};
Mat3 obliqueDirection() { return test::rotationMatrix(0.3, -0.5, 1.1); }

std::string directionsText(const Mat3& d, const core::Vec3& s, const core::Vec3& flip = {1, 1, 1}) {
  std::string out;
  for (int c = 0; c < 3; ++c) {
    const auto sc = s[static_cast<std::size_t>(c)];
    out += (c ? " " : "") + vec(flip[0] * d(0, c) * sc, flip[1] * d(1, c) * sc, flip[2] * d(2, c) * sc);
  }
  return out;
}

std::string obliqueSpaceLines() {
  return "space: left-posterior-superior\nspace directions: " + directionsText(obliqueDirection(), kSpacing) +
         "\nspace origin: " + vec(kOrigin[0], kOrigin[1], kOrigin[2]) + "\n";
}

// "NRRD0004 ... sizes ... <extra>" + blank line, for 2x3x4 voxels unless extra says otherwise.
std::string header(const std::string& type, const std::string& encoding, const std::string& extra,
                   const std::string& sizes = "2 3 4", const std::string& dimension = "3") {
  return "NRRD0004\n# crafted by test_nrrd\ntype: " + type + "\ndimension: " + dimension + "\nsizes: " + sizes +
         "\nencoding: " + encoding + "\n" + extra;
}

void expectImageError(const fs::path& p, ErrorCode code, const std::vector<std::string>& words) {
  INFO(p.string());
  auto r = io::readNrrdImage(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), code, p, words);
  auto l = io::readNrrdLabels(p.string());
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().code == code);
}

void checkAffineClose(const Geometry& g, const Mat3& d, const core::Vec3& s, const core::Vec3& o) {
  const auto a = g.indexToLpsAffine();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      CHECK(a[static_cast<std::size_t>(r * 4 + c)] == Approx(d(r, c) * s[static_cast<std::size_t>(c)]).margin(1e-13));
    CHECK(a[static_cast<std::size_t>(r * 4 + 3)] == o[static_cast<std::size_t>(r)]);
  }
}

long maxRssKb() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

// Expected values below were computed independently with Python's gzip + struct modules from the same files.

TEST_CASE("nrrd: brain1_image header, geometry and voxels match the file", "[nrrd]") {
  auto p = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  auto lab = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_label.nrrd");
  if (!p || !lab) return;
  auto h = io::readNrrdHeader(p->string());
  REQUIRE(h.ok());
  CHECK(h->version == 4);
  CHECK(h->type == "int16");
  CHECK(h->bytesPerVoxel == 2);
  CHECK(h->dimension == 3);
  CHECK(h->sizes == std::vector<std::int64_t>{256, 256, 25});
  CHECK(h->encoding == io::NrrdEncoding::Gzip);
  CHECK_FALSE(h->bigEndian);
  CHECK(h->space == "left-posterior-superior");
  CHECK(h->kinds == std::vector<std::string>{"domain", "domain", "domain"});
  CHECK(h->dataFiles.empty());
  CHECK(h->dataOffset == 406);
  CHECK(h->dataBytes == 256 * 256 * 25 * 2);
  // The header says: space directions (0.78124999999999989,0,0) (0,-0.78124999999999989,0) (0,0,6.4999999999999982),
  // space origin (-99.609374999999986,99.609374999999986,-77.999999999999957), all LPS already.
  const Geometry& g = h->geometry;
  CHECK(g.dimensions() == core::Size3{256, 256, 25});
  CHECK(g.spacingMm() == core::Vec3{0.78124999999999989, 0.78124999999999989, 6.4999999999999982});
  CHECK(g.originLps() == core::Vec3{-99.609374999999986, 99.609374999999986, -77.999999999999957});
  CHECK(g.direction().m == std::array<double, 9>{1, 0, 0, 0, -1, 0, 0, 0, 1});
  CHECK(g.orientationCode() == "LAS");
  const auto a = g.indexToLpsAffine();
  CHECK(a[5] == -0.78124999999999989);
  CHECK(a[7] == 99.609374999999986);

  auto img = io::readNrrdImage(p->string());
  REQUIRE(img.ok());
  CHECK(img->geometry() == g);
  CHECK(img->at({128, 128, 12}) == 526.0f);
  CHECK(img->at({0, 0, 0}) == 0.0f);
  CHECK(img->at({100, 150, 20}) == 639.0f);
  double sum = 0;
  float lo = 1e9f, hi = -1e9f;
  for (float v : img->buffer()) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(sum == 631859459.0);
  CHECK(lo == 0.0f);
  CHECK(hi == 3057.0f);

  // The tumour ROI is stored as int32 on the same grid.
  auto labels = io::readNrrdLabels(lab->string());
  REQUIRE(labels.ok());
  CHECK(labels->geometry() == g);
  std::int64_t ones = 0;
  for (std::size_t i = 0; i < labels->size(); ++i) ones += (*labels)[i];
  CHECK(ones == 4137);
  CHECK(labels->at({179, 125, 11}) == 1);
  CHECK(io::readNrrdHeader(lab->string())->type == "int32");
}

TEST_CASE("nrrd: every shared NRRD loads as image and as labels", "[nrrd]") {
  const std::vector<std::string> files{
      "data/mr/pyradiomics-mr-tumor/brain1_image.nrrd",
      "data/mr/pyradiomics-mr-tumor/brain1_label.nrrd",
      "data/mr/pyradiomics-mr-tumor/breast1_image.nrrd",
      "data/mr/pyradiomics-mr-tumor/breast1_label.nrrd",
      "data/dicom-seg/dcmqi/segmentations/heart_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/liver_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/liver_spine_gapped_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/partial_overlaps-1.nrrd",
      "data/dicom-seg/dcmqi/segmentations/partial_overlaps-2.nrrd",
      "data/dicom-seg/dcmqi/segmentations/partial_overlaps-3.nrrd",
      "data/dicom-seg/dcmqi/segmentations/sparse_labelmap_noppv_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/sparse_labelmap_ppv5_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/spine_seg.nrrd",
      "data/dicom-seg/dcmqi/segmentations/spine_seg_label5.nrrd",
      "data/dicom-seg/dcmqi/segmentations/23x38x3/nrrd/label.nrrd",
      "data/dicom-seg/dcmqi/segmentations/24x38x3/nrrd/label.nrrd",
  };
  std::map<std::string, std::map<core::Label, std::int64_t>> counts;
  for (const std::string& f : files) {
    INFO(f);
    auto p = sharedFile(f);
    if (!p) return;
    auto img = io::readNrrdImage(p->string());
    REQUIRE(img.ok());
    auto labels = io::readNrrdLabels(p->string());
    REQUIRE(labels.ok());
    CHECK(labels->geometry() == img->geometry());
    for (std::size_t i = 0; i < labels->size(); ++i) ++counts[f][(*labels)[i]];
  }
  using Counts = std::map<core::Label, std::int64_t>;
  CHECK(counts["data/dicom-seg/dcmqi/segmentations/liver_seg.nrrd"] == Counts{{0, 679334}, {1, 107098}});
  CHECK(counts["data/dicom-seg/dcmqi/segmentations/partial_overlaps-1.nrrd"] ==
        Counts{{0, 765424}, {1, 9602}, {4, 6693}, {5, 4713}});
  CHECK(counts["data/dicom-seg/dcmqi/segmentations/sparse_labelmap_ppv5_seg.nrrd"] == Counts{{0, 1194}, {1, 630}, {5, 912}});
  CHECK(counts["data/dicom-seg/dcmqi/segmentations/spine_seg_label5.nrrd"] == Counts{{0, 773993}, {5, 12439}});
  CHECK(counts["data/mr/pyradiomics-mr-tumor/breast1_label.nrrd"] == Counts{{0, 113257}, {1, 143}});

  auto breast = sharedFile("data/mr/pyradiomics-mr-tumor/breast1_image.nrrd");
  if (!breast) return;
  auto img = io::readNrrdImage(breast->string());
  REQUIRE(img.ok());
  CHECK(img->at({20, 60, 10}) == 62.0f);
  CHECK(img->at({0, 0, 0}) == 86.0f);
  CHECK(img->geometry().originLps() == core::Vec3{-116.54304, -48.14465400000001, 9.4500000000000295});
}

TEST_CASE("nrrd: every type, encoding and byte order, attached and detached, on an oblique grid", "[nrrd]") {
  ScratchDir dir("nrrd-types");
  const std::vector<double> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 100};
  auto run = [&](auto tag, const std::vector<std::string>& spellings) {
    using T = decltype(tag);
    std::vector<T> raw;
    for (double v : values) raw.push_back(static_cast<T>(v));
    for (const std::string& type : spellings)
      for (const std::string encoding : {"raw", "gzip", "gz", "ascii", "text"})
        for (bool be : {false, true})
          for (bool detached : {false, true}) {
            INFO("type " << type << " encoding " << encoding << " big endian " << be << " detached " << detached);
            const bool text = encoding == "ascii" || encoding == "text";
            std::vector<std::uint8_t> data = text ? bytesOf(asText(raw)) : encode(raw, be);
            if (encoding == "gzip" || encoding == "gz") data = gz(data);
            std::string extra = obliqueSpaceLines() + "kinds: domain domain domain\nendian: " + (be ? "big" : "little") + "\n";
            fs::path p;
            if (detached) {
              writeBytes(dir / "t.data", data);
              p = dir / "t.nhdr";
              writeBytes(p, bytesOf(header(type, encoding, extra + "data file: t.data\n")));
            } else {
              p = dir / "t.nrrd";
              writeBytes(p, concat(bytesOf(header(type, encoding, extra + "\n")), data));
            }
            auto img = io::readNrrdImage(p.string());
            REQUIRE(img.ok());
            REQUIRE(img->size() == values.size());
            for (std::size_t i = 0; i < values.size(); ++i) CHECK(img->buffer()[i] == static_cast<float>(values[i]));
            CHECK(img->geometry().dimensions() == core::Size3{2, 3, 4});
            CHECK(img->geometry().isCloseTo(Geometry({2, 3, 4}, kSpacing, kOrigin, obliqueDirection()),
                                            core::GeometryTolerance{1e-14, 1e-12, 1e-14}));
            checkAffineClose(img->geometry(), obliqueDirection(), kSpacing, kOrigin);
            auto labels = io::readNrrdLabels(p.string());
            REQUIRE(labels.ok());
            for (std::size_t i = 0; i < values.size(); ++i) CHECK((*labels)[i] == static_cast<core::Label>(values[i]));
            CHECK(labels->geometry() == img->geometry());
            auto h = io::readNrrdHeader(p.string());
            REQUIRE(h.ok());
            CHECK(h->bigEndian == be);
            CHECK(h->dataFiles.size() == (detached ? 1u : 0u));
          }
  };
  run(std::int8_t{}, {"signed char", "int8", "int8_t"});
  run(std::uint8_t{}, {"uchar", "unsigned char", "uint8", "uint8_t"});
  run(std::int16_t{}, {"short", "short int", "signed short", "signed short int", "int16", "int16_t"});
  run(std::uint16_t{}, {"ushort", "unsigned short", "unsigned short int", "uint16", "uint16_t"});
  run(std::int32_t{}, {"int", "signed int", "int32", "int32_t"});
  run(std::uint32_t{}, {"uint", "unsigned int", "uint32", "uint32_t"});
  run(std::int64_t{}, {"longlong", "long long", "long long int", "signed long long", "signed long long int", "int64",
                       "int64_t"});
  run(std::uint64_t{}, {"ulonglong", "unsigned long long", "unsigned long long int", "uint64", "uint64_t"});
  run(float{}, {"float"});
  run(double{}, {"double"});
}

TEST_CASE("nrrd: our files read back with the identical geometry and voxels", "[nrrd]") {
  ScratchDir dir("nrrd-rt");
  Mat3 flipped = obliqueDirection();
  for (int r = 0; r < 3; ++r) flipped(r, 2) = -flipped(r, 2);
  const Mat3 directions[] = {obliqueDirection(), flipped, test::rotationMatrix(0, 0, 3.14159265358979),
                             test::rotationMatrix(1.0, 2.0, -0.7)};
  for (const Mat3& d : directions) {
    const Geometry g({7, 5, 4}, {0.7, 0.8, 2.5}, {-12.25, 30.5, 101.0}, d);
    REQUIRE(g.validate().ok());
    core::ImageVolume img = rampImage(g);
    core::ImageVolume whole = rampImage(g);
    for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<float>(static_cast<int>(i * 37 % 4000) - 1024);
    auto lv = core::Volume<core::Label>::create(g);
    REQUIRE(lv.ok());
    for (std::size_t i = 0; i < lv->size(); ++i) (*lv)[i] = static_cast<core::Label>(i * 131 % 65536);
    const core::LabelMap labels(std::move(lv).value());
    for (const std::string name : {"rt.nrrd", "rt.nhdr", "RT.NRRD"})
      for (bool gzip : {true, false}) {
        INFO(name << " gzip " << gzip);
        io::NrrdWriteOptions o;
        o.gzip = gzip;
        const std::string p = (dir / name).string();
        REQUIRE(io::writeNrrdImage(p, img, o).ok());
        auto a = io::readNrrdImage(p);
        REQUIRE(a.ok());
        CHECK(a->geometry() == g);
        CHECK(a->geometry().indexToLpsAffine() == g.indexToLpsAffine());
        CHECK(a->buffer() == img.buffer());
        CHECK(io::readNrrdHeader(p)->type == "float");
        CHECK(io::readNrrdHeader(p)->encoding == (gzip ? io::NrrdEncoding::Gzip : io::NrrdEncoding::Raw));

        REQUIRE(io::writeNrrdLabels(p, labels, o).ok());
        auto b = io::readNrrdLabels(p);
        REQUIRE(b.ok());
        CHECK(b->geometry() == g);
        CHECK(b->voxels().buffer() == labels.voxels().buffer());
        auto h = io::readNrrdHeader(p);
        REQUIRE(h.ok());
        CHECK(h->type == "uint16");
        CHECK(h->kinds == std::vector<std::string>{"domain", "domain", "domain"});
        CHECK(h->space == "left-posterior-superior");

        o.int16WhenExact = true;
        REQUIRE(io::writeNrrdImage(p, whole, o).ok());
        CHECK(io::readNrrdHeader(p)->type == "int16");
        auto c = io::readNrrdImage(p);
        REQUIRE(c.ok());
        CHECK(c->geometry() == g);
        CHECK(c->buffer() == whole.buffer());
      }
  }
  // .nhdr writes its data file beside it.
  CHECK(fs::exists(dir / "rt.raw.gz"));
  CHECK(fs::exists(dir / "rt.raw"));
  const std::string text = test::readTextFile(dir / "rt.nhdr");
  CHECK(contains(text, "data file: rt.raw\n"));
}

TEST_CASE("nrrd: a label map saved for an image lies on that image's grid exactly", "[nrrd]") {
  auto p = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  if (!p) return;
  ScratchDir dir("nrrd-labels");
  auto image = io::readNrrdImage(p->string());
  REQUIRE(image.ok());
  const Geometry oblique({9, 8, 7}, {0.55, 0.65, 1.25}, {3.3, -4.4, 5.5}, test::rotationMatrix(0.7, 0.2, -1.3));
  for (const Geometry& g : {image->geometry(), oblique}) {
    auto vol = core::Volume<core::Label>::create(g);
    REQUIRE(vol.ok());
    vol->at({5, 6, 3}) = 7;
    const std::string out = (dir / "map.nrrd").string();
    REQUIRE(io::writeNrrdLabels(out, core::LabelMap(std::move(vol).value())).ok());
    auto back = io::readNrrdLabels(out);
    REQUIRE(back.ok());
    CHECK(back->geometry().indexToLpsAffine() == g.indexToLpsAffine());
    CHECK(back->geometry() == g);
    CHECK(back->at({5, 6, 3}) == 7);
  }
}

TEST_CASE("nrrd: hand-edited space directions win over our exact-geometry key/value pairs", "[nrrd]") {
  ScratchDir dir("nrrd-hints");
  const Geometry g({2, 3, 4}, kSpacing, kOrigin, obliqueDirection());
  const std::string p = (dir / "h.nrrd").string();
  io::NrrdWriteOptions raw;
  raw.gzip = false;
  REQUIRE(io::writeNrrdImage(p, rampImage(g), raw).ok());
  std::string text = test::readTextFile(p);
  CHECK(contains(text, "delineate_spacing:=0.69999999999999996 0.80000000000000004 2.5\n"));
  const auto start = text.find("space directions: ");
  const auto end = text.find('\n', start);
  text.replace(start, end - start, "space directions: (0,0.5,0) (0,0,0.75) (2.5,0,0)");
  test::writeTextFile(p, text);
  auto h = io::readNrrdHeader(p);
  REQUIRE(h.ok());
  CHECK(h->geometry.spacingMm() == core::Vec3{0.5, 0.75, 2.5});
  CHECK(h->geometry.direction().m == std::array<double, 9>{0, 0, 1, 1, 0, 0, 0, 1, 0});
}

TEST_CASE("nrrd: RAS, LAS, scanner and time spaces are converted to LPS", "[nrrd]") {
  ScratchDir dir("nrrd-space");
  const std::vector<float> data(24, 1.0f);
  const auto bytes = encode(data, false);
  const Mat3 d = obliqueDirection();
  auto readWith = [&](const std::string& space, const core::Vec3& flip, bool time) {
    std::string lines = "space: " + space + "\nspace directions: ";
    for (int c = 0; c < 3; ++c) {
      const auto s = kSpacing[static_cast<std::size_t>(c)];
      lines += (c ? " " : "") + std::string("(") + num(flip[0] * d(0, c) * s) + "," + num(flip[1] * d(1, c) * s) + "," +
               num(flip[2] * d(2, c) * s) + (time ? ",0)" : ")");
    }
    lines += "\nspace origin: (" + num(flip[0] * kOrigin[0]) + "," + num(flip[1] * kOrigin[1]) + "," +
             num(flip[2] * kOrigin[2]) + (time ? ",0)\n" : ")\n");
    const fs::path p = dir / "s.nrrd";
    writeBytes(p, concat(bytesOf(header("float", "raw", lines + "endian: little\n\n")), bytes));
    auto h = io::readNrrdHeader(p.string());
    INFO(space);
    REQUIRE(h.ok());
    return h->geometry;
  };
  const Geometry lps = readWith("left-posterior-superior", {1, 1, 1}, false);
  CHECK(lps.isCloseTo(Geometry({2, 3, 4}, kSpacing, kOrigin, d), core::GeometryTolerance{1e-14, 1e-12, 1e-14}));
  for (const std::string s : {"LPS", "scanner-xyz", "3D-right-handed", "3D-left-handed"}) CHECK(readWith(s, {1, 1, 1}, false) == lps);
  for (const std::string s : {"right-anterior-superior", "RAS"}) CHECK(readWith(s, {-1, -1, 1}, false) == lps);
  for (const std::string s : {"left-anterior-superior", "LAS"}) CHECK(readWith(s, {1, -1, 1}, false) == lps);
  CHECK(readWith("right-anterior-superior-time", {-1, -1, 1}, true) == lps);
  CHECK(readWith("LPST", {1, 1, 1}, true) == lps);

  // Without space directions: spacings along the identity of the space, origin from space origin.
  const fs::path p = dir / "spacings.nrrd";
  writeBytes(p, concat(bytesOf(header("float", "raw", "space: RAS\nspacings: 0.5 0.25 2\nspace origin: (1,2,3)\nendian: little\n\n")), bytes));
  auto h = io::readNrrdHeader(p.string());
  REQUIRE(h.ok());
  CHECK(h->geometry.spacingMm() == core::Vec3{0.5, 0.25, 2});
  CHECK(h->geometry.originLps() == core::Vec3{-1, -2, 3});
  CHECK(h->geometry.direction().m == std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1});
  writeBytes(p, concat(bytesOf(header("float", "raw", "endian: little\n\n")), bytes));
  h = io::readNrrdHeader(p.string());
  REQUIRE(h.ok());
  CHECK(h->geometry == Geometry({2, 3, 4}, {1, 1, 1}, {0, 0, 0}));
  writeBytes(p, concat(bytesOf(header("float", "raw", "space dimension: 3\nspace directions: (0,2,0) (3,0,0) (0,0,4)\nendian: little\n\n")), bytes));
  h = io::readNrrdHeader(p.string());
  REQUIRE(h.ok());
  CHECK(h->geometry.spacingMm() == core::Vec3{2, 3, 4});
}

TEST_CASE("nrrd: 2D images are one slice, size-1 extra axes are accepted, multi-component is refused", "[nrrd]") {
  ScratchDir dir("nrrd-axes");
  const auto bytes = encode(std::vector<float>(24, 2.0f), false);
  const fs::path p = dir / "a.nrrd";

  writeBytes(p, concat(bytesOf(header("float", "raw",
                                      "space: LPS\nspace directions: (0,0.5,0) (0.25,0,0)\nspace origin: (1,2,3)\nendian: little\n\n",
                                      "4 6", "2")),
                       bytes));
  auto flat = io::readNrrdImage(p.string());
  REQUIRE(flat.ok());
  CHECK(flat->geometry().dimensions() == core::Size3{4, 6, 1});
  CHECK(flat->geometry().spacingMm() == core::Vec3{0.5, 0.25, 1});
  CHECK(flat->geometry().direction().m == std::array<double, 9>{0, 1, 0, 1, 0, 0, 0, 0, -1});  // k = i x j

  writeBytes(p, concat(bytesOf(header("float", "raw", "spacings: 0.5 0.5\nendian: little\n\n", "4 6", "2")), bytes));
  flat = io::readNrrdImage(p.string());
  REQUIRE(flat.ok());
  CHECK(flat->geometry().direction().m == Mat3::identity().m);

  // A leading list axis of size 1 (as Slicer writes single-segment files) and a trailing time axis of size 1.
  writeBytes(p, concat(bytesOf(header("float", "raw",
                                      "kinds: list domain domain domain\nspace: LPS\nspace directions: none (1,0,0) "
                                      "(0,1,0) (0,0,1)\nendian: little\n\n",
                                      "1 2 3 4", "4")),
                       bytes));
  auto four = io::readNrrdImage(p.string());
  REQUIRE(four.ok());
  CHECK(four->geometry().dimensions() == core::Size3{2, 3, 4});
  writeBytes(p, concat(bytesOf(header("float", "raw", "kinds: domain domain domain time\nendian: little\n\n", "2 3 4 1", "4")), bytes));
  four = io::readNrrdImage(p.string());
  REQUIRE(four.ok());
  CHECK(four->geometry().dimensions() == core::Size3{2, 3, 4});

  // Three segments in one file (a Slicer .seg.nrrd with overlapping segments) and a 4D time series: not volumes.
  writeBytes(p, concat(bytesOf(header("float", "raw",
                                      "kinds: list domain domain domain\nspace: LPS\nspace directions: none (1,0,0) "
                                      "(0,1,0) (0,0,1)\nendian: little\n\n",
                                      "3 2 3 4", "4")),
                       encode(std::vector<float>(72, 0.0f), false)));
  expectImageError(p, ErrorCode::Unsupported, {"axis 0", "kind 'list'", "3 values per voxel", "multi-component"});
  writeBytes(p, concat(bytesOf(header("float", "raw", "kinds: domain domain domain time\nendian: little\n\n", "2 3 2 2", "4")),
                       bytes));
  expectImageError(p, ErrorCode::Unsupported, {"axis 3", "4D images are not supported"});
  writeBytes(p, concat(bytesOf(header("float", "raw", "endian: little\n\n", "24", "1")), bytes));
  expectImageError(p, ErrorCode::Unsupported, {"1 spatial axes"});
}

TEST_CASE("nrrd: LIST and numbered data files, line skip and byte skip", "[nrrd]") {
  ScratchDir dir("nrrd-detached");
  std::vector<std::int16_t> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int16_t>(i * 3 - 20);
  auto slice = [&](int z) {
    return encode(std::vector<std::int16_t>(values.begin() + z * 6, values.begin() + z * 6 + 6), false);
  };
  auto check = [&](const fs::path& p) {
    INFO(p.string());
    auto img = io::readNrrdImage(p.string());
    REQUIRE(img.ok());
    for (std::size_t i = 0; i < values.size(); ++i) CHECK(img->buffer()[i] == static_cast<float>(values[i]));
  };
  for (int z = 0; z < 4; ++z) {
    char name[32];
    std::snprintf(name, sizeof name, "slice%03d.raw", z + 1);
    writeBytes(dir / name, slice(z));
  }
  const std::string common = "endian: little\nspacings: 1 1 1\n";
  writeBytes(dir / "list.nhdr",
             bytesOf(header("short", "raw", common + "data file: LIST\nslice001.raw\nslice002.raw\nslice003.raw\nslice004.raw\n")));
  check(dir / "list.nhdr");
  CHECK(io::readNrrdHeader((dir / "list.nhdr").string())->dataFiles.size() == 4);
  writeBytes(dir / "pattern.nhdr", bytesOf(header("short", "raw", common + "data file: slice%03d.raw 1 4 1 2\n")));
  check(dir / "pattern.nhdr");
  writeBytes(dir / "pattern-down.nhdr", bytesOf(header("short", "raw", common + "data file: ./slice%03d.raw 4 1 -1\n")));
  {
    auto img = io::readNrrdImage((dir / "pattern-down.nhdr").string());
    REQUIRE(img.ok());
    CHECK(img->at({0, 0, 0}) == static_cast<float>(values[18]));  // slice004 first
  }
  writeBytes(dir / "pattern-wrong.nhdr", bytesOf(header("short", "raw", common + "data file: slice%03d.raw 1 3 1\n")));
  expectImageError(dir / "pattern-wrong.nhdr", ErrorCode::ParseError, {"expected 4 data files", "found 3"});
  writeBytes(dir / "pattern-missing.nhdr", bytesOf(header("short", "raw", common + "data file: slice%03d.raw 2 5 1\n")));
  expectImageError(dir / "pattern-missing.nhdr", ErrorCode::NotFound, {"slice005.raw", "does not exist"});

  // Line skip (a PGM-like text header in front of the data), byte skip, byte skip -1, byte skip after gunzip.
  const auto all = encode(values, false);
  writeBytes(dir / "lines.raw", concat(bytesOf("P5\n# junk\n2 12\n"), all));
  writeBytes(dir / "lines.nhdr", bytesOf(header("short", "raw", common + "data file: lines.raw\nline skip: 3\n")));
  check(dir / "lines.nhdr");
  writeBytes(dir / "bytes.raw", concat(std::vector<std::uint8_t>(62, 0xab), all));
  writeBytes(dir / "bytes.nhdr", bytesOf(header("short", "raw", common + "data file: bytes.raw\nbyte skip: 62\n")));
  check(dir / "bytes.nhdr");
  writeBytes(dir / "tail.nhdr", bytesOf(header("short", "raw", common + "data file: bytes.raw\nbyte skip: -1\n")));
  check(dir / "tail.nhdr");
  writeBytes(dir / "skipgz.raw.gz", gz(concat(std::vector<std::uint8_t>(10, 7), all)));
  writeBytes(dir / "skipgz.nhdr", bytesOf(header("short", "gzip", common + "data file: skipgz.raw.gz\nbyte skip: 10\n")));
  check(dir / "skipgz.nhdr");
  writeBytes(dir / "attached-lines.nrrd", concat(bytesOf(header("short", "raw", common + "line skip: 2\n\nline one\nline two\n")), all));
  check(dir / "attached-lines.nrrd");
  writeBytes(dir / "tailgz.nhdr", bytesOf(header("short", "gzip", common + "data file: skipgz.raw.gz\nbyte skip: -1\n")));
  expectImageError(dir / "tailgz.nhdr", ErrorCode::ParseError, {"byte skip -1", "raw"});
  writeBytes(dir / "skiplist.nhdr", bytesOf(header("short", "raw", common + "data file: SKIPLIST\n0 a.raw\n")));
  expectImageError(dir / "skiplist.nhdr", ErrorCode::Unsupported, {"SKIPLIST"});
}

TEST_CASE("nrrd: data files outside the header's folder are refused, missing ones are NotFound", "[nrrd]") {
  ScratchDir dir("nrrd-escape");
  fs::create_directory(dir / "inner");
  const auto data = encode(std::vector<float>(24, 1.0f), false);
  writeBytes(dir / "outside.raw", data);
  writeBytes(dir / "inner" / "here.raw", data);
  const std::string common = "endian: little\n";
  auto headerWith = [&](const std::string& name, const std::string& dataFile) {
    const fs::path p = dir / "inner" / name;
    writeBytes(p, bytesOf(header("float", "raw", common + "data file: " + dataFile + "\n")));
    return p;
  };
  auto ok = io::readNrrdImage(headerWith("ok.nhdr", "here.raw").string());
  CHECK(ok.ok());
  CHECK(io::readNrrdImage(headerWith("ok2.nhdr", "./sub/../here.raw").string()).ok());

  const fs::path up = headerWith("up.nhdr", "../outside.raw");
  expectImageError(up, ErrorCode::Unsupported, {"../outside.raw", "outside the header's folder"});
  CHECK(io::readNrrdHeader(up.string()).error().code == ErrorCode::Unsupported);
  const fs::path sneaky = headerWith("sneaky.nhdr", "./x/../../outside.raw");
  expectImageError(sneaky, ErrorCode::Unsupported, {"./x/../../outside.raw", "outside"});
  const fs::path absolute = headerWith("abs.nhdr", (dir / "outside.raw").string());
  expectImageError(absolute, ErrorCode::Unsupported, {(dir / "outside.raw").string(), "absolute path"});
  const fs::path etc = headerWith("etc.nhdr", "/etc/passwd");
  expectImageError(etc, ErrorCode::Unsupported, {"/etc/passwd"});
  writeBytes(dir / "inner" / "list.nhdr",
             bytesOf(header("float", "raw", common + "data file: LIST 3\nhere.raw\n../outside.raw\n", "2 3 2")));
  expectImageError(dir / "inner" / "list.nhdr", ErrorCode::Unsupported, {"../outside.raw"});

  // A symbolic link inside the folder that points out of it.
  fs::create_symlink(dir / "outside.raw", dir / "inner" / "link.raw");
  const fs::path link = headerWith("link.nhdr", "link.raw");
  expectImageError(link, ErrorCode::Unsupported, {"link.raw", "symbolic link"});
  fs::create_directory_symlink(dir.path(), dir / "inner" / "parent");
  expectImageError(headerWith("dirlink.nhdr", "parent/outside.raw"), ErrorCode::Unsupported, {"parent/outside.raw"});

  const fs::path missing = headerWith("missing.nhdr", "nothing.raw");
  auto r = io::readNrrdImage(missing.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::NotFound, missing, {"nothing.raw", "does not exist"});
}

TEST_CASE("nrrd: malformed headers and data give errors naming the file and the reason", "[nrrd]") {
  ScratchDir dir("nrrd-bad");
  const auto data = encode(std::vector<float>(24, 1.0f), false);
  int n = 0;
  auto file = [&](const std::string& headerText, const std::vector<std::uint8_t>& body) {
    const fs::path p = dir / ("bad" + std::to_string(n++) + ".nrrd");
    writeBytes(p, concat(bytesOf(headerText), body));
    return p;
  };
  const std::string le = "endian: little\n";

  expectImageError(file("NRRD0004\ntype: float\ndimension: 3\nencoding: raw\nendian: little\n\n", data),
                   ErrorCode::ParseError, {"missing required field 'sizes'"});
  expectImageError(file("NRRD0004\ndimension: 3\nsizes: 2 3 4\nencoding: raw\nendian: little\n\n", data),
                   ErrorCode::ParseError, {"missing required field 'type'"});
  expectImageError(file("NRRD0004\ntype: float\nsizes: 2 3 4\nencoding: raw\nendian: little\n\n", data),
                   ErrorCode::ParseError, {"missing required field 'dimension'"});
  expectImageError(file("NRRD0004\ntype: float\ndimension: 3\nsizes: 2 3 4\nendian: little\n\n", data),
                   ErrorCode::ParseError, {"missing required field 'encoding'"});
  expectImageError(file(header("float", "raw", "\n"), data), ErrorCode::ParseError, {"missing required field 'endian'"});
  expectImageError(file(header("float", "raw", le + "\n", "2 3 4", "0"), data), ErrorCode::ParseError, {"dimension"});
  expectImageError(file(header("float", "raw", le + "\n", "2 3 4", "three"), data), ErrorCode::ParseError, {"dimension"});
  expectImageError(file(header("float", "raw", le + "\n", "2 3 4", "17"), data), ErrorCode::ParseError, {"1..16"});
  expectImageError(file(header("float", "raw", le + "\n", "2 3"), data), ErrorCode::ParseError,
                   {"expected 3 values", "found 2"});
  expectImageError(file(header("float", "raw", le + "\n", "2 0 4"), data), ErrorCode::InvalidGeometry,
                   {"axis 1 has size 0"});
  expectImageError(file(header("float", "raw", le + "\n", "2 -3 4"), data), ErrorCode::InvalidGeometry,
                   {"axis 1 has size -3"});
  expectImageError(file(header("float", "raw", le + "\n", "2 3 99999999999999999999"), data), ErrorCode::SizeLimit,
                   {"does not fit in 64 bits"});
  expectImageError(file(header("float", "raw", le + "\n", "4294967296 4294967296 4294967296"), data),
                   ErrorCode::SizeLimit, {"more than the limit"});
  expectImageError(file(header("float", "raw", le + "spacings: nan 1 1\n\n"), data), ErrorCode::InvalidGeometry,
                   {"spacing"});
  expectImageError(file(header("float", "raw", le + "space: LPS\nspace directions: (nan,0,0) (0,1,0) (0,0,1)\n\n"), data),
                   ErrorCode::InvalidGeometry, {"spacing"});
  expectImageError(file(header("float", "raw", le + "space: LPS\nspace directions: (1,0,0) (0.5,1,0) (0,0,1)\n\n"), data),
                   ErrorCode::InvalidGeometry, {"sheared"});
  expectImageError(file(header("float", "raw", le + "space directions: (1,0,0) (0,1,0) (0,0,1)\n\n"), data),
                   ErrorCode::ParseError, {"need a 'space'"});
  expectImageError(file(header("float", "raw", le + "space: LPS\nspace directions: (1,0,0) (0,1,0)\n\n"), data),
                   ErrorCode::ParseError, {"expected 3 vectors"});
  expectImageError(file(header("float", "raw", le + "space: LPS\nspace directions: (1,0) (0,1,0) (0,0,1)\n\n"), data),
                   ErrorCode::ParseError, {"2 coordinates"});
  expectImageError(file(header("float", "raw", le + "space: up-down-sideways\n\n"), data), ErrorCode::ParseError,
                   {"unknown space"});
  // The header declares more data than the file holds.
  expectImageError(file(header("float", "raw", le + "\n"), std::vector<std::uint8_t>(data.begin(), data.begin() + 50)),
                   ErrorCode::Corrupt, {"truncated", "expected 96 bytes", "found 50"});
  const auto packed = gz(data);
  expectImageError(file(header("float", "gzip", le + "\n"), std::vector<std::uint8_t>(packed.begin(), packed.end() - 12)),
                   ErrorCode::Corrupt, {"truncated"});
  expectImageError(file(header("float", "gzip", le + "\n"), gz(std::vector<std::uint8_t>(data.begin(), data.begin() + 40))),
                   ErrorCode::Corrupt, {"expected 96 bytes after decompression", "found 40"});
  // 2^35 bytes declared from a tiny stream: refused before allocating.
  expectImageError(file(header("uchar", "gzip", "\n", "4096 4096 2048"), gz(data)), ErrorCode::Corrupt,
                   {"can hold at most"});
  expectImageError(file(header("uchar", "raw", "\n", "4096 4096 2048"), data), ErrorCode::Corrupt,
                   {"expected 34359738368 bytes"});
  expectImageError(file(header("float", "ascii", "\n"), bytesOf("1 2 3 4 5\n")), ErrorCode::Corrupt,
                   {"expected 24 numbers"});
  expectImageError(file(header("uchar", "ascii", "\n"), bytesOf(std::string(60, '1') + " 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24")),
                   ErrorCode::ParseError, {"text value 0"});
  expectImageError(file(header("uchar", "ascii", "\n"), bytesOf("1 2 3 300 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24")),
                   ErrorCode::ParseError, {"text value 3", "'300'", "uint8"});
  expectImageError(file(header("float", "lzma", le + "\n"), data), ErrorCode::ParseError, {"unknown encoding", "lzma"});
  expectImageError(file(header("float", "bzip2", le + "\n"), data), ErrorCode::Unsupported, {"bzip2"});
  expectImageError(file(header("float", "hex", le + "\n"), data), ErrorCode::Unsupported, {"hex"});
  expectImageError(file(header("block", "raw", le + "\n"), data), ErrorCode::Unsupported, {"block"});
  expectImageError(file(header("complex", "raw", le + "\n"), data), ErrorCode::ParseError, {"unknown type"});
  expectImageError(file(header("float", "raw", "endian: middle\n\n"), data), ErrorCode::ParseError, {"endian"});
  expectImageError(file(header("float", "raw", le + "colour: red\n\n"), data), ErrorCode::ParseError, {"unknown field"});
  expectImageError(file(header("float", "raw", le + "type: float\n\n"), data), ErrorCode::ParseError, {"appears twice"});
  expectImageError(file(header("float", "raw", le + "no colon here\n\n"), data), ErrorCode::ParseError,
                   {"expected 'field: value'"});
  expectImageError(file(header("float", "raw", le + "content: " + std::string(70000, 'x') + "\n\n"), data),
                   ErrorCode::ParseError, {"longer than 65536 bytes"});
  expectImageError(file(header("float", "raw", le), {}), ErrorCode::Corrupt, {"no blank line"});
  expectImageError(file(header("float", "raw", le + "byte skip: -2\n\n"), data), ErrorCode::ParseError, {"byte skip"});
  expectImageError(file("NRRD0009\ntype: float\n\n", data), ErrorCode::Unsupported, {"NRRD0009"});
  expectImageError(file("P5\n2 3\n255\n", data), ErrorCode::ParseError, {"not a NRRD file"});
  expectImageError(file("", {}), ErrorCode::ParseError, {"not a NRRD file"});
  std::vector<std::uint8_t> binary(200000);
  std::mt19937 rng(3);
  for (auto& b : binary) b = static_cast<std::uint8_t>(rng() % 200 + 20);  // no line break anywhere
  expectImageError(file("", binary), ErrorCode::ParseError, {"not a NRRD file"});

  // The line number of the offending field is reported.
  auto r = io::readNrrdHeader(file(header("float", "raw", le + "kinds: domain domain\n\n"), data).string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().line == 8);
  CHECK(contains(r.error().describe(), ".nrrd:8: parse error: kinds: expected 3 values"));

  const fs::path missing = dir / "does-not-exist.nrrd";
  expectImageError(missing, ErrorCode::NotFound, {"cannot open"});
  fs::create_directory(dir / "folder.nrrd");
  expectImageError(dir / "folder.nrrd", ErrorCode::ReadFailed, {"not a regular file"});
}

TEST_CASE("nrrd: a gzip bomb is refused without a large allocation", "[nrrd]") {
  ScratchDir dir("nrrd-bomb");
  const std::vector<std::uint8_t> zeros(std::size_t(1) << 20, 0);
  const auto member = gz(zeros);  // ~1 KiB inflating to 1 MiB
  std::vector<std::uint8_t> bomb;
  for (int i = 0; i < 512; ++i) bomb.insert(bomb.end(), member.begin(), member.end());  // 512 MiB of zeros
  const std::string small = header("uchar", "gzip", "\n");  // declares 24 bytes
  const long before = maxRssKb();
  const fs::path p1 = dir / "bomb.nrrd";
  writeBytes(p1, concat(bytesOf(small), bomb));
  expectImageError(p1, ErrorCode::Corrupt, {"holds more than the 24 bytes"});
  // The declared data, then a second member with the bomb: the zlib path must notice too.
  const fs::path p2 = dir / "tail-bomb.nrrd";
  writeBytes(p2, concat(concat(bytesOf(small), gz(std::vector<std::uint8_t>(24, 1))), bomb));
  expectImageError(p2, ErrorCode::Corrupt, {"holds more than the 24 bytes"});
  // Declared larger, but still far below what the stream holds.
  const fs::path p3 = dir / "big-bomb.nrrd";
  writeBytes(p3, concat(bytesOf(header("uchar", "gzip", "\n", "64 64 64")), bomb));
  expectImageError(p3, ErrorCode::Corrupt, {"holds more than the 262144 bytes"});
  CHECK(maxRssKb() - before < 32 * 1024);
}

TEST_CASE("nrrd: labels refuse fractional and out-of-range values naming the voxel", "[nrrd]") {
  ScratchDir dir("nrrd-badlabels");
  std::vector<float> frac(24, 1.0f);
  frac[7] = 0.5f;  // voxel (1, 0, 1)
  const fs::path p = dir / "frac.nrrd";
  writeBytes(p, concat(bytesOf(header("float", "raw", "endian: little\n\n")), encode(frac, false)));
  auto r = io::readNrrdLabels(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::ParseError, p, {"(1, 0, 1)", "0.5", "0..65535"});
  CHECK(io::readNrrdImage(p.string()).ok());
  std::vector<std::int32_t> big(24, 65535);
  big[23] = 65536;
  writeBytes(p, concat(bytesOf(header("int", "gzip", "endian: big\n\n")), gz(encode(big, true))));
  r = io::readNrrdLabels(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::ParseError, p, {"(1, 2, 3)", "65536"});
  writeBytes(p, concat(bytesOf(header("short", "ascii", "\n")), bytesOf(asText(std::vector<std::int16_t>(24, -1)))));
  r = io::readNrrdLabels(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::ParseError, p, {"(0, 0, 0)", "-1"});
}

TEST_CASE("nrrd: failed or refused saves leave the previous file as it was", "[nrrd]") {
  ScratchDir dir("nrrd-save");
  const Geometry g({4, 4, 4}, {1, 1, 1}, {0, 0, 0});
  const fs::path target = dir / "keep.nrrd";
  REQUIRE(io::writeNrrdImage(target.string(), rampImage(g)).ok());
  const auto before = readBytes(target);
  io::NrrdWriteOptions bad;
  bad.gzipLevel = 13;
  CHECK(io::writeNrrdImage(target.string(), rampImage(g), bad).error().code == ErrorCode::InvalidArgument);
  CHECK(io::writeNrrdImage(target.string(), core::ImageVolume{}).error().code == ErrorCode::InvalidGeometry);
  CHECK(io::writeNrrdImage((dir / "wrong.nii").string(), rampImage(g)).error().code == ErrorCode::InvalidArgument);
  CHECK(io::writeNrrdImage((dir / "no-such-folder" / "x.nrrd").string(), rampImage(g)).error().code ==
        ErrorCode::WriteFailed);
  CHECK(readBytes(target) == before);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.path())) entries.push_back(e.path().filename());
  CHECK(entries == std::vector<fs::path>{"keep.nrrd"});
}

TEST_CASE("nrrd: random header and stream damage never crashes", "[nrrd]") {
  ScratchDir dir("nrrd-fuzz");
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const std::string h = header("float", "raw", obliqueSpaceLines() + "endian: little\n\n");
  const auto plain = concat(bytesOf(h), encode(values, false));
  const auto packed = concat(bytesOf(header("float", "gzip", obliqueSpaceLines() + "endian: little\n\n")),
                             gz(encode(values, false)));
  std::mt19937 rng(2024);
  const fs::path p = dir / "f.nrrd";
  for (int iter = 0; iter < 400; ++iter) {
    auto bytes = iter % 2 ? packed : plain;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<std::uint8_t>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    writeBytes(p, bytes);
    auto img = io::readNrrdImage(p.string());
    if (img.ok()) CHECK(img->size() == static_cast<std::size_t>(img->geometry().voxelCount()));
    if (!img.ok()) CHECK_FALSE(img.error().detail.empty());
    auto labels = io::readNrrdLabels(p.string());
    if (labels.ok()) CHECK(labels->size() == static_cast<std::size_t>(labels->geometry().voxelCount()));
  }
}
