// Issue 22, items 4 and 5, at the io boundary: every reader of a user-given path refuses a named pipe, socket,
// device or folder before opening it (one helper, io/base/regular_file.h), and every label map read refuses an
// intensity image with the likely swap named, while real atlases pass.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/base/regular_file.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_sr.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"
#include "tests/common/special_files.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

// A reader that blocks on a pipe ends the test process by SIGALRM (a failure) instead of hanging the suite.
struct Watchdog {
  Watchdog() { ::alarm(60); }
  ~Watchdog() { ::alarm(0); }
};

template <class R>
void checkRefused(const R& result, const test::SpecialFile& s) {
  REQUIRE_FALSE(result.ok());
  INFO(result.error().describe());
  CHECK(result.error().describe().find(s.path.string()) != std::string::npos);
  CHECK(result.error().detail.find(s.kind + ", not a regular file") != std::string::npos);
}

}  // namespace

TEST_CASE("regular-file check: each kind of special file is named, a regular file passes", "[io][bad-input]") {
  Watchdog watchdog;
  ScratchDir dir("io-regular-file");
  for (const test::SpecialFile& s : test::makeSpecialFiles(dir, "")) {
    INFO(s.kind);
    checkRefused(io::checkRegularFile(s.path.string(), "image file"), s);
    checkRefused(io::openRegularFile(s.path.string(), "image file"), s);
  }
  writeTextFile(dir / "plain", "x");
  CHECK(io::checkRegularFile((dir / "plain").string(), "file").ok());
  auto fd = io::openRegularFile((dir / "plain").string(), "file");
  REQUIRE(fd.ok());
  char c = 0;
  CHECK(::read(*fd, &c, 1) == 1);  // blocking mode again, and readable
  CHECK(c == 'x');
  ::close(*fd);
  auto missing = io::checkRegularFile((dir / "absent").string(), "file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::NotFound);
}

TEST_CASE("image, label map, DICOM and label-table readers refuse special files without blocking", "[io][bad-input]") {
  Watchdog watchdog;
  ScratchDir dir("io-special-readers");
  for (const std::string ext : {".nii", ".nii.gz", ".nrrd", ".nhdr", ".mha", ".mhd"}) {
    ScratchDir sub("io-special-" + ext.substr(1));
    for (const test::SpecialFile& s : test::makeSpecialFiles(sub, ext)) {
      INFO(ext << " " << s.kind);
      checkRefused(io::readImageFile(s.path.string()), s);
      checkRefused(io::readLabelFile(s.path.string()), s);
    }
  }
  for (const test::SpecialFile& s : test::makeSpecialFiles(dir, ".dcm")) {
    INFO(s.kind);
    checkRefused(io::readDicomSeg(s.path.string()), s);
    checkRefused(io::readDicomSr(s.path.string()), s);
    checkRefused(io::readLabelTableFile(s.path), s);
    if (s.kind != "folder") checkRefused(io::indexDicomFolder(s.path.string()), s);
  }
}

TEST_CASE("DICOM indexing lists pipes and sockets in a folder as skipped, unopened", "[io][bad-input]") {
  Watchdog watchdog;
  ScratchDir dir("io-special-index");
  REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
  test::bindSocket(dir / "sock");
  fs::create_directory(dir / "sub");
  auto index = io::indexDicomFolder(dir.path().string());
  REQUIRE(index.ok());
  REQUIRE(index->skipped.size() == 2);
  CHECK(index->filesVisited == 2);
  for (const auto& s : index->skipped) {
    INFO(s.reason);
    CHECK(s.reason.find(s.path) != std::string::npos);
    CHECK(s.reason.find("not a regular file") != std::string::npos);
  }
}

TEST_CASE("label maps: an intensity image is refused with the likely swap, real atlases are read", "[io][bad-input]") {
  ScratchDir dir("io-swapped");
  const std::string swapped = io::kIntensityNotLabels;
  CHECK(swapped.find("did you swap IMAGE and LABELS?") != std::string::npos);
  const core::Geometry g({40, 30, 20}, {1, 1, 1}, {0, 0, 0}, core::Mat3::identity());

  // A float image with fractions, and one with negatives, in every format: refused by the reader.
  auto image = core::Volume<float>::create(g, 0.f);
  REQUIRE(image.ok());
  for (std::size_t i = 0; i < image->size(); ++i) image->data()[i] = float(i % 3000) * 0.37f - 900.f;
  for (const std::string name : {"ct.nii.gz", "ct.nrrd", "ct.mha"}) {
    const std::string path = (dir / name).string();
    REQUIRE(io::writeImageFile(path, *image).ok());
    auto labels = io::readLabelFile(path);
    REQUIRE_FALSE(labels.ok());
    INFO(labels.error().describe());
    CHECK(labels.error().subject == path);
    CHECK(labels.error().detail.rfind(swapped, 0) == 0);
  }

  // Whole positive numbers on most voxels with more than 1,000 distinct values: an MR, not labels.
  auto mr = core::Volume<core::Label>::create(g, 0);
  REQUIRE(mr.ok());
  for (std::size_t i = 0; i < mr->size(); ++i) (*mr)[i] = core::Label(1 + i % 1209);
  const std::string mrPath = (dir / "mr.nii.gz").string();
  REQUIRE(io::writeLabelFile(mrPath, core::LabelMap(std::move(mr).value())).ok());
  auto mrLabels = io::readLabelFile(mrPath);
  REQUIRE_FALSE(mrLabels.ok());
  CHECK(mrLabels.error().detail.rfind(swapped, 0) == 0);
  CHECK(mrLabels.error().detail.find("1209 distinct values") != std::string::npos);

  // The same 1,209 ids on a third of the voxels, or 1,000 ids on every voxel, are a label map.
  auto sparse = core::Volume<core::Label>::create(g, 0);
  auto dense = core::Volume<core::Label>::create(g, 0);
  REQUIRE((sparse.ok() && dense.ok()));
  for (std::size_t i = 0; i < sparse->size(); ++i) {
    (*sparse)[i] = i % 3 == 0 ? core::Label(1 + i / 3 % 1209) : core::Label(0);
    (*dense)[i] = core::Label(1 + i % 1000);
  }
  CHECK(io::checkLooksLikeLabelMap(core::LabelMap(std::move(sparse).value()), "sparse").ok());
  CHECK(io::checkLooksLikeLabelMap(core::LabelMap(std::move(dense).value()), "dense").ok());

  // The shared atlases and TotalSegmentator maps read as label maps.
  for (const std::string rel :
       {"data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz",
        "data/mouse/fvb-ncrl-in-vivo/mask/FVB_NCrl_in_vivo_1.nii.gz",
        "data/ct/totalseg-example/example_seg.nii.gz", "data/ct/totalseg-example/example_seg_fast.nii.gz",
        "data/ct/totalseg-example/example_seg_mr.nii.gz"}) {
    auto path = sharedFile(rel);
    if (!path) continue;
    auto labels = io::readLabelFile(path->string());
    INFO(rel << (labels.ok() ? std::string() : ": " + labels.error().describe()));
    CHECK(labels.ok());
  }
}
