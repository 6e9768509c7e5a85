// Issue 22, items 4, 5 and 7 through the real binary: paths that are no regular file (pipes, sockets, devices,
// folders) refused at once and named; degenerate inputs (an empty label map, an absent --label, an all-NaN image, an
// intensity image given as labels) refused with the likely mistake; one source of label names for segment and info.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/special_files.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

// Under `timeout`, so a reader that blocks on a pipe fails the test (exit 124) instead of hanging the suite.
Run runCliBounded(const std::string& args) {
  return runShell("timeout -k 5 30 " + quoted(DELINEATE_CLI_PATH) + " " + args + " 2>&1 </dev/null");
}

// An AF_UNIX socket bound at `path` (the file stays after the descriptor is closed).
void checkRefused(const Run& r, const fs::path& path, const std::string& kind) {
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find(path.string()) != std::string::npos);
  CHECK(r.out.find(kind) != std::string::npos);
  CHECK(r.out.find("not a regular file") != std::string::npos);
}

core::ImageVolume sampleImage() {
  auto image = io::readImageFile(std::string(DELINEATE_SOURCE_DIR) + "/resources/sample/example_ct.nii.gz");
  REQUIRE(image.ok());
  return std::move(image).value();
}

// A label map on the sample's grid whose voxel i holds f(i).
template <class F>
fs::path writeLabels(const fs::path& path, F f) {
  auto voxels = core::Volume<core::Label>::create(sampleImage().geometry(), 0);
  REQUIRE(voxels.ok());
  for (std::size_t i = 0; i < voxels->size(); ++i) (*voxels)[i] = f(i);
  REQUIRE(io::writeLabelFile(path.string(), core::LabelMap(std::move(voxels).value())).ok());
  return path;
}

}  // namespace

TEST_CASE("a pipe, socket, device or folder given as an image is refused at once, named", "[cli][bad-input]") {
  ScratchDir dir("cli-special-image");
  for (const test::SpecialFile& s : test::makeSpecialFiles(dir, ".nii")) {
    DYNAMIC_SECTION(s.kind) {
      checkRefused(runCliBounded("info " + quoted(s.path.string())), s.path, s.kind);
      checkRefused(runCliBounded("convert " + quoted(s.path.string()) + " " + quoted((dir / "out.nii").string())),
                   s.path, s.kind);
      // As the label map and as the label table of a real image.
      checkRefused(runCliBounded("info " + kSample + " --labels " + quoted(s.path.string())), s.path, s.kind);
      checkRefused(runCliBounded("info " + kSample + " --table " + quoted(s.path.string())), s.path, s.kind);
      checkRefused(runCliBounded("click-eval " + kSample + " " + quoted(s.path.string())), s.path, s.kind);
    }
  }
  CHECK_FALSE(fs::exists(dir / "out.nii"));
  // NRRD and MetaImage headers, too, and the formats ITK reads (ITK's own open(2) would block on a pipe).
  for (const std::string ext : {".nrrd", ".mha", ".gipl", ".vtk", ".hdr"}) {
    const fs::path fifo = dir / ("pipe" + ext);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    checkRefused(runCliBounded("info " + quoted(fifo.string())), fifo, "named pipe (FIFO)");
  }
}

TEST_CASE("a detached data file that is a pipe is refused, naming header and data file", "[cli][bad-input]") {
  ScratchDir dir("cli-special-detached");
  const fs::path data = dir / "voxels.raw";
  REQUIRE(::mkfifo(data.c_str(), 0600) == 0);
  writeTextFile(dir / "image.mhd",
                "ObjectType = Image\nNDims = 3\nDimSize = 2 2 2\nElementSpacing = 1 1 1\nElementType = MET_UCHAR\n"
                "ElementDataFile = voxels.raw\n");
  writeTextFile(dir / "image.nhdr",
                "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 2 2 2\nspacings: 1 1 1\nencoding: raw\n"
                "data file: voxels.raw\n\n");
  for (const std::string header : {"image.mhd", "image.nhdr"}) {
    const Run r = runCliBounded("info " + quoted((dir / header).string()));
    INFO(r.out);
    CHECK(r.exitCode == 1);
    CHECK(r.out.find((dir / header).string()) != std::string::npos);
    CHECK(r.out.find("voxels.raw") != std::string::npos);
    CHECK(r.out.find("named pipe (FIFO)") != std::string::npos);
  }
}

