// File > Open from Share (issue 24, item 6): the study browser searches the catalogue through the local index, sorts
// by any column, shows review state and who is editing, sees a study imported elsewhere while it is open, and opens
// image and revision in one step; a damaged file on the share is refused by name.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>

#include <filesystem>

#include "app/gui/study/session_files.h"
#include "app/gui/study/share_import.h"
#include "app/gui/study/study_browser.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_import.h"
#include "io/studies/study_store.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using namespace delineate::test;
using app::gui::MainWindow;
using app::gui::StudyBrowserDialog;

namespace {

io::ImportedSeries importVolume(const io::ShareStore& store, const std::string& file, const std::string& study,
                                const std::string& patientId, const std::string& modality, const std::string& description) {
  io::StudyImportOptions options;
  options.study = study;
  options.patientId = patientId;
  options.modality = modality;
  options.description = description;
  auto report = io::importStudies(store, {file}, options);
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 1);
  return report->series[0];
}

QStringList column(const QTableWidget* table, int c) {
  QStringList out;
  for (int r = 0; r < table->rowCount(); ++r) out << table->item(r, c)->text();
  return out;
}

constexpr int kPatientIdColumn = 0, kReviewColumn = 7, kEditingColumn = 8, kStudyColumn = 9;

}  // namespace

