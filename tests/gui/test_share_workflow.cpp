// Issue 41: the share from the window as a new user meets it. Review steps (submit, approve, send back) in the
// window with the io layer's refusals said; an author name asked for before the first save, never "unknown"; Import
// into Share and Open from Share make a new share, and a failed import keeps its dialog; label tables follow the
// labels from subject to subject and from revision to revision; Recent Studies reopens a study with its labels.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTimer>

#include <filesystem>

#include "app/gui/study/session_files.h"
#include "app/gui/study/share_import.h"
#include "app/gui/study/share_review.h"
#include "app/gui/study/study_browser.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using namespace delineate::test;
using app::gui::MainWindow;
using StudyDocumentCounts = app::gui::StudyDocument::Counts;

namespace {

QAction* menuAction(MainWindow& window, const char* name) {
  for (QAction* a : window.menuBar()->findChildren<QAction*>(name)) return a;
  return nullptr;
}

// The sample opened in `window` with labels, saved to a new share at DIR/share as sample/organs r1.
app::gui::ShareTarget openAndSave(MainWindow& window, const ScratchDir& dir) {
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(sampleLabels(dir))));
  REQUIRE(waitFor(loaded));
  std::filesystem::create_directories(dir / "share");
  REQUIRE(io::ShareStore::initialize((dir / "share").string()).ok());
  const app::gui::ShareTarget target{QString::fromStdString((dir / "share").string()), "sample", "organs", 0, {}};
  REQUIRE(window.sessionFiles()->saveToShareAs(target));
  return window.document().shareTarget();
}

// An unsaved edit: the smallest label present erased; returns it.
core::Label removeLabelOne(MainWindow& window) {
  REQUIRE_FALSE(window.document().voxelCounts().empty());
  const core::Label erased = window.document().voxelCounts().begin()->first;
  core::Volume<core::Label> edited = window.document().session()->labels().voxels();
  for (std::size_t i = 0; i < edited.size(); ++i)
    if (edited.data()[i] == erased) edited.data()[i] = 0;
  REQUIRE(window.document().replaceLabels(core::LabelMap(std::move(edited)), "test edit").ok());
  REQUIRE(window.document().isDirty());
  REQUIRE(window.document().voxelCounts().count(erased) == 0);
  return erased;
}

template <class F>
bool waitUntil(F done, int timeoutMs = 10000) {
  QElapsedTimer clock;
  clock.start();
  while (!done() && clock.elapsed() < timeoutMs) QApplication::processEvents(QEventLoop::AllEvents, 50);
  return done();
}

io::RevisionReview reviewOf(const app::gui::ShareTarget& t, int revision) {
  auto store = io::ShareStore::open(t.root.toStdString());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, t.study.toStdString(), t.labelSet.toStdString());
  REQUIRE(set.ok());
  auto review = io::LabelSetReviews(*set).review(revision);
  REQUIRE(review.ok());
  return *review;
}

}  // namespace

TEST_CASE("review in the window: submit, approve and send back from the Review menu, with the share's refusals said",
          "[gui][share][review]") {
  test::guiApp();
  const QVariant previousAuthor = QSettings().value("user/name");
  test::ScratchDir dir("gui-review");
  QSettings().setValue("user/name", "ann");
  QuietWindow window;
  const app::gui::ShareTarget saved = openAndSave(window, dir);
  REQUIRE(saved.baseRevision == 1);
  QSignalSpy failed(&window, &MainWindow::loadFailed);

  QAction* submit = menuAction(window, "review-submit");
  QAction* approve = menuAction(window, "review-approve");
  QAction* sendBack = menuAction(window, "review-send-back");
  REQUIRE(submit);
  REQUIRE(approve);
  REQUIRE(sendBack);
  submit->trigger();
  CHECK(failed.empty());
  if (!failed.empty()) FAIL(failed.back().at(0).toString().toStdString());
  io::RevisionReview review = reviewOf(saved, 1);
  CHECK(review.state == io::ReviewState::Submitted);
  REQUIRE(review.last());
  CHECK(review.last()->user == "ann");

  // The author approving her own revision is refused by the share, and the window says why.
  approve->trigger();
  REQUIRE(failed.size() == 1);
  CHECK(failed.back().at(0).toString().contains("ann wrote this revision"));
  CHECK(reviewOf(saved, 1).state == io::ReviewState::Submitted);

  // Another reviewer: sending back needs a comment; with one it is recorded, and the title shows it.
  QSettings().setValue("user/name", "rev");
  sendBack->trigger();  // dialogs off: no comment to ask for
  REQUIRE(failed.size() == 2);
  CHECK(failed.back().at(0).toString().contains("comment"));
  CHECK(reviewOf(saved, 1).state == io::ReviewState::Submitted);
  REQUIRE(window.sessionFiles()->review().sendBack("the left lung misses its apex"));
  review = reviewOf(saved, 1);
  CHECK(review.state == io::ReviewState::Rejected);
  CHECK(review.last()->user == "rev");
  CHECK(review.last()->comment == "the left lung misses its apex");
  CHECK(waitUntil([&] { return window.windowTitle().contains("sent back by rev"); }));

  // Unsaved edits are not what is on the share: no review step then.
  QSettings().setValue("user/name", "ann");
  removeLabelOne(window);
  submit->trigger();
  CHECK(failed.back().at(0).toString().contains("unsaved edits"));
  CHECK(reviewOf(saved, 1).state == io::ReviewState::Rejected);
  QSettings().setValue("user/name", previousAuthor);
}

