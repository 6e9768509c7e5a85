#include <catch2/catch.hpp>

#include <zlib.h>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/label_map.h"
#include "core/volume.h"
#include "io/base/gzip.h"
#include "io/volume/metaimage.h"
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
using test::hostBigEndian;
using test::encode;
using test::asText;

namespace {

// A zlib stream (RFC 1950) built independently of io/, by zlib itself.
std::vector<std::uint8_t> zlibOf(const std::vector<std::uint8_t>& raw) {
  uLongf size = compressBound(uLong(raw.size()));
  std::vector<std::uint8_t> z(size);
  REQUIRE(compress2(z.data(), &size, raw.data(), uLong(raw.size()), 6) == Z_OK);
  z.resize(size);
  return z;
}

const core::Vec3 kSpacing{0.7, 0.8, 2.5};
const core::Vec3 kOrigin{-12.25, 30.5, 101.0};
Mat3 obliqueDirection() { return test::rotationMatrix(0.3, -0.5, 1.1); }

// TransformMatrix as MetaIO writes it: the direction matrix column after column.
std::string geometryLines(const Mat3& d = obliqueDirection(), const core::Vec3& s = kSpacing, const core::Vec3& o = kOrigin) {
  std::string m;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m += (m.empty() ? "" : " ") + num(d(r, c));
  return "TransformMatrix = " + m + "\nOffset = " + num(o[0]) + " " + num(o[1]) + " " + num(o[2]) +
         "\nElementSpacing = " + num(s[0]) + " " + num(s[1]) + " " + num(s[2]) + "\n";
}

std::string mhaHeader(const std::string& type, const std::string& extra, const std::string& dataFile = "LOCAL",
                      const std::string& dims = "2 3 4", const std::string& ndims = "3") {
  return "ObjectType = Image\nNDims = " + ndims + "\n" + extra + "DimSize = " + dims + "\nElementType = " + type +
         "\nElementDataFile = " + dataFile + "\n";
}

void expectImageError(const fs::path& p, ErrorCode code, const std::vector<std::string>& words) {
  INFO(p.string());
  auto r = io::readMetaImage(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), code, p, words);
  auto l = io::readMetaImageLabels(p.string());
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().code == code);
}

long maxRssKb() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST_CASE("mha: TransformMatrix is read column by column, and our header is what ITK writes", "[mha]") {
  ScratchDir dir("mha-itk");
  // Written by ITK 5.2's MetaImageIO for an image whose i axis points along +y, j along +z and k along +x
  // (ITK direction matrix rows (0 0 1), (1 0 0), (0 1 0)), spacing 0.5 0.75 2.5, origin (1, 2, 3), int16 voxels.
  const std::string itkHeader =
      "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\nCompressedData = False\n"
      "TransformMatrix = 0 1 0 0 0 1 1 0 0\nOffset = 1 2 3\nCenterOfRotation = 0 0 0\nAnatomicalOrientation = AIR\n"
      "ElementSpacing = 0.5 0.75 2.5\nDimSize = 4 3 2\nElementType = MET_SHORT\nElementDataFile = LOCAL\n";
  std::vector<std::int16_t> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int16_t>(i * 100 - 1000);
  const fs::path p = dir / "itk.mha";
  writeBytes(p, concat(bytesOf(itkHeader), encode(values, false)));
  auto h = io::readMetaImageHeader(p.string());
  REQUIRE(h.ok());
  CHECK(h->elementType == "MET_SHORT");
  CHECK(h->local);
  CHECK(h->dataOffset == itkHeader.size());
  CHECK(h->anatomicalOrientation == "AIR");
  const Geometry& g = h->geometry;
  CHECK(g.direction().m == std::array<double, 9>{0, 0, 1, 1, 0, 0, 0, 1, 0});
  CHECK(g.indexToLps(core::Index3{1, 0, 0}) == core::Vec3{1, 2.5, 3});
  CHECK(g.indexToLps(core::Index3{0, 1, 0}) == core::Vec3{1, 2, 3.75});
  CHECK(g.indexToLps(core::Index3{0, 0, 1}) == core::Vec3{3.5, 2, 3});
  CHECK(g.orientationCode() == "PSL");
  auto img = io::readMetaImage(p.string());
  REQUIRE(img.ok());
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(img->buffer()[i] == static_cast<float>(values[i]));

  // Written back by us (int16 storage, uncompressed), the file is byte-identical to ITK's.
  io::MetaImageWriteOptions o;
  o.compress = false;
  o.int16WhenExact = true;
  const fs::path ours = dir / "ours.mha";
  REQUIRE(io::writeMetaImage(ours.string(), *img, o).ok());
  CHECK(readBytes(ours) == readBytes(p));
}