TEST_CASE("dicom-index and export-dicom refuse special files, and list those met in a folder", "[cli][bad-input]") {
  ScratchDir dir("cli-special-dicom");
  for (const test::SpecialFile& s : test::makeSpecialFiles(dir, ".dcm")) {
    if (s.kind == "folder") continue;  // a folder is what dicom-index indexes
    DYNAMIC_SECTION(s.kind) {
      checkRefused(runCliBounded("dicom-index " + quoted(s.path.string())), s.path, s.kind);
      checkRefused(runCliBounded("convert " + quoted(s.path.string()) + " " + quoted((dir / "out.nii").string())),
                   s.path, s.kind);
      checkRefused(runCliBounded("export-dicom " + quoted(s.path.string()) + " " + kSample + " --seg " +
                                 quoted((dir / "seg.dcm").string())),
                   s.path, s.kind);
    }
  }
  // Inside a folder: listed as unreadable with their kind, never opened; the real slices still index.
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  if (!ct) return;
  const fs::path folder = dir / "series";
  fs::create_directory(folder);
  for (const auto& e : fs::directory_iterator(*ct)) fs::copy_file(e.path(), folder / e.path().filename());
  REQUIRE(::mkfifo((folder / "pipe").c_str(), 0600) == 0);
  test::bindSocket(folder / "sock");
  Run r = runCliBounded("dicom-index " + quoted(folder.string()));
  INFO(r.out);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find((folder / "pipe").string()) != std::string::npos);
  CHECK(r.out.find("named pipe (FIFO)") != std::string::npos);
  CHECK(r.out.find((folder / "sock").string()) != std::string::npos);
  CHECK(r.out.find("1 series") != std::string::npos);
  // export-dicom with a label map or a label table that is a pipe.
  const fs::path fifo = dir / "labels.nii.gz", table = dir / "table.txt";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(table.c_str(), 0600) == 0);
  checkRefused(runCliBounded("export-dicom " + quoted(ct->string()) + " " + quoted(fifo.string()) + " --seg " +
                             quoted((dir / "seg.dcm").string())),
               fifo, "named pipe (FIFO)");
  auto labels = sharedFile("data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd");
  if (!labels) return;
  checkRefused(runCliBounded("export-dicom " + quoted(ct->string()) + " " + quoted(labels->string()) + " --seg " +
                             quoted((dir / "seg.dcm").string()) + " --table " + quoted(table.string())),
               table, "named pipe (FIFO)");
  CHECK_FALSE(fs::exists(dir / "seg.dcm"));
}

TEST_CASE("click-eval refuses an empty label map and a --label the map does not have", "[cli][bad-input]") {
  ScratchDir dir("cli-click-degenerate");
  const fs::path empty = writeLabels(dir / "empty.nii.gz", [](std::size_t) { return core::Label(0); });
  Run r = runCliBounded("click-eval " + kSample + " " + quoted(empty.string()) + " --clicks 1");
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("no labels in " + empty.string()) != std::string::npos);
  CHECK(r.out.find("dice") == std::string::npos);

  // Labels 3 and 7 in a small block; --label 5 is absent: named, and the labels present listed.
  const auto dims = sampleImage().geometry().dimensions();
  const fs::path two = writeLabels(dir / "two.nii.gz", [&](std::size_t i) {
    const auto x = std::int64_t(i) % dims[0], y = std::int64_t(i) / dims[0] % dims[1],
               z = std::int64_t(i) / (dims[0] * dims[1]);
    if (y < 40 || y > 50 || z < 50 || z > 60) return core::Label(0);
    return x >= 40 && x < 50 ? core::Label(3) : x >= 60 && x < 70 ? core::Label(7) : core::Label(0);
  });
  r = runCliBounded("click-eval " + kSample + " " + quoted(two.string()) + " --label 5 --clicks 1");
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("label 5 is not in " + two.string()) != std::string::npos);
  CHECK(r.out.find("3, 7") != std::string::npos);
  // The labels that are there still evaluate.
  r = runCliBounded("click-eval " + kSample + " " + quoted(two.string()) + " --label 7 --clicks 1");
  CHECK(r.exitCode == 0);

  // info --labels and export-dicom: an empty map is an error too, not a table of nothing.
  r = runCliBounded("info " + kSample + " --labels " + quoted(empty.string()));
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("no labels in " + empty.string()) != std::string::npos);
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  if (!ct) return;
  auto liverSpine = sharedFile("data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd");
  if (!liverSpine) return;
  // A map of zeros on the CT's own grid (that of dcmqi's label map for it).
  auto grid = io::readLabelFile(liverSpine->string());
  REQUIRE(grid.ok());
  auto zeros = core::Volume<core::Label>::create(grid->geometry(), 0);
  REQUIRE(zeros.ok());
  const fs::path ctEmpty = dir / "ct-empty.nii.gz";
  REQUIRE(io::writeLabelFile(ctEmpty.string(), core::LabelMap(std::move(zeros).value())).ok());
  r = runCliBounded("export-dicom " + quoted(ct->string()) + " " + quoted(ctEmpty.string()) + " --seg " +
                    quoted((dir / "seg.dcm").string()));
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("no labels in " + ctEmpty.string()) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "seg.dcm"));
}

