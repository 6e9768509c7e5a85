#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/label_map.h"
#include "core/volume.h"
#include "io/base/atomic_file.h"
#include "io/base/gzip.h"
#include "io/volume/nifti.h"
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
using test::rampImage;
using test::readBytes;
using test::writeBytes;
using test::gz;
using test::hostBigEndian;
using test::put;
using test::encode;

namespace {

int bitsOf(int datatype) {
  switch (datatype) {
    case 2: case 256: return 8;
    case 4: case 512: return 16;
    case 8: case 16: case 768: return 32;
    case 64: case 1024: case 1280: return 64;
    default: return 0;
  }
}

// An independent NIfTI header writer, kept apart from io/volume/nifti.cpp so the tests do not share its mistakes.
// Offsets are from nifti1.h / nifti2.h.
struct Crafted {
  int version = 1;
  bool bigEndian = false;
  std::array<std::int64_t, 8> dim{3, 2, 3, 4, 1, 1, 1, 1};
  int datatype = 16;
  std::array<double, 8> pixdim{1, 1, 1, 1, 0, 0, 0, 0};
  double voxOffset = -1;  // -1: 352 (NIfTI-1) or 544 (NIfTI-2)
  double slope = 0, inter = 0;
  int qform = 0, sform = 0;
  std::array<double, 6> quatern{};  // b, c, d, qoffset x, y, z
  std::array<double, 12> srow{};
  int xyzt = 2;
  std::string magic;  // empty: the proper one

  std::vector<std::uint8_t> header() const {
    const bool be = bigEndian;
    const double off = voxOffset >= 0 ? voxOffset : (version == 1 ? 352 : 544);
    std::vector<std::uint8_t> h(static_cast<std::size_t>(std::max(off, version == 1 ? 352.0 : 544.0)), 0);
    if (version == 1) {
      put<std::int32_t>(h, 0, 348, be);
      for (std::size_t i = 0; i < 8; ++i) put<std::int16_t>(h, 40 + 2 * i, static_cast<std::int16_t>(dim[i]), be);
      put<std::int16_t>(h, 70, static_cast<std::int16_t>(datatype), be);
      put<std::int16_t>(h, 72, static_cast<std::int16_t>(bitsOf(datatype)), be);
      for (std::size_t i = 0; i < 8; ++i) put<float>(h, 76 + 4 * i, static_cast<float>(pixdim[i]), be);
      put<float>(h, 108, static_cast<float>(off), be);
      put<float>(h, 112, static_cast<float>(slope), be);
      put<float>(h, 116, static_cast<float>(inter), be);
      h[123] = static_cast<std::uint8_t>(xyzt);
      put<std::int16_t>(h, 252, static_cast<std::int16_t>(qform), be);
      put<std::int16_t>(h, 254, static_cast<std::int16_t>(sform), be);
      for (std::size_t i = 0; i < 6; ++i) put<float>(h, 256 + 4 * i, static_cast<float>(quatern[i]), be);
      for (std::size_t i = 0; i < 12; ++i) put<float>(h, 280 + 4 * i, static_cast<float>(srow[i]), be);
      const std::string m = magic.empty() ? std::string("n+1\0", 4) : magic;
      std::memcpy(h.data() + 344, m.data(), std::min<std::size_t>(4, m.size()));
    } else {
      put<std::int32_t>(h, 0, 540, be);
      const std::string m = magic.empty() ? std::string("n+2\0\r\n\032\n", 8) : magic;
      std::memcpy(h.data() + 4, m.data(), std::min<std::size_t>(8, m.size()));
      put<std::int16_t>(h, 12, static_cast<std::int16_t>(datatype), be);
      put<std::int16_t>(h, 14, static_cast<std::int16_t>(bitsOf(datatype)), be);
      for (std::size_t i = 0; i < 8; ++i) put<std::int64_t>(h, 16 + 8 * i, dim[i], be);
      for (std::size_t i = 0; i < 8; ++i) put<double>(h, 104 + 8 * i, pixdim[i], be);
      put<std::int64_t>(h, 168, static_cast<std::int64_t>(off), be);
      put<double>(h, 176, slope, be);
      put<double>(h, 184, inter, be);
      put<std::int32_t>(h, 344, qform, be);
      put<std::int32_t>(h, 348, sform, be);
      for (std::size_t i = 0; i < 6; ++i) put<double>(h, 352 + 8 * i, quatern[i], be);
      for (std::size_t i = 0; i < 12; ++i) put<double>(h, 400 + 8 * i, srow[i], be);
      put<std::int32_t>(h, 500, xyzt, be);
    }
    return h;
  }

  std::int64_t voxels() const { return dim[1] * dim[2] * dim[3]; }
};

template <class T>
fs::path writeCrafted(const ScratchDir& dir, const std::string& name, const Crafted& c, const std::vector<T>& values,
                      bool compress = false) {
  std::vector<std::uint8_t> bytes = c.header();
  const auto data = encode(values, c.bigEndian);
  bytes.insert(bytes.end(), data.begin(), data.end());
  const fs::path p = dir / name;
  writeBytes(p, compress ? gz(bytes) : bytes);
  return p;
}

Mat3 rotation(double ax, double ay, double az) { return delineate::test::rotationMatrix(ax, ay, az); }

std::vector<fs::path> folderEntries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

// Patches a little-endian int16 header field of an uncompressed NIfTI-1 file written by us.
void patchInt16(const fs::path& p, std::size_t offset, std::int16_t value) {
  auto bytes = readBytes(p);
  put(bytes, offset, value, false);
  writeBytes(p, bytes);
}

// Pseudo-random bytes, the same every run: bits (x >> shift) & mask of a linear congruential sequence from `seed`
// (compressible but not trivially, as voxel data is).
std::vector<std::uint8_t> lcgBytes(std::size_t size, std::uint32_t seed, int shift, std::uint32_t mask) {
  std::vector<std::uint8_t> out(size);
  std::uint32_t x = seed;
  for (auto& b : out) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::uint8_t>((x >> shift) & mask);
  }
  return out;
}

}  // namespace

// Expected values below were computed independently with Python's gzip + struct modules from the same files.