TEST_CASE("study browser: search, sort, review and editing state, a study imported meanwhile, and one-step open",
          "[gui][share]") {
  test::guiApp();
  auto mr = sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  if (!mr) return;
  test::ScratchDir dir("gui-study-browser");
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  const io::ImportedSeries ct = importVolume(*store, kSampleCt, "sample-ct", "P-001", "CT", "bundled sample");
  importVolume(*store, mr->string(), "brain-1", "P-002", "MR", "brain tumour");
  // Two revisions of the sample's labels, bound to its series; r2 submitted for review.
  auto manifest = io::readSeriesManifest(*store, "sample-ct", ct.series);
  REQUIRE(manifest.ok());
  auto map = io::readLabelFile(sampleLabels(dir));
  REQUIRE(map.ok());
  auto set = io::LabelSetRevisions::open(*store, "sample-ct", "organs");
  REQUIRE(set.ok());
  for (int i = 0; i < 2; ++i)
    REQUIRE(set->saveLabels(*map, io::SaveRequest{"ann", i, "automatic", io::withLabelBinding({}, *manifest)}).ok());
  REQUIRE(io::LabelSetReviews(*set).record(2, io::ReviewAction::Submit, "ann", "").ok());
  // Someone is editing the MR's tumour labels.
  auto tumour = io::LabelSetRevisions::open(*store, "brain-1", "tumour");
  REQUIRE(tumour.ok());
  auto lease = io::ShareLease::prepare(*store, tumour->folder(), "cy");
  REQUIRE(lease.ok());
  REQUIRE(lease->acquire().ok());

  StudyBrowserDialog dialog;
  QSignalSpy refreshed(&dialog, &StudyBrowserDialog::refreshed), details(&dialog, &StudyBrowserDialog::studyDetailsRead);
  REQUIRE(dialog.setRoot(QString::fromStdString((dir / "share").string())));
  dialog.show();
  REQUIRE(waitFor(refreshed));
  QTableWidget* table = dialog.table();
  REQUIRE(table->rowCount() == 2);
  CHECK(dialog.matchingStudies() == 2);

  // Sorting by a column's header, both ways.
  table->horizontalHeader()->sectionClicked(kPatientIdColumn);
  CHECK(column(table, kPatientIdColumn) == QStringList{"P-001", "P-002"});
  table->horizontalHeader()->sectionClicked(kPatientIdColumn);
  CHECK(column(table, kPatientIdColumn) == QStringList{"P-002", "P-001"});

  // Filters: text, modality, label status, a date range (volumes carry no date: none match one).
  dialog.searchField()->setText("tumour");
  CHECK(column(table, kStudyColumn) == QStringList{"brain-1"});
  CHECK(table->item(0, kEditingColumn)->text().startsWith("cy@"));
  dialog.searchField()->clear();
  dialog.modalityBox()->setCurrentIndex(dialog.modalityBox()->findData(QString("CT")));
  CHECK(column(table, kStudyColumn) == QStringList{"sample-ct"});
  CHECK(table->item(0, kReviewColumn)->text() == "submitted");
  dialog.modalityBox()->setCurrentIndex(0);
  dialog.statusBox()->setCurrentIndex(dialog.statusBox()->findData(QString("editing")));
  CHECK(column(table, kStudyColumn) == QStringList{"brain-1"});
  dialog.statusBox()->setCurrentIndex(0);
  dialog.dateFromField()->setText("2000-01-01");
  CHECK(table->rowCount() == 0);
  dialog.dateFromField()->setText("2000-01");  // not a date yet: ignored (and shown so) while typed
  CHECK(table->rowCount() == 2);
  dialog.dateFromField()->clear();

  // A study imported by another client appears while the dialog is open (the index catches up every few seconds).
  importVolume(*store, kSampleCt, "sample-ct-2", "P-003", "CT", "imported elsewhere");
  refreshed.clear();
  REQUIRE(waitFor(refreshed, 20000));
  CHECK(table->rowCount() == 3);

  // Choosing a study: its series, and its revisions with the newest bound to that series preselected.
  dialog.searchField()->setText("P-001");
  REQUIRE(table->rowCount() == 1);
  details.clear();
  table->selectRow(0);
  REQUIRE(waitFor(details));
  REQUIRE(dialog.seriesBox()->count() == 1);
  CHECK(dialog.revisionBox()->count() == 3);  // the image alone, r2, r1
  CHECK(dialog.revisionBox()->currentText().startsWith("organs r2"));
  CHECK(dialog.revisionBox()->currentText().contains("submitted"));
  CHECK(dialog.openButton()->isEnabled());
  const auto choice = dialog.choice();
  REQUIRE(choice.has_value());
  CHECK(choice->study == "sample-ct");
  CHECK(choice->series == QString::fromStdString(ct.series));
  CHECK(choice->labelSet == "organs");
  CHECK(choice->revision == 2);

  // Open: the image and the revision in one step; saving would make organs r3; the recent list names the share study.
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded),
      failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openShareStudy(choice->root, choice->study, choice->series, choice->labelSet, choice->revision));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(failed.count() == 0);
  CHECK(loaded.count() == 1);
  auto sample = io::readImageFile(kSampleCt);
  REQUIRE(sample.ok());
  CHECK(window.document().session()->image().geometry() == sample->geometry());
  CHECK(window.document().session()->baseRevision() == "sample-ct/organs/r2");
  CHECK_FALSE(window.document().session()->isDirty());
  CHECK(window.document().shareTarget().valid());
  CHECK(window.document().shareTarget().baseRevision == 2);
  CHECK(window.windowTitle().startsWith("Delineate - sample-ct (share) \u2014 sample-ct / organs r2"));
  const QStringList recent = QSettings().value("recentStudies").toStringList();
  REQUIRE_FALSE(recent.isEmpty());
  CHECK(recent.front() == "share:" + choice->root + "#sample-ct/" + choice->series + "/organs");

  // A second series on the same grid (another reconstruction): the window's save binds to the series it opened,
  // where a guess by grid could not choose.
  auto other = io::readImageFile(kSampleCt);
  REQUIRE(other.ok());
  other->data()[0] += 1.0f;
  const std::string otherPath = (dir / "second-recon.nii.gz").string();
  REQUIRE(io::writeImageFile(otherPath, *other).ok());
  importVolume(*store, otherPath, "sample-ct", "P-001", "CT", "bundled sample");
  REQUIRE(window.sessionFiles()->saveToShare("same labels, bound to the opened series"));
  auto revisions = set->list();
  REQUIRE(revisions.ok());
  REQUIRE(revisions->latest() == 3);
  std::string boundStudy, boundSeries;
  REQUIRE(io::parseLabelBinding(revisions->find(3)->extraJson, &boundStudy, &boundSeries));
  CHECK(boundSeries == ct.series);

  // A file of the series damaged on the share (and not in the local cache): refused, naming it; the study stays.
  const std::filesystem::path stored = std::filesystem::path(store->root()) / "studies/brain-1/series";
  auto brain = io::listStudy(*store, "brain-1");
  REQUIRE(brain.ok());
  const std::filesystem::path file = stored / brain->series[0].series / brain->series[0].files[0].name;
  std::string bytes = readTextFile(file);
  bytes[bytes.size() / 2] ^= 0x10;
  std::filesystem::permissions(file, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  writeTextFile(file, bytes);
  REQUIRE(window.loader().openShareStudy(choice->root, "brain-1", QString::fromStdString(brain->series[0].series)));
  REQUIRE(waitFor(failed));
  CHECK(failed.takeFirst().at(0).toString().contains(QString::fromStdString(file.string())));
  CHECK(window.document().session()->baseRevision() == "sample-ct/organs/r3");
  REQUIRE(lease->release().ok());
}

