// File > Export from the window on DICOM studies: the SEG and its TID 1500 SR read back with io's readers (LABELMAP
// setting, a failed report after a written SEG), statistics of a slice range, and reports published on the share.
#include <catch2/catch.hpp>

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/gui/base/dialog_folders.h"
#include "app/gui/reports/study_exports.h"
#include "app/gui/shell/main_window.h"
#include "core/statistics.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_sr.h"
#include "io/share/share_reports.h"
#include "io/share/share_revisions.h"
#include "io/volume/image_file.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using delineate::app::gui::MainWindow;
using delineate::test::QuietWindow;
using delineate::test::waitFor;

namespace {

// Restores the export and author settings a test changes.
struct SettingsGuard {
  const QVariant author = QSettings().value("user/name");
  ~SettingsGuard() {
    QSettings().remove("export/segLabelmap");
    QSettings().setValue("user/name", author);
  }
};

}  // namespace

TEST_CASE("File > Export > DICOM SEG and Measurement Report: the SR references the SEG's segments with the window's "
          "statistics",
          "[gui][dicom-sr]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  const auto seg = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver.dcm");
  if (!ct || !seg) return;
  SettingsGuard guard;
  QSettings().setValue("user/name", "Tester^Ann");
  QuietWindow window;
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  REQUIRE(test::openDicomWithSeg(window, ct->string(), seg->string()));
  auto stats = core::computeLabelStatistics(window.document().session()->labels(), &window.document().session()->image());
  REQUIRE(stats.ok());
  REQUIRE(stats->size() == 1);  // dcmqi's liver
  const core::LabelStatistics& liver = stats->front();

  test::ScratchDir dir("gui-sr-export");
  const QString segOut = QString::fromStdString((dir / "seg.dcm").string());
  const QString srOut = QString::fromStdString((dir / "seg_sr.dcm").string());
  REQUIRE(window.exports().exportDicomSeg(segOut, false, srOut));
  CHECK(failed.count() == 0);
  auto segDoc = io::readDicomSeg(segOut.toStdString(), window.document().session()->image().geometry());
  REQUIRE(segDoc.ok());
  CHECK(segDoc->segmentationType == "BINARY");
  auto sr = io::readDicomSr(srOut.toStdString());
  if (!sr) FAIL(sr.error().describe());
  CHECK(sr->observerType == "Person");
  CHECK(sr->observerName == "Tester^Ann");
  REQUIRE(sr->groups.size() == 1);
  const io::SrMeasurementGroup& g = sr->groups[0];
  CHECK(g.segment.segmentNumber == 1);
  CHECK(g.finding.meaning == "Liver");
  CHECK(g.find("118565006")->value == Approx(liver.volumeMl).epsilon(1e-9));
  CHECK(g.find("112031", "373098007")->value == Approx(liver.mean).epsilon(1e-9));
  CHECK(g.find("112031", "373099004")->value == liver.median);
  CHECK(window.statusBar()->currentMessage().contains("measurement report"));

  // With File > Export > Write DICOM SEG as Label Map on, the SEG is a LABELMAP whose segment numbers are the ids.
  QSettings().setValue("export/segLabelmap", true);
  const QString mapOut = QString::fromStdString((dir / "labelmap.dcm").string());
  const QString mapSr = QString::fromStdString((dir / "labelmap_sr.dcm").string());
  REQUIRE(window.exports().exportDicomSeg(mapOut, true, mapSr));
  auto mapDoc = io::readDicomSeg(mapOut.toStdString(), window.document().session()->image().geometry());
  REQUIRE(mapDoc.ok());
  CHECK(mapDoc->segmentationType == "LABELMAP");
  REQUIRE(mapDoc->segments.size() == 1);
  CHECK(mapDoc->segments[0].number == int(liver.label));
  auto mapReport = io::readDicomSr(mapSr.toStdString());
  REQUIRE(mapReport.ok());
  CHECK(mapReport->observerType == "Device");  // de-identified: no person named
  REQUIRE(mapReport->groups.size() == 1);
  CHECK(mapReport->groups[0].segment.segmentNumber == int(liver.label));
  CHECK(mapReport->groups[0].segment.sopClassUid == "1.2.840.10008.5.1.4.1.1.66.7");

  // A report that cannot be written (its folder is missing): neither file is replaced, the previous pair stays.
  const std::string segBefore = test::readTextFile(segOut.toStdString()), srBefore = test::readTextFile(srOut.toStdString());
  const QString badSr = QString::fromStdString((dir / "missing" / "sr.dcm").string());
  CHECK_FALSE(window.exports().exportDicomSeg(segOut, false, badSr));
  REQUIRE(failed.count() == 1);
  CHECK(failed.front().at(0).toString().contains(badSr));
  CHECK(test::readTextFile(segOut.toStdString()) == segBefore);
  CHECK(test::readTextFile(srOut.toStdString()) == srBefore);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))  // no temporary left behind
    CHECK(e.path().filename().string().find(".pair-") == std::string::npos);
}