TEST_CASE("mha: every element type, binary and text, byte order and compression, local and detached", "[mha]") {
  ScratchDir dir("mha-types");
  const std::vector<double> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 100};
  const Geometry expected({2, 3, 4}, kSpacing, kOrigin, obliqueDirection());
  auto run = [&](auto tag, const std::string& type) {
    using T = decltype(tag);
    std::vector<T> raw;
    for (double v : values) raw.push_back(static_cast<T>(v));
    for (const std::string form : {"binary", "zlib", "text"})
      for (bool msb : {false, true})
        for (bool detached : {false, true}) {
          INFO(type << " " << form << " msb " << msb << " detached " << detached);
          std::vector<std::uint8_t> data;
          std::string extra = geometryLines();
          if (form == "text") {
            data = bytesOf(asText(raw));
            extra += "BinaryData = False\n";
          } else {
            data = encode(raw, msb);
            extra += std::string("BinaryData = True\n") + (msb ? "BinaryDataByteOrderMSB = True\n" : "ElementByteOrderMSB = False\n");
          }
          if (form == "zlib") {
            data = zlibOf(data);
            extra += "CompressedData = True\nCompressedDataSize = " + std::to_string(data.size()) + "\n";
          }
          fs::path p;
          if (detached) {
            writeBytes(dir / "t.zraw", data);
            p = dir / "t.mhd";
            writeBytes(p, bytesOf(mhaHeader(type, extra, "t.zraw")));
          } else {
            p = dir / "t.mha";
            writeBytes(p, concat(bytesOf(mhaHeader(type, extra)), data));
          }
          auto img = io::readMetaImage(p.string());
          REQUIRE(img.ok());
          REQUIRE(img->size() == values.size());
          for (std::size_t i = 0; i < values.size(); ++i) CHECK(img->buffer()[i] == static_cast<float>(values[i]));
          CHECK(img->geometry() == expected);
          auto labels = io::readMetaImageLabels(p.string());
          REQUIRE(labels.ok());
          for (std::size_t i = 0; i < values.size(); ++i) CHECK((*labels)[i] == static_cast<core::Label>(values[i]));
          CHECK(labels->geometry() == expected);
          auto h = io::readMetaImageHeader(p.string());
          REQUIRE(h.ok());
          CHECK(h->elementType == type);
          CHECK(h->compressed == (form == "zlib"));
          CHECK(h->local == !detached);
        }
  };
  run(std::uint8_t{}, "MET_UCHAR");
  run(std::int8_t{}, "MET_CHAR");
  run(std::uint16_t{}, "MET_USHORT");
  run(std::int16_t{}, "MET_SHORT");
  run(std::uint32_t{}, "MET_UINT");
  run(std::int32_t{}, "MET_INT");
  run(std::uint32_t{}, "MET_ULONG");  // 4 bytes in MetaIO files
  run(std::int32_t{}, "MET_LONG");
  run(std::uint64_t{}, "MET_ULONG_LONG");
  run(std::int64_t{}, "MET_LONG_LONG");
  run(float{}, "MET_FLOAT");
  run(double{}, "MET_DOUBLE");
}

