// delineate-cli export-rtstruct / import-rtstruct on the TCIA CT: a label map out as a structure set and back, the
// names travelling in the table beside the map, each ROI's own mask, hostile ROI names, and refusals with their exit
// codes.
#include <catch2/catch.hpp>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>

#include <filesystem>
#include <string>

#include "io/dicom/dicom.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/test_support.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/pacs_test_data.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  fs::path ct;
  core::Geometry grid;
};

std::optional<Fixture> tcia() {
  auto p = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!p) return std::nullopt;
  auto index = io::indexDicomFolder(p->string());
  REQUIRE(index.ok());
  const io::DicomSeries* s = index->allSeries().front();
  REQUIRE(s->geometry);
  return Fixture{*p, *s->geometry};
}

// Two labels: a block with a hole through it (7) and a disc on a few slices (12).
core::LabelMap twoLabels(const core::Geometry& g) {
  auto v = core::Volume<core::Label>::create(g, 0);
  REQUIRE(v.ok());
  for (std::int64_t z = 5; z < 20; ++z)
    for (std::int64_t y = 150; y < 260; ++y)
      for (std::int64_t x = 100; x < 220; ++x) {
        const bool hole = x > 140 && x < 170 && y > 190 && y < 220;
        if (!hole) v->at({x, y, z}) = 7;
      }
  for (std::int64_t z = 10; z < 14; ++z)
    for (std::int64_t y = 300; y < 360; ++y)
      for (std::int64_t x = 300; x < 360; ++x)
        if ((x - 330) * (x - 330) + (y - 330) * (y - 330) < 400) v->at({x, y, z}) = 12;
  return core::LabelMap(std::move(v).value());
}

}  // namespace

TEST_CASE("cli rtstruct: export and import give the label map and its names back, and each ROI's own mask",
          "[cli][rtstruct][data]") {
  auto f = tcia();
  if (!f) return;
  ScratchDir dir("cli-rtstruct");
  const core::LabelMap labels = twoLabels(f->grid);
  REQUIRE(io::writeLabelFile((dir / "labels.nii.gz").string(), labels));
  core::LabelTable table;
  core::LabelEntry liver;
  liver.id = 7;
  liver.name = "Liver";
  liver.color = {200, 100, 50, 255};
  REQUIRE(table.add(liver));
  core::LabelEntry lesion = liver;
  lesion.id = 12;
  lesion.name = "Lesion";
  lesion.color = {250, 250, 0, 255};
  REQUIRE(table.add(lesion));
  REQUIRE(io::writeLabelTableFile(dir / "labels.label", table));

  Run out = runCli("export-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "labels.nii.gz").string()) + " " +
                   quoted((dir / "rs.dcm").string()) + " --author 'Doe^Jane' --type 12=GTV");
  INFO(out.out);
  REQUIRE(out.exitCode == 0);
  CHECK(out.out.find("2 ROIs") != std::string::npos);

  Run in = runCli("import-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "rs.dcm").string()) + " " +
                  quoted((dir / "back.nii.gz").string()) + " --masks " + quoted((dir / "masks").string()));
  INFO(in.out);
  REQUIRE(in.exitCode == 0);
  CHECK(in.out.find("Liver") != std::string::npos);
  CHECK(in.out.find("GTV") != std::string::npos);
  auto back = io::readLabelFile((dir / "back.nii.gz").string());
  REQUIRE(back.ok());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += (*back)[i] != labels[i];
  CHECK(differ == 0);
  auto names = io::readLabelTableBeside(dir / "back.nii.gz");
  REQUIRE(names.ok());
  REQUIRE(names->has_value());
  REQUIRE((*names)->table.find(7) != nullptr);
  CHECK((*names)->table.find(7)->name == "Liver");
  CHECK((*names)->table.find(12)->color == lesion.color);
  auto mask = io::readLabelFile((dir / "masks" / "roi-12.nii.gz").string());
  REQUIRE(mask.ok());
  // Patient data: the folder the masks go to and the masks are not readable by others, whatever the umask.
  const auto others = std::filesystem::perms::others_all;
  CHECK((std::filesystem::status(dir / "masks").permissions() & others) == std::filesystem::perms::none);
  CHECK((std::filesystem::status(dir / "masks" / "roi-12.nii.gz").permissions() & others) == std::filesystem::perms::none);
  std::int64_t n = 0, m = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    n += labels[i] == 12;
    m += (*mask)[i] == 1;
  }
  CHECK(n == m);

  Run json = runCli("import-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "rs.dcm").string()) + " " +
                    quoted((dir / "back2.nii.gz").string()) + " --json");
  REQUIRE(json.exitCode == 0);
  CHECK(json.out.find("\"interpretedType\": \"GTV\"") != std::string::npos);
  CHECK(json.out.find("\"overlappingVoxels\": 0") != std::string::npos);
}