TEST_CASE("example_ct header: dims, type, sform and LPS geometry", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  auto h = io::readNiftiHeader(p->string());
  REQUIRE(h.ok());
  CHECK(h->version == 1);
  CHECK_FALSE(h->bigEndian);
  CHECK(h->gzipped);
  CHECK(h->dim[0] == 3);
  CHECK(h->dim[1] == 122);
  CHECK(h->dim[2] == 101);
  CHECK(h->dim[3] == 112);
  CHECK(h->datatype == 8);  // int32
  CHECK(h->bytesPerVoxel == 4);
  CHECK(h->voxOffset == 352);
  CHECK(h->dataBytes == 122 * 101 * 112 * 4);
  CHECK(h->qformCode == 0);
  CHECK(h->sformCode == 2);
  CHECK(h->sclSlope == 1.0);
  CHECK(h->transformSource == io::NiftiTransformSource::Sform);
  const std::array<double, 16> ras{3, 0, 0, -177.95632934570312, 0, 3, 0, 11.319000244140625,
                                   0, 0, 3, 94.3017578125,       0, 0, 0, 1};
  CHECK(h->affineRas == ras);
  const Geometry& g = h->geometry;
  CHECK(g.dimensions() == core::Size3{122, 101, 112});
  CHECK(g.spacingMm() == core::Vec3{3, 3, 3});
  CHECK(g.originLps() == core::Vec3{177.95632934570312, -11.319000244140625, 94.3017578125});
  CHECK(g.direction().m == std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1});
}

TEST_CASE("example_ct voxels (int32 HU) match independently computed values", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  auto img = io::readNiftiImage(p->string());
  REQUIRE(img.ok());
  REQUIRE(img->size() == 122u * 101u * 112u);
  CHECK(img->at({0, 0, 0}) == -1023.0f);
  CHECK(img->at({61, 50, 56}) == 164.0f);
  CHECK(img->at({10, 20, 30}) == -132.0f);
  CHECK(img->at({121, 100, 111}) == -997.0f);
  double sum = 0;
  float lo = 1e9f, hi = -1e9f;
  for (float v : img->buffer()) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(sum == -496851173.0);
  CHECK(lo == -1207.0f);
  CHECK(hi == 3382.0f);
  // Geometry of the volume is the header's.
  auto h = io::readNiftiHeader(p->string());
  REQUIRE(h.ok());
  CHECK(img->geometry() == h->geometry);
}

TEST_CASE("example_seg as labels: ids present and voxel counts", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  auto ctSm = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  if (!p || !ctSm) return;
  auto h = io::readNiftiHeader(p->string());
  REQUIRE(h.ok());
  CHECK(h->voxOffset == 13168);  // the file carries header extensions, which are skipped
  CHECK(h->datatype == 2);
  auto labels = io::readNiftiLabels(p->string());
  REQUIRE(labels.ok());
  CHECK(labels->geometry().dimensions() == core::Size3{122, 101, 30});
  std::map<core::Label, std::int64_t> counts;
  for (std::size_t i = 0; i < labels->size(); ++i) ++counts[(*labels)[i]];
  std::set<core::Label> ids;
  for (const auto& [id, n] : counts)
    if (id != 0) ids.insert(id);
  const std::set<core::Label> expected{1,  2,  3,  4,  5,  6,  7,   8,   9,   10,  11,  13,  14,  18,
                                       19, 20, 30, 31, 32, 33, 52,  63,  64,  79,  86,  87,  88,  89,
                                       98, 99, 100, 101, 102, 103, 110, 111, 112, 113, 114, 115, 117};
  CHECK(ids.size() == 41);
  CHECK(ids == expected);
  CHECK(counts[5] == 38634);  // liver
  CHECK(counts[1] == 9452);
  CHECK(labels->at({96, 36, 0}) == 5);
  // The segmentation lies on the grid of the image it was made from.
  auto ct = io::readNiftiHeader(ctSm->string());
  REQUIRE(ct.ok());
  CHECK(labels->geometry() == ct->geometry);
}

TEST_CASE("example_mr_sm: int16 MR stored LPS-flipped in RAS", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_mr_sm.nii.gz");
  if (!p) return;
  auto img = io::readNiftiImage(p->string());
  REQUIRE(img.ok());
  const Geometry& g = img->geometry();
  CHECK(g.dimensions() == core::Size3{117, 91, 20});
  CHECK(g.spacingMm() == core::Vec3{3, 3, 3});
  // srow_x = -3 ... 168.59963989257812 in RAS: identity direction and a negated origin in LPS.
  CHECK(g.originLps() == core::Vec3{-168.59963989257812, -166.35943603515625, 28.989641189575195});
  CHECK(g.direction().m == Mat3::identity().m);
  CHECK(img->at({58, 45, 10}) == 303.0f);
  double sum = 0;
  for (float v : img->buffer()) sum += v;
  CHECK(sum == 41238711.0);
}

TEST_CASE("mouse atlas: float32 template and float-stored labels, sform preferred over qform", "[nifti]") {
  auto tpl = sharedFile("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_1.nii.gz");
  auto lab = sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz");
  auto mask = sharedFile("data/mouse/fvb-ncrl-in-vivo/mask/FVB_NCrl_in_vivo_1.nii.gz");
  if (!tpl || !lab || !mask) return;
  auto h = io::readNiftiHeader(tpl->string());
  REQUIRE(h.ok());
  CHECK(h->qformCode == 2);
  CHECK(h->sformCode == 1);
  CHECK(h->spatialUnits == 2);
  CHECK(h->transformSource == io::NiftiTransformSource::Sform);
  auto img = io::readNiftiImage(tpl->string());
  REQUIRE(img.ok());
  const Geometry& g = img->geometry();
  CHECK(g.dimensions() == core::Size3{112, 128, 80});
  CHECK(g.spacingMm() == core::Vec3{0.14999999105930328, 0.14999999105930328, 0.15000000596046448});
  CHECK(g.originLps() == core::Vec3{-0.14999999105930328, -0.14999999105930328, 0.15000000596046448});
  CHECK(img->at({56, 64, 40}) == 12693.294921875f);

  auto labels = io::readNiftiLabels(lab->string());
  REQUIRE(labels.ok());
  CHECK(labels->geometry() == g);
  std::map<core::Label, std::int64_t> counts;
  for (std::size_t i = 0; i < labels->size(); ++i) ++counts[(*labels)[i]];
  CHECK(counts.size() == 38);  // 0 plus 37 structures (22, 30, 37 merged away)
  CHECK(counts.count(22) == 0);
  CHECK(counts.count(30) == 0);
  CHECK(counts.count(37) == 0);
  CHECK(counts.rbegin()->first == 40);
  CHECK(counts[1] == 5584);
  CHECK(labels->at({56, 64, 40}) == 7);

  auto m = io::readNiftiLabels(mask->string());
  REQUIRE(m.ok());
  std::int64_t inside = 0;
  for (std::size_t i = 0; i < m->size(); ++i) inside += (*m)[i];
  CHECK(inside == 222262);
}