TEST_CASE("mha: our files read back with the identical geometry and voxels", "[mha]") {
  ScratchDir dir("mha-rt");
  Mat3 flipped = obliqueDirection();
  for (int r = 0; r < 3; ++r) flipped(r, 2) = -flipped(r, 2);
  for (const Mat3& d : {obliqueDirection(), flipped, test::rotationMatrix(1.0, 2.0, -0.7)}) {
    const Geometry g({7, 5, 4}, {0.7, 0.8, 2.5}, {-12.25, 30.5, 101.0}, d);
    const core::ImageVolume img = rampImage(g);
    core::ImageVolume whole = rampImage(g);
    for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<float>(static_cast<int>(i * 37 % 4000) - 1024);
    auto lv = core::Volume<core::Label>::create(g);
    REQUIRE(lv.ok());
    for (std::size_t i = 0; i < lv->size(); ++i) (*lv)[i] = static_cast<core::Label>(i * 131 % 65536);
    const core::LabelMap labels(std::move(lv).value());
    for (const std::string name : {"rt.mha", "rt.mhd", "RT.MHA"})
      for (bool compress : {true, false}) {
        INFO(name << " compress " << compress);
        io::MetaImageWriteOptions o;
        o.compress = compress;
        const std::string p = (dir / name).string();
        REQUIRE(io::writeMetaImage(p, img, o).ok());
        auto a = io::readMetaImage(p);
        REQUIRE(a.ok());
        CHECK(a->geometry() == g);
        CHECK(a->geometry().indexToLpsAffine() == g.indexToLpsAffine());
        CHECK(a->buffer() == img.buffer());
        CHECK(io::readMetaImageHeader(p)->elementType == "MET_FLOAT");
        REQUIRE(io::writeMetaImageLabels(p, labels, o).ok());
        auto b = io::readMetaImageLabels(p);
        REQUIRE(b.ok());
        CHECK(b->geometry() == g);
        CHECK(b->voxels().buffer() == labels.voxels().buffer());
        auto h = io::readMetaImageHeader(p);
        REQUIRE(h.ok());
        CHECK(h->elementType == "MET_USHORT");
        CHECK(h->compressed == compress);
        o.int16WhenExact = true;
        REQUIRE(io::writeMetaImage(p, whole, o).ok());
        CHECK(io::readMetaImageHeader(p)->elementType == "MET_SHORT");
        auto c = io::readMetaImage(p);
        REQUIRE(c.ok());
        CHECK(c->geometry() == g);
        CHECK(c->buffer() == whole.buffer());
        o.int16WhenExact = true;  // not whole numbers: stays float
        REQUIRE(io::writeMetaImage(p, img, o).ok());
        CHECK(io::readMetaImageHeader(p)->elementType == "MET_FLOAT");
      }
  }
  CHECK(fs::exists(dir / "rt.zraw"));
  CHECK(fs::exists(dir / "rt.raw"));
  CHECK(contains(test::readTextFile(dir / "rt.mhd"), "ElementDataFile = rt.raw\n"));

  // A label map saved for a real image's grid lies on that grid exactly.
  auto brain = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  if (!brain) return;
  const Geometry g({256, 256, 25}, {0.78124999999999989, 0.78124999999999989, 6.4999999999999982},
                   {-99.609374999999986, 99.609374999999986, -77.999999999999957},
                   Mat3{{1, 0, 0, 0, -1, 0, 0, 0, 1}});
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  REQUIRE(io::writeMetaImageLabels((dir / "map.mha").string(), *map).ok());
  auto back = io::readMetaImageLabels((dir / "map.mha").string());
  REQUIRE(back.ok());
  CHECK(back->geometry().indexToLpsAffine() == g.indexToLpsAffine());
}

