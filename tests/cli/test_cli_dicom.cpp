// dicom-index and convert through the real binary, on the real series in ../shared/data.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"
#include "io/volume/nifti.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/byte_support.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

// Copies the files of `from` into `to`, leaving out those whose name is in `skip`.
void copyFolder(const fs::path& from, const fs::path& to, const std::vector<std::string>& skip = {}) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    const std::string name = e.path().filename().string();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    fs::copy_file(e.path(), to / name);
  }
}

}  // namespace

TEST_CASE("dicom-index lists the series of a folder, as text and as JSON", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series");
  if (!dir) return;
  Run r = runCli("dicom-index " + quoted(dir->string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("1 series") != std::string::npos);
  CHECK(r.out.find("512x512x41") != std::string::npos);
  CHECK(r.out.find("41 files") != std::string::npos);
  CHECK(r.out.find("NOT A REGULAR GRID") == std::string::npos);

  r = runCli("dicom-index " + quoted(dir->string()) + " --format json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["filesVisited"] == 43);
  CHECK(j["nonDicomFiles"] == 2);  // the licence and SOURCES.md
  const auto& series = j["patients"][0]["studies"][0]["series"];
  REQUIRE(series.size() == 1);
  CHECK(series[0]["modality"] == "CT");
  CHECK(series[0]["regular"] == true);
  CHECK(series[0]["dimensions"] == nlohmann::json({512, 512, 41}));
  CHECK(series[0]["spacingMm"][2].get<double>() == Approx(5.0));
  CHECK(series[0]["orientation"] == "LPS");
}

TEST_CASE("convert writes a DICOM series as NIfTI with its geometry and HU as int16", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  ScratchDir scratch("cli-convert");
  const fs::path out = scratch / "ct.nii.gz";
  const Run r = runCli("convert " + quoted(dir->string()) + " " + quoted(out.string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto header = io::readNiftiHeader(out.string());
  REQUIRE(header.ok());
  CHECK(header->datatype == int(io::NiftiDatatype::Int16));
  auto written = io::readNiftiImage(out.string());
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(written.ok());
  REQUIRE(index.ok());
  auto loaded = io::loadDicomSeries(*index->allSeries().front());
  REQUIRE(loaded.ok());
  CHECK(written->geometry().isCloseTo(loaded->image.geometry()));
  CHECK(written->buffer() == loaded->image.buffer());
  CHECK(r.out.find(", LPS, int16)") != std::string::npos);  // decoded into int16, never float32 (issue 27)
  // A volume file converted again keeps its type: NRRD "short", the same values.
  const fs::path nrrd = scratch / "ct.nrrd";
  const Run again = runCli("convert " + quoted(out.string()) + " " + quoted(nrrd.string()));
  INFO(again.out);
  REQUIRE(again.exitCode == 0);
  CHECK(readTextFile(nrrd).find("type: short\n") != std::string::npos);
  auto reread = io::readImageFile(nrrd.string());
  REQUIRE(reread.ok());
  CHECK(reread->buffer() == loaded->image.buffer());
}

TEST_CASE("convert streams a series into NIfTI and NRRD: the whole image's bytes, and a failed write keeps the old file", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  ScratchDir scratch("cli-convert-stream");
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  auto typed = io::loadDicomSeriesTyped(*index->allSeries().front());
  REQUIRE(typed.ok());
  for (const std::string name : {"ct.nii", "ct.nii.gz", "ct.nrrd"}) {
    INFO(name);
    REQUIRE(io::writeImageFile((scratch / ("whole-" + name)).string(), typed->image).ok());
    const Run r = runCli("convert " + quoted(dir->string()) + " " + quoted((scratch / name).string()));
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("(512 x 512 x 41, LPS, int16)") != std::string::npos);
    CHECK(readBytes(scratch / name) == readBytes(scratch / ("whole-" + name)));
  }
  // The file system refuses the write after 1 MiB (a full disk): the error names the output, the file written before
  // is unchanged and no temporary file is left beside it.
  const fs::path out = scratch / "ct.nii";
  const auto before = readBytes(out);
  const auto entries = std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator{});
  for (const std::string name : {"ct.nii", "ct.nii.gz", "ct.nrrd"}) {
    INFO(name);
    const Run r = runShell("ulimit -f 2048; trap '' XFSZ; exec '" + std::string(DELINEATE_CLI_PATH) + "' convert " +
                           quoted(dir->string()) + " " + quoted((scratch / name).string()) + " 2>&1");
    INFO(r.out);
    CHECK(r.exitCode == 1);
    CHECK(r.out.find((scratch / name).string()) != std::string::npos);
    CHECK(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator{}) == entries);
  }
  CHECK(readBytes(out) == before);
}

TEST_CASE("convert refuses a series with a missing slice unless told, and then says what it did", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  ScratchDir scratch("cli-gap");
  const fs::path series = scratch / "series";
  // Find the file of a middle slice by position (file names do not follow positions).
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  const io::DicomSeries& full = *index->allSeries().front();
  const std::string middle = fs::path(full.slices[20].path).filename().string();
  copyFolder(*dir, series, {middle});

  Run r = runCli("convert " + quoted(series.string()) + " " + quoted((scratch / "gap.nrrd").string()));
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("missing") != std::string::npos);
  CHECK(r.out.find("--allow-irregular") != std::string::npos);
  CHECK(!fs::exists(scratch / "gap.nrrd"));

  r = runCli("convert " + quoted(series.string()) + " " + quoted((scratch / "gap.nrrd").string()) +
             " --allow-irregular");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("warning:") != std::string::npos);
  auto gap = io::readImageFile((scratch / "gap.nrrd").string());
  REQUIRE(gap.ok());
  // The gap stays a gap: 41 slices on the original grid, the missing one filled with the lowest value.
  CHECK(gap->geometry().isCloseTo(full.geometry.value()));
  const std::size_t plane = 512 * 512;
  const float lowest = *std::min_element(gap->buffer().begin(), gap->buffer().end());
  CHECK(std::all_of(gap->data() + 20 * plane, gap->data() + 21 * plane, [&](float v) { return v == lowest; }));
  CHECK(!std::all_of(gap->data() + 19 * plane, gap->data() + 20 * plane, [&](float v) { return v == lowest; }));
  // To NIfTI, which is otherwise written slab by slab: the series loads whole for its fill value, the same voxels.
  r = runCli("convert " + quoted(series.string()) + " " + quoted((scratch / "gap.nii").string()) + " --allow-irregular");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto gapNifti = io::readImageFile((scratch / "gap.nii").string());
  REQUIRE(gapNifti.ok());
  CHECK(gapNifti->buffer() == gap->buffer());
}