TEST_CASE("qform with qfac = -1 gives the same grid as the sform it accompanies", "[nifti]") {
  // example_seg_dicom: pixdim[0] = -1, quatern (0, 1, 0), sform diag(-0.977, 0.977, 2), qform_code 0 (nibabel still
  // fills the quaternion). With qform_code 1 and sform_code 0 the reader must land on the same LPS grid via the qform.
  auto p = sharedFile("data/ct/totalseg-example/example_seg_dicom.nii.gz");
  if (!p) return;
  auto viaSform = io::readNiftiHeader(p->string());
  REQUIRE(viaSform.ok());
  CHECK(viaSform->pixdim[0] == -1.0);
  const auto packed = readBytes(*p);
  std::vector<std::uint8_t> raw(13168 + 512 * 512 * 20);
  auto r = io::gunzipInto(packed.data(), packed.size(), raw.data(), raw.size(), p->string());
  REQUIRE(r.ok());
  REQUIRE(r->bytes == raw.size());
  CHECK(viaSform->qformCode == 0);
  put<std::int16_t>(raw, 252, 1, false);
  put<std::int16_t>(raw, 254, 0, false);
  ScratchDir dir("nifti-qfac");
  writeBytes(dir / "q.nii", raw);
  auto viaQform = io::readNiftiHeader((dir / "q.nii").string());
  REQUIRE(viaQform.ok());
  CHECK(viaQform->transformSource == io::NiftiTransformSource::Qform);
  CHECK(viaQform->geometry == viaSform->geometry);
  CHECK(viaSform->geometry.direction().m == std::array<double, 9>{1, 0, 0, 0, -1, 0, 0, 0, 1});
  CHECK(viaSform->geometry.originLps() == core::Vec3{-249.51171875, 61.51171875, -804.5});
}

TEST_CASE("round trip: CT image through .nii and .nii.gz keeps voxels and the exact affine", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  auto img = io::readNiftiImage(p->string());
  REQUIRE(img.ok());
  auto original = io::readNiftiHeader(p->string());
  REQUIRE(original.ok());
  ScratchDir dir("nifti-rt");
  for (const std::string name : {"ct.nii", "ct.nii.gz", "CT.NII.GZ"}) {
    INFO(name);
    const std::string out = (dir / name).string();
    REQUIRE(io::writeNiftiImage(out, *img).ok());
    auto back = io::readNiftiImage(out);
    REQUIRE(back.ok());
    CHECK(back->buffer() == img->buffer());
    CHECK(back->geometry() == img->geometry());
    auto h = io::readNiftiHeader(out);
    REQUIRE(h.ok());
    CHECK(h->affineRas == original->affineRas);
    CHECK(h->datatype == 16);
    CHECK(h->sformCode == 1);
    CHECK(h->qformCode == 1);
    CHECK(h->gzipped == (name != "ct.nii"));
  }
  // NIfTI-2 on request: doubles in the header, same result.
  io::NiftiWriteOptions n2;
  n2.format = io::NiftiFormat::Nifti2;
  n2.gzipLevel = 1;
  const std::string out2 = (dir / "ct2.nii.gz").string();
  REQUIRE(io::writeNiftiImage(out2, *img, n2).ok());
  auto h2 = io::readNiftiHeader(out2);
  REQUIRE(h2.ok());
  CHECK(h2->version == 2);
  auto back2 = io::readNiftiImage(out2);
  REQUIRE(back2.ok());
  CHECK(back2->buffer() == img->buffer());
  CHECK(back2->geometry() == img->geometry());
}

TEST_CASE("round trip: label maps, and a map saved on an image's grid reproduces its affine", "[nifti]") {
  auto seg = sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  auto ct = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  if (!seg || !ct) return;
  ScratchDir dir("nifti-labels");
  auto labels = io::readNiftiLabels(seg->string());
  REQUIRE(labels.ok());
  for (const std::string name : {"seg.nii", "seg.nii.gz"}) {
    const std::string out = (dir / name).string();
    REQUIRE(io::writeNiftiLabels(out, *labels).ok());
    auto back = io::readNiftiLabels(out);
    REQUIRE(back.ok());
    CHECK(back->voxels().buffer() == labels->voxels().buffer());
    CHECK(back->geometry() == labels->geometry());
    auto h = io::readNiftiHeader(out);
    REQUIRE(h.ok());
    CHECK(h->datatype == 512);
    CHECK(h->intentCode == 1002);
  }

  auto image = io::readNiftiImage(ct->string());
  REQUIRE(image.ok());
  auto imageHeader = io::readNiftiHeader(ct->string());
  REQUIRE(imageHeader.ok());
  auto vol = core::Volume<core::Label>::create(image->geometry());
  REQUIRE(vol.ok());
  vol->at({10, 20, 5}) = 7;
  const std::string out = (dir / "new_map.nii.gz").string();
  REQUIRE(io::writeNiftiLabels(out, core::LabelMap(std::move(vol).value())).ok());
  auto h = io::readNiftiHeader(out);
  REQUIRE(h.ok());
  CHECK(h->affineRas == imageHeader->affineRas);
  CHECK(h->geometry == image->geometry());
  auto back = io::readNiftiLabels(out);
  REQUIRE(back.ok());
  CHECK(back->at({10, 20, 5}) == 7);
}

TEST_CASE("oblique and flipped grids: image and label map agree exactly, qform alone is close", "[nifti]") {
  ScratchDir dir("nifti-oblique");
  Mat3 flipped = rotation(0.1, -0.2, 0.3);
  for (int r = 0; r < 3; ++r) flipped(r, 2) = -flipped(r, 2);  // a left-handed grid needs qfac = -1
  const Mat3 directions[] = {rotation(0.3, -0.5, 1.1), flipped, rotation(0, 0, 3.14159265358979)};
  for (const Mat3& dirM : directions) {
    const Geometry g({7, 5, 4}, {0.7, 0.8, 2.5}, {-12.25, 30.5, 101.0}, dirM);
    REQUIRE(g.validate().ok());
    const core::ImageVolume img = rampImage(g);
    auto lv = core::Volume<core::Label>::create(g);
    REQUIRE(lv.ok());
    const std::string imgPath = (dir / "img.nii").string();
    const std::string labPath = (dir / "lab.nii.gz").string();
    REQUIRE(io::writeNiftiImage(imgPath, img).ok());
    REQUIRE(io::writeNiftiLabels(labPath, core::LabelMap(std::move(lv).value())).ok());
    auto a = io::readNiftiImage(imgPath);
    auto b = io::readNiftiLabels(labPath);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->geometry() == b->geometry());
    CHECK(a->geometry().isCloseTo(g));
    CHECK(a->buffer() == img.buffer());

    // Readers that only look at the qform (sform_code 0) land on the same grid within float precision.
    patchInt16(imgPath, 254, 0);
    auto q = io::readNiftiHeader(imgPath);
    REQUIRE(q.ok());
    CHECK(q->transformSource == io::NiftiTransformSource::Qform);
    CHECK(q->geometry.isCloseTo(g));

    // Neither transform: the ANALYZE rule, spacing from pixdim and the origin at zero.
    patchInt16(imgPath, 252, 0);
    auto legacy = io::readNiftiHeader(imgPath);
    REQUIRE(legacy.ok());
    CHECK(legacy->transformSource == io::NiftiTransformSource::PixdimOnly);
    CHECK(legacy->geometry.spacingMm()[0] == Approx(0.7));
    CHECK(legacy->geometry.spacingMm()[2] == Approx(2.5));
    CHECK(legacy->geometry.originLps() == core::Vec3{0, 0, 0});
    CHECK(legacy->geometry.direction().m == std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1});
  }
}

