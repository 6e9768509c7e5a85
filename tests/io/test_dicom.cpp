// DICOM index and series loading on the real series in ../shared/data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>
#include <numeric>

#include "io/dicom/dicom.h"
#include "io/volume/nifti.h"
#include "tests/common/test_support.h"

using namespace delineate;
using delineate::test::sharedFile;

namespace {

const io::DicomSeries& onlyImageSeries(const io::DicomIndex& index) {
  std::vector<const io::DicomSeries*> images;
  for (const auto* s : index.allSeries())
    if (s->isImage) images.push_back(s);
  REQUIRE(images.size() == 1);
  return *images.front();
}

std::vector<char> readBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

class RecordingProgress final : public core::ProgressSink {
 public:
  void report(double fraction, const std::string& stage) override {
    std::lock_guard<std::mutex> lock(m_mutex);
    fractions.push_back(fraction);
    stages.push_back(stage);
  }
  bool cancelled() const override { return false; }
  std::vector<double> fractions;
  std::vector<std::string> stages;

 private:
  std::mutex m_mutex;
};

}  // namespace

TEST_CASE("dicom: a clean CT series indexes as one regular series with the geometry its headers give") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  CHECK(index->skipped.empty());
  CHECK(index->filesVisited == 41);
  const io::DicomSeries& s = onlyImageSeries(*index);
  CHECK(s.modality == "CT");
  CHECK(s.instanceCount == 41);
  CHECK(s.slices.size() == 41);
  CHECK(s.isRegular());
  CHECK(s.issues.empty());
  CHECK(s.format.transferSyntaxUid == "1.2.840.10008.1.2.1");
  REQUIRE(s.geometry);
  const core::Geometry& g = *s.geometry;
  CHECK(g.dimensions() == core::Size3{512, 512, 41});
  CHECK(g.spacingMm()[0] == Approx(0.796875));
  CHECK(g.spacingMm()[1] == Approx(0.796875));
  CHECK(g.spacingMm()[2] == Approx(5.0));
  // Sorted along the normal (+z, superior): the first slice is the lowest one (z = -375), whatever InstanceNumber says.
  CHECK(g.originLps()[0] == Approx(-198.199997));
  CHECK(g.originLps()[1] == Approx(-204.0));
  CHECK(g.originLps()[2] == Approx(-375.0));
  CHECK(g.orientationCode() == "LPS");
  for (std::size_t k = 1; k < s.slices.size(); ++k)
    CHECK(s.slices[k].positionLps[2] == Approx(s.slices[k - 1].positionLps[2] + 5.0));
}

TEST_CASE("dicom: CT voxels are the stored pixels plus the rescale intercept, in row order") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlyImageSeries(*index);
  auto loaded = io::loadDicomSeries(s);
  REQUIRE(loaded.ok());
  const core::ImageVolume& v = loaded->image;
  // Independent of DCMTK: in these explicit little endian files the 512x512 int16 pixels are the last bytes.
  for (std::size_t k : {std::size_t(0), std::size_t(17), std::size_t(40)}) {
    const io::DicomSlice& slice = s.slices[k];
    const std::vector<char> bytes = readBytes(slice.path);
    REQUIRE(bytes.size() > 524288);
    const char* px = bytes.data() + bytes.size() - 524288;
    CHECK(slice.rescaleIntercept == Approx(-1024));
    std::int64_t mismatches = 0;
    for (int j = 0; j < 512; j += 7) {
      for (int i = 0; i < 512; i += 5) {
        std::int16_t raw;
        std::memcpy(&raw, px + 2 * (j * 512 + i), 2);
        if (v.at({i, j, std::int64_t(k)}) != float(raw) - 1024.0f) ++mismatches;
      }
    }
    CHECK(mismatches == 0);
  }
  const auto [lo, hi] = std::minmax_element(v.buffer().begin(), v.buffer().end());
  CHECK(*lo == -3024.0f);  // GE's padding value -2000 stored, -3024 HU
  CHECK(*hi > 1000.0f);    // bone
}