TEST_CASE("the first save asks for an author name (prefilled with the login), stores it and saves under it",
          "[gui][share][author]") {
  test::guiApp();
  const QVariant previousAuthor = QSettings().value("user/name");
  test::ScratchDir dir("gui-author");
  QSettings().setValue("user/name", "ann");
  QuietWindow window;
  const app::gui::ShareTarget saved = openAndSave(window, dir);
  QSettings().remove("user/name");  // no author: the save asks for one
  removeLabelOne(window);  // an edit to save

  window.setDialogsEnabled(true);
  QString prefilled;
  bool asked = false;
  QTimer driver;
  QObject::connect(&driver, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (!modal) return;
    if (auto* ask = qobject_cast<QInputDialog*>(modal); ask && ask->objectName() == "author-dialog" && !asked) {
      asked = true;
      prefilled = ask->textValue();
      ask->setTextValue("Dr Annotator");
      ask->accept();
      return;
    }
    if (auto* dialog = qobject_cast<QDialog*>(modal)) dialog->reject();  // never hang on another dialog
  });
  driver.start(30);
  const bool ok = window.sessionFiles()->saveToShare();
  driver.stop();
  window.setDialogsEnabled(false);
  CHECK(asked);
  CHECK(prefilled == qEnvironmentVariable("USER"));
  REQUIRE(ok);
  CHECK(QSettings().value("user/name").toString() == "Dr Annotator");
  auto store = io::ShareStore::open(saved.root.toStdString());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "sample", "organs");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  REQUIRE(list->latest() == 2);
  CHECK(list->find(2)->author == "Dr Annotator");
  QSettings().setValue("user/name", previousAuthor);
}

TEST_CASE("import into share: a failed import keeps the dialog open with its paths and the error, and Create Share makes "
          "the share it needs",
          "[gui][share][import]") {
  test::guiApp();
  test::ScratchDir dir("gui-import-new-share");
  QuietWindow window;
  const QString root = QString::fromStdString((dir / "new-share").string());
  const QString input = QString::fromStdString(kSampleCt);
  app::gui::ShareImportDialog dialog(window.importer(), &window);
  dialog.show();
  dialog.inputsField()->setText(input);
  dialog.rootField()->setText(root);
  dialog.studyField()->setText("sample-import");
  QSignalSpy finished(&window.importer(), &app::gui::ShareImporter::finished);

  // No share there yet: the import fails, and the dialog stays with everything typed and the reason, naming the folder.
  dialog.importButton()->click();
  REQUIRE(waitFor(finished));
  CHECK_FALSE(finished.takeFirst().at(0).toBool());
  CHECK(dialog.isVisible());
  CHECK(dialog.result() != QDialog::Accepted);
  CHECK(dialog.inputsField()->text() == input);
  CHECK(dialog.rootField()->text() == root);
  CHECK(dialog.studyField()->text() == "sample-import");
  CHECK(dialog.stateLabel()->text().contains(root));
  CHECK(dialog.importButton()->isEnabled());

  // Create Share makes one there, and the import goes through; the dialog closes only now.
  dialog.createShareButton()->click();
  CHECK(dialog.stateLabel()->text().contains("Created a share"));
  REQUIRE(io::ShareStore::open(root.toStdString()).ok());
  dialog.importButton()->click();
  REQUIRE(waitFor(finished));
  INFO(finished.front().at(1).toString().toStdString());
  CHECK(finished.front().at(0).toBool());
  CHECK_FALSE(dialog.isVisible());
  CHECK(dialog.result() == QDialog::Accepted);
  auto listing = io::listStudy(*io::ShareStore::open(root.toStdString()), "sample-import");
  REQUIRE(listing.ok());
  CHECK(listing->series.size() == 1);
}