TEST_CASE("every supported voxel type in both byte orders and both versions, with scaling", "[nifti]") {
  ScratchDir dir("nifti-types");
  const std::vector<double> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 100};
  auto run = [&](auto tag, int datatype) {
    using T = decltype(tag);
    std::vector<T> raw;
    for (double v : values) raw.push_back(static_cast<T>(v));
    for (int version : {1, 2})
      for (bool be : {false, true})
        for (bool scaled : {false, true}) {
          INFO("datatype " << datatype << " version " << version << " bigEndian " << be << " scaled " << scaled);
          Crafted c;
          c.version = version;
          c.bigEndian = be;
          c.datatype = datatype;
          if (scaled) {
            c.slope = 2;
            c.inter = -1;
          }
          const auto p = writeCrafted(dir, "t.nii", c, raw, version == 2);
          auto img = io::readNiftiImage(p.string());
          REQUIRE(img.ok());
          REQUIRE(img->size() == values.size());
          for (std::size_t i = 0; i < values.size(); ++i)
            CHECK(img->buffer()[i] == static_cast<float>(scaled ? values[i] * 2 - 1 : values[i]));
          auto h = io::readNiftiHeader(p.string());
          REQUIRE(h.ok());
          CHECK(h->bigEndian == be);
          CHECK(h->version == version);
          auto labels = io::readNiftiLabels(p.string());
          if (scaled) {
            // value 0 scales to -1: not a label.
            REQUIRE_FALSE(labels.ok());
            CHECK(labels.error().code == ErrorCode::ParseError);
          } else {
            REQUIRE(labels.ok());
            for (std::size_t i = 0; i < values.size(); ++i) CHECK((*labels)[i] == static_cast<core::Label>(values[i]));
          }
        }
  };
  run(std::uint8_t{}, 2);
  run(std::int8_t{}, 256);
  run(std::int16_t{}, 4);
  run(std::uint16_t{}, 512);
  run(std::int32_t{}, 8);
  run(std::uint32_t{}, 768);
  run(float{}, 16);
  run(double{}, 64);
  run(std::int64_t{}, 1024);
  run(std::uint64_t{}, 1280);
}

TEST_CASE("labels: non-integer and out-of-range values are refused naming file and voxel", "[nifti]") {
  ScratchDir dir("nifti-badlabels");
  Crafted c;  // 2x3x4
  std::vector<float> frac(24, 1.0f);
  frac[7] = 0.5f;  // voxel (1, 0, 1)
  auto p = writeCrafted(dir, "frac.nii", c, frac);
  auto r = io::readNiftiLabels(p.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ParseError);
  CHECK(r.error().subject == p.string());
  CHECK(contains(r.error().detail, "(1, 0, 1)"));
  CHECK(contains(r.error().detail, "0.5"));
  // The same file is a fine image.
  CHECK(io::readNiftiImage(p.string()).ok());

  c.datatype = 4;
  std::vector<std::int16_t> negative(24, 3);
  negative[23] = -1;
  r = io::readNiftiLabels(writeCrafted(dir, "neg.nii", c, negative).string());
  REQUIRE_FALSE(r.ok());
  CHECK(contains(r.error().detail, "-1"));

  c.datatype = 8;
  std::vector<std::int32_t> big(24, 65535);
  big[0] = 65536;
  r = io::readNiftiLabels(writeCrafted(dir, "big.nii", c, big).string());
  REQUIRE_FALSE(r.ok());
  CHECK(contains(r.error().detail, "65536"));

  c.datatype = 16;
  std::vector<float> nan(24, 2.0f);
  nan[5] = std::nanf("");
  CHECK_FALSE(io::readNiftiLabels(writeCrafted(dir, "nan.nii", c, nan).string()).ok());
}

TEST_CASE("truncated and damaged files are Corrupt with expected vs found byte counts", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  ScratchDir dir("nifti-trunc");
  const auto whole = readBytes(*p);

  // Cut in half: the header still reads, the voxels do not.
  const fs::path half = dir / "half.nii.gz";
  writeBytes(half, std::vector<std::uint8_t>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 2)));
  CHECK(io::readNiftiHeader(half.string()).ok());
  auto r = io::readNiftiImage(half.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Corrupt);
  CHECK(r.error().subject == half.string());
  CHECK(contains(r.error().detail, "expected 5520608 bytes"));
  CHECK(contains(r.error().detail, "found "));
  CHECK_FALSE(io::readNiftiLabels(half.string()).ok());

  // Only the 8-byte gzip trailer missing: still refused.
  const fs::path noTrailer = dir / "notrailer.nii.gz";
  writeBytes(noTrailer, std::vector<std::uint8_t>(whole.begin(), whole.end() - 8));
  r = io::readNiftiImage(noTrailer.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Corrupt);

  // Flipped bits in the deflate stream: damaged data or a CRC mismatch, never a silent success.
  auto damaged = whole;
  for (std::size_t i = whole.size() / 3; i < whole.size() / 3 + 64; ++i) damaged[i] ^= 0x5a;
  const fs::path bad = dir / "damaged.nii.gz";
  writeBytes(bad, damaged);
  r = io::readNiftiImage(bad.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Corrupt);

  // Uncompressed .nii cut short.
  auto img = io::readNiftiImage(p->string());
  REQUIRE(img.ok());
  const fs::path raw = dir / "ct.nii";
  REQUIRE(io::writeNiftiImage(raw.string(), *img).ok());
  fs::resize_file(raw, 352 + 1000);
  r = io::readNiftiImage(raw.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Corrupt);
  CHECK(contains(r.error().detail, "expected " + std::to_string(352 + 122 * 101 * 112 * 4) + " bytes"));
  CHECK(contains(r.error().detail, "found 1352"));

  // Header only, cut inside the header.
  fs::resize_file(raw, 100);
  r = io::readNiftiImage(raw.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Corrupt);
  CHECK(contains(r.error().detail, "found 100"));
}

TEST_CASE("multi-member gzip and trailing padding are read like one stream", "[nifti]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  if (!p) return;
  auto img = io::readNiftiImage(p->string());
  REQUIRE(img.ok());
  ScratchDir dir("nifti-multi");
  const fs::path raw = dir / "ct.nii";
  REQUIRE(io::writeNiftiImage(raw.string(), *img).ok());
  const auto bytes = readBytes(raw);
  std::vector<std::uint8_t> multi;
  const std::size_t cuts[] = {0, 200, bytes.size() / 3, bytes.size()};  // the header itself spans two members
  for (int i = 0; i < 3; ++i) {
    const auto part = gz(std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(cuts[i]),
                                                   bytes.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1])));
    multi.insert(multi.end(), part.begin(), part.end());
  }
  writeBytes(dir / "multi.nii.gz", multi);
  auto back = io::readNiftiImage((dir / "multi.nii.gz").string());
  REQUIRE(back.ok());
  CHECK(back->buffer() == img->buffer());

  auto padded = gz(bytes);
  padded.insert(padded.end(), 1024, 0);
  writeBytes(dir / "padded.nii.gz", padded);
  back = io::readNiftiImage((dir / "padded.nii.gz").string());
  REQUIRE(back.ok());
  CHECK(back->buffer() == img->buffer());
}