TEST_CASE("File > Export > DICOM SEG and Measurement Report: one path, the report beside it, nothing half-written",
          "[gui][dicom-sr]") {
  // Issue 41: two look-alike dialogs asked for two paths. One path now: the SEG's; the report is NAME_sr.dcm.
  test::guiApp();
  const auto ct = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  const auto seg = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver.dcm");
  if (!ct || !seg) return;
  SettingsGuard guard;
  QuietWindow window;
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  REQUIRE(test::openDicomWithSeg(window, ct->string(), seg->string()));
  test::ScratchDir dir("gui-seg-sr-one-path");
  const QString segOut = QString::fromStdString((dir / "liver.dcm").string());
  const QString srOut = QString::fromStdString((dir / "liver_sr.dcm").string());
  CHECK(app::gui::StudyExports::reportPathFor(segOut) == srOut);
  REQUIRE(window.exports().exportDicomSegAndReport(segOut, false));
  CHECK(failed.count() == 0);
  const QString status = window.statusBar()->currentMessage();
  CHECK(status.contains(segOut));
  CHECK(status.contains(srOut));
  auto sr = io::readDicomSr(srOut.toStdString());
  REQUIRE(sr.ok());
  CHECK(sr->groups.size() == 1);

  // Again, the report there: refused naming it (the SEG's dialog asked about the SEG only), both files untouched.
  const std::string segBefore = test::readTextFile(segOut.toStdString()), srBefore = test::readTextFile(srOut.toStdString());
  CHECK_FALSE(window.exports().exportDicomSegAndReport(segOut, false));
  REQUIRE(failed.count() == 1);
  CHECK(failed.back().at(0).toString().contains(srOut));
  CHECK(failed.back().at(0).toString().contains("nothing was written"));
  CHECK(test::readTextFile(segOut.toStdString()) == segBefore);
  CHECK(test::readTextFile(srOut.toStdString()) == srBefore);
  // Replacing it, as the window's question allows: both written again.
  CHECK(window.exports().exportDicomSegAndReport(segOut, false, true));
  CHECK(failed.count() == 1);

  // A report path that cannot be written (a folder of its name): an error naming it, and no SEG left behind.
  std::filesystem::create_directories(dir / "blocked_sr.dcm");
  const QString blocked = QString::fromStdString((dir / "blocked.dcm").string());
  CHECK_FALSE(window.exports().exportDicomSegAndReport(blocked, false, true));
  REQUIRE(failed.count() == 2);
  CHECK(failed.back().at(0).toString().contains("blocked_sr.dcm"));
  CHECK_FALSE(std::filesystem::exists(dir / "blocked.dcm"));
}

