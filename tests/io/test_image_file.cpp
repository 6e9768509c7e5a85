#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/label_map.h"
#include "core/volume.h"
#include "io/volume/image_file.h"
#include "io/volume/metaimage.h"
#include "io/volume/nifti.h"
#include "io/volume/nrrd.h"
#include "tests/common/byte_support.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace delineate;
using core::ErrorCode;
using core::Geometry;
using io::ImageFileFormat;
using test::ScratchDir;
using test::sharedFile;
using test::contains;

namespace {

const char* const kAllNames[] = {"x.nii", "x.nii.gz", "x.nrrd", "x.nhdr", "x.mha", "x.mhd"};

}  // namespace

TEST_CASE("image file: the format follows the extension, case-insensitively", "[image_file]") {
  CHECK(io::imageFileFormatFromPath("a/b/ct.nii") == ImageFileFormat::Nifti);
  CHECK(io::imageFileFormatFromPath("ct.nii.gz") == ImageFileFormat::Nifti);
  CHECK(io::imageFileFormatFromPath("CT.NII.GZ") == ImageFileFormat::Nifti);
  CHECK(io::imageFileFormatFromPath("seg.nrrd") == ImageFileFormat::Nrrd);
  CHECK(io::imageFileFormatFromPath("seg.seg.nrrd") == ImageFileFormat::Nrrd);
  CHECK(io::imageFileFormatFromPath("head.NHDR") == ImageFileFormat::Nrrd);
  CHECK(io::imageFileFormatFromPath("x.mha") == ImageFileFormat::MetaImage);
  CHECK(io::imageFileFormatFromPath("x.Mhd") == ImageFileFormat::MetaImage);
  for (const std::string name : {"x.dcm", "x.nii.bak", "x.gz", "nii", "x.raw", "", "x.mha.gz", "x.nrrd/"})
    CHECK(io::imageFileFormatFromPath(name) == ImageFileFormat::Unknown);
}

TEST_CASE("image file: one list of readable extensions, for the window's dialogs and the messages", "[image_file]") {
  const auto list = io::readableImageExtensionList();
  CHECK(list.size() == 12);
  const std::string message = io::supportedImageExtensions();
  for (std::size_t i = 0; i < list.size(); ++i) {
    INFO(list[i]);
    CHECK(io::imageFileFormatFromPath("scan" + list[i]) != ImageFileFormat::Unknown);
    CHECK(message.find(list[i]) != std::string::npos);
    // Where one extension ends another (.nii in .nii.gz), the longer comes first, so taking the first match off a
    // name leaves no extension behind.
    for (std::size_t j = i + 1; j < list.size(); ++j)
      CHECK_FALSE((list[i].size() < list[j].size() && list[j].compare(list[j].size() - list[i].size(), list[i].size(), list[i]) == 0));
  }
}

TEST_CASE("image file: an unknown extension is Unsupported, naming the file and the extensions we read", "[image_file]") {
  ScratchDir dir("imagefile-unknown");
  const std::string p = (dir / "scan.dcm").string();
  test::writeTextFile(p, "not an image");
  const Geometry g({2, 2, 2}, {1, 1, 1}, {0, 0, 0});
  auto image = core::ImageVolume::create(g);
  REQUIRE(image.ok());
  auto labels = core::LabelMap::create(g);
  REQUIRE(labels.ok());
  std::vector<core::Error> errors{io::readImageFile(p).error(), io::readLabelFile(p).error(),
                                  io::writeImageFile(p, *image).error(), io::writeLabelFile(p, *labels).error()};
  for (const core::Error& e : errors) {
    INFO(e.describe());
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK(e.subject == p);
    CHECK(contains(e.describe(), ".nii, .nii.gz, .nrrd, .nhdr, .mha"));
  }
  // Reads list every readable extension (the ITK-read ones too), writes only what can be written.
  CHECK(contains(errors[0].detail, ".gipl"));
  CHECK(contains(errors[1].detail, ".vtk"));
  CHECK(contains(errors[2].detail, ".nii, .nii.gz, .nrrd, .nhdr, .mha or .mhd"));
  CHECK_FALSE(contains(errors[3].detail, ".gipl"));
  CHECK(test::readTextFile(p) == "not an image");
}