TEST_CASE("import into share: the dialog's request runs in the background and the study is in the catalogue after it",
          "[gui][share]") {
  test::guiApp();
  test::ScratchDir dir("gui-share-import");
  std::filesystem::create_directories(dir / "share");
  REQUIRE(io::ShareStore::initialize((dir / "share").string()).ok());
  const QString root = QString::fromStdString((dir / "share").string());
  QuietWindow window;

  app::gui::ShareImportDialog dialog(window.importer(), &window);
  dialog.inputsField()->setText(QString::fromStdString(kSampleCt) + ";");
  dialog.rootField()->setText(root);
  dialog.studyField()->setText("sample-import");
  auto request = dialog.request();
  CHECK(request.inputs == QStringList{QString::fromStdString(kSampleCt)});
  CHECK(request.study == "sample-import");

  QSignalSpy finished(&window.importer(), &app::gui::ShareImporter::finished);
  // A key on the share is refused before anything is copied.
  test::writeTextFile(dir / "share" / "key", "0123456789abcdef0123456789abcdef");
  auto onShare = request;
  onShare.deidentify = true;
  onShare.keyFile = root + "/key";
  REQUIRE(window.importer().start(onShare));  // checked on the worker: the share is read there
  REQUIRE(waitFor(finished));
  CHECK_FALSE(finished.front().at(0).toBool());
  CHECK(finished.takeFirst().at(1).toString().contains("lies on the share"));
  CHECK(io::listStudyNames(*io::ShareStore::open(root.toStdString())).value().empty());

  REQUIRE(window.importer().start(request));
  REQUIRE(waitFor(finished));
  INFO(finished.front().at(1).toString().toStdString());
  CHECK(finished.front().at(0).toBool());
  CHECK(finished.front().at(1).toString().startsWith("1 series imported: 1 files copied"));
  auto store = io::ShareStore::open(root.toStdString());
  REQUIRE(store.ok());
  auto listing = io::listStudy(*store, "sample-import");
  REQUIRE(listing.ok());
  REQUIRE(listing->series.size() == 1);
  CHECK(listing->series[0].kind == "volume");
  // The browser finds it.
  StudyBrowserDialog browser;
  QSignalSpy refreshed(&browser, &StudyBrowserDialog::refreshed);
  REQUIRE(browser.setRoot(root));
  REQUIRE(waitFor(refreshed));
  CHECK(column(browser.table(), kStudyColumn) == QStringList{"sample-import"});
}

TEST_CASE("study browser: a study's RT Structure Set is offered as the labels of its image and opens onto it",
          "[gui][share][rtstruct]") {
  test::guiApp();
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  test::ScratchDir dir("gui-study-browser-rt");
  // The CT and a structure set drawn on it, side by side in one folder, imported as one study.
  std::filesystem::create_directories(dir / "in");
  for (const auto& e : std::filesystem::directory_iterator(*ct))
    if (e.path().extension() == ".dcm") std::filesystem::copy_file(e.path(), dir / "in" / e.path().filename());
  auto index = io::indexDicomFolder((dir / "in").string());
  REQUIRE(index.ok());
  const io::DicomSeries series = *index->allSeries().front();
  auto v = core::Volume<core::Label>::create(*series.geometry, 0);
  REQUIRE(v.ok());
  for (std::int64_t z = 4; z < 12; ++z)
    for (std::int64_t y = 200; y < 260; ++y)
      for (std::int64_t x = 220; x < 300; ++x) v->at({x, y, z}) = (x < 250 ? 2 : 6);
  const core::LabelMap labels(std::move(v).value());
  core::LabelTable names;
  for (const auto& [id, name] : std::vector<std::pair<core::Label, std::string>>{{2, "Kidney"}, {6, "Spleen"}}) {
    core::LabelEntry e;
    e.id = id;
    e.name = name;
    e.color = core::LabelTable::defaultColor(id);
    REQUIRE(names.add(e));
  }
  io::RtStructWriteOptions options;
  options.seriesDescription = "Planning structures";
  REQUIRE(io::writeRtStruct((dir / "in" / "rs.dcm").string(), labels, names, series, options));
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  auto report = io::importStudies(*store, {(dir / "in").string()}, io::StudyImportOptions{});
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 2);

  StudyBrowserDialog dialog;
  QSignalSpy refreshed(&dialog, &StudyBrowserDialog::refreshed), details(&dialog, &StudyBrowserDialog::studyDetailsRead);
  REQUIRE(dialog.setRoot(QString::fromStdString((dir / "share").string())));
  dialog.show();
  REQUIRE(waitFor(refreshed));
  REQUIRE(dialog.table()->rowCount() == 1);
  dialog.table()->selectRow(0);
  REQUIRE(waitFor(details));
  CHECK(dialog.seriesBox()->count() == 1);  // the CT; the structure set is not an image to open
  const int rt = dialog.revisionBox()->findText("RT Structure Set: Planning structures", Qt::MatchStartsWith);
  REQUIRE(rt > 0);
  dialog.revisionBox()->setCurrentIndex(rt);
  const auto choice = dialog.choice();
  REQUIRE(choice.has_value());
  CHECK(choice->labelSet.isEmpty());
  REQUIRE_FALSE(choice->rtStructSeries.isEmpty());

  QuietWindow window;
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded), failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openShareStudy(choice->root, choice->study, choice->series, choice->labelSet, choice->revision,
                                         choice->rtStructSeries));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(failed.count() == 0);
  const core::LabelMap& back = window.document().session()->labels();
  REQUIRE(back.size() == labels.size());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) differ += back[i] != labels[i];
  CHECK(differ == 0);
  REQUIRE(window.document().session()->table().find(6) != nullptr);
  CHECK(window.document().session()->table().find(6)->name == "Spleen");
}