TEST_CASE("File > Export > Label Statistics of a Slice Range: view slices become voxel slices, figures of those only",
          "[gui][statistics]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  const auto seg = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver.dcm");
  if (!ct || !seg) return;
  QuietWindow window;
  REQUIRE(test::openDicomWithSeg(window, ct->string(), seg->string()));
  const core::Geometry& g = window.document().session()->image().geometry();
  const auto& d = g.dimensions();

  // A view counts its slices from the low end of its normal: the axial view from the feet (lowest S), the
  // sagittal view (normal towards the patient's right) from the patient's left (highest L). Each voxel index is
  // checked against where that voxel lies.
  auto extreme = [&](int axis, int lpsComponent, bool highest) {
    std::int64_t best = 0;
    for (std::int64_t k = 0; k < d[std::size_t(axis)]; ++k) {
      core::Vec3 ijk{0, 0, 0}, bestIjk{0, 0, 0};
      ijk[std::size_t(axis)] = double(k);
      bestIjk[std::size_t(axis)] = double(best);
      const double v = g.indexToLps(ijk)[std::size_t(lpsComponent)], b = g.indexToLps(bestIjk)[std::size_t(lpsComponent)];
      if (highest ? v > b : v < b) best = k;
    }
    return best;
  };
  auto axial = window.exports().viewSliceRange(viewer::SliceOrientation::Axial, 1, 1);
  REQUIRE(axial);
  CHECK(axial->axis == 2);
  CHECK(axial->first == extreme(2, 2, false));
  CHECK(axial->last == axial->first);
  auto sagittal = window.exports().viewSliceRange(viewer::SliceOrientation::Sagittal, 1, 200);
  REQUIRE(sagittal);
  CHECK(sagittal->axis == 0);
  const std::int64_t left = extreme(0, 0, true);
  CHECK((sagittal->first == left || sagittal->last == left));
  CHECK(sagittal->last - sagittal->first == 199);
  auto all = window.exports().viewSliceRange(viewer::SliceOrientation::Axial, 1, d[2]);
  REQUIRE(all);
  CHECK(all->first == 0);
  CHECK(all->last == d[2] - 1);

  // The export of the axial view's slices 2..3 has exactly the figures of those voxel slices.
  auto range = window.exports().viewSliceRange(viewer::SliceOrientation::Axial, 2, 3);
  REQUIRE(range);
  core::StatisticsOptions options;
  options.slices = range;
  auto expected = core::computeLabelStatistics(window.document().session()->labels(), &window.document().session()->image(), options);
  REQUIRE(expected.ok());
  REQUIRE(expected->size() == 1);
  auto whole = core::computeLabelStatistics(window.document().session()->labels(), &window.document().session()->image());
  REQUIRE(whole.ok());
  CHECK(expected->front().voxelCount < whole->front().voxelCount);
  test::ScratchDir dir("gui-slice-stats");
  const QString json = QString::fromStdString((dir / "stats.json").string());
  REQUIRE(window.exports().exportStatistics(json, false, range));
  const auto j = nlohmann::json::parse(test::readTextFile(json.toStdString()));
  INFO(j.dump(1));
  CHECK(j["slices"]["axis"] == 2);
  CHECK(j["slices"]["first"] == range->first);
  CHECK(j["slices"]["last"] == range->last);
  REQUIRE(j["labels"].size() == 1);
  CHECK(j["labels"][0]["voxels"] == expected->front().voxelCount);
}

TEST_CASE("File > Export > Publish Report to Share: statistics, PDF, SEG and SR of the open revision on the share",
          "[gui][share][dicom-sr]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  const auto nrrd = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd");
  if (!ct || !nrrd) return;
  test::ScratchDir dir("gui-share-report");
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "ct3", "organs");
  REQUIRE(set.ok());
  auto map = io::readLabelFile(nrrd->string());
  REQUIRE(map.ok());
  io::SaveRequest save;
  save.author = "tester";
  REQUIRE(set->saveLabels(*map, save).ok());

  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded),
      failed(&window, &MainWindow::loadFailed), published(&window, &MainWindow::reportPublished);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string())));
  REQUIRE(waitFor(loaded));
  // Labels that did not come from the share: refused, nothing published.
  CHECK_FALSE(window.exports().publishReportsToShare(false));
  REQUIRE(failed.count() == 1);
  CHECK(failed.front().at(0).toString().contains("save the labels to the share"));
  REQUIRE(window.loader().openShareRevision(QString::fromStdString((dir / "share").string()), "ct3", "organs", 1));
  REQUIRE(waitFor(labelsLoaded));
  REQUIRE_FALSE(window.document().session()->isDirty());

  REQUIRE(window.exports().publishReportsToShare(false, "for the board"));
  CHECK(window.busy());  // the share's writes run on a worker
  CHECK_FALSE(window.exports().publishReportsToShare(false));  // one at a time
  REQUIRE(waitFor(published));
  REQUIRE(published.count() == 1);
  CHECK_FALSE(window.busy());
  const std::filesystem::path folder = dir / "share" / published.front().at(0).toString().toStdString();
  CHECK(folder.string().find("reports/ct3/organs/r000001/0001") != std::string::npos);
  for (const char* name : {"statistics.csv", "statistics.json", "report.pdf", "segmentation.dcm", "measurements.dcm"}) {
    INFO(name);
    CHECK(std::filesystem::file_size(folder / name) > 0);
  }
  auto sr = io::readDicomSr((folder / "measurements.dcm").string());
  REQUIRE(sr.ok());
  CHECK(sr->groups.size() == 2);
  CHECK(test::readTextFile(folder / "report.pdf").rfind("%PDF", 0) == 0);
  auto list = io::listReports(*store, "ct3", "organs");
  REQUIRE(list.ok());
  REQUIRE(list->reports.size() == 1);
  CHECK(list->reports[0].message == "for the board");
  CHECK(list->reports[0].files.size() == 5);

  // De-identified: a second folder, no patient name in any file.
  REQUIRE(window.exports().publishReportsToShare(true));
  REQUIRE((published.count() == 2 || published.wait(60000)));
  REQUIRE(published.count() == 2);
  const std::filesystem::path second = dir / "share" / published.back().at(0).toString().toStdString();
  for (const auto& e : std::filesystem::directory_iterator(second)) {
    INFO(e.path());
    CHECK(test::readTextFile(e.path()).find("JANCT000") == std::string::npos);
  }
}