TEST_CASE("image file: example_ct through NRRD and MetaImage keeps the exact affine and voxels", "[image_file]") {
  auto p = sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  auto ct = io::readImageFile(p->string());
  REQUIRE(ct.ok());
  const auto affine = ct->geometry().indexToLpsAffine();
  ScratchDir dir("imagefile-ct");
  for (const char* name : kAllNames)
    for (bool int16 : {false, true}) {
      INFO(name << " int16 " << int16);
      io::ImageFileWriteOptions o;
      o.int16WhenExact = int16;  // CT in HU: whole numbers, stored as int16 without loss
      o.compressionLevel = 1;
      const std::string out = (dir / name).string();
      REQUIRE(io::writeImageFile(out, *ct, o).ok());
      auto back = io::readImageFile(out);
      REQUIRE(back.ok());
      CHECK(back->geometry().indexToLpsAffine() == affine);
      CHECK(back->geometry() == ct->geometry());
      CHECK(back->buffer() == ct->buffer());
    }
  // And back into NIfTI from NRRD and MetaImage files: still the original sform.
  auto original = io::readNiftiHeader(p->string());
  REQUIRE(original.ok());
  for (const char* via : {"x.nrrd", "x.mha"}) {
    auto img = io::readImageFile((dir / via).string());
    REQUIRE(img.ok());
    const std::string again = (dir / (std::string(via) + ".nii.gz")).string();
    REQUIRE(io::writeImageFile(again, *img).ok());
    auto h = io::readNiftiHeader(again);
    REQUIRE(h.ok());
    CHECK(h->affineRas == original->affineRas);
  }
}

TEST_CASE("image file: a label map saved for an image lands on its grid in every format", "[image_file]") {
  auto ctPath = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  auto mrPath = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  if (!ctPath || !mrPath) return;
  ScratchDir dir("imagefile-labels");
  auto ct = io::readImageFile(ctPath->string());
  auto mr = io::readImageFile(mrPath->string());
  REQUIRE(ct.ok());
  REQUIRE(mr.ok());
  const Geometry oblique({9, 8, 7}, {0.55, 0.65, 1.25}, {3.3, -4.4, 5.5}, test::rotationMatrix(0.7, 0.2, -1.3));
  // example_ct_sm's grid came from NIfTI-1, so its float32 affine is exact; the others are arbitrary doubles.
  const std::vector<std::pair<Geometry, bool>> grids{{ct->geometry(), true}, {mr->geometry(), false}, {oblique, false}};
  for (const auto& [g, floatExact] : grids)
    for (const char* name : kAllNames) {
      const bool nifti = io::imageFileFormatFromPath(name) == ImageFileFormat::Nifti;
      INFO(name << " grid " << g.dimensions()[0] << "x" << g.dimensions()[1] << "x" << g.dimensions()[2]);
      auto vol = core::Volume<core::Label>::create(g);
      REQUIRE(vol.ok());
      vol->at({3, 4, 5}) = 42;
      const std::string out = (dir / name).string();
      REQUIRE(io::writeLabelFile(out, core::LabelMap(std::move(vol).value())).ok());
      auto back = io::readLabelFile(out);
      REQUIRE(back.ok());
      CHECK(back->at({3, 4, 5}) == 42);
      if (nifti && !floatExact) {
        // NIfTI-1 stores the affine as float32: an arbitrary double grid comes back within float precision.
        CHECK(back->geometry().isCloseTo(g));
      } else {
        CHECK(back->geometry().indexToLpsAffine() == g.indexToLpsAffine());
        CHECK(back->geometry() == g);
      }
    }
}

