// export-dicom and sr-show through the real binary: dcmqi's CT with its liver/spine label map as a SEG and a TID
// 1500 report; and no identifier of a DICOM study in the volume files convert writes (NIfTI, NRRD, MetaImage).
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_sr.h"
#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

TEST_CASE("export-dicom writes a SEG and a measurement report that sr-show reads back", "[cli][dicom-sr]") {
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  auto labels = sharedFile("data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd");
  if (!ct || !labels) return;
  ScratchDir dir("cli-export");
  const fs::path seg = dir / "seg.dcm", sr = dir / "sr.dcm";
  Run r = runCli("export-dicom " + quoted(ct->string()) + " " + quoted(labels->string()) + " --seg " +
                 quoted(seg.string()) + " --sr " + quoted(sr.string()) + " --observer 'Reader^Two'");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("BINARY SEG, 2 segments") != std::string::npos);
  CHECK(r.out.find("2 measurement groups") != std::string::npos);

  r = runCli("sr-show " + quoted(sr.string()) + " --json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["template"] == "1500");
  CHECK(j["observer"]["name"] == "Reader^Two");
  REQUIRE(j["groups"].size() == 2);
  // The volumes are those of the label map: voxels x voxel volume.
  auto map = io::readLabelFile(labels->string());
  REQUIRE(map.ok());
  const double voxelMl = map->geometry().voxelVolumeMm3() / 1000.0;
  for (int i = 0; i < 2; ++i) {
    const auto& g = j["groups"][i];
    CHECK(g["segment"]["number"] == i + 1);
    const core::Label label = core::Label(i + 1);  // BINARY: segment n is the n-th smallest label, here 1 and 2
    const auto count = std::count(map->data(), map->data() + map->size(), label);
    REQUIRE(count > 0);
    const auto& volume = g["measurements"][0];
    CHECK(volume["quantity"]["meaning"] == "Volume");
    CHECK(std::stod(volume["value"].get<std::string>()) == Approx(double(count) * voxelMl).epsilon(1e-8));
    CHECK(g["measurements"].size() == 6);  // volume, mean, SD, min, max, median (HU)
  }
  r = runCli("sr-show " + quoted(sr.string()));
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("Imaging Measurement Report (TID 1500)") != std::string::npos);
  CHECK(r.out.find("Attenuation Coefficient (Mean)") != std::string::npos);

  // --labelmap keeps the label ids as segment numbers; --deidentify names no person.
  const fs::path seg2 = dir / "labelmap.dcm", sr2 = dir / "labelmap_sr.dcm";
  r = runCli("export-dicom " + quoted(ct->string()) + " " + quoted(labels->string()) + " --seg " +
             quoted(seg2.string()) + " --sr " + quoted(sr2.string()) + " --labelmap --deidentify --observer X");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto doc = io::readDicomSeg(seg2.string());
  REQUIRE(doc.ok());
  CHECK(doc->segmentationType == "LABELMAP");
  auto report = io::readDicomSr(sr2.string());
  REQUIRE(report.ok());
  CHECK(report->observerType == "Device");
  CHECK(report->patientName != "JANCT000");
  CHECK(r.out.find("the observer \"X\" is not in") != std::string::npos);  // said, not dropped silently
}

TEST_CASE("export-dicom and sr-show refuse bad input with the file and the reason", "[cli][dicom-sr]") {
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  if (!ct) return;
  ScratchDir dir("cli-export-errors");
  // Usage: no --seg.
  Run r = runCli("export-dicom " + quoted(ct->string()) + " " + kSample);
  CHECK(r.exitCode == 2);
  CHECK(r.out.find("--seg") != std::string::npos);
  // Labels on another grid: the SEG is named, nothing is written.
  core::Geometry small({16, 16, 3}, {1, 1, 1}, {0, 0, 0}, core::Mat3::identity());
  auto voxels = core::Volume<core::Label>::create(small, 1);
  REQUIRE(voxels.ok());
  const fs::path other = dir / "other.nii.gz", seg = dir / "seg.dcm";
  REQUIRE(io::writeLabelFile(other.string(), core::LabelMap(std::move(voxels).value())).ok());
  r = runCli("export-dicom " + quoted(ct->string()) + " " + quoted(other.string()) + " --seg " + quoted(seg.string()));
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find(seg.string()) != std::string::npos);
  CHECK(r.out.find("not on the grid") != std::string::npos);
  CHECK_FALSE(fs::exists(seg));
  // sr-show on an image: not a structured report.
  r = runCli("sr-show " + quoted((*ct / "01.dcm").string()));
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("not a DICOM structured report") != std::string::npos);
}

TEST_CASE("convert writes no identifier of the DICOM study into NIfTI, NRRD or MetaImage headers", "[cli]") {
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  if (!ct) return;
  auto index = io::indexDicomFolder(ct->string());
  REQUIRE(index.ok());
  const io::DicomSeries* series = index->allSeries().front();
  REQUIRE(series->patientName == "JANCT000");
  ScratchDir dir("cli-convert-deid");
  for (const char* name : {"ct.nii", "ct.nrrd", "ct.mha"}) {
    const fs::path out = dir / name;
    Run r = runCli("convert " + quoted(ct->string()) + " " + quoted(out.string()));
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    const std::string bytes = readTextFile(out);
    INFO(name);
    // NIfTI's descrip, aux_file and intent_name, NRRD's content/comments and MetaImage's fields carry none of them.
    CHECK(bytes.find("JANCT000") == std::string::npos);
    CHECK(bytes.find(series->studyInstanceUid) == std::string::npos);
    CHECK(bytes.find(series->seriesInstanceUid) == std::string::npos);
    CHECK(bytes.find(ct->string()) == std::string::npos);  // nor the folder it came from
  }
}