TEST_CASE("bad headers: magic, sizes, spacing, garbage, missing files", "[nifti]") {
  ScratchDir dir("nifti-bad");
  const std::vector<float> data(24, 1.0f);
  auto expectError = [](const fs::path& p, ErrorCode code, const std::string& words = {}) {
    INFO(p.string());
    auto r = io::readNiftiImage(p.string());
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == code);
    CHECK(r.error().subject == p.string());
    if (!words.empty()) CHECK(contains(r.error().detail, words));
  };

  Crafted c;
  c.magic = "abc";
  expectError(writeCrafted(dir, "magic.nii", c, data), ErrorCode::ParseError, "magic");
  c.magic = std::string("ni1\0", 4);
  expectError(writeCrafted(dir, "pair.nii", c, data), ErrorCode::Unsupported, ".hdr/.img");
  c = Crafted{};
  c.version = 2;
  c.magic = std::string("n+2\0\n\n\032\n", 8);  // a text-mode transfer mangled it
  expectError(writeCrafted(dir, "magic2.nii", c, data), ErrorCode::ParseError, "magic");

  // 32767 x 32767 x 1024 ~ 2^40 voxels: refused from the header alone, long before any allocation.
  c = Crafted{};
  c.dim = {3, 32767, 32767, 1024, 1, 1, 1, 1};
  expectError(writeCrafted(dir, "huge.nii", c, data), ErrorCode::SizeLimit, "limit");
  expectError(writeCrafted(dir, "huge.nii.gz", c, data, true), ErrorCode::SizeLimit, "limit");
  c.version = 2;
  c.dim = {3, std::int64_t(1) << 40, std::int64_t(1) << 40, std::int64_t(1) << 40, 1, 1, 1, 1};  // overflows int64
  expectError(writeCrafted(dir, "huge2.nii", c, data), ErrorCode::SizeLimit);
  CHECK(io::readNiftiHeader((dir / "huge2.nii").string()).error().code == ErrorCode::SizeLimit);

  // Under the voxel limit (2^35 bytes of uint8) but impossible for a 1 KiB .gz: refused without allocating 32 GiB.
  c = Crafted{};
  c.datatype = 2;
  c.dim = {3, 4096, 4096, 2048, 1, 1, 1, 1};
  expectError(writeCrafted(dir, "bomb.nii.gz", c, std::vector<std::uint8_t>(1000, 0), true), ErrorCode::Corrupt,
              "can hold at most");
  // Same on an uncompressed file: the file size is checked first.
  expectError(writeCrafted(dir, "bomb.nii", c, std::vector<std::uint8_t>(1000, 0)), ErrorCode::Corrupt,
              "expected 34359738720 bytes");

  c = Crafted{};
  c.dim = {3, 2, 0, 4, 1, 1, 1, 1};
  expectError(writeCrafted(dir, "zerodim.nii", c, data), ErrorCode::InvalidGeometry, "dim[2]");
  c.dim = {0, 2, 3, 4, 1, 1, 1, 1};
  expectError(writeCrafted(dir, "dim0.nii", c, data), ErrorCode::ParseError, "dim[0]");
  c.dim = {9, 2, 3, 4, 1, 1, 1, 1};  // dim[0] beyond 7
  expectError(writeCrafted(dir, "dim9.nii", c, data), ErrorCode::ParseError, "dim[0]");
  c.dim = {3, 2, -3, 4, 1, 1, 1, 1};
  {
    auto r = io::readNiftiImage(writeCrafted(dir, "negdim.nii", c, data).string());
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().detail, "dim[2]"));
  }

  // Zero spacing by each route: sform column, qform pixdim, ANALYZE pixdim.
  c = Crafted{};
  c.sform = 1;
  c.srow = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  expectError(writeCrafted(dir, "sform0.nii", c, data), ErrorCode::InvalidGeometry, "spacing");
  c = Crafted{};
  c.qform = 1;
  c.pixdim = {1, 1, 0, 1, 0, 0, 0, 0};
  expectError(writeCrafted(dir, "qform0.nii", c, data), ErrorCode::InvalidGeometry, "spacing");
  c = Crafted{};
  c.pixdim = {1, 1, 1, 0, 0, 0, 0, 0};
  expectError(writeCrafted(dir, "analyze0.nii", c, data), ErrorCode::InvalidGeometry, "spacing");
  c.pixdim = {1, 1, 1, std::nan(""), 0, 0, 0, 0};
  expectError(writeCrafted(dir, "nanpix.nii", c, data), ErrorCode::InvalidGeometry);

  c = Crafted{};
  c.datatype = 128;  // RGB24
  expectError(writeCrafted(dir, "rgb.nii", c, std::vector<std::uint8_t>(72, 0)), ErrorCode::Unsupported, "RGB24");
  c = Crafted{};
  c.voxOffset = 200;
  expectError(writeCrafted(dir, "offset.nii", c, data), ErrorCode::Corrupt, "vox_offset");
  c.voxOffset = 352.5;
  expectError(writeCrafted(dir, "offset2.nii", c, data), ErrorCode::ParseError, "vox_offset");
  c.voxOffset = 4096;  // past the end of a file that holds only 352 + 96 bytes
  {
    auto bytes = Crafted(c).header();
    bytes.resize(352);
    const auto d = encode(data, false);
    bytes.insert(bytes.end(), d.begin(), d.end());
    writeBytes(dir / "offset3.nii", bytes);
    expectError(dir / "offset3.nii", ErrorCode::Corrupt, "expected 4192 bytes");
  }

  std::mt19937 rng(7);
  std::vector<std::uint8_t> garbage(4000);
  for (auto& b : garbage) b = static_cast<std::uint8_t>(rng());
  garbage[0] = 0x12;  // not gzip
  writeBytes(dir / "garbage.nii", garbage);
  expectError(dir / "garbage.nii", ErrorCode::ParseError, "not a NIfTI file");
  garbage[0] = 0x1f;
  garbage[1] = 0x8b;
  writeBytes(dir / "garbage.nii.gz", garbage);
  expectError(dir / "garbage.nii.gz", ErrorCode::Corrupt);
  writeBytes(dir / "tiny.nii", {1, 2, 3});
  expectError(dir / "tiny.nii", ErrorCode::Corrupt, "found 3");
  writeBytes(dir / "empty.nii.gz", {});
  expectError(dir / "empty.nii.gz", ErrorCode::Corrupt, "found 0");

  expectError(dir / "does-not-exist.nii.gz", ErrorCode::NotFound);
  fs::create_directory(dir / "folder.nii");
  expectError(dir / "folder.nii", ErrorCode::ReadFailed);
}