TEST_CASE("open from share: the share chooser refuses a folder that is no share, makes a new one there on Create "
          "Share, and the browser opens on it",
          "[gui][share][import]") {
  test::guiApp();
  test::ScratchDir dir("gui-open-new-share");
  const QString root = QString::fromStdString((dir / "fresh").string());
  std::filesystem::create_directories(root.toStdString());
  QSettings().remove("share/root");
  QuietWindow window;
  window.setDialogsEnabled(true);
  QString refused, created, browserRoot;
  QStringList boxes;
  int step = 0;
  QTimer driver;
  QObject::connect(&driver, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (!modal) return;
    if (auto* box = qobject_cast<QMessageBox*>(modal)) {
      boxes << box->text();
      box->accept();
      return;
    }
    if (auto* browser = qobject_cast<app::gui::StudyBrowserDialog*>(modal)) {
      browserRoot = browser->root();
      browser->reject();
      return;
    }
    auto* chooser = qobject_cast<QDialog*>(modal);
    if (!chooser || chooser->objectName() != "share-folder-dialog" || step > 3) {
      if (auto* other = qobject_cast<QDialog*>(modal)) other->reject();  // never hang
      return;
    }
    auto* open = chooser->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open);
    auto* state = chooser->findChild<QLabel*>("share-state");
    switch (step++) {
      case 0:
        chooser->findChild<QLineEdit*>("share-root")->setText(root);
        open->click();  // no share there: refused in the dialog
        break;
      case 1:
        refused = state->text();
        chooser->findChild<QPushButton*>("create-share")->click();
        break;
      case 2:
        created = state->text();
        open->click();
        break;
      default:
        chooser->reject();
    }
  });
  driver.start(30);
  QAction* action = menuAction(window, "open-from-share");
  REQUIRE(action);
  action->trigger();
  driver.stop();
  window.setDialogsEnabled(false);
  INFO(boxes.join("\n").toStdString());
  CHECK(refused.contains(root));
  CHECK(created.contains("Created a share"));
  CHECK(browserRoot == root);
  CHECK(io::ShareStore::open(root.toStdString()).ok());
  CHECK(QSettings().value("share/root").toString() == root);
  QSettings().remove("share/root");
}

TEST_CASE("label tables follow the labels: the next subject's map takes the table last used when it names all its "
          "values, and a share revision saved without a table keeps its set's table",
          "[gui][labels][label-tables]") {
  test::guiApp();
  const QVariant previousAuthor = QSettings().value("user/name");
  test::ScratchDir dir("gui-table-follows");
  QSettings().remove("labels/lastTable");
  QSettings().setValue("user/name", "ann");
  QuietWindow window;
  // Subject 1: its map with the atlas's table beside it.
  const std::string labels = sampleLabels(dir);
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
  REQUIRE(waitFor(loaded));
  const core::LabelTable atlas = window.document().session()->table();
  REQUIRE(atlas.size() >= 2);
  // Subject 2 (the same image stands in): its map has no table beside it.
  std::filesystem::create_directories(dir / "subject2");
  const std::string bare = (dir / "subject2" / "labels.nii.gz").string();
  std::filesystem::copy_file(labels, bare);
  loaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  CHECK(window.document().session()->table().empty());  // a new study names nothing of its own
  REQUIRE(window.loader().openLabels(QString::fromStdString(bare)));
  REQUIRE(waitFor(labelsLoaded));
  REQUIRE(window.document().session()->table().size() == atlas.size());
  for (const auto& e : atlas.entries()) {
    const core::LabelEntry* got = window.document().session()->table().find(e.id);
    REQUIRE(got);
    CHECK(got->name == e.name);
  }
  // A map holding a value the table does not name borrows nothing (issue 23).
  core::Volume<core::Label> voxels = window.document().session()->labels().voxels();
  voxels.data()[0] = 77;
  const core::LabelMap other(std::move(voxels));
  const std::string foreign = (dir / "subject2" / "foreign.nii.gz").string();
  REQUIRE(io::writeLabelFile(foreign, other).ok());
  loaded.clear();
  labelsLoaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.loader().openLabels(QString::fromStdString(foreign)));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(window.document().session()->table().empty());

  // A share label set: r1 saved from the window carries the table; r2 saved without one (as the CLI did) opens with
  // r1's table, not unnamed.
  QSettings().remove("labels/lastTable");
  std::filesystem::create_directories(dir / "share");
  REQUIRE(io::ShareStore::initialize((dir / "share").string()).ok());
  loaded.clear();
  labelsLoaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
  REQUIRE(waitFor(loaded));
  QSettings().remove("labels/lastTable");  // only the share may name r2 below
  const app::gui::ShareTarget target{QString::fromStdString((dir / "share").string()), "sample", "organs", 0, {}};
  REQUIRE(window.sessionFiles()->saveToShareAs(target));
  QSettings().remove("labels/lastTable");
  auto store = io::ShareStore::open((dir / "share").string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "sample", "organs");
  REQUIRE(set.ok());
  auto map = io::readLabelFile(labels);
  REQUIRE(map.ok());
  REQUIRE(set->saveLabels(*map, io::SaveRequest{"cli", 1, "from the CLI", {}}).ok());
  loaded.clear();
  labelsLoaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.loader().openShareRevision(target.root, "sample", "organs", 2));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(window.document().shareTarget().baseRevision == 2);
  CHECK(window.document().session()->table().size() == atlas.size());
  QSettings().remove("labels/lastTable");
  QSettings().setValue("user/name", previousAuthor);
}