TEST_CASE("mha: HeaderSize, data at the end, implicit compressed size, 2D, synonyms and extra keys", "[mha]") {
  ScratchDir dir("mha-layout");
  std::vector<std::int16_t> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int16_t>(i * 7 - 50);
  const auto data = encode(values, false);
  auto check = [&](const fs::path& p) {
    INFO(p.string());
    auto img = io::readMetaImage(p.string());
    REQUIRE(img.ok());
    for (std::size_t i = 0; i < values.size(); ++i) CHECK(img->buffer()[i] == static_cast<float>(values[i]));
    return img.ok() ? img->geometry() : Geometry{};
  };
  writeBytes(dir / "skip.raw", concat(std::vector<std::uint8_t>(100, 0xee), data));
  writeBytes(dir / "skip.mhd", bytesOf(mhaHeader("MET_SHORT", "HeaderSize = 100\n", "skip.raw")));
  check(dir / "skip.mhd");
  writeBytes(dir / "end.mhd", bytesOf(mhaHeader("MET_SHORT", "HeaderSize = -1\n", "skip.raw")));
  check(dir / "end.mhd");
  const std::string localHeader = mhaHeader("MET_SHORT", "HeaderSize = -1\n");
  writeBytes(dir / "end.mha", concat(concat(bytesOf(localHeader), std::vector<std::uint8_t>(7, 1)), data));
  check(dir / "end.mha");
  writeBytes(dir / "zskip.zraw", concat(std::vector<std::uint8_t>(10, 0xee), zlibOf(data)));
  writeBytes(dir / "zskip.mhd", bytesOf(mhaHeader("MET_SHORT", "CompressedData = True\nHeaderSize = 10\n", "zskip.zraw")));
  check(dir / "zskip.mhd");
  writeBytes(dir / "nosize.mha", concat(bytesOf(mhaHeader("MET_SHORT", "CompressedData = True\n")), zlibOf(data)));
  check(dir / "nosize.mha");
  writeBytes(dir / "crlf.mha", concat(bytesOf("ObjectType = Image\r\nNDims = 3\r\nDimSize = 2 3 4\r\nElementType = MET_SHORT\r\n"
                                              "ElementDataFile = Local\r\n"),
                                      data));
  check(dir / "crlf.mha");
  const std::string synonyms =
      "Comment = written by hand\nModality = MET_MOD_CT\nITK_InputFilterName = MetaImageIO\nPosition = 1 2 3\n"
      "Orientation = 0 1 0 -1 0 0 0 0 1\nElementSize = 9 9 9\nElementSpacing = 2 2 2\nElementNumberOfChannels = 1\n";
  writeBytes(dir / "synonyms.mha", concat(bytesOf(mhaHeader("MET_SHORT", synonyms)), data));
  const Geometry g = check(dir / "synonyms.mha");
  CHECK(g.originLps() == core::Vec3{1, 2, 3});
  CHECK(g.spacingMm() == core::Vec3{2, 2, 2});
  CHECK(g.direction().m == std::array<double, 9>{0, -1, 0, 1, 0, 0, 0, 0, 1});
  writeBytes(dir / "flat.mha",
             concat(bytesOf(mhaHeader("MET_SHORT", "TransformMatrix = 0 1 1 0\nOffset = 5 6\nElementSpacing = 0.5 0.25\n",
                                      "LOCAL", "4 6", "2")),
                    data));
  const Geometry flat = check(dir / "flat.mha");
  CHECK(flat.dimensions() == core::Size3{4, 6, 1});
  CHECK(flat.direction().m == std::array<double, 9>{0, 1, 0, 1, 0, 0, 0, 0, 1});
  CHECK(flat.originLps() == core::Vec3{5, 6, 0});
  CHECK(flat.spacingMm() == core::Vec3{0.5, 0.25, 1});
  writeBytes(dir / "four.mha", concat(bytesOf(mhaHeader("MET_SHORT", "", "LOCAL", "2 3 4 1", "4")), data));
  CHECK(check(dir / "four.mha").dimensions() == core::Size3{2, 3, 4});
}