TEST_CASE("open dialogs start where the last file was opened and the share dialog at the last share", "[gui][export]") {
  // Found walking the annotator's and clinician's journeys: Open Label Map, Open DICOM SEG, Import table and the share
  // folder dialog all started in the working directory, far from the image just opened.
  test::guiApp();
  test::ScratchDir dir("gui-open-folders");
  QSettings().remove("open/lastFolder");
  QSettings().remove("share/root");
  CHECK(app::gui::lastOpenFolder() == QDir::homePath());
  CHECK(app::gui::lastShareFolder() == QDir::homePath());
  std::filesystem::create_directories(dir / "study" / "dicom");
  const QString image = QString::fromStdString((dir / "study" / "ct.nii.gz").string());
  CHECK(app::gui::rememberOpenFolder(image) == image);
  CHECK(app::gui::lastOpenFolder() == QFileInfo(image).absolutePath());
  // A chosen DICOM folder: the next dialog starts beside it.
  app::gui::rememberOpenFolder(QString::fromStdString((dir / "study" / "dicom").string()));
  CHECK(app::gui::lastOpenFolder() == QFileInfo(image).absolutePath());
  CHECK(app::gui::lastShareFolder() == QFileInfo(image).absolutePath());
  // A cancelled dialog (empty path) changes nothing; a folder that went away is not offered.
  app::gui::rememberOpenFolder(QString());
  CHECK(app::gui::lastOpenFolder() == QFileInfo(image).absolutePath());
  QSettings().setValue("share/root", QString::fromStdString(dir.path().string()));
  CHECK(QFileInfo(app::gui::lastShareFolder()) == QFileInfo(QString::fromStdString(dir.path().string())));
  std::filesystem::remove_all(dir / "study");
  CHECK(app::gui::lastOpenFolder() == QDir::homePath());
  QSettings().remove("open/lastFolder");
  QSettings().remove("share/root");
}

TEST_CASE("File > Export dialogs start in the last export folder with the study's name, never the working directory",
          "[gui][export]") {
  // Issue 23 item 11: every export defaulted to "report.pdf" (or "statistics.csv") in the working directory.
  test::guiApp();
  test::ScratchDir dir("gui-export-names");
  QSettings().remove("export/lastFolder");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt)));
  REQUIRE(waitFor(loaded));
  // A file study: the image's name without its extension; no folder chosen yet: the home folder.
  QString path = window.exports().suggestedPath("report.pdf");
  CHECK(QFileInfo(path).fileName() == "example_ct_report.pdf");
  CHECK(QFileInfo(path).absolutePath() == QDir::homePath());
  // After an export to a folder, the next dialog starts there.
  QSettings().setValue("export/lastFolder", QString::fromStdString(dir.path().string()));
  path = window.exports().suggestedPath("statistics.csv");
  CHECK(QFileInfo(path).absolutePath() == QFileInfo(QString::fromStdString(dir.path().string())).absoluteFilePath());
  CHECK(QFileInfo(path).fileName() == "example_ct_statistics.csv");
  // A DICOM study: named from its attributes, as on the share.
  auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  QSignalSpy dicomLoaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string())));
  REQUIRE(waitFor(dicomLoaded));
  path = window.exports().suggestedPath("seg.dcm");
  INFO(path.toStdString());
  CHECK(QFileInfo(path).fileName().startsWith("CRLM-CT-1004_"));
  CHECK(QFileInfo(path).fileName().endsWith("_seg.dcm"));
  // A de-identified export's name leaves the study's name (patient id, date) out (found walking the clinician's
  // journey: "CRLM-CT-1004_19941122_..." was offered for the de-identified PDF).
  for (const char* suffix : {"seg.dcm", "report.pdf", "statistics.csv"}) {
    path = window.exports().suggestedPath(suffix, true);
    CHECK(QFileInfo(path).fileName() == QString("deidentified_") + suffix);
    CHECK_FALSE(path.contains("CRLM-CT-1004"));
  }
  QSettings().remove("export/lastFolder");
}

