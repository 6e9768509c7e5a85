// The window and a real PACS (issue 42, item 6): File > Query/Retrieve from PACS finds a study on Orthanc, retrieves
// it into the share's catalogue (or the local cache for a look), opens it; the classic engine segments it and File >
// Send to PACS sends the SEG and its SR back. DIMSE (C-GET and C-MOVE) and DICOMweb; a PACS that went away is named.
#include <catch2/catch.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>

#include <sys/stat.h>

#include <filesystem>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/pacs/pacs_browser.h"
#include "app/gui/pacs/pacs_peer.h"
#include "app/gui/pacs/pacs_send.h"
#include "app/gui/pacs/pacs_servers.h"
#include "io/base/sealed_file.h"
#include "io/pacs/dimse_client.h"
#include "io/studies/study_store.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/pacs_test_data.h"

using namespace delineate;
using namespace delineate::test;
using app::gui::MainWindow;
using app::gui::PacsBrowserDialog;
using app::gui::PacsSendDialog;
using app::gui::PacsServer;

namespace {

PacsServer dimseServer(const OrthancServer& orthanc, const QString& name = "Orthanc") {
  PacsServer s;
  s.name = name;
  s.aeTitle = QString::fromStdString(orthanc.aeTitle());
  s.host = "127.0.0.1";
  s.port = orthanc.dicomPort();
  s.callingAe = "DELINEATE";
  return s;
}

std::size_t labelledVoxels(const MainWindow& window) {
  const core::AnnotationSession* session = window.document().session();
  if (!session) return 0;
  const core::LabelMap& labels = session->labels();
  return std::size_t(std::count_if(labels.data(), labels.data() + labels.size(), [](core::Label l) { return l != 0; }));
}

// Searches as a user: the patient name typed, Search pressed; the study's row chosen, its series listed.
void searchAndChoose(PacsBrowserDialog& browser, const QString& patientName, int expectedStudies) {
  QSignalSpy searched(&browser, &PacsBrowserDialog::searched);
  browser.patientNameField()->setText(patientName);
  browser.searchButton()->click();
  REQUIRE(waitFor(searched));
  INFO(browser.stateLabel()->text().toStdString());
  REQUIRE(searched.first().at(0).toBool());
  REQUIRE(browser.studyTable()->rowCount() == expectedStudies);
  QSignalSpy listed(&browser, &PacsBrowserDialog::seriesListed);
  browser.studyTable()->selectRow(0);
  REQUIRE(waitFor(listed));
  REQUIRE(listed.first().at(0).toBool());
}

bool retrieveNow(PacsBrowserDialog& browser) {
  QSignalSpy retrieved(&browser, &PacsBrowserDialog::retrieved);
  browser.retrieveButton()->click();
  if (!waitFor(retrieved, 180000)) return false;
  INFO(browser.stateLabel()->text().toStdString());
  return retrieved.first().at(0).toBool();
}

std::vector<std::string> modalitiesOnPacs(const OrthancServer& orthanc, const std::string& studyUid) {
  io::QueryKeys keys;
  keys.studyInstanceUid = studyUid;
  auto series = io::dimseFind(nodeOf(orthanc), {"DELINEATE"}, io::QueryLevel::Series, keys);
  REQUIRE(series.ok());
  std::vector<std::string> out;
  for (const auto& s : *series) out.push_back(s.modality);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("PACS browser: a study found on Orthanc over DIMSE, retrieved into the share, opened, segmented and its SEG and SR sent back",
          "[gui][pacs]") {
  test::guiApp();
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("gui-pacs-dimse");
  StudySpec spec;
  spec.patientId = "PACS-GUI-1";
  spec.patientName = "Browser^Test";
  spec.studyDescription = "Liver CT";
  const MadeStudy study = makeStudy(sources, dir / "study", spec);
  StudySpec other;
  other.patientId = "PACS-GUI-OTHER";
  other.patientName = "Other^Person";
  other.instances = 3;
  other.tiny = true;
  makeStudy(sources, dir / "other", other);
  OrthancServer orthanc(knowsUs(freeLoopbackPort()));
  orthanc.start();
  orthanc.storeFolder(dir / "study");
  orthanc.storeFolder(dir / "other");
  const std::filesystem::path share = dir / "share";
  std::filesystem::create_directories(share);
  REQUIRE(io::ShareStore::initialize(share.string()).ok());
  REQUIRE(app::gui::savePacsServers({dimseServer(orthanc)}));

  QuietWindow window;
  PacsBrowserDialog* browser = window.showPacsBrowser();
  REQUIRE(browser->isVisible());
  REQUIRE(browser->serverBox()->count() == 1);
  // A wildcard finds one patient's study of the two; its series with its instance count.
  searchAndChoose(*browser, "Browser*", 1);
  CHECK(browser->studyTable()->item(0, 1)->text() == "PACS-GUI-1");
  CHECK(browser->studyTable()->item(0, 4)->text() == "Liver CT");
  REQUIRE(browser->seriesTable()->rowCount() == 1);
  CHECK(browser->seriesTable()->item(0, 3)->text() == "41");

  // Retrieved into the share, through the verified import.
  browser->importBox()->setChecked(true);
  browser->shareField()->setText(QString::fromStdString(share.string()));
  REQUIRE(retrieveNow(*browser));
  INFO(browser->stateLabel()->text().toStdString());
  CHECK(browser->stateLabel()->text().contains("Instances retrieved: 41"));
  CHECK(browser->stateLabel()->text().contains("Imported into the share: 1 series, files copied: 41"));
  CHECK(browser->progressBar()->value() == 1000);
  REQUIRE(browser->openButton()->isEnabled());
  // On the share, verified: the cache's copy the instances came through is gone (patient data kept once).
  const std::string cache = io::userCacheFolder() + "/pacs/" + study.studyUid + "/" + study.seriesUid;
  CHECK_FALSE(std::filesystem::exists(cache));
  struct stat st {};
  REQUIRE(::stat((io::userCacheFolder() + "/pacs").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);

  // Retrieving again imports nothing twice: the share has every file already.
  REQUIRE(retrieveNow(*browser));
  CHECK(browser->stateLabel()->text().contains("files copied: 0"));

  // Open: the share's study, so saving makes its revisions; the browser steps aside.
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  QSignalSpy engine(window.aiPanel(), &app::gui::AiPanel::engineChanged);
  browser->openButton()->click();
  REQUIRE(waitFor(loaded, 120000));
  REQUIRE(window.document().hasStudy());
  CHECK(window.document().shareTarget().study == QString::fromStdString(study.studyUid));
  CHECK_FALSE(browser->isVisible());
  CHECK(window.document().session()->image().geometry().dimensions()[2] == 41);

  // Segmented by the classic engine (made for the study once it opened), then File > Send to PACS.
  REQUIRE(waitFor(engine, 120000));
  QSignalSpy segmented(window.aiPanel(), &app::gui::AiPanel::segmentationFinished);
  REQUIRE(window.aiPanel()->segmentEverything());
  REQUIRE(waitFor(segmented, 120000));
  REQUIRE(segmented.first().at(0).toBool());
  const std::size_t labelled = labelledVoxels(window);
  REQUIRE(labelled > 0);
  // With File > Send to PACS Includes an RT Structure Set on, the labels go as contours too.
  struct SendRtSetting {
    SendRtSetting() { QSettings().setValue("pacs/sendRtStruct", true); }
    ~SendRtSetting() { QSettings().remove("pacs/sendRtStruct"); }
  } sendRt;
  PacsSendDialog* send = window.showSendToPacs();
  REQUIRE(send->serverBox()->count() == 1);
  QSignalSpy sent(send, &PacsSendDialog::sent);
  send->sendButton()->click();
  REQUIRE(waitFor(sent, 120000));
  INFO(send->stateLabel()->text().toStdString());
  REQUIRE(sent.first().at(0).toBool());
  CHECK(send->stateLabel()->text().contains("Sent to Orthanc"));
  CHECK(modalitiesOnPacs(orthanc, study.studyUid) == std::vector<std::string>{"CT", "RTSTRUCT", "SEG", "SR"});
  // The browser shows them with the study, and its series under it.
  searchAndChoose(*browser, "Browser*", 1);
  CHECK(browser->studyTable()->item(0, 6)->text().contains("RTSTRUCT"));
  CHECK(browser->seriesTable()->rowCount() == 4);
  // The files were made in a private folder of the cache and are gone.
  CHECK(QDir(QString::fromStdString(io::userCacheFolder() + "/pacs")).entryList({"outgoing-*"}, QDir::Dirs).isEmpty());

  // The PACS went away: the dialog says which peer and stays open; the labels are as they were.
  orthanc.stop();
  sent.clear();
  send->sendButton()->click();
  REQUIRE(waitFor(sent, 120000));
  CHECK_FALSE(sent.first().at(0).toBool());
  const std::string said = send->stateLabel()->text().toStdString();
  INFO(said);
  CHECK(said.find("Not sent") != std::string::npos);
  CHECK(said.find("127.0.0.1:" + std::to_string(orthanc.dicomPort())) != std::string::npos);
  CHECK(send->isVisible());
  CHECK(labelledVoxels(window) == labelled);
}

TEST_CASE("PACS browser: DICOMweb and C-MOVE retrieves for a look from the local cache, and bad input named",
          "[gui][pacs]") {
  test::guiApp();
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("gui-pacs-web");
  StudySpec spec;
  spec.patientId = "PACS-GUI-2";
  spec.patientName = "Web^Look";
  spec.instances = 12;
  const MadeStudy study = makeStudy(sources, dir / "study", spec);
  const int movePort = freeLoopbackPort();
  OrthancServer orthanc(knowsUs(movePort));
  orthanc.start();
  orthanc.storeFolder(dir / "study");

  PacsServer web;
  web.name = "Orthanc DICOMweb";
  web.protocol = PacsServer::Protocol::DicomWeb;
  web.url = QString::fromStdString(orthanc.dicomWebUrl());
  PacsServer move = dimseServer(orthanc, "Orthanc C-MOVE");
  move.retrieval = PacsServer::Retrieval::Move;
  move.moveAe = "DELINEATE";
  move.movePort = movePort;
  REQUIRE(app::gui::savePacsServers({web, move}));

  QuietWindow window;
  PacsBrowserDialog* browser = window.showPacsBrowser();
  REQUIRE(browser->serverBox()->count() == 2);

  // A date that is no date is refused by name, and nothing is asked.
  browser->dateFromField()->setText("2024-13-45");
  CHECK_FALSE(browser->search());
  CHECK(browser->stateLabel()->text().contains("2024-13-45"));
  browser->dateFromField()->setText("2024-01-01");  // the study is of 2024-01-02
  browser->dateToField()->setText("20240131");

  // DICOMweb: a look without importing, opened from the cache.
  browser->serverBox()->setCurrentIndex(0);
  searchAndChoose(*browser, "Web*", 1);
  browser->importBox()->setChecked(false);
  REQUIRE(retrieveNow(*browser));
  CHECK(browser->stateLabel()->text().contains("Instances retrieved: 12"));
  // The look's cache is the user's alone, and a second Retrieve asks for nothing: everything is here.
  const std::string cacheFolder = io::userCacheFolder() + "/pacs/" + study.studyUid + "/" + study.seriesUid;
  struct stat st {};
  REQUIRE(::stat(cacheFolder.c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
  REQUIRE(::stat((cacheFolder + "/" + study.sopUids.front() + ".dcm").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
  CHECK(io::isSealedFile(cacheFolder + "/" + study.sopUids.front() + ".dcm"));  // encrypted at rest
  REQUIRE(retrieveNow(*browser));
  CHECK(browser->stateLabel()->text().contains("Instances retrieved: 0"));
  CHECK(browser->stateLabel()->text().contains("already here: 12"));
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  browser->openButton()->click();
  REQUIRE(waitFor(loaded, 120000));
  const QString cache = QString::fromStdString(io::userCacheFolder() + "/pacs/" + study.studyUid + "/" + study.seriesUid);
  CHECK(window.document().source().startsWith(cache));
  CHECK(window.document().session()->image().geometry().dimensions()[2] == 12);

  // C-MOVE to our own storage SCP, started for the transfer: the cache emptied first, so all of it moves again.
  std::filesystem::remove_all(cache.toStdString());
  browser->serverBox()->setCurrentIndex(1);
  searchAndChoose(*browser, "Web*", 1);
  REQUIRE(retrieveNow(*browser));
  CHECK(browser->stateLabel()->text().contains("Instances retrieved: 12"));
  CHECK(QDir(cache).entryList({"*.dcm"}, QDir::Files).size() == 12);
  CHECK(io::isSealedFile(cacheFolder + "/" + study.sopUids.back() + ".dcm"));

  // A PACS answering a "UID" that would be a path never makes a folder of it.
  QString why;
  CHECK(app::gui::pacsCacheFolder("../../etc", study.seriesUid, &why).isEmpty());
  CHECK(why.contains("../../etc"));
  CHECK(app::gui::pacsCacheFolder(study.studyUid, "1.2/../../x", &why).isEmpty());
}