TEST_CASE("mha: data files outside the header's folder are refused, missing ones are NotFound", "[mha]") {
  ScratchDir dir("mha-escape");
  fs::create_directory(dir / "inner");
  const auto data = encode(std::vector<float>(24, 1.0f), false);
  writeBytes(dir / "x.raw", data);
  writeBytes(dir / "inner" / "here.raw", data);
  auto headerWith = [&](const std::string& name, const std::string& dataFile) {
    const fs::path p = dir / "inner" / name;
    writeBytes(p, bytesOf(mhaHeader("MET_FLOAT", "", dataFile)));
    return p;
  };
  CHECK(io::readMetaImage(headerWith("ok.mhd", "here.raw").string()).ok());
  expectImageError(headerWith("up.mhd", "../x.raw"), ErrorCode::Unsupported, {"../x.raw", "outside the header's folder"});
  expectImageError(headerWith("abs.mhd", (dir / "x.raw").string()), ErrorCode::Unsupported, {"absolute path"});
  fs::create_symlink(dir / "x.raw", dir / "inner" / "link.raw");
  expectImageError(headerWith("link.mhd", "link.raw"), ErrorCode::Unsupported, {"link.raw", "symbolic link"});
  const fs::path missing = headerWith("missing.mhd", "nothing.raw");
  expectImageError(missing, ErrorCode::NotFound, {"nothing.raw", "does not exist"});
  expectImageError(headerWith("list.mhd", "LIST 2D"), ErrorCode::Unsupported, {"LIST"});
  expectImageError(headerWith("pattern.mhd", "slice%03d.raw 1 4 1"), ErrorCode::Unsupported, {"numbered"});
}