TEST_CASE("cli rtstruct: hostile ROI names stay names, bad arguments exit 2, bad files exit 1 naming them",
          "[cli][rtstruct][data]") {
  auto f = tcia();
  if (!f) return;
  ScratchDir dir("cli-rtstruct-bad");
  const core::LabelMap labels = twoLabels(f->grid);
  REQUIRE(io::writeLabelFile((dir / "labels.nii.gz").string(), labels));
  REQUIRE(runCli("export-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "labels.nii.gz").string()) + " " +
                 quoted((dir / "rs.dcm").string()))
              .exitCode == 0);
  // An ROI named like a path: the masks are named by ROI number, so nothing lands outside --masks.
  {
    DcmFileFormat ff;
    REQUIRE(ff.loadFile((dir / "rs.dcm").c_str()).good());
    DcmItem* roi = nullptr;
    REQUIRE(ff.getDataset()->findAndGetSequenceItem(DCM_StructureSetROISequence, roi, 0).good());
    roi->putAndInsertString(DCM_ROIName, "../../escaped");
    REQUIRE(ff.saveFile((dir / "hostile.dcm").c_str(), EXS_LittleEndianExplicit).good());
  }
  fs::create_directories(dir / "deep" / "er");
  Run hostile = runCli("import-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "hostile.dcm").string()) + " " +
                       quoted((dir / "deep" / "er" / "h.nii.gz").string()) + " --masks " +
                       quoted((dir / "deep" / "er" / "m").string()));
  INFO(hostile.out);
  REQUIRE(hostile.exitCode == 0);
  CHECK(hostile.out.find("../../escaped") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "escaped.nii.gz"));
  CHECK_FALSE(fs::exists(dir / "deep" / "escaped.nii.gz"));
  CHECK(fs::exists(dir / "deep" / "er" / "m" / "roi-7.nii.gz"));

  CHECK(runCli("export-rtstruct a b c --type 7").exitCode == 2);
  CHECK(runCli("export-rtstruct a b c --type x=PTV").exitCode == 2);
  CHECK(runCli("import-rtstruct a b").exitCode == 2);
  // A structure set given where the label map should be, and an image file given as the structure set.
  Run notLabels = runCli("export-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "rs.dcm").string()) + " " +
                         quoted((dir / "x.dcm").string()));
  CHECK(notLabels.exitCode == 1);
  CHECK(notLabels.out.find("rs.dcm") != std::string::npos);
  const std::string slice = io::indexDicomFolder(f->ct.string())->allSeries().front()->slices.front().path;
  Run notRt = runCli("import-rtstruct " + quoted(f->ct.string()) + " " + quoted(slice) + " " +
                     quoted((dir / "y.nii.gz").string()));
  CHECK(notRt.exitCode == 1);
  CHECK(notRt.out.find("not an RT Structure Set") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "y.nii.gz"));
}

TEST_CASE("cli rtstruct through a PACS: stored by C-STORE, retrieved with its study, imported onto the retrieved series",
          "[cli][rtstruct][pacs]") {
  if (!orthancForTests()) return;
  auto f = tcia();
  if (!f) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  OrthancOptions options;
  options.modalities["delineate"] = {"DELINEATE", 11112};  // Orthanc answers C-FIND and C-GET only to AEs it knows
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload(sources);
  const std::string peer = "--peer " + orthanc.aeTitle() + "@127.0.0.1:" + std::to_string(orthanc.dicomPort());
  ScratchDir dir("cli-rtstruct-pacs");
  const core::LabelMap labels = twoLabels(f->grid);
  REQUIRE(io::writeLabelFile((dir / "labels.nii.gz").string(), labels));
  REQUIRE(runCli("export-rtstruct " + quoted(f->ct.string()) + " " + quoted((dir / "labels.nii.gz").string()) + " " +
                 quoted((dir / "rs.dcm").string()))
              .exitCode == 0);
  const Run store = runCli("pacs store " + peer + " " + quoted((dir / "rs.dcm").string()));
  INFO(store.out);
  REQUIRE(store.exitCode == 0);
  CHECK(orthanc.get("/statistics").find("\"CountInstances\" : 42") != std::string::npos);
  auto index = io::indexDicomFolder(f->ct.string());
  REQUIRE(index.ok());
  const std::string study = index->allSeries().front()->studyInstanceUid;
  const SplitRun series = runCliSplit("pacs find " + peer + " --level series --json --study " + study);
  INFO(series.err);
  REQUIRE(series.exitCode == 0);
  CHECK(series.out.find("RTSTRUCT") != std::string::npos);
  const SplitRun get = runCliSplit("pacs get " + peer + " --study " + study + " --out " + quoted((dir / "got").string()));
  INFO(get.err);
  REQUIRE(get.exitCode == 0);
  // The retrieved folder holds the CT and the structure set; import-rtstruct picks the image series itself.
  fs::path rt;
  for (const auto& e : fs::recursive_directory_iterator(dir / "got")) {
    DcmFileFormat ff;
    OFString modality;
    if (e.is_regular_file() && ff.loadFile(e.path().c_str()).good() &&
        ff.getDataset()->findAndGetOFString(DCM_Modality, modality).good() && modality == "RTSTRUCT")
      rt = e.path();
  }
  REQUIRE(!rt.empty());
  const Run in = runCli("import-rtstruct " + quoted((dir / "got").string()) + " " + quoted(rt.string()) + " " +
                        quoted((dir / "back.nii.gz").string()));
  INFO(in.out);
  REQUIRE(in.exitCode == 0);
  auto back = io::readLabelFile((dir / "back.nii.gz").string());
  REQUIRE(back.ok());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += (*back)[i] != labels[i];
  CHECK(differ == 0);
}