TEST_CASE("4D files are refused unless the extra dimensions are 1", "[nifti]") {
  ScratchDir dir("nifti-4d");
  Crafted c;
  c.dim = {4, 2, 3, 4, 3, 1, 1, 1};
  const auto p = writeCrafted(dir, "4d.nii.gz", c, std::vector<float>(72, 0.0f), true);
  auto r = io::readNiftiImage(p.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::Unsupported);
  CHECK(contains(r.error().detail, "4D images are not supported"));
  CHECK(io::readNiftiHeader(p.string()).error().code == ErrorCode::Unsupported);

  c.dim = {5, 2, 3, 4, 1, 1, 1, 1};
  auto ok = io::readNiftiImage(writeCrafted(dir, "3d-as-5d.nii", c, std::vector<float>(24, 2.0f)).string());
  REQUIRE(ok.ok());
  CHECK(ok->geometry().dimensions() == core::Size3{2, 3, 4});

  // A 2D image (dim[0] = 2) with pixdim[3] = 0 is a single slice, not a zero-spacing error.
  c.dim = {2, 4, 5, 0, 0, 0, 0, 0};
  c.pixdim = {1, 0.5, 0.5, 0, 0, 0, 0, 0};
  auto flat = io::readNiftiImage(writeCrafted(dir, "2d.nii", c, std::vector<float>(20, 1.0f)).string());
  REQUIRE(flat.ok());
  CHECK(flat->geometry().dimensions() == core::Size3{4, 5, 1});
  CHECK(flat->geometry().spacingMm()[2] == 1.0);
}

TEST_CASE("units: metres and micrometres are converted to mm", "[nifti]") {
  ScratchDir dir("nifti-units");
  Crafted c;
  c.sform = 1;
  c.srow = {0.002, 0, 0, 0.1, 0, 0.002, 0, 0.2, 0, 0, 0.004, 0.3};
  c.xyzt = 1;  // metres
  auto h = io::readNiftiHeader(writeCrafted(dir, "m.nii", c, std::vector<float>(24, 0.0f)).string());
  REQUIRE(h.ok());
  CHECK(h->geometry.spacingMm()[0] == Approx(2.0));
  CHECK(h->geometry.spacingMm()[2] == Approx(4.0));
  CHECK(h->geometry.originLps()[1] == Approx(-200.0));
  c.srow = {20, 0, 0, 0, 0, 20, 0, 0, 0, 0, 50, 1000};
  c.xyzt = 3;  // micrometres
  h = io::readNiftiHeader(writeCrafted(dir, "um.nii", c, std::vector<float>(24, 0.0f)).string());
  REQUIRE(h.ok());
  CHECK(h->geometry.spacingMm()[0] == Approx(0.02));
  CHECK(h->geometry.originLps()[2] == Approx(1.0));
}

TEST_CASE("failed saves leave the existing file byte-identical and no temporary behind", "[nifti]") {
  ScratchDir dir("nifti-save");
  const Geometry g({64, 64, 64}, {1, 1, 1}, {0, 0, 0});
  core::ImageVolume img = rampImage(g);
  std::mt19937 rng(1);
  for (auto& v : img.buffer()) v = static_cast<float>(rng());  // incompressible, so .gz is large too
  const Geometry small({4, 4, 4}, {1, 1, 1}, {0, 0, 0});
  for (const std::string name : {"keep.nii", "keep.nii.gz"}) {
    INFO(name);
    const fs::path target = dir / name;
    REQUIRE(io::writeNiftiImage(target.string(), rampImage(small)).ok());
    const auto before = readBytes(target);

    // The OS refuses mid-write (file size limit): the rename never happens.
    struct rlimit old {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    auto* oldHandler = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = old;
    lim.rlim_cur = 64 * 1024;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &lim) == 0);
    const core::Status s = io::writeNiftiImage(target.string(), img);
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, oldHandler);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::WriteFailed);
    CHECK(s.error().subject == target.string());
    CHECK(readBytes(target) == before);
    CHECK(folderEntries(dir.path()).size() == (name == "keep.nii" ? 1u : 2u));

    // Bad options fail before touching anything.
    io::NiftiWriteOptions bad;
    bad.gzipLevel = 13;
    if (name == "keep.nii.gz") CHECK(io::writeNiftiImage(target.string(), img, bad).error().code == ErrorCode::InvalidArgument);
    CHECK(readBytes(target) == before);
  }
  const auto entries = folderEntries(dir.path());
  CHECK(entries == std::vector<fs::path>{"keep.nii", "keep.nii.gz"});

  // A folder that does not exist.
  const fs::path missing = dir / "no-such-folder" / "x.nii.gz";
  auto s = io::writeNiftiImage(missing.string(), img);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::WriteFailed);
  CHECK_FALSE(fs::exists(missing));
  // A folder in the way of the target.
  fs::create_directory(dir / "taken.nii");
  CHECK(io::writeNiftiImage((dir / "taken.nii").string(), img).error().code == ErrorCode::WriteFailed);
  CHECK(fs::is_directory(dir / "taken.nii"));
  CHECK(io::writeNiftiImage((dir / "wrong.mha").string(), img).error().code == ErrorCode::InvalidArgument);
  CHECK(io::writeNiftiImage((dir / "empty.nii").string(), core::ImageVolume{}).error().code ==
        ErrorCode::InvalidGeometry);
  CHECK(folderEntries(dir.path()) == std::vector<fs::path>{"keep.nii", "keep.nii.gz", "taken.nii"});
}

TEST_CASE("AtomicFileWriter: commit replaces, discard keeps, permissions are preserved", "[nifti][atomic]") {
  ScratchDir dir("atomic");
  const fs::path target = dir / "file.bin";
  writeBytes(target, {1, 2, 3});
  ::chmod(target.c_str(), 0640);
  {
    auto w = io::AtomicFileWriter::create(target.string());
    REQUIRE(w.ok());
    REQUIRE(w->write("abcdef", 6).ok());
    CHECK(fs::exists(w->tempPath()));
    CHECK(folderEntries(dir.path()).size() == 2);
    // destroyed without commit
  }
  CHECK(readBytes(target) == std::vector<std::uint8_t>{1, 2, 3});
  CHECK(folderEntries(dir.path()).size() == 1);

  const std::string text = "new content";
  REQUIRE(io::writeFileAtomically(target.string(), text.data(), text.size()).ok());
  CHECK(test::readTextFile(target) == text);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  CHECK(folderEntries(dir.path()).size() == 1);

  auto w = io::AtomicFileWriter::create(target.string());
  REQUIRE(w.ok());
  REQUIRE(w->commit().ok());
  CHECK_FALSE(w->commit().ok());  // single use
  CHECK(fs::file_size(target) == 0);
}