TEST_CASE("mha: malformed headers and data give errors naming the file and the reason", "[mha]") {
  ScratchDir dir("mha-bad");
  const auto data = encode(std::vector<float>(24, 1.0f), false);
  int n = 0;
  auto file = [&](const std::string& headerText, const std::vector<std::uint8_t>& body) {
    const fs::path p = dir / ("bad" + std::to_string(n++) + ".mha");
    writeBytes(p, concat(bytesOf(headerText), body));
    return p;
  };
  expectImageError(file("ObjectType = Image\nDimSize = 2 3 4\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n", data),
                   ErrorCode::ParseError, {"missing required field 'NDims'"});
  expectImageError(file("NDims = 3\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n", data), ErrorCode::ParseError,
                   {"missing required field 'DimSize'"});
  expectImageError(file("NDims = 3\nDimSize = 2 3 4\nElementDataFile = LOCAL\n", data), ErrorCode::ParseError,
                   {"missing required field 'ElementType'"});
  expectImageError(file("NDims = 3\nDimSize = 2 3 4\nElementType = MET_FLOAT\n", {}), ErrorCode::ParseError,
                   {"missing required field 'ElementDataFile'"});
  expectImageError(file("NDims = 3\nDimSize = 2 3 4\nElementType = MET_FLOAT\n", data), ErrorCode::ParseError,
                   {"binary data", "no 'ElementDataFile' line"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 3 4", "0"), data), ErrorCode::ParseError, {"NDims"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 3 4", "eleven"), data), ErrorCode::ParseError, {"NDims"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "24", "1"), data), ErrorCode::Unsupported, {"1D"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 3"), data), ErrorCode::ParseError, {"expected 3 sizes"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 0 4"), data), ErrorCode::InvalidGeometry,
                   {"axis 1 has size 0"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "-2 3 4"), data), ErrorCode::InvalidGeometry,
                   {"axis 0 has size -2"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 3 18446744073709551617"), data), ErrorCode::SizeLimit,
                   {"does not fit in 64 bits"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "4294967296 4294967296 4294967296"), data),
                   ErrorCode::SizeLimit, {"more than the limit"});
  expectImageError(file(mhaHeader("MET_FLOAT", "", "LOCAL", "2 3 4 2", "4"), data), ErrorCode::Unsupported,
                   {"more than 3 dimensions"});
  expectImageError(file(mhaHeader("MET_FLOAT", "ElementSpacing = 1 nan 1\n"), data), ErrorCode::InvalidGeometry,
                   {"spacing 1"});
  expectImageError(file(mhaHeader("MET_FLOAT", "ElementSpacing = 1 0 1\n"), data), ErrorCode::InvalidGeometry,
                   {"spacing 1"});
  expectImageError(file(mhaHeader("MET_FLOAT", "ElementSpacing = 1 1\n"), data), ErrorCode::ParseError,
                   {"ElementSpacing", "expected 3 numbers"});
  expectImageError(file(mhaHeader("MET_FLOAT", "TransformMatrix = 1 0 0 0.5 1 0 0 0 1\n"), data), ErrorCode::InvalidGeometry,
                   {"sheared"});
  expectImageError(file(mhaHeader("MET_FLOAT", "Offset = 1 two 3\n"), data), ErrorCode::ParseError, {"'two'"});
  expectImageError(file(mhaHeader("MET_FLOAT", "ElementNumberOfChannels = 3\n"), data), ErrorCode::Unsupported,
                   {"3 channels"});
  expectImageError(file(mhaHeader("MET_STRING", ""), data), ErrorCode::Unsupported, {"MET_STRING"});
  expectImageError(file(mhaHeader("float", ""), data), ErrorCode::ParseError, {"'float'"});
  expectImageError(file("ObjectType = Mesh\n" + mhaHeader("MET_FLOAT", ""), data), ErrorCode::ParseError, {"given twice"});
  expectImageError(file("ObjectType = Tube\nNDims = 3\nDimSize = 2 3 4\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n", data),
                   ErrorCode::Unsupported, {"'Tube'"});
  expectImageError(file(mhaHeader("MET_FLOAT", "Offset = 0 0 0\nOrigin = 1 1 1\n"), data), ErrorCode::ParseError,
                   {"given twice"});
  expectImageError(file(mhaHeader("MET_FLOAT", "Comment = " + std::string(70000, 'c') + "\n"), data), ErrorCode::ParseError,
                   {"longer than 65536 bytes"});
  expectImageError(file(mhaHeader("MET_FLOAT", "this line has no equals sign\n"), data), ErrorCode::ParseError,
                   {"expected 'Key = Value'"});
  expectImageError(file("\x89PNG\r\n\x1a\n", data), ErrorCode::ParseError, {"not a MetaImage file"});
  // More data declared than the file holds, raw, compressed and text.
  expectImageError(file(mhaHeader("MET_FLOAT", ""), std::vector<std::uint8_t>(data.begin(), data.begin() + 90)),
                   ErrorCode::Corrupt, {"truncated", "expected 96 bytes", "found 90"});
  const auto z = zlibOf(data);
  expectImageError(file(mhaHeader("MET_FLOAT", "CompressedData = True\nCompressedDataSize = " + std::to_string(z.size() + 10) + "\n"), z),
                   ErrorCode::Corrupt, {"declares " + std::to_string(z.size() + 10) + " compressed bytes"});
  expectImageError(file(mhaHeader("MET_FLOAT", "CompressedData = True\n"), std::vector<std::uint8_t>(z.begin(), z.end() - 6)),
                   ErrorCode::Corrupt, {"truncated"});
  expectImageError(file(mhaHeader("MET_UCHAR", "CompressedData = True\n", "LOCAL", "4096 4096 2048"), z),
                   ErrorCode::Corrupt, {"can hold at most"});
  expectImageError(file(mhaHeader("MET_UCHAR", "", "LOCAL", "4096 4096 2048"), data), ErrorCode::Corrupt,
                   {"expected 34359738368 bytes"});
  expectImageError(file(mhaHeader("MET_FLOAT", "BinaryData = False\n"), bytesOf("1 2 3\n")), ErrorCode::Corrupt,
                   {"expected 24 numbers"});
  expectImageError(file(mhaHeader("MET_FLOAT", "BinaryData = False\n"), bytesOf(std::string(48, ' ') + "1 2 3 4")),
                   ErrorCode::Corrupt, {"expected 24 numbers of text data, found 4"});
  std::string text;
  for (int i = 0; i < 24; ++i) text += i == 5 ? "five " : "1 ";
  expectImageError(file(mhaHeader("MET_FLOAT", "BinaryData = False\n"), bytesOf(text)), ErrorCode::ParseError,
                   {"text value 5", "'five'"});
  expectImageError(file(mhaHeader("MET_FLOAT", "CompressedData = True\nHeaderSize = -1\n"), z), ErrorCode::ParseError,
                   {"HeaderSize"});
  auto wrongZ = z;
  wrongZ[wrongZ.size() / 2] ^= 0x55;
  wrongZ.back() ^= 0x01;
  expectImageError(file(mhaHeader("MET_FLOAT", "CompressedData = True\n"), wrongZ), ErrorCode::Corrupt, {"voxel data"});

  // A zlib bomb: a few KiB that inflate to 64 MiB, under a header declaring 96 bytes.
  const std::vector<std::uint8_t> zeros(std::size_t(64) << 20, 0);
  const auto bomb = zlibOf(zeros);
  const long before = maxRssKb();
  expectImageError(file(mhaHeader("MET_FLOAT", "CompressedData = True\n"), bomb), ErrorCode::Corrupt,
                   {"holds more than the 96 bytes"});
  CHECK(maxRssKb() - before < 16 * 1024);

  auto r = io::readMetaImageHeader(file(mhaHeader("MET_FLOAT", "ElementSpacing = 1 1\n"), data).string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().line == 3);
  const fs::path missing = dir / "does-not-exist.mha";
  expectImageError(missing, ErrorCode::NotFound, {"cannot open"});
}