TEST_CASE("File > Export > RT Structure Set and File > Open RT Structure Set: the window's labels out and back, names "
          "and colours kept, a file that is not one refused by name",
          "[gui][rtstruct]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  SettingsGuard guard;
  QSettings().setValue("user/name", "Tester^Ann");
  test::ScratchDir dir("gui-rtstruct");
  // A label map with a hole and an island on the series' grid, its names beside it.
  auto index = io::indexDicomFolder(ct->string());
  REQUIRE(index.ok());
  const core::Geometry grid = *index->allSeries().front()->geometry;
  auto v = core::Volume<core::Label>::create(grid, 0);
  REQUIRE(v.ok());
  for (std::int64_t z = 8; z < 16; ++z)
    for (std::int64_t y = 180; y < 300; ++y)
      for (std::int64_t x = 150; x < 330; ++x) {
        const bool hole = x > 200 && x < 260 && y > 220 && y < 260;
        const bool island = x > 220 && x < 240 && y > 232 && y < 248;
        if (!hole || island) v->at({x, y, z}) = island ? 9 : 4;
      }
  const core::LabelMap labels(std::move(v).value());
  REQUIRE(io::writeLabelFile((dir / "labels.nii.gz").string(), labels));
  test::writeTextFile(dir / "labels.label",
                      "0 0 0 0 0 0 0 \"Clear Label\"\n4 230 120 40 1 1 1 \"Liver\"\n9 30 200 250 1 1 1 \"Lesion\"\n");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded),
      failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string()),
                                          QString::fromStdString((dir / "labels.nii.gz").string())));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().session()->table().find(4) != nullptr);
  CHECK(window.document().session()->table().find(4)->name == "Liver");

  const QString out = QString::fromStdString((dir / "rs.dcm").string());
  REQUIRE(window.exports().exportRtStruct(out, false));
  CHECK(window.statusBar()->currentMessage().contains("2 ROIs"));
  auto doc = io::readRtStruct(out.toStdString(), grid);
  REQUIRE(doc.ok());
  REQUIRE(doc->findRoi(4) != nullptr);
  CHECK(doc->findRoi(4)->name == "Liver");
  CHECK(doc->findRoi(4)->interpreter == "Tester^Ann");

  // Opened again onto the study (after the labels were cleared): the same voxels, names and colours, one undo step.
  auto empty = core::Volume<core::Label>::create(grid, 0);
  REQUIRE(empty.ok());
  REQUIRE(window.document().replaceLabels(core::LabelMap(std::move(empty).value()), "clear"));
  REQUIRE(window.document().session()->labels()[std::size_t((10 * 512 + 190) * 512 + 160)] == 0);
  REQUIRE(window.loader().openRtStruct(out));
  REQUIRE(waitFor(labelsLoaded));
  const core::LabelMap& back = window.document().session()->labels();
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += back[i] != labels[i];
  CHECK(differ == 0);
  REQUIRE(window.document().session()->table().find(9) != nullptr);
  CHECK(window.document().session()->table().find(9)->name == "Lesion");
  CHECK(window.document().session()->table().find(9)->color == core::Rgba{30, 200, 250, 255});

  // A CT slice is no structure set: refused, naming the file, the labels as they were.
  const QString slice = QString::fromStdString(index->allSeries().front()->slices.front().path);
  const qsizetype failures = failed.count();
  REQUIRE(window.loader().openRtStruct(slice));
  REQUIRE((failed.count() > failures || failed.wait(60000)));
  CHECK(failed.back().at(0).toString().contains(QFileInfo(slice).fileName()));
  CHECK(failed.back().at(0).toString().contains("not an RT Structure Set"));
  CHECK(window.document().session()->labels()[0] == back[0]);
}