TEST_CASE("recent studies reopen a study with the labels last saved with it: a label file, or its share label set",
          "[gui][recent]") {
  test::guiApp();
  const QVariant previousAuthor = QSettings().value("user/name");
  test::ScratchDir dir("gui-recent-labels");
  QSettings().remove("recentStudies");
  QSettings().remove("recentLabels");
  QSettings().setValue("user/name", "ann");
  const std::string labels = sampleLabels(dir);
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
  REQUIRE(waitFor(loaded));
  const core::Label erased = removeLabelOne(window);
  const QString written = QString::fromStdString((dir / "edited.nii.gz").string());
  REQUIRE(window.sessionFiles()->saveLabelsAs(written));
  const StudyDocumentCounts counts = window.document().voxelCounts();

  QMenu* recent = nullptr;
  for (QMenu* m : window.menuBar()->findChildren<QMenu*>())
    if (m->title() == "Recent Studies") recent = m;
  REQUIRE(recent);
  const auto entry = [&](const QString& start) -> QAction* {
    Q_EMIT recent->aboutToShow();  // filled as when the user opens it
    for (QAction* a : recent->actions())
      if (a->text().startsWith(start)) return a;
    return nullptr;
  };
  // Another study in between, then the sample again from Recent Studies: with the labels written last.
  loaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  QAction* sample = entry(QString::fromStdString(kSampleCt));
  REQUIRE(sample);
  CHECK(sample->text().contains(written));  // the entry says where its labels are
  loaded.clear();
  sample->trigger();
  REQUIRE(waitFor(loaded));
  CHECK(window.document().voxelCounts() == counts);  // the edited labels, not the first ones
  CHECK(window.document().voxelCounts().count(erased) == 0);

  // Saved to a share: the entry reopens with the label set's newest revision.
  std::filesystem::create_directories(dir / "share");
  REQUIRE(io::ShareStore::initialize((dir / "share").string()).ok());
  const QString root = QString::fromStdString((dir / "share").string());
  REQUIRE(window.sessionFiles()->saveToShareAs({root, "sample", "organs", 0, {}}));
  loaded.clear();
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  sample = entry(QString::fromStdString(kSampleCt));
  REQUIRE(sample);
  CHECK(sample->text().contains("organs"));
  loaded.clear();
  labelsLoaded.clear();
  sample->trigger();
  REQUIRE(waitFor(loaded));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(window.document().shareTarget().labelSet == "organs");
  CHECK(window.document().shareTarget().baseRevision == 1);
  CHECK_FALSE(window.document().isDirty());
  CHECK(window.document().voxelCounts() == counts);

  // A label file that is gone is said, and the study opens without it.
  QSettings().remove("recentLabels");
  std::filesystem::create_directories(dir / "gone");
  const QString gone = QString::fromStdString((dir / "gone" / "l.nii.gz").string());
  REQUIRE(window.sessionFiles()->saveLabelsAs(gone));
  std::filesystem::remove_all(dir / "gone");
  sample = entry(QString::fromStdString(kSampleCt));
  REQUIRE(sample);
  INFO(sample->text().toStdString());
  CHECK_FALSE(std::filesystem::exists(gone.toStdString()));
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  loaded.clear();
  sample->trigger();
  REQUIRE(waitFor(loaded));
  REQUIRE(failed.size() == 1);
  CHECK(failed.front().at(0).toString().contains(gone));
  QSettings().remove("recentStudies");
  QSettings().remove("recentLabels");
  QSettings().setValue("user/name", previousAuthor);
}
