// The window's menus (File, Edit, AI, Review, View, Help), built at start and again when the language changes.
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/base/dialog_folders.h"
#include "app/gui/base/error_text.h"
#include "app/gui/base/install_paths.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/shell/main_window.h"

#include "app/gui/reports/study_exports.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/share_browser.h"
#include "app/gui/study/share_import.h"
#include "app/gui/study/share_review.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/views/surface_builder.h"
#include "app/gui/views/view_panels.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::app::gui {
namespace {

// "*.nii.gz *.nii ..." for an Open dialog: every extension io reads (GIPL, Analyze and VTK included).
QString readablePatterns() {
  QStringList patterns;
  for (const std::string& ext : io::readableImageExtensionList()) patterns << "*" + QString::fromStdString(ext);
  return patterns.join(' ');
}

}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* openImage = file->addAction(tr("&Open Image..."), QKeySequence::Open, this, [this] {
    const QString path = rememberOpenFolder(QFileDialog::getOpenFileName(
        this, tr("Open Image"), lastOpenFolder(), tr("Images (%1);;All files (*)").arg(readablePatterns())));
    if (!path.isEmpty() && m_files->maybeFinishSession()) m_loader->openImage(path);
  });
  openImage->setObjectName("open-image");
  QAction* openDicom = file->addAction(tr("Open &DICOM Folder..."), this, [this] {
    const QString folder = rememberOpenFolder(QFileDialog::getExistingDirectory(this, tr("Open DICOM Folder"), lastOpenFolder()));
    if (!folder.isEmpty() && m_files->maybeFinishSession()) m_loader->openDicomFolder(folder);
  });
  openDicom->setObjectName("open-dicom-folder");
  QAction* fromShare = file->addAction(tr("Open from S&hare..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                                      [this] { openFromShare(); });
  fromShare->setObjectName("open-from-share");
  // The sample study installed with the program (packaging/; the source tree's in a build tree).
  QAction* sample = file->addAction(tr("Open the &Sample Study"), this, [this] {
    const QString path = sampleStudyPath();
    if (!path.isEmpty() && m_files->maybeFinishSession()) m_loader->openImage(path);
  });
  sample->setObjectName("open-sample");
  sample->setEnabled(!sampleStudyPath().isEmpty());
  m_openActions = {openImage, openDicom, fromShare};
  file->addAction(tr("&Import into Share..."), this, [this] {
    ShareImportDialog dialog(*m_importer, this);  // imports itself, and stays open when the import fails
    dialog.exec();
  })->setObjectName("import-into-share");
  QAction* pacs = file->addAction(tr("Query/Retrieve from &PACS..."), this, [this] { showPacsBrowser(); });
  pacs->setObjectName("pacs-browser");
  m_openActions << pacs << sample;
  file->addAction(tr("Open &Label Map..."), this, [this] {
    const QString path = rememberOpenFolder(QFileDialog::getOpenFileName(
        this, tr("Open Label Map"), lastOpenFolder(), tr("Label maps (%1);;All files (*)").arg(readablePatterns())));
    if (!path.isEmpty() && m_files->maybeFinishSession()) m_loader->openLabels(path);
  });
  file->addAction(tr("Open DICOM S&EG..."), this, [this] {
    if (!m_document->hasStudy()) {
      reportError(tr("Open the image the segmentation was drawn on first"));
      return;
    }
    const QString path = rememberOpenFolder(
        QFileDialog::getOpenFileName(this, tr("Open DICOM SEG"), lastOpenFolder(), tr("DICOM (*.dcm);;All files (*)")));
    if (path.isEmpty() || !m_files->maybeFinishSession()) return;
    m_loader->openDicomSeg(path, false);
  });
  QAction* openRt = file->addAction(tr("Open &RT Structure Set..."), this, [this] {
    if (!m_document->hasStudy()) {
      reportError(tr("Open the image the structures were drawn on first"));
      return;
    }
    const QString path = rememberOpenFolder(QFileDialog::getOpenFileName(
        this, tr("Open RT Structure Set"), lastOpenFolder(), tr("DICOM (*.dcm);;All files (*)")));
    if (path.isEmpty() || !m_files->maybeFinishSession()) return;
    m_loader->openRtStruct(path);
  });
  openRt->setObjectName("open-rtstruct");
  file->addAction(tr("Open Labels from &Share..."), this, [this] {
    const QString root = chooseShareFolder(this, QSettings().value("share/root").toString());
    if (root.isEmpty()) return;
    auto entries = listShareRevisions(root.toStdString());
    if (!entries) {
      reportError(fromError(entries.error()));
      return;
    }
    QSettings().setValue("share/root", root);  // the next share dialog (open or save) starts here
    if (entries->empty()) {
      reportError(tr("%1: the share holds no label set revision").arg(root));
      return;
    }
    QStringList items;
    for (const auto& e : *entries) items << QString::fromStdString(e.describe());
    bool ok = false;
    const QString chosen = QInputDialog::getItem(this, tr("Open Labels from Share"), tr("Revision:"), items, 0, false, &ok);
    if (!ok) return;
    const auto& e = (*entries)[static_cast<std::size_t>(items.indexOf(chosen))];
    // A revision bound to a series of its study opens with that image; an unbound one (a share written before
    // studies held images) goes onto the image that is open.
    std::string boundStudy, boundSeries;
    const bool bound = io::parseLabelBinding(e.info.extraJson, &boundStudy, &boundSeries);
    if (!bound && !m_document->hasStudy()) {
      reportError(tr("%1 / %2 r%3 is not bound to an image on the share: open its image first")
                      .arg(QString::fromStdString(e.study), QString::fromStdString(e.labelSet))
                      .arg(e.info.number));
      return;
    }
    if (!m_files->maybeFinishSession()) return;
    if (bound)
      m_loader->openShareStudy(root, QString::fromStdString(boundStudy), QString::fromStdString(boundSeries),
                               QString::fromStdString(e.labelSet), e.info.number);
    else
      m_loader->openShareRevision(root, QString::fromStdString(e.study), QString::fromStdString(e.labelSet), e.info.number);
  });
  m_recentMenu = file->addMenu(tr("Recent Studies"));
  fillRecentMenu();
  // Saves change what an entry reopens with (recent_studies.h): filled again each time it opens.
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
  file->addSeparator();
  QAction* save = file->addAction(tr("&Save to Share"), QKeySequence::Save, this, [this] { m_files->saveToShare(); });
  save->setObjectName("save-share");
  file->addAction(tr("Save to Share &As..."), this, [this] { m_files->saveWithDialog(); });
  file->addAction(tr("Save &Labels As..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
    if (!m_document->hasStudy()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Labels As"), "labels.nii.gz",
                                                      tr("NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)"));
    if (!path.isEmpty()) m_files->saveLabelsAs(path);
  });
  file->addSeparator();
  file->addAction(tr("Save &Screenshot..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Screenshot"), "screenshot.png", tr("PNG (*.png)"));
    if (path.isEmpty()) return;
    if (const QString why = saveScreenshot(path); !why.isEmpty()) reportError(why);
  });
  QMenu* exportMenu = file->addMenu(tr("&Export"));
  m_exports->fillMenu(exportMenu);
  file->addAction(tr("Send to PA&CS..."), this, [this] {
    if (!m_document->hasStudy()) {
      reportError(tr("Open a study first: Send to PACS sends its labels as a DICOM SEG with their measurement report"));
      return;
    }
    showSendToPacs();
  })->setObjectName("send-to-pacs");
  QAction* sendRt = file->addAction(tr("Send to PACS Includes an &RT Structure Set"));
  sendRt->setObjectName("send-rtstruct");
  sendRt->setCheckable(true);
  sendRt->setChecked(QSettings().value("pacs/sendRtStruct", false).toBool());
  connect(sendRt, &QAction::toggled, this, [](bool on) { QSettings().setValue("pacs/sendRtStruct", on); });
  file->addSeparator();
  file->addAction(tr("&Preferences..."), QKeySequence(Qt::CTRL | Qt::Key_Comma), this, [this] {
    PreferencesDialog dialog(this);
    const QSettings before;
    const QString checkpoint = before.value("ai/checkpoint").toString(), device = before.value("ai/device").toString();
    if (dialog.exec() == QDialog::Accepted) {
      const QSettings after;
      if (after.value("ai/checkpoint").toString() != checkpoint || after.value("ai/device").toString() != device)
        m_ai->rebuildEngine();
      m_surfaces->settingsChanged();
    }
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(m_tools->undoAction());
  edit->addAction(m_tools->redoAction());
  edit->addSeparator();
  for (QAction* a : m_tools->toolActions()) edit->addAction(a);
  edit->addSeparator();
  QMenu* ai = menuBar()->addMenu(tr("&AI"));
  ai->addAction(tr("Segment &Everything"), this, [this] { m_ai->segmentEverything(); });
  ai->addAction(tr("Segment &Selected Classes"), this, [this] { m_ai->segmentClasses(); });
  for (QAction* a : m_ai->actions()) ai->addAction(a);
  ai->addSeparator();
  ai->addAction(tr("Model &Registry..."), this, [this] { showModelRegistry(); })->setObjectName("action-model-registry");
  QAction* getModels = ai->addAction(tr("&Get Models..."), this, [this] { showModelDownloads(); });
  getModels->setObjectName("action-get-models");
  m_ai->setGetModelsAction(getModels);

  // Review of the open labels' share revision (the title shows its state).
  QMenu* review = menuBar()->addMenu(tr("&Review"));
  review->addAction(tr("&Submit for Review"), this, [this] { m_files->review().submit(); })->setObjectName("review-submit");
  review->addAction(tr("&Approve"), this, [this] { m_files->review().approve(); })->setObjectName("review-approve");
  review->addAction(tr("Send &Back..."), this, [this] { m_files->review().sendBack(); })->setObjectName("review-send-back");

  QMenu* view = menuBar()->addMenu(tr("&View"));
  QMenu* layouts = view->addMenu(tr("Layout"));
  m_layoutGroup = new QActionGroup(this);
  const std::pair<QString, ViewLayout> layoutItems[] = {
      {tr("1 x 1"), ViewLayout::OneByOne}, {tr("2 x 2"), ViewLayout::TwoByTwo}, {tr("1 + 3"), ViewLayout::OnePlusThree}};
  for (const auto& [name, layout] : layoutItems) {
    QAction* a = layouts->addAction(name, this, [this, layout = layout] { setViewLayout(layout); });
    a->setCheckable(true);
    a->setData(static_cast<int>(layout));
    m_layoutGroup->addAction(a);
  }
  // The docks: a closed one comes back here (each also tabs or floats by its title bar).
  QMenu* panels = view->addMenu(tr("Panels"));
  panels->setObjectName("menu-panels");
  for (QDockWidget* d : {m_toolsDock, m_aiDock, m_labelsDock, m_trainingDock}) panels->addAction(d->toggleViewAction());
  QMenu* presets = view->addMenu(tr("Window/Level"));
  m_presetGroup = new QActionGroup(this);
  m_presetGroup->setExclusive(true);
  int key = Qt::Key_1;
  for (const auto& p : ctPresets()) {
    const QString name = QString::fromStdString(p.name);
    QAction* a = presets->addAction(tr(p.name.c_str()), this, [this, name] { applyPreset(name); });
    a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(key++)));  // Ctrl+1 soft tissue .. Ctrl+4 brain
    a->setCheckable(true);
    a->setData(name);
    m_presetGroup->addAction(a);
  }
  QAction* automatic = presets->addAction(tr("Automatic (image range)"), QKeySequence(Qt::CTRL | Qt::Key_0), this,
                                          [this] { applyPreset("Automatic"); });
  automatic->setCheckable(true);
  automatic->setData(QStringLiteral("Automatic"));
  m_presetGroup->addAction(automatic);
  view->addAction(tr("&Reset Views"), QKeySequence(Qt::Key_Home), this, [this] {
    for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().resetCamera();
    m_surface->scene().resetCamera();
    refreshViews();
  });
  QAction* outline = view->addAction(tr("Label &Outlines"));
  outline->setObjectName("label-outline");
  outline->setCheckable(true);
  outline->setShortcut(QKeySequence(Qt::Key_O));
  connect(outline, &QAction::toggled, this, &MainWindow::setLabelOutline);
  QAction* slices3d = view->addAction(tr("Slices in &3D"));
  slices3d->setObjectName("slices-3d");
  slices3d->setCheckable(true);
  slices3d->setChecked(true);
  connect(slices3d, &QAction::toggled, this, [this](bool on) {
    m_surface->scene().setSlicesVisible(on);
    m_surface->refresh();
  });
  QAction* crosshair = view->addAction(tr("Show &Crosshair"));
  crosshair->setObjectName("show-crosshair");
  crosshair->setCheckable(true);
  crosshair->setChecked(true);
  connect(crosshair, &QAction::toggled, this, [this](bool on) {
    for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setCrosshairVisible(on);
    refreshViews();
  });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard Shortcuts and Mouse"), QKeySequence(Qt::Key_F1), this, [this] { showShortcutsDialog(this); });
  help->addAction(tr("&About Delineate"), this, [this] {
    QMessageBox::about(this, tr("About Delineate"),
                       tr("Delineate %1: 3D medical image segmentation and annotation.").arg(QApplication::applicationVersion()));
  });
}

}  // namespace delineate::app::gui