TEST_CASE("dicom: the JPEG 2000 series lands on the grid of its TotalSegmentator labels, organs at their HU") {
  auto dir = sharedFile("data/ct/totalseg-example/example_ct_dicom");
  auto segPath = sharedFile("data/ct/totalseg-example/example_seg_dicom.nii.gz");
  if (!dir || !segPath) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlyImageSeries(*index);
  CHECK(s.format.transferSyntaxUid == "1.2.840.10008.1.2.4.90");
  // The UIDs were blanked: grouped by folder, and said so.
  REQUIRE(!s.issues.empty());
  CHECK(s.issues.front().kind == io::SeriesIssueKind::MissingSeriesUid);
  CHECK(s.isRegular());
  auto loaded = io::loadDicomSeries(s);
  REQUIRE(loaded.ok());
  auto seg = io::readNiftiLabels(segPath->string());
  REQUIRE(seg.ok());
  const core::Geometry& gi = loaded->image.geometry();
  const core::Geometry& gs = seg->geometry();
  REQUIRE(gs.dimensions() == gi.dimensions());
  // TotalSegmentator wrote LAS; the voxel centres must coincide with ours (LPS) after mapping through patient space.
  double worst = 0;
  for (std::int64_t k : {0, 19})
    for (std::int64_t j : {0, 255, 511})
      for (std::int64_t i : {0, 300, 511}) {
        const core::Vec3 p = gs.indexToLps(core::Index3{i, j, k});
        const core::Vec3 q = gi.lpsToIndex(p);
        worst = std::max({worst, std::abs(q[0] - double(i)), std::abs(q[1] - double(511 - j)), std::abs(q[2] - double(k))});
      }
  CHECK(worst < 1e-3);

  // HU inside labelled structures: a flipped axis or wrong decoding would put these far off. The same sums taken
  // without the j flip (the mistake of ignoring the direction matrices) must not pass, or the test would prove nothing.
  auto meanHu = [&](bool flip, unsigned first, unsigned last) {
    double sum = 0, count = 0;
    const auto& d = gs.dimensions();
    for (std::int64_t k = 0; k < d[2]; ++k)
      for (std::int64_t j = 0; j < d[1]; ++j)
        for (std::int64_t i = 0; i < d[0]; ++i) {
          const unsigned l = seg->at({i, j, k});
          if (l < first || l > last) continue;
          sum += loaded->image.at({i, flip ? d[1] - 1 - j : j, k});
          count += 1;
        }
    REQUIRE(count > 100);
    return sum / count;
  };
  const double organs = meanHu(true, 1, 24);      // spleen .. kidney cysts (soft tissue)
  const double vertebrae = meanHu(true, 25, 50);  // sacrum and vertebrae
  INFO("soft-tissue organs " << organs << " HU, vertebrae " << vertebrae << " HU");
  CHECK(organs > -20);
  CHECK(organs < 150);
  CHECK(vertebrae > 150);
  CHECK(meanHu(false, 25, 50) < 100);
}

TEST_CASE("dicom: the liver SEG decodes to identical frames from every transfer syntax in the test data") {
  const char* names[] = {"liver.dcm", "liver_expb.dcm", "liver_deflate.dcm", "liver_j2k.dcm", "liver_rle.dcm"};
  std::vector<std::int32_t> reference;
  for (const char* n : names) {
    auto p = sharedFile(std::string("data/dicom-seg/pydicom-data/") + n);
    if (!p) return;
    auto frames = io::readDicomFrames(p->string());
    INFO(n);
    REQUIRE(frames.ok());
    CHECK(frames->frames == 3);
    CHECK(frames->format.bitsAllocated == 1);
    CHECK(frames->samples.size() == 3u * 512u * 512u);
    if (reference.empty()) {
      reference = frames->samples;
      CHECK(std::accumulate(reference.begin(), reference.end(), std::int64_t(0)) > 1000);
    } else {
      CHECK(frames->samples == reference);
    }
  }
  CHECK(!reference.empty());
  // Frames of 510 x 510 bits do not start on byte boundaries: each frame still holds the liver, 0/1 only.
  auto p = sharedFile("data/dicom-seg/pydicom-data/liver_nonbyte_aligned.dcm");
  if (!p) return;
  auto odd = io::readDicomFrames(p->string());
  REQUIRE(odd.ok());
  REQUIRE(odd->frames == 3);
  for (int f = 0; f < 3; ++f) {
    const auto* a = reference.data() + std::size_t(f) * 512 * 512;
    const auto* b = odd->samples.data() + std::size_t(f) * 510 * 510;
    const std::int64_t ones512 = std::accumulate(a, a + 512 * 512, std::int64_t(0));
    const std::int64_t ones510 = std::accumulate(b, b + 510 * 510, std::int64_t(0));
    CHECK(ones510 == ones512);
    CHECK(std::all_of(b, b + 510 * 510, [](std::int32_t v) { return v == 0 || v == 1; }));
  }
}