TEST_CASE("gunzipInto caps output and reports truncation", "[nifti][gzip]") {
  std::vector<std::uint8_t> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>((i * 7) ^ (i >> 5));
  const auto packed = gz(data);
  std::vector<std::uint8_t> out(200000, 0xee);

  auto r = io::gunzipInto(packed.data(), packed.size(), out.data(), 1000, "t");
  REQUIRE(r.ok());
  CHECK(r->bytes == 1000);
  CHECK_FALSE(r->truncated);
  CHECK(std::equal(data.begin(), data.begin() + 1000, out.begin()));
  CHECK(out[1000] == 0xee);  // nothing written past the cap

  r = io::gunzipInto(packed.data(), packed.size(), out.data(), data.size(), "t");  // ISIZE matches: libdeflate path
  REQUIRE(r.ok());
  CHECK(r->bytes == data.size());
  CHECK(std::equal(data.begin(), data.end(), out.begin()));

  r = io::gunzipInto(packed.data(), packed.size(), out.data(), out.size(), "t");  // more room than content
  REQUIRE(r.ok());
  CHECK(r->bytes == data.size());
  CHECK_FALSE(r->truncated);

  r = io::gunzipInto(packed.data(), packed.size() / 2, out.data(), out.size(), "t");
  REQUIRE(r.ok());
  CHECK(r->truncated);
  CHECK(r->bytes < data.size());

  CHECK(io::maxInflatedSize(1000) >= 1000u * 1032u);
  CHECK_FALSE(io::gzipCompress(data.data(), data.size(), -1, "t").ok());
}

TEST_CASE("gzip of a head and a body gives the bytes of their concatenation, wherever the head ends", "[gzip]") {
  const std::vector<std::uint8_t> whole = lcgBytes((std::size_t(17) << 20) + 99, 777, 25, 0x1f);
  const std::size_t mib = std::size_t(1) << 20;
  // Heads that end inside the first member, exactly on a member boundary, inside the second member, and the whole
  // buffer as head (empty body); none (plain call).
  for (std::size_t headSize : {std::size_t(0), std::size_t(352), 8 * mib, 8 * mib + 1, whole.size()}) {
    INFO("head " << headSize);
    auto packed = io::gzipCompress(whole.data(), headSize, whole.data() + headSize, whole.size() - headSize, 3, "t");
    REQUIRE(packed.ok());
    std::vector<std::uint8_t> out(whole.size());
    auto r = io::gunzipInto(packed->data(), packed->size(), out.data(), out.size(), "t");
    REQUIRE(r.ok());
    CHECK(r->bytes == whole.size());
    CHECK(out == whole);
  }
  auto empty = io::gzipCompress(nullptr, 0, nullptr, 0, 6, "t");
  REQUIRE(empty.ok());
  std::uint8_t none = 0;
  auto r = io::gunzipInto(empty->data(), empty->size(), &none, 0, "t");
  REQUIRE(r.ok());
  CHECK(r->bytes == 0);
}

TEST_CASE("gzip streamed to a sink in batches gives the same file as the whole buffer, and a sink error ends it", "[gzip]") {
  // 41 MiB + 3: six members, more than one batch (two per worker thread) where there are fewer than three workers;
  // everywhere, the comparison checks that members come out in order.
  const std::vector<std::uint8_t> data = lcgBytes((std::size_t(41) << 20) + 3, 4242, 23, 0x3f);
  auto whole = io::gzipCompress(data.data(), 352, data.data() + 352, data.size() - 352, 4, "t");
  REQUIRE(whole.ok());
  std::vector<std::uint8_t> streamed;
  int calls = 0;
  REQUIRE(io::gzipCompressTo(data.data(), 352, data.data() + 352, data.size() - 352, 4, "t",
                             [&](const std::uint8_t* bytes, std::size_t n) {
                               ++calls;
                               streamed.insert(streamed.end(), bytes, bytes + n);
                               return core::Status::success();
                             })
              .ok());
  CHECK(calls == 6);  // one member at a time
  CHECK(streamed == *whole);
  std::vector<std::uint8_t> out(data.size());
  auto r = io::gunzipInto(streamed.data(), streamed.size(), out.data(), out.size(), "t");
  REQUIRE(r.ok());
  CHECK(out == data);
  // The sink refuses the third member (a full disk): that error, and nothing more is asked of it.
  calls = 0;
  const core::Status failed = io::gzipCompressTo(nullptr, 0, data.data(), data.size(), 4, "t", [&](const std::uint8_t*, std::size_t) {
    return ++calls == 3 ? core::Status(core::makeError(core::ErrorCode::WriteFailed, "disk", "no space left")) : core::Status::success();
  });
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().detail == "no space left");
  CHECK(calls == 3);
}

TEST_CASE("gzip of bytes appended in pieces gives the whole buffer's file, wherever the pieces end", "[gzip]") {
  // 41 MiB + 3 again: more than one staging batch on any machine (at most four members are staged).
  const std::vector<std::uint8_t> data = lcgBytes((std::size_t(41) << 20) + 3, 99, 23, 0x3f);
  auto whole = io::gzipCompress(data.data(), data.size(), 2, "t");
  REQUIRE(whole.ok());
  const std::size_t mib = std::size_t(1) << 20;
  // Pieces of one byte, of a header's 352, ending exactly on and just past member boundaries, and larger than a batch.
  const std::vector<std::vector<std::size_t>> cuts = {
      {352, 8 * mib - 352, 1, 1, 8 * mib - 2, 25 * mib + 3}, {1, 36 * mib, 5 * mib + 2}, {data.size()}};
  for (const auto& pieces : cuts) {
    std::vector<std::uint8_t> streamed;
    int members = 0;
    io::GzipStream gz(2, "t", [&](const std::uint8_t* bytes, std::size_t n) {
      ++members;
      streamed.insert(streamed.end(), bytes, bytes + n);
      return core::Status::success();
    });
    std::size_t at = 0;
    for (std::size_t n : pieces) {
      REQUIRE(gz.append(data.data() + at, n).ok());
      at += n;
    }
    REQUIRE(at == data.size());
    REQUIRE(gz.finish().ok());
    CHECK(members == 6);
    CHECK(gz.consumed() == data.size());
    CHECK(streamed == *whole);
  }
  // Nothing appended: the one empty member of the whole-buffer call.
  std::vector<std::uint8_t> empty;
  io::GzipStream none(6, "t", [&](const std::uint8_t* bytes, std::size_t n) {
    empty.insert(empty.end(), bytes, bytes + n);
    return core::Status::success();
  });
  REQUIRE(none.finish().ok());
  CHECK(empty == io::gzipCompress(nullptr, 0, 6, "t").value());
  // A bad level, and a sink that fails (a full disk): the error, then the same error for every later call.
  io::GzipStream bad(13, "subject", [](const std::uint8_t*, std::size_t) { return core::Status::success(); });
  CHECK(bad.append(data.data(), 10).error().code == core::ErrorCode::InvalidArgument);
  CHECK(bad.finish().error().code == core::ErrorCode::InvalidArgument);
  int calls = 0;
  io::GzipStream full(1, "disk", [&](const std::uint8_t*, std::size_t) {
    ++calls;
    return core::Status(core::makeError(core::ErrorCode::WriteFailed, "disk", "no space left"));
  });
  core::Status s = full.append(data.data(), data.size());
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().detail == "no space left");
  CHECK(full.append(data.data(), 1).error().detail == "no space left");
  CHECK(full.finish().error().detail == "no space left");
  CHECK(calls == 1);
}