TEST_CASE("convert asks which series when a folder holds several, and takes --series", "[cli]") {
  auto tcia = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  auto j2k = sharedFile("data/ct/totalseg-example/example_ct_dicom");
  if (!tcia || !j2k) return;
  ScratchDir scratch("cli-two");
  copyFolder(*tcia, scratch / "in" / "a");
  copyFolder(*j2k, scratch / "in" / "b");
  Run r = runCli("convert " + quoted((scratch / "in").string()) + " " + quoted((scratch / "x.mha").string()));
  INFO(r.out);
  CHECK(r.exitCode == 2);
  CHECK(r.out.find("--series") != std::string::npos);

  auto index = io::indexDicomFolder((scratch / "in" / "a").string());
  REQUIRE(index.ok());
  const std::string key = index->allSeries().front()->key();
  r = runCli("convert " + quoted((scratch / "in").string()) + " " + quoted((scratch / "x.mha").string()) +
             " --series " + key);
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto mha = io::readImageFile((scratch / "x.mha").string());
  REQUIRE(mha.ok());
  CHECK(mha->geometry().dimensions() == core::Size3{512, 512, 41});
}

TEST_CASE("convert between volume formats keeps the geometry", "[cli]") {
  auto nrrd = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  if (!nrrd) return;
  ScratchDir scratch("cli-nrrd");
  const fs::path out = scratch / "brain.nii.gz";
  const Run r = runCli("convert " + quoted(nrrd->string()) + " " + quoted(out.string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto a = io::readImageFile(nrrd->string());
  auto b = io::readImageFile(out.string());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(b->geometry().isCloseTo(a->geometry()));
  CHECK(b->buffer() == a->buffer());
}

TEST_CASE("dicom-index and convert report missing inputs and bad arguments", "[cli]") {
  ScratchDir scratch("cli-dicom-bad");
  Run r = runCli("dicom-index " + quoted((scratch / "nowhere").string()));
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("nowhere") != std::string::npos);
  CHECK(runCli("dicom-index").exitCode == 2);
  CHECK(runCli("convert " + quoted(scratch.path().string())).exitCode == 2);
  CHECK(runCli("convert a b.png").exitCode == 2);
  r = runCli("convert " + quoted(scratch.path().string()) + " " + quoted((scratch / "o.nii").string()));
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("no DICOM image series") != std::string::npos);
}