TEST_CASE("image file: int16 storage is used only when lossless, in every format", "[image_file]") {
  ScratchDir dir("imagefile-int16");
  const Geometry g({5, 4, 3}, {0.5, 0.5, 2}, {-1, 2, -3}, test::rotationMatrix(0.1, 0.2, 0.3));
  auto make = [&](float special) {
    auto v = core::ImageVolume::create(g);
    REQUIRE(v.ok());
    for (std::size_t i = 0; i < v->size(); ++i) (*v)[i] = static_cast<float>(static_cast<int>(i * 547 % 65536) - 32768);
    (*v)[7] = special;
    return std::move(v).value();
  };
  struct Case {
    float special;
    bool int16;
  };
  const Case cases[] = {{-32768.0f, true}, {32767.0f, true}, {-0.0f, true}, {32768.0f, false}, {-32769.0f, false},
                        {0.5f, false},     {std::numeric_limits<float>::quiet_NaN(), false},
                        {std::numeric_limits<float>::infinity(), false}};
  for (const Case& c : cases)
    for (const char* name : kAllNames) {
      INFO(name << " special value " << c.special);
      const core::ImageVolume img = make(c.special);
      const std::string out = (dir / name).string();
      io::ImageFileWriteOptions o;
      o.int16WhenExact = true;
      REQUIRE(io::writeImageFile(out, img, o).ok());
      std::string stored;
      switch (io::imageFileFormatFromPath(name)) {
        case ImageFileFormat::Nifti: stored = io::readNiftiHeader(out)->datatype == 4 ? "int16" : "float"; break;
        case ImageFileFormat::Nrrd: stored = io::readNrrdHeader(out)->type == "int16" ? "int16" : "float"; break;
        case ImageFileFormat::MetaImage:
          stored = io::readMetaImageHeader(out)->elementType == "MET_SHORT" ? "int16" : "float";
          break;
        default: break;  // read-only and unknown formats are not in kAllNames
      }
      CHECK(stored == (c.int16 ? "int16" : "float"));
      auto back = io::readImageFile(out);
      REQUIRE(back.ok());
      for (std::size_t i = 0; i < img.size(); ++i) {
        const float a = back->buffer()[i], b = img.buffer()[i];
        if (std::isnan(b))
          CHECK(std::isnan(a));
        else
          CHECK(a == b);  // -0 reads back as +0 from int16: equal as values
      }
      // Without the option every format keeps float32.
      REQUIRE(io::writeImageFile(out, img).ok());
      if (io::imageFileFormatFromPath(name) == ImageFileFormat::Nifti) CHECK(io::readNiftiHeader(out)->datatype == 16);
    }
}

TEST_CASE("image file: MR in NRRD and CT in NIfTI cross over with their voxels", "[image_file]") {
  auto mrPath = sharedFile("data/mr/pyradiomics-mr-tumor/breast1_image.nrrd");
  if (!mrPath) return;
  ScratchDir dir("imagefile-cross");
  auto mr = io::readImageFile(mrPath->string());
  REQUIRE(mr.ok());
  const std::string nii = (dir / "mr.nii.gz").string();
  REQUIRE(io::writeImageFile(nii, *mr).ok());
  auto viaNifti = io::readImageFile(nii);
  REQUIRE(viaNifti.ok());
  CHECK(viaNifti->buffer() == mr->buffer());
  CHECK(viaNifti->geometry().isCloseTo(mr->geometry()));
  const std::string mha = (dir / "mr.mha").string();
  REQUIRE(io::writeImageFile(mha, *mr).ok());
  auto viaMeta = io::readImageFile(mha);
  REQUIRE(viaMeta.ok());
  CHECK(viaMeta->geometry() == mr->geometry());
  CHECK(viaMeta->buffer() == mr->buffer());
}

TEST_CASE("image file: reader errors name the file whatever the format", "[image_file]") {
  ScratchDir dir("imagefile-errors");
  for (const char* name : kAllNames) {
    const std::string missing = (dir / name).string();
    auto r = io::readImageFile(missing);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::NotFound);
    CHECK(r.error().subject == missing);
    test::writeTextFile(missing, "garbage\n");
    auto l = io::readLabelFile(missing);
    REQUIRE_FALSE(l.ok());
    CHECK(l.error().subject == missing);
    CHECK_FALSE(l.error().detail.empty());
  }
}