TEST_CASE("large buffers gzip into indexed members that inflate in parallel, and damage is still caught", "[gzip]") {
  // 20 MiB + 5 bytes: three members (8 + 8 + 4 MiB and a bit).
  const std::vector<std::uint8_t> data = lcgBytes((std::size_t(20) << 20) + 5, 12345, 24, 0x0f);  // compressible but not trivial
  auto packed = io::gzipCompress(data.data(), data.size(), 6, "t");
  REQUIRE(packed.ok());
  // Three gzip members, each with the "DL" extra field.
  int members = 0;
  for (std::size_t pos = 0; pos + 24 <= packed->size();) {
    const std::uint8_t* h = packed->data() + pos;
    REQUIRE(h[0] == 0x1f);
    REQUIRE(h[1] == 0x8b);
    REQUIRE((h[3] & 0x04) != 0);
    REQUIRE(h[12] == 'D');
    REQUIRE(h[13] == 'L');
    ++members;
    pos += std::size_t(h[16]) | std::size_t(h[17]) << 8 | std::size_t(h[18]) << 16 | std::size_t(h[19]) << 24;
  }
  CHECK(members == 3);

  std::vector<std::uint8_t> out(data.size());
  auto r = io::gunzipInto(packed->data(), packed->size(), out.data(), out.size(), "t");  // parallel path
  REQUIRE(r.ok());
  CHECK(r->bytes == data.size());
  CHECK(out == data);

  // An index that lies (member size off by one) is not trusted: the ordinary path still reads every member.
  auto lying = *packed;
  lying[16] = static_cast<std::uint8_t>(lying[16] + 1);
  std::fill(out.begin(), out.end(), 0);
  r = io::gunzipInto(lying.data(), lying.size(), out.data(), out.size(), "t");
  REQUIRE(r.ok());
  CHECK(out == data);

  // A flipped bit in the second member's data fails its CRC in the parallel path and is Corrupt in the fallback.
  auto damaged = *packed;
  const std::size_t second = std::size_t(damaged[16]) | std::size_t(damaged[17]) << 8 |
                             std::size_t(damaged[18]) << 16 | std::size_t(damaged[19]) << 24;
  damaged[second + 1000] ^= 0x10;
  r = io::gunzipInto(damaged.data(), damaged.size(), out.data(), out.size(), "damaged.gz");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::Corrupt);
  CHECK(r.error().subject == "damaged.gz");
}

TEST_CASE("random header and stream damage never crashes or over-reads", "[nifti]") {
  ScratchDir dir("nifti-fuzz");
  Crafted c;
  c.sform = 1;
  c.srow = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  std::vector<std::uint8_t> plain = c.header();
  const auto data = encode(values, false);
  plain.insert(plain.end(), data.begin(), data.end());
  const auto packed = gz(plain);
  std::mt19937 rng(2024);
  const fs::path p = dir / "f.nii";
  for (int iter = 0; iter < 400; ++iter) {
    auto bytes = iter % 2 ? packed : plain;
    const std::size_t span = iter % 2 ? bytes.size() : 352;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % span] = static_cast<std::uint8_t>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    writeBytes(p, bytes);
    auto img = io::readNiftiImage(p.string());
    if (img.ok()) CHECK(img->size() == static_cast<std::size_t>(img->geometry().voxelCount()));
    auto labels = io::readNiftiLabels(p.string());
    if (labels.ok()) CHECK(labels->size() == static_cast<std::size_t>(labels->geometry().voxelCount()));
    auto h = io::readNiftiHeader(p.string());
    if (!h.ok()) CHECK_FALSE(h.error().detail.empty());
  }
}

TEST_CASE("a sheared sform falls back to the qform, and without one is refused", "[nifti]") {
  ScratchDir dir("nifti-shear");
  Crafted c;
  c.sform = 1;
  c.pixdim = {1, 2, 2, 3, 0, 0, 0, 0};
  // Gantry-tilt style shear: the k column leans 15 degrees towards j.
  c.srow = {2, 0, 0, 10, 0, 2, 3 * std::sin(0.26), 20, 0, 0, 3 * std::cos(0.26), 30};
  c.qform = 1;
  c.quatern = {0, 0, 0, 10, 20, 30};  // identity rotation at the same origin
  auto h = io::readNiftiHeader(writeCrafted(dir, "shear.nii", c, std::vector<float>(24, 0.0f)).string());
  REQUIRE(h.ok());
  CHECK(h->transformSource == io::NiftiTransformSource::Qform);
  CHECK(h->geometry.spacingMm()[2] == Approx(3.0));
  CHECK(h->geometry.originLps()[0] == Approx(-10.0));
  CHECK(h->geometry.orientationCode() == "RAS");
  c.qform = 0;
  const std::string noQform = writeCrafted(dir, "shear-only.nii", c, std::vector<float>(24, 0.0f)).string();
  auto refused = io::readNiftiImage(noQform);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::InvalidGeometry);
  CHECK(refused.error().subject == noQform);
  CHECK(contains(refused.error().detail, "sheared"));
}

TEST_CASE("a sheared sform in another space than its qform is refused rather than guessed", "[nifti]") {
  ScratchDir dir("nifti-shear-far");
  Crafted c;
  c.sform = 2;  // aligned to another scan, as a registration tool writes it
  c.pixdim = {1, 2, 2, 3, 0, 0, 0, 0};
  c.srow = {2, 0, 0, 110, 0, 2, 3 * std::sin(0.26), -40, 0, 0, 3 * std::cos(0.26), 75};
  c.qform = 1;
  c.quatern = {0, 0, 0, 10, 20, 30};  // scanner space, 100 mm away
  const std::string p = writeCrafted(dir, "registered.nii", c, std::vector<float>(24, 0.0f)).string();
  auto r = io::readNiftiHeader(p);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::InvalidGeometry);
  CHECK(r.error().subject == p);
  CHECK(contains(r.error().detail, "refusing to guess"));
}