TEST_CASE("dicom: Enhanced CT takes its planes from the functional groups") {
  auto p = sharedFile("data/dicom-seg/pydicom-data/eCT_Supplemental.dcm");
  if (!p) return;
  auto index = io::indexDicomFolder(p->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlyImageSeries(*index);
  CHECK(s.instanceCount == 1);
  REQUIRE(s.slices.size() == 2);
  CHECK(s.slices[0].frame != s.slices[1].frame);
  CHECK(s.slices[0].hasPosition);
  CHECK(s.slices[0].hasOrientation);
  CHECK(s.slices[0].hasPixelSpacing);
  REQUIRE(s.geometry);
  CHECK(s.geometry->dimensions() == core::Size3{512, 512, 2});
  CHECK(s.geometry->spacingMm()[2] == Approx(10.0));
  auto loaded = io::loadDicomSeries(s);
  REQUIRE(loaded.ok());
  const auto [lo, hi] = std::minmax_element(loaded->image.buffer().begin(), loaded->image.buffer().end());
  CHECK(*lo == -1024.0f);
  CHECK(*hi > 0.0f);
}

TEST_CASE("dicom: an Enhanced MR without plane information loads with a missing-geometry issue") {
  auto p = sharedFile("data/dicom-seg/pydicom-data/emri_small.dcm");
  if (!p) return;
  auto index = io::indexDicomFolder(p->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlyImageSeries(*index);
  CHECK(s.slices.size() == 10);
  REQUIRE(!s.issues.empty());
  CHECK(std::any_of(s.issues.begin(), s.issues.end(),
                    [](const io::SeriesIssue& i) { return i.kind == io::SeriesIssueKind::MissingGeometry; }));
  auto loaded = io::loadDicomSeries(s);
  REQUIRE(loaded.ok());
  CHECK(loaded->image.geometry().dimensions() == core::Size3{64, 64, 10});
}

TEST_CASE("dicom: a 545-slice PET series applies its rescale slope slice by slice") {
  auto dir = sharedFile("data/dicom-seg/qin-headneck-pet/image");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlyImageSeries(*index);
  CHECK(s.modality == "PT");
  CHECK(s.slices.size() == 545);
  CHECK(s.isRegular());
  double minSlope = 1e300, maxSlope = 0;
  for (const auto& sl : s.slices) {
    minSlope = std::min(minSlope, sl.rescaleSlope);
    maxSlope = std::max(maxSlope, sl.rescaleSlope);
  }
  CHECK(minSlope > 1.0);  // Bq/ml from stored counts: the slope is not the identity
  CHECK(maxSlope < 1e6);
  auto loaded = io::loadDicomSeries(s);
  REQUIRE(loaded.ok());
  const auto& g = loaded->image.geometry();
  const std::size_t plane = std::size_t(g.dimensions()[0] * g.dimensions()[1]);
  for (std::size_t k : {std::size_t(0), std::size_t(300), std::size_t(544)}) {
    const auto& sl = s.slices[k];
    auto frames = io::readDicomFrames(sl.path);
    REQUIRE(frames.ok());
    double worst = 0;
    for (std::size_t v = 0; v < plane; ++v)
      worst = std::max(worst, std::abs(double(loaded->image[k * plane + v]) -
                                       (double(frames->samples[v]) * sl.rescaleSlope + sl.rescaleIntercept)));
    CHECK(worst < 1e-2);
  }
}

TEST_CASE("dicom: SEG and SR objects are listed but are not image series") {
  auto dir = sharedFile("data/dicom-seg/dcmqi/sr-example");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  int seg = 0, sr = 0;
  for (const auto* s : index->allSeries()) {
    if (s->modality == "SEG") ++seg;
    if (s->modality == "SR") ++sr;
    if (!s->isImage) {
      auto r = io::loadDicomSeries(*s);
      REQUIRE(!r.ok());
      CHECK(r.error().code == core::ErrorCode::Unsupported);
    }
  }
  CHECK(seg == 1);
  CHECK(sr == 1);
}

TEST_CASE("dicom: parallel and sequential loads are identical and report progress up to 1") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  io::DicomScanOptions one;
  one.threads = 1;
  auto index1 = io::indexDicomFolder(dir->string(), one);
  auto index8 = io::indexDicomFolder(dir->string());
  REQUIRE(index1.ok());
  REQUIRE(index8.ok());
  RecordingProgress progress;
  io::DicomLoadOptions seq;
  seq.threads = 1;
  io::DicomLoadOptions par;
  par.threads = 8;
  par.progress = &progress;
  auto a = io::loadDicomSeries(onlyImageSeries(*index1), seq);
  auto b = io::loadDicomSeries(onlyImageSeries(*index8), par);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->image.geometry() == b->image.geometry());
  CHECK(a->image.buffer() == b->image.buffer());
  REQUIRE(!progress.fractions.empty());
  CHECK(progress.fractions.back() == Approx(1.0));
  CHECK(std::is_sorted(progress.fractions.begin(), progress.fractions.end()));
  CHECK(progress.stages.front() == "read");
}

TEST_CASE("dicom: an SR filed under its CT's SeriesInstanceUID is listed apart, each named by its own modality") {
  auto dir = sharedFile("data/dicom-seg/highdicom");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  CHECK(index->skipped.empty());
  const io::DicomSeries& ct = onlyImageSeries(*index);
  CHECK(ct.modality == "CT");
  int srInCtSeries = 0;
  for (const auto* s : index->allSeries())
    if (!s->isImage && s->seriesInstanceUid == ct.seriesInstanceUid) {
      ++srInCtSeries;
      CHECK(s->modality == "SR");
      CHECK(s->key() != ct.key());
    }
  CHECK(srInCtSeries == 1);
  CHECK(io::loadDicomSeries(ct).ok());
}