namespace {

// A copy of the real series in `to` with the file of its first, middle or last slice (by position) damaged;
// returns that file.
fs::path damagedCopy(const fs::path& from, const fs::path& to, const std::string& where, const std::string& how) {
  auto index = io::indexDicomFolder(from.string());
  REQUIRE(index.ok());
  const io::DicomSeries& full = *index->allSeries().front();
  const io::DicomSlice& slice = where == "first" ? full.slices.front() : where == "last" ? full.slices.back() : full.slices[20];
  copyFolder(from, to);
  const fs::path file = to / fs::path(slice.path).filename();
  const std::string bytes = test::readFileBytes(file);
  if (how == "truncated") test::writeFileBytes(file, bytes.substr(0, bytes.size() / 2));
  else if (how == "empty") test::writeFileBytes(file, "");
  else test::writeFileBytes(file, std::string(4096, '\x5A') + bytes.substr(4096));  // garbage header
  return file;
}

}  // namespace

TEST_CASE("dicom-index lists a series' unreadable files with their reasons, as text and as JSON", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  ScratchDir scratch("cli-unreadable-index");
  const fs::path file = damagedCopy(*dir, scratch / "series", "first", "truncated");
  Run r = runCli("dicom-index " + quoted((scratch / "series").string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("INCOMPLETE") != std::string::npos);
  CHECK(r.out.find(file.string() + ": ") != std::string::npos);
  CHECK(r.out.find("truncated") != std::string::npos);

  r = runCli("dicom-index " + quoted((scratch / "series").string()) + " --format json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& series = j["patients"][0]["studies"][0]["series"][0];
  REQUIRE(series["unreadable"].size() == 1);
  CHECK(series["unreadable"][0]["path"] == file.string());
  CHECK(series["unreadable"][0]["seriesInstanceUid"] == series["seriesInstanceUid"]);
  REQUIRE(j["skipped"].size() == 1);
  CHECK(j["skipped"][0]["path"] == file.string());
}

TEST_CASE("convert and info refuse a DICOM series with an unreadable file, naming it, unless --allow-unreadable",
          "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  for (const std::string where : {"first", "middle", "last"}) {
    for (const std::string how : {"truncated", "empty", "garbage"}) {
      INFO(where << " file " << how);
      ScratchDir scratch("cli-unreadable");
      const fs::path series = scratch / "series";
      const fs::path file = damagedCopy(*dir, series, where, how);
      const fs::path out = scratch / "ct.nii.gz";
      for (const std::string extra : {"", " --allow-irregular"}) {
        Run r = runCli("convert " + quoted(series.string()) + " " + quoted(out.string()) + extra);
        INFO(r.out);
        CHECK(r.exitCode == 1);
        CHECK(r.out.find("error: " + file.string() + ": ") != std::string::npos);
        CHECK(r.out.find("--allow-unreadable") != std::string::npos);
        CHECK_FALSE(fs::exists(out));
      }
      Run r = runCli("info " + quoted(series.string()));
      INFO(r.out);
      CHECK(r.exitCode == 1);
      CHECK(r.out.find("error: " + file.string() + ": ") != std::string::npos);

      if (where == "middle") continue;  // a hole inside the stack is covered by the io tests
      r = runCli("convert " + quoted(series.string()) + " " + quoted(out.string()) + " --allow-unreadable");
      INFO(r.out);
      REQUIRE(r.exitCode == 0);
      CHECK(r.out.find("warning: ") != std::string::npos);
      CHECK(r.out.find(file.string()) != std::string::npos);
      auto written = io::readImageFile(out.string());
      REQUIRE(written.ok());
      CHECK(written->geometry().dimensions()[2] == 40);
    }
  }
}

TEST_CASE("info reads a DICOM folder", "[cli]") {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  const Run r = runCli("info " + quoted(dir->string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("512 x 512 x 41") != std::string::npos);
}

TEST_CASE("segment and click-eval take a DICOM folder as their image, as info and convert do", "[cli]") {
  // Issue 23 item 11: only convert (and, since issue 22, info) took a DICOM series.
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return;
  ScratchDir scratch("cli-segment-dicom");
  const fs::path labels = scratch / "labels.nii.gz";
  const Run r = runCli("segment " + quoted(dir->string()) + " " + quoted(labels.string()) + " --class 200");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto map = io::readLabelFile(labels.string());
  REQUIRE(map.ok());
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  auto loaded = io::loadDicomSeries(*index->allSeries().front());
  REQUIRE(loaded.ok());
  CHECK(map->geometry().isCloseTo(loaded->image.geometry()));
  std::size_t body = 0;
  for (std::size_t i = 0; i < map->size(); ++i) body += (*map)[i] == 200 ? 1 : 0;
  CHECK(body > map->size() / 10);
  // The body as the reference of one simulated click on the same series.
  const Run c = runCli("click-eval " + quoted(dir->string()) + " " + quoted(labels.string()) + " --clicks 1 --json");
  INFO(c.out);
  REQUIRE(c.exitCode == 0);
  const auto j = nlohmann::json::parse(c.out.substr(c.out.find('{')));
  CHECK(j["objects"].size() == 1);
  CHECK(j["objects"][0]["dice"][0].get<double>() > 0.0);
}