TEST_CASE("mha: labels refuse fractional and out-of-range values naming the voxel", "[mha]") {
  ScratchDir dir("mha-badlabels");
  std::vector<double> frac(24, 1.0);
  frac[7] = 2.25;  // voxel (1, 0, 1)
  const fs::path p = dir / "frac.mha";
  writeBytes(p, concat(bytesOf(mhaHeader("MET_DOUBLE", "BinaryDataByteOrderMSB = True\n")), encode(frac, true)));
  auto r = io::readMetaImageLabels(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::ParseError, p, {"(1, 0, 1)", "2.25", "0..65535"});
  CHECK(io::readMetaImage(p.string()).ok());
  std::vector<std::int8_t> negative(24, 2);
  negative[12] = -3;  // voxel (0, 0, 2)
  writeBytes(p, concat(bytesOf(mhaHeader("MET_CHAR", "CompressedData = True\n")), zlibOf(encode(negative, false))));
  r = io::readMetaImageLabels(p.string());
  REQUIRE_FALSE(r.ok());
  checkError(r.error(), ErrorCode::ParseError, p, {"(0, 0, 2)", "-3"});
}

TEST_CASE("mha: failed or refused saves leave the previous file as it was", "[mha]") {
  ScratchDir dir("mha-save");
  const Geometry g({4, 4, 4}, {1, 1, 1}, {0, 0, 0});
  const fs::path target = dir / "keep.mha";
  REQUIRE(io::writeMetaImage(target.string(), rampImage(g)).ok());
  const auto before = readBytes(target);
  io::MetaImageWriteOptions bad;
  bad.compressionLevel = -1;
  CHECK(io::writeMetaImage(target.string(), rampImage(g), bad).error().code == ErrorCode::InvalidArgument);
  CHECK(io::writeMetaImage(target.string(), core::ImageVolume{}).error().code == ErrorCode::InvalidGeometry);
  CHECK(io::writeMetaImage((dir / "wrong.nrrd").string(), rampImage(g)).error().code == ErrorCode::InvalidArgument);
  CHECK(readBytes(target) == before);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.path())) entries.push_back(e.path().filename());
  CHECK(entries == std::vector<fs::path>{"keep.mha"});
}

TEST_CASE("mha: random header and stream damage never crashes", "[mha]") {
  ScratchDir dir("mha-fuzz");
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const auto plain = concat(bytesOf(mhaHeader("MET_FLOAT", geometryLines())), encode(values, false));
  const auto packed = concat(bytesOf(mhaHeader("MET_FLOAT", geometryLines() + "CompressedData = True\n")),
                             zlibOf(encode(values, false)));
  std::mt19937 rng(99);
  const fs::path p = dir / "f.mha";
  for (int iter = 0; iter < 400; ++iter) {
    auto bytes = iter % 2 ? packed : plain;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<std::uint8_t>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    writeBytes(p, bytes);
    auto img = io::readMetaImage(p.string());
    if (img.ok()) CHECK(img->size() == static_cast<std::size_t>(img->geometry().voxelCount()));
    if (!img.ok()) CHECK_FALSE(img.error().detail.empty());
    auto labels = io::readMetaImageLabels(p.string());
    if (labels.ok()) CHECK(labels->size() == static_cast<std::size_t>(labels->geometry().voxelCount()));
  }
}