TEST_CASE("an image without one finite voxel is refused by click-eval, segment and info --segment", "[cli][bad-input]") {
  ScratchDir dir("cli-all-nan");
  core::ImageVolume nan = sampleImage();
  for (std::size_t i = 0; i < nan.size(); ++i)
    nan.data()[i] = i % 2 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  const fs::path image = dir / "nan.nii.gz";
  REQUIRE(io::writeImageFile(image.string(), nan).ok());
  const fs::path labels = writeLabels(dir / "one.nii.gz", [](std::size_t i) { return core::Label(i % 7 == 0); });
  for (const std::string& args :
       {"click-eval " + quoted(image.string()) + " " + quoted(labels.string()) + " --clicks 1",
        "segment " + quoted(image.string()) + " " + quoted((dir / "out.nii.gz").string()),
        "info " + quoted(image.string()) + " --segment classic",
        "info " + quoted(image.string()) + " --labels " + quoted(labels.string())}) {
    const Run r = runCliBounded(args);
    INFO(args << "\n" << r.out);
    CHECK(r.exitCode == 1);
    CHECK(r.out.find(image.string()) != std::string::npos);
    CHECK(r.out.find("no finite voxel") != std::string::npos);
  }
  // delineate-vista3d too, before it picks an engine or loads weights.
  const Run v = runShell("timeout -k 5 60 " + quoted(DELINEATE_VISTA3D_PATH) + " segment " + quoted(image.string()) +
                         " " + quoted((dir / "out.nii.gz").string()) + " 2>&1");
  INFO(v.out);
  CHECK(v.exitCode == 1);
  CHECK(v.out.find("no finite voxel") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out.nii.gz"));
  // Its geometry alone is still printed.
  CHECK(runCliBounded("info " + quoted(image.string())).exitCode == 0);
}

TEST_CASE("an intensity image given as the label map is refused with the likely swap", "[cli][bad-input]") {
  ScratchDir dir("cli-swapped");
  const std::string swapped = "looks like an intensity image, not a label map: did you swap IMAGE and LABELS?";
  // The CT itself (negative HU): the reader refuses it.
  Run r = runCliBounded("click-eval " + kSample + " " + kSample + " --clicks 1");
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find(swapped) != std::string::npos);
  // Whole positive numbers (an MR or micro-CT): 1,500 distinct values on almost every voxel.
  const fs::path mr = writeLabels(dir / "mr.nii.gz", [](std::size_t i) { return core::Label(1 + i % 1500); });
  for (const std::string& command : {"click-eval " + kSample + " " + quoted(mr.string()) + " --clicks 1",
                                     "info " + kSample + " --labels " + quoted(mr.string())}) {
    r = runCliBounded(command);
    INFO(command << "\n" << r.out);
    CHECK(r.exitCode == 1);
    CHECK(r.out.find(mr.string()) != std::string::npos);
    CHECK(r.out.find(swapped) != std::string::npos);
  }
  // Many ids on a mostly empty map are a label map (sparse instance labels), and are read.
  const fs::path sparse = writeLabels(dir / "sparse.nii.gz", [](std::size_t i) {
    return i % 100 == 0 ? core::Label(1 + i / 100 % 1500) : core::Label(0);
  });
  r = runCliBounded("info " + kSample + " --labels " + quoted(sparse.string()) + " --format csv");
  CHECK(r.exitCode == 0);
}

TEST_CASE("segment and info --segment name each label alike, also when a --table names only some", "[cli][bad-input]") {
  ScratchDir dir("cli-label-names");
  const fs::path out = dir / "auto.nii.gz";
  Run seg = runCliBounded("segment " + kSample + " " + quoted(out.string()));
  REQUIRE(seg.exitCode == 0);
  // "  21  bone   58962 voxels"
  std::map<int, std::string> segmentNames;
  const std::regex segLine(R"(^\s+(\d+)\s+(.*?)\s+\d+ voxels$)");
  std::istringstream lines(seg.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, segLine)) segmentNames[std::stoi(m[1])] = m[2];
  }
  REQUIRE(segmentNames.count(21) == 1);
  CHECK(segmentNames[21] == "bone");
  // A table naming one other label (ITK-SNAP format): the engine's names stay for the rest.
  writeTextFile(dir / "table.label", "0 0 0 0 0 0 0 \"Clear Label\"\n200 10 20 30 1 1 1 \"trunk\"\n");
  for (const std::string& table : {std::string(), " --table " + quoted((dir / "table.label").string())}) {
    const Run info = runCliBounded("info " + kSample + " --segment classic --format json" + table);
    INFO(table << "\n" << info.out.substr(0, 2000));
    REQUIRE(info.exitCode == 0);
    const auto j = nlohmann::json::parse(info.out);
    REQUIRE(j["labels"].size() == segmentNames.size());
    for (const auto& l : j["labels"]) {
      const int id = l["label"].get<int>();
      const std::string expected = !table.empty() && id == 200 ? "trunk" : segmentNames[id];
      CHECK(l["name"] == expected);
      CHECK(l["name"].get<std::string>().rfind("label ", 0) == std::string::npos);
    }
  }
}
