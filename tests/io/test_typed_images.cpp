// Images in their own type (issue 27, first part): a DICOM series decoded straight into the type its values need,
// equal voxel for voxel to the float32 load; the int32 retry when a value leaves the type tried; NIfTI, NRRD and
// MetaImage written in the image's type and read back equal; volume files narrowed to the smallest exact type.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/scalar_image.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"
#include "tests/common/byte_support.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
namespace fs = std::filesystem;
using test::ScratchDir;

namespace {

const io::DicomSeries& onlySeries(const io::DicomIndex& index) {
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  return *all.front();
}

// The typed load and the float load of `dir`'s one series: the same grid, every voxel the same number.
core::ScalarType typedEqualsFloat(const fs::path& dir) {
  auto index = io::indexDicomFolder(dir.string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlySeries(*index);
  auto typed = io::loadDicomSeriesTyped(s);
  REQUIRE(typed.ok());
  auto floats = io::loadDicomSeries(s);
  REQUIRE(floats.ok());
  REQUIRE(typed->image.geometry().dimensions() == floats->image.geometry().dimensions());
  CHECK(typed->image.geometry().originLps() == floats->image.geometry().originLps());
  REQUIRE(typed->image.size() == floats->image.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < floats->image.size(); ++i) differ += typed->image.value(i) != double(floats->image[i]);
  CHECK(differ == 0);
  CHECK(typed->image.byteSize() == typed->image.size() * core::scalarTypeBytes(typed->image.type()));
  return typed->image.type();
}

// An image of type T on `g`: first + step * (i % period) at voxel i.
template <class T>
core::ScalarImage rampImage(const core::Geometry& g, T, double first, double step, std::size_t period = 0) {
  auto v = core::Volume<T>::create(g);
  REQUIRE(v.ok());
  for (std::size_t i = 0; i < v->size(); ++i) (*v)[i] = static_cast<T>(first + step * double(period ? i % period : i));
  return core::ScalarImage(std::move(*v));
}

void writeSlices(const fs::path& dir, test::CtSliceParams base, int count, const std::function<int(int, int, int)>& pixel) {
  fs::create_directories(dir);
  for (int k = 0; k < count; ++k) {
    test::CtSliceParams p = base;
    p.instanceNumber = k + 1;
    p.positionLps = {-10, 20, 2.0 * k};
    p.pixel = [k, pixel](int i, int j) { return pixel(i, j, k); };
    test::makeCtSlice(p).write(dir / ("s" + std::to_string(k + 1) + ".dcm"));
  }
}

}  // namespace

TEST_CASE("typed images: a real CT series loads as int16 HU, equal to the float32 load, at half its memory", "[dicom]") {
  auto dir = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  CHECK(typedEqualsFloat(*dir) == core::ScalarType::Int16);
}

TEST_CASE("typed images: the rescale decides the type, and a value outside the type tried loads as int32", "[dicom]") {
  ScratchDir dir("typed-dicom");
  test::CtSliceParams base;  // signed 16-bit stored values, intercept -1024: int16 is tried
  writeSlices(dir / "ct", base, 3, [](int i, int j, int k) { return 100 * k + 10 * j + i - 500; });
  CHECK(typedEqualsFloat(dir / "ct") == core::ScalarType::Int16);
  // A stored -32000 shifted by -1024 does not fit int16: read again as int32, every value exact.
  writeSlices(dir / "wide", base, 3, [](int i, int j, int k) { return k == 1 && i == 2 && j == 1 ? -32000 : 10 * j + i; });
  CHECK(typedEqualsFloat(dir / "wide") == core::ScalarType::Int32);
  // A fractional slope needs float32.
  base.rescaleSlope = 2.5;
  writeSlices(dir / "slope", base, 3, [](int i, int j, int k) { return 7 * k + j - i; });
  CHECK(typedEqualsFloat(dir / "slope") == core::ScalarType::Float32);
  // A fractional intercept too.
  base.rescaleSlope = 1;
  base.rescaleIntercept = 0.5;
  writeSlices(dir / "half", base, 3, [](int i, int j, int k) { return k + j + i; });
  CHECK(typedEqualsFloat(dir / "half") == core::ScalarType::Float32);
}

TEST_CASE("typed images: narrowed to the smallest exact type, float32 kept where values need it", "[volume]") {
  core::Geometry g({3, 2, 2}, {1, 1, 1}, {0, 0, 0});
  auto make = [&](std::vector<float> values) {
    auto v = core::ImageVolume::create(g);
    REQUIRE(v.ok());
    std::copy(values.begin(), values.end(), v->data());
    return std::move(*v);
  };
  struct Case {
    std::vector<float> values;
    core::ScalarType type;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<Case> cases = {
      {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255}, core::ScalarType::UInt8},
      {{0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255}, core::ScalarType::Int16},
      {{-1024, 3071, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32767}, core::ScalarType::Int16},
      {{0, 40000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 65535}, core::ScalarType::UInt16},
      {{0, 70000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, core::ScalarType::Float32},
      {{0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, core::ScalarType::Float32},
      {{0, nan, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, core::ScalarType::Float32},
      {{0, inf, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, core::ScalarType::Float32},
      {{-40000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, core::ScalarType::Float32},
  };
  for (const Case& c : cases) {
    auto narrowed = core::ScalarImage::narrowed(make(c.values));
    REQUIRE(narrowed.ok());
    CHECK(narrowed->type() == c.type);
    auto back = std::move(*narrowed).toFloat();
    REQUIRE(back.ok());
    for (std::size_t i = 0; i < c.values.size(); ++i) {
      INFO(i);
      if (std::isnan(c.values[i])) CHECK(std::isnan((*back)[i]));
      else CHECK((*back)[i] == c.values[i]);
    }
  }
}

TEST_CASE("typed images: NIfTI, NRRD and MetaImage store the image's type and read back its values and type", "[volume]") {
  ScratchDir dir("typed-write");
  core::Geometry g({4, 3, 2}, {0.5, 0.75, 2}, {-3, 4, 5});
  auto fill = [&](auto tag, double first, double step) { return rampImage(g, tag, first, step); };
  const std::vector<core::ScalarImage> images = {fill(std::uint8_t{}, 3, 10), fill(std::int16_t{}, -1024, 130),
                                                 fill(std::uint16_t{}, 40000, 1000), fill(std::int32_t{}, -70000, 9000),
                                                 fill(float{}, -1.25, 0.5)};
  // The element type each format names, and its size in the file: the data are the image's bytes, not float32's.
  for (const auto& image : images) {
    for (const char* ext : {".nii", ".nii.gz", ".nrrd", ".mha"}) {
      const fs::path path = dir / (std::string(core::scalarTypeName(image.type())) + ext);
      REQUIRE(io::writeImageFile(path.string(), image).ok());
      auto back = io::readImageFile(path.string());
      REQUIRE(back.ok());
      CHECK(back->geometry().dimensions() == g.dimensions());
      CHECK(back->geometry().originLps()[0] == Approx(-3));
      for (std::size_t i = 0; i < image.size(); ++i) {
        INFO(path.string() << " voxel " << i);
        CHECK(double((*back)[i]) == image.value(i));
      }
      if (std::string(ext) == ".nii") CHECK(fs::file_size(path) == 352 + image.byteSize());
      // Read back in its own type, in place (no float32 buffer), whatever the format.
      auto typed = io::readImageFileTyped(path.string());
      REQUIRE(typed.ok());
      CHECK(typed->type() == image.type());
      CHECK(typed->geometry().dimensions() == g.dimensions());
      for (std::size_t i = 0; i < image.size(); ++i) CHECK(typed->value(i) == image.value(i));
    }
  }
  const std::string nrrd = test::readTextFile(dir / "uint16.nrrd");
  CHECK(nrrd.find("type: unsigned short\n") != std::string::npos);
  CHECK(test::readTextFile(dir / "uint8.nrrd").find("type: unsigned char\n") != std::string::npos);
  CHECK(test::readTextFile(dir / "int32.mha").find("ElementType = MET_INT\n") != std::string::npos);
  CHECK(test::readTextFile(dir / "uint8.mha").find("ElementType = MET_UCHAR\n") != std::string::npos);
}

namespace {

// A series streamed slab by slab, put back together: the begin calls' types, and the slabs in the order they came.
struct Streamed {
  std::vector<core::ScalarType> begins;
  std::vector<std::int64_t> firstSlices;
  std::vector<std::uint8_t> bytes;  // of the last pass
};

core::Result<io::DicomStreamResult> streamSeries(const io::DicomSeries& s, Streamed& got, std::size_t slabBytes,
                                                 int failAtSlab = -1, const io::DicomLoadOptions& options = {}) {
  std::size_t sliceBytes = 0;
  io::DicomSlabSink sink;
  sink.begin = [&](const core::Geometry& g, core::ScalarType type) {
    got.begins.push_back(type);
    got.firstSlices.clear();
    got.bytes.clear();
    sliceBytes = std::size_t(g.dimensions()[0] * g.dimensions()[1]) * core::scalarTypeBytes(type);
    return core::Status::success();
  };
  sink.slab = [&](std::int64_t first, std::int64_t count, const void* voxels) {
    if (int(got.firstSlices.size()) == failAtSlab)
      return core::Status(core::makeError(core::ErrorCode::WriteFailed, "out.nii", "no space left"));
    got.firstSlices.push_back(first);
    const auto* p = static_cast<const std::uint8_t*>(voxels);
    got.bytes.insert(got.bytes.end(), p, p + std::size_t(count) * sliceBytes);
    return core::Status::success();
  };
  return io::streamDicomSeriesTyped(s, options, sink, slabBytes);
}

}  // namespace

TEST_CASE("typed images: a series streamed slab by slab holds the typed load's voxels, and a sink error ends it", "[dicom]") {
  auto dir = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  const io::DicomSeries& s = onlySeries(*index);
  auto typed = io::loadDicomSeriesTyped(s);
  REQUIRE(typed.ok());
  const auto* whole = static_cast<const std::uint8_t*>(typed->image.data());
  const std::vector<std::uint8_t> expected(whole, whole + typed->image.byteSize());
  CHECK(io::dicomSeriesStreamable(s));
  // Slabs of 3 slices (41 is not a multiple), of one slice, and of the whole series.
  const std::size_t slice = 512 * 512 * 2;
  for (const auto& [slabBytes, slabs] : std::vector<std::pair<std::size_t, std::size_t>>{
           {3 * slice + 7, 14}, {slice - 1, 41}, {100 * slice, 1}}) {
    INFO("slab bytes " << slabBytes);
    Streamed got;
    auto r = streamSeries(s, got, slabBytes);
    REQUIRE(r.ok());
    CHECK(r->type == core::ScalarType::Int16);
    CHECK(r->regular);
    CHECK(got.begins == std::vector<core::ScalarType>{core::ScalarType::Int16});
    REQUIRE(got.firstSlices.size() == slabs);
    CHECK(std::is_sorted(got.firstSlices.begin(), got.firstSlices.end()));
    CHECK(got.firstSlices.front() == 0);
    CHECK(got.bytes == expected);
  }
  // The sink refuses the third slab (a full disk): its error, and no slab after it.
  Streamed failed;
  auto r = streamSeries(s, failed, 3 * slice, 2);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().detail == "no space left");
  CHECK(failed.firstSlices.size() == 2);
}

TEST_CASE("typed images: a stream restarts in int32 when a value leaves int16, and a series with a gap loads whole", "[dicom]") {
  ScratchDir dir("typed-stream");
  test::CtSliceParams base;
  // The value beyond int16 lies in the last slice, so the int16 pass has already delivered slabs when it is found.
  writeSlices(dir / "wide", base, 5, [](int i, int j, int k) { return k == 4 && i == 2 && j == 1 ? -32000 : 10 * j + i + k; });
  auto index = io::indexDicomFolder((dir / "wide").string());
  REQUIRE(index.ok());
  const io::DicomSeries& wide = onlySeries(*index);
  auto typed = io::loadDicomSeriesTyped(wide);
  REQUIRE(typed.ok());
  REQUIRE(typed->image.type() == core::ScalarType::Int32);
  Streamed got;
  const std::size_t oneSlice = std::size_t(base.columns * base.rows) * 2;
  auto r = streamSeries(wide, got, oneSlice);
  REQUIRE(r.ok());
  CHECK(r->type == core::ScalarType::Int32);
  CHECK(got.begins == std::vector<core::ScalarType>{core::ScalarType::Int16, core::ScalarType::Int32});
  const auto* p = static_cast<const std::uint8_t*>(typed->image.data());
  CHECK(got.bytes == std::vector<std::uint8_t>(p, p + typed->image.byteSize()));

  // A missing middle slice: refused by the stream (allowIrregular fills it with the lowest value, known at the end).
  fs::remove(dir / "wide" / "s3.dcm");
  auto gap = io::indexDicomFolder((dir / "wide").string());
  REQUIRE(gap.ok());
  CHECK_FALSE(io::dicomSeriesStreamable(onlySeries(*gap)));
  io::DicomLoadOptions irregular;
  irregular.allowIrregular = true;
  Streamed none;
  auto refused = streamSeries(onlySeries(*gap), none, oneSlice, -1, irregular);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::Unsupported);
  CHECK(none.begins.empty());
  // Without allowIrregular the load's own refusal comes first.
  auto notRegular = streamSeries(onlySeries(*gap), none, oneSlice);
  REQUIRE_FALSE(notRegular.ok());
  CHECK(notRegular.error().code == core::ErrorCode::InvalidGeometry);
}

TEST_CASE("typed images: NIfTI and NRRD written as their voxels arrive equal the whole image's file, and publish only when complete", "[volume]") {
  ScratchDir dir("nifti-stream");
  core::Geometry g({37, 23, 11}, {0.5, 0.75, 2}, {-3, 4, 5});
  auto fill = [&](auto tag, double first, double step) { return rampImage(g, tag, first, step, 977); };
  const std::vector<core::ScalarImage> images = {fill(std::uint8_t{}, 3, 0.25), fill(std::int16_t{}, -1024, 3),
                                                 fill(std::uint16_t{}, 40000, 7), fill(std::int32_t{}, -70000, 90),
                                                 fill(float{}, -1.25, 0.5)};
  for (const auto& image : images)
    for (const char* ext : {".nii", ".nii.gz", ".nrrd", ".raw.nrrd"}) {
      const std::string name = std::string(core::scalarTypeName(image.type())) + ext;
      INFO(name);
      io::ImageFileWriteOptions options;
      options.compress = std::string(ext) != ".raw.nrrd";  // NRRD gzip and raw
      REQUIRE(io::writeImageFile((dir / ("whole-" + name)).string(), image, options).ok());
      auto w = io::ImageStreamWriter::create((dir / name).string(), g, image.type(), options);
      REQUIRE(w.ok());
      const std::size_t bytes = core::scalarTypeBytes(image.type());
      const auto* p = static_cast<const std::uint8_t*>(image.data());
      // Uneven pieces: 1 voxel, part of a row, 2 slices, the rest.
      std::size_t at = 0;
      for (std::size_t n : {std::size_t(1), std::size_t(30), std::size_t(2 * 37 * 23), image.size() - 31 - 2 * 37 * 23}) {
        REQUIRE(w->append(p + at * bytes, n).ok());
        at += n;
      }
      CHECK_FALSE(fs::exists(dir / name));  // nothing visible before commit
      REQUIRE(w->commit().ok());
      CHECK(test::readBytes(dir / name) == test::readBytes(dir / ("whole-" + name)));
    }
  // Too few voxels: refused at commit, the existing file unchanged and no temporary left; too many: refused at once.
  const core::ScalarImage& int16 = images[1];
  const fs::path keep = dir / "int16.nii.gz";
  const auto before = test::readBytes(keep);
  const auto entries = std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{});
  auto shortWriter = io::ImageStreamWriter::create(keep.string(), g, core::ScalarType::Int16);
  REQUIRE(shortWriter.ok());
  REQUIRE(shortWriter->append(int16.data(), int16.size() - 1).ok());
  const core::Status s = shortWriter->commit();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().subject == keep.string());
  CHECK(s.error().detail.find("nothing was saved") != std::string::npos);
  CHECK(test::readBytes(keep) == before);
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}) == entries);
  auto longWriter = io::ImageStreamWriter::create(keep.string(), g, core::ScalarType::Int16);
  REQUIRE(longWriter.ok());
  REQUIRE(longWriter->append(int16.data(), int16.size()).ok());
  CHECK(longWriter->append(int16.data(), 1).error().code == core::ErrorCode::InvalidArgument);
  CHECK_FALSE(longWriter->commit().ok());
  CHECK(test::readBytes(keep) == before);
  {  // dropped before commit
    auto dropped = io::ImageStreamWriter::create(keep.string(), g, core::ScalarType::Int16);
    REQUIRE(dropped.ok());
    REQUIRE(dropped->append(int16.data(), int16.size()).ok());
  }
  CHECK(test::readBytes(keep) == before);
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}) == entries);
  // Names that are written whole: a detached NRRD header, MetaImage; and a bad level before anything is created.
  CHECK_FALSE(io::imageStreamWritable((dir / "x.nhdr").string()));
  CHECK_FALSE(io::imageStreamWritable((dir / "x.mha").string()));
  CHECK(io::imageStreamWritable((dir / "X.NII.GZ").string()));
  CHECK(io::ImageStreamWriter::create((dir / "x.nhdr").string(), g, core::ScalarType::Int16).error().code ==
        core::ErrorCode::Unsupported);
  CHECK(io::ImageStreamWriter::create((dir / "x.mha").string(), g, core::ScalarType::Int16).error().code ==
        core::ErrorCode::Unsupported);
  io::ImageFileWriteOptions badLevel;
  badLevel.compressionLevel = 13;
  CHECK(io::ImageStreamWriter::create((dir / "x.nrrd").string(), g, core::ScalarType::Int16, badLevel).error().code ==
        core::ErrorCode::InvalidArgument);
  CHECK_FALSE(fs::exists(dir / "x.nrrd"));
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}) == entries);
}
