#include "app/gui/shell/main_window.h"
#include "app/gui/shell/welcome_panel.h"

#include <QActionGroup>
#include <QBuffer>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QtConcurrent/QtConcurrent>
#include <QFutureWatcher>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include <cmath>

#include "app/gui/ai/ai_panel.h"
#include "io/base/atomic_file.h"
#include "app/gui/ai/model_downloads.h"
#include "app/gui/ai/model_registry.h"
#include "app/gui/base/dialog_folders.h"
#include "app/gui/base/job.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/pacs/pacs_browser.h"
#include "app/gui/pacs/pacs_send.h"
#include "app/gui/pacs/pacs_servers.h"
#include "app/gui/reports/study_exports.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/recent_studies.h"
#include "app/gui/study/share_import.h"
#include "app/gui/study/study_browser.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/training/training_panel.h"
#include "app/gui/training/training_run.h"
#include "app/gui/views/surface_builder.h"
#include "app/gui/views/view_panels.h"
#include "io/share/share_reviews.h"
#include "io/share/share_trust.h"
#include "io/studies/study_store.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

using viewer::SliceOrientation;

namespace {

// A dock's content in a scroll area that scrolls vertically: the dock is as wide as the content needs (with room
// for the scroll bar, so nothing scrolls sideways) and may be as short as a few rows; the content keeps its own
// minimum height and scrolls instead of squeezing its labels over its buttons.
class DockScrollArea : public QScrollArea {
 public:
  using QScrollArea::QScrollArea;
  QSize minimumSizeHint() const override {
    const QWidget* content = widget();
    const int frame = 2 * frameWidth();
    const int bar = verticalScrollBar()->sizeHint().width();
    if (!content) return QScrollArea::minimumSizeHint();
    return {content->minimumSizeHint().width() + bar + frame, std::min(content->minimumSizeHint().height(), 120) + frame};
  }
  QSize sizeHint() const override {
    const QWidget* content = widget();
    if (!content) return QScrollArea::sizeHint();
    const int frame = 2 * frameWidth();
    const int bar = verticalScrollBar()->sizeHint().width();
    const QSize want = content->sizeHint().expandedTo(content->minimumSizeHint());
    return {want.width() + bar + frame, want.height() + frame};
  }
};

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Delineate"));
  m_document = new StudyDocument(this);
  m_loader = new StudyLoader(*m_document, *this, this);
  // 1400x900, or the screen's room where it is smaller (a 1366x768 laptop): never larger than the screen.
  resize(screen() ? QSize(1400, 900).boundedTo(screen()->availableGeometry().size()) : QSize(1400, 900));
  m_viewArea = new QWidget(this);
  m_grid = new QGridLayout(m_viewArea);
  m_grid->setContentsMargins(2, 2, 2, 2);
  m_grid->setSpacing(2);
  m_axial = new SlicePanel(SliceOrientation::Axial, m_viewArea);
  m_sagittal = new SlicePanel(SliceOrientation::Sagittal, m_viewArea);
  m_coronal = new SlicePanel(SliceOrientation::Coronal, m_viewArea);
  m_surface = new SurfacePanel(m_viewArea);
  setCentralWidget(m_viewArea);
  m_maximized = m_axial;

  for (SlicePanel* panel : {m_axial, m_sagittal, m_coronal}) {
    connect(panel, &SlicePanel::cursorRequested, this, [this](core::Vec3 lps) { setCursor(lps); });
    connect(panel, &SlicePanel::hovered, this, [this](core::Vec3 lps) { updateReadout(lps); });
    connect(panel, &SlicePanel::windowLevelDragged, this, [this](double dx, double dy) {
      const double scale = std::max(1.0, m_windowLevel.window / 256.0);
      setWindowLevel({std::max(1.0, m_windowLevel.window + dx * scale), m_windowLevel.level + dy * scale});
    });
    connect(panel, &SlicePanel::maximizeToggled, this, [this, panel] {
      m_maximized = panel;
      setViewLayout(m_layout == ViewLayout::OneByOne ? ViewLayout::TwoByTwo : ViewLayout::OneByOne);
    });
  }
  connect(m_surface, &SurfacePanel::maximizeToggled, this, [this] {
    m_maximized = m_surface;
    setViewLayout(m_layout == ViewLayout::OneByOne ? ViewLayout::TwoByTwo : ViewLayout::OneByOne);
  });

  m_readout = new QLabel(this);
  m_readout->setObjectName("readout");
  m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
  statusBar()->addWidget(m_readout, 1);
  m_windowLevelText = new QLabel(this);
  m_windowLevelText->setObjectName("window-level");
  statusBar()->addPermanentWidget(m_windowLevelText);
  m_progressBar = new QProgressBar(this);
  m_progressBar->setMaximumWidth(220);
  m_progressBar->setRange(0, 1000);
  m_progressBar->hide();
  m_cancelButton = new QPushButton(tr("Cancel"), this);
  m_cancelButton->setObjectName("cancel-job");
  m_cancelButton->hide();
  statusBar()->addPermanentWidget(m_progressBar);
  statusBar()->addPermanentWidget(m_cancelButton);
  connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelJob);
  m_otherViewsTimer = new QTimer(this);
  m_otherViewsTimer->setSingleShot(true);
  m_otherViewsTimer->setInterval(150);
  connect(m_otherViewsTimer, &QTimer::timeout, this, [this] {
    for (SlicePanel* p : {m_axial, m_sagittal, m_coronal})
      if (p != m_paintedIn) {
        p->scene().labelsModified();
        p->view().update();
      }
  });
  m_progressTimer = new QTimer(this);
  m_progressTimer->setInterval(100);
  connect(m_progressTimer, &QTimer::timeout, this, [this] {
    if (m_job) m_progressBar->setValue(static_cast<int>(m_job->fraction() * 1000));
  });

  // The views show a new study (or replaced labels) before anything else hears of it: a dock's answer (a recovery
  // replacing the labels, say) must find the scenes on the new session's image and map.
  connect(m_document, &StudyDocument::studyReplaced, this, &MainWindow::studyReplaced);
  connect(m_document, &StudyDocument::labelsReplaced, this, &MainWindow::labelsRedrawn);
  m_exports = new StudyExports(*m_document, *this, this);
  m_surfaces = new SurfaceBuilder(*m_document, *m_surface, m_workers, this);
  buildDocks();
  observeDocument();  // after the docks: labelsChanged says the whole window has followed an edit
  buildMenus();
  m_welcome = new WelcomePanel(m_viewArea);
  m_welcome->setActions(m_openActions);
  setAcceptDrops(true);
  connect(m_loader, &StudyLoader::studyLoaded, this, &MainWindow::studyLoaded);
  connect(m_loader, &StudyLoader::labelsLoaded, this, &MainWindow::labelsLoaded);
  connect(m_loader, &StudyLoader::shareStudyOpened, this, &MainWindow::addRecent);
  connect(m_exports, &StudyExports::reportPublished, this, &MainWindow::reportPublished);
  connect(m_surfaces, &SurfaceBuilder::ready, this, &MainWindow::surfacesReady);
  m_labelsDock->setWindowTitle(tr("Labels"));
  m_toolsDock->setWindowTitle(tr("Tools"));
  m_aiDock->setWindowTitle(tr("AI"));
  m_trainingDock->setWindowTitle(tr("Training"));
  setViewLayout(ViewLayout::TwoByTwo);
  m_readout->setText(tr("Open an image (File > Open Image) or a DICOM folder"));
}

MainWindow::~MainWindow() {
  m_tools->cancelStroke();  // an open stroke writes the session's map, which may die before the tools' widget
  if (m_job) m_job->cancel();
  m_surfaces->cancel();
  m_workers.waitForDone();  // no worker of this window may outlive it
}

void MainWindow::buildDocks() {
  // Every dock scrolls: its content keeps the size it needs and the dock may be shorter (or narrower) than that, so
  // a small window (1024x768) reaches every control instead of squeezing labels over buttons or growing past the
  // screen.
  auto dock = [this](QWidget* content, const char* name, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(this);
    d->setObjectName(name);
    auto* scroll = new DockScrollArea(d);
    scroll->setObjectName(QString(name) + "-scroll");
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    d->setWidget(scroll);
    addDockWidget(area, d);
    return d;
  };
  m_labels = new LabelPanel(*m_document, *this);
  m_labelsDock = dock(m_labels, "labels-dock", Qt::RightDockWidgetArea);
  m_tools = new EditTools(*m_document, *this);
  m_toolsDock = dock(m_tools, "tools-dock", Qt::LeftDockWidgetArea);
  m_ai = new AiPanel(*m_document, *this, *m_tools);
  m_aiDock = dock(m_ai, "ai-dock", Qt::LeftDockWidgetArea);
  // Training beside the labels (a tab), so the labels keep their room; a finished run's model appears in the AI panel.
  m_training = new TrainingPanel(*this);
  m_trainingDock = dock(m_training, "training-dock", Qt::RightDockWidgetArea);
  tabifyDockWidget(m_labelsDock, m_trainingDock);
  m_labelsDock->raise();
  connect(m_training, &TrainingPanel::runFinished, m_ai, [this](bool) {
    m_ai->refreshModels();
    if (m_registry) m_registry->refresh();
  });
  connect(m_training, &TrainingPanel::registryRequested, this, [this] { showModelRegistry(); });
  connect(m_training, &TrainingPanel::openStudyRequested, this,
          [this](const QString& root, const QString& study, const QString& series, const QString& labelSet) {
            if (!m_files->maybeFinishSession()) return;
            m_loader->openShareStudy(root, study, series, labelSet);
          });
  m_files = new SessionFiles(*m_document, *this, this);
  m_importer = new ShareImporter(*this, this);
  connect(m_importer, &ShareImporter::finished, this, [this](bool ok, const QString& summary) {
    if (ok && dialogsEnabled()) QMessageBox::information(this, tr("Import into Share"), summary);
  });
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    m_tools->attach(p);
    connect(p, &SlicePanel::pointClicked, this, [this](core::Vec3 lps, bool positive) { m_ai->addPoint(lps, positive); });
    connect(p, &SlicePanel::promptDrawn, this,
            [this](SlicePanel::PromptTool tool, std::vector<core::Vec3> points, core::Vec3 normal, bool positive) {
              m_ai->addDrawnPrompt(tool, points, normal, positive);
            });
  }
  connect(m_labels, &LabelPanel::activeLabelChanged, m_tools, &EditTools::setActiveLabel);
  connect(m_document, &StudyDocument::shareTargetChanged, this, [this] {
    m_reviewText.clear();
    updateTitle();
  });
  // The user's own choice of label (a row clicked, a label added) is where the next click objects go; an accepted
  // object's label becomes the active one, so the brush refines it at once.
  connect(m_labels, &LabelPanel::labelChosen, m_ai, &AiPanel::setAcceptTarget);
  connect(m_ai, &AiPanel::objectAccepted, m_labels, &LabelPanel::setActiveLabel);
  connect(m_labels, &LabelPanel::opacityChanged, this, &MainWindow::setLabelOpacity);
  connect(m_loader, &StudyLoader::cancelled, m_files, &SessionFiles::abandonPendingRecovery);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!m_docksArranged) {
    m_docksArranged = true;
    arrangeDocks();
  }
}

void MainWindow::arrangeDocks() {
  const bool shortWindow = height() < 850, narrowWindow = width() < 1100;
  if (shortWindow || narrowWindow) tabifyDockWidget(m_toolsDock, m_aiDock);
  if (narrowWindow) {
    tabifyDockWidget(m_aiDock, m_labelsDock);
    tabifyDockWidget(m_labelsDock, m_trainingDock);
  }
  m_toolsDock->raise();
  if (!narrowWindow) m_labelsDock->raise();
}

void MainWindow::retranslate() {
  m_labelsDock->setWindowTitle(tr("Labels"));
  m_toolsDock->setWindowTitle(tr("Tools"));
  m_aiDock->setWindowTitle(tr("AI"));
  m_cancelButton->setText(tr("Cancel"));
  m_labels->retranslate();
  m_tools->retranslate();
  m_ai->retranslate();
  m_training->retranslate();
  if (m_registry) m_registry->retranslate();
  m_trainingDock->setWindowTitle(tr("Training"));
  // Menus are rebuilt: their texts come from tr() at construction. Check states carry over (by object name).
  std::map<QString, bool> checked;
  for (QAction* top : menuBar()->actions())
    if (top->menu())
      for (QAction* a : top->menu()->actions())
        if (a->isCheckable() && !a->objectName().isEmpty()) checked[a->objectName()] = a->isChecked();
  for (QMenu* menu : menuBar()->findChildren<QMenu*>(QString(), Qt::FindDirectChildrenOnly)) menu->deleteLater();
  menuBar()->clear();
  delete m_layoutGroup;
  m_layoutGroup = nullptr;
  buildMenus();
  m_welcome->setActions(m_openActions);
  m_welcome->retranslate();
  for (QAction* top : menuBar()->actions())
    if (top->menu())
      for (QAction* a : top->menu()->actions())
        if (const auto it = checked.find(a->objectName()); it != checked.end() && a->isCheckable()) {
          const QSignalBlocker block(a);
          a->setChecked(it->second);
        }
  for (QAction* a : m_layoutGroup->actions()) a->setChecked(a->data().toInt() == static_cast<int>(m_layout));
  if (m_document->hasStudy()) m_labels->refresh();
  updateReadout(m_cursor);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->refresh();
  if (m_surfaces) m_surfaces->retranslate();
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && m_labels) retranslate();
  QMainWindow::changeEvent(event);
}

bool MainWindow::busy() const { return m_job != nullptr || (m_ai && m_ai->busy()); }

std::shared_ptr<JobProgress> MainWindow::startProgress(const QString& what) {
  m_job = std::make_shared<JobProgress>();
  m_progressBar->setValue(0);
  m_progressBar->setFormat(what + " %p%");
  m_progressBar->show();
  m_cancelButton->show();
  m_progressTimer->start();
  statusBar()->showMessage(what);
  return m_job;
}

bool MainWindow::finishProgress(const std::shared_ptr<JobProgress>& job) {
  if (job != m_job) return false;
  m_job.reset();
  m_progressTimer->stop();
  m_progressBar->hide();
  m_cancelButton->hide();
  statusBar()->clearMessage();
  return true;
}

void MainWindow::updateTitle() {
  const StudyDocument& doc = *m_document;
  if (!doc.hasStudy()) {
    setWindowTitle(tr("Delineate"));
    return;
  }
  const ShareTarget target = doc.shareTarget();
  // A study opened from the share is named by its study there, not by its local copy's folder.
  const bool fromShare = !target.study.isEmpty() &&
                         doc.source().startsWith(QString::fromStdString(io::userCacheFolder()) + "/studies/");
  QString title = fromShare ? tr("Delineate - %1 (share)").arg(target.study)
                            : tr("Delineate - %1").arg(QFileInfo(doc.source()).fileName());
  const std::uint64_t generation = ++m_titleGeneration;
  if (!target.valid() || target.baseRevision <= 0) {
    setWindowTitle(title);
    return;
  }
  title += QString::fromUtf8(" \u2014 %1 / %2 r%3").arg(target.study, target.labelSet).arg(target.baseRevision);
  setWindowTitle(title + m_reviewText);
  // The review state from the share, off the GUI thread; a late answer for another revision is dropped.
  using State = std::shared_ptr<QString>;
  auto* watcher = new QFutureWatcher<State>(this);
  connect(watcher, &QFutureWatcher<State>::finished, this, [this, watcher, generation, title] {
    const State text = watcher->result();
    watcher->deleteLater();
    if (generation != m_titleGeneration || !text) return;
    m_reviewText = *text;
    setWindowTitle(title + m_reviewText);
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [target]() -> State {
    auto store = io::ShareStore::open(target.root.toStdString());
    if (!store) return nullptr;
    auto set = io::LabelSetRevisions::open(*store, target.study.toStdString(), target.labelSet.toStdString());
    if (!set) return nullptr;
    auto review = io::LabelSetReviews(*set).review(target.baseRevision);
    if (!review) return std::make_shared<QString>(tr(" (review state unreadable)"));
    // On a signed share: whether the revision's own record holds, and how many review steps do not count (a forged
    // or out-of-role approval is never shown as an approval).
    QString trust;
    if (io::storeIsSigned(*store)) {
      auto list = set->list();
      const io::RevisionInfo* info = list ? list->find(target.baseRevision) : nullptr;
      if (info && !info->trust.counts())
        trust += tr(" NOT TRUSTED: %1.").arg(QString::fromStdString(io::describeTrust(info->trust)));
      if (const std::size_t n = review->notCounted())
        trust += tr(" %n review step(s) not counted (unsigned, forged or out of role).", "", static_cast<int>(n));
    }
    const io::ReviewRecord* last = review->last();
    QString state;
    switch (review->state) {
      case io::ReviewState::None: state = tr(" (not reviewed)"); break;
      case io::ReviewState::Submitted:
        state = tr(" (submitted for review by %1)").arg(QString::fromStdString(last->user));
        break;
      case io::ReviewState::Approved: state = tr(" (approved by %1)").arg(QString::fromStdString(last->user)); break;
      case io::ReviewState::Rejected:
        state = tr(" (sent back by %1: %2)").arg(QString::fromStdString(last->user), QString::fromStdString(last->comment));
        break;
    }
    return std::make_shared<QString>(state + trust);
  }));
}

void MainWindow::setInputLocked(bool locked) {
  menuBar()->setEnabled(!locked);
  centralWidget()->setEnabled(!locked);
  for (QDockWidget* d : findChildren<QDockWidget*>()) d->setEnabled(!locked);
}

void MainWindow::cancelJob() {
  if (m_job) m_job->cancel();
}

void MainWindow::reportError(const QString& message) {
  statusBar()->showMessage(message, 10000);
  if (m_dialogs) QMessageBox::warning(this, tr("Delineate"), message);
  Q_EMIT loadFailed(message);
}

void MainWindow::showStatus(const QString& message, int timeoutMs) { statusBar()->showMessage(message, timeoutMs); }

bool MainWindow::openImage(const QString& imagePath) { return m_loader->openImage(imagePath); }

bool MainWindow::loading() const { return m_loader->loading(); }

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  if (urls.size() > 1) showStatus(tr("One study at a time: opening %1").arg(urls.front().toLocalFile()), 5000);
  if (m_files->maybeFinishSession()) m_loader->openPath(urls.front().toLocalFile());
}

void MainWindow::studyReplaced() {
  m_welcome->hide();
  const StudyDocument& doc = *m_document;
  const QString source = doc.source();
  updateTitle();
  setWindowFilePath(source);  // what the study came from
  const core::ScalarImage& img = doc.session()->image();
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    p->scene().setImage(&img);
    p->scene().setLabels(&doc.session()->labels());
    p->scene().setLabelColors(doc.session()->table(), doc.hiddenLabels());
    p->scene().setLabelOpacity(m_opacity);
  }
  m_surface->scene().setBounds(img.geometry());
  m_surface->scene().setImage(&img);
  m_cursor = m_axial->scene().cursor();
  m_automatic = automaticWindowLevel(img);  // once per study: Ctrl+0 and non-CT images reuse it
  if (doc.isCt()) applyPreset("Soft tissue");
  else applyPreset("Automatic");
  setCursor(m_cursor);
  addRecent(source);
}

void MainWindow::setEditing(bool on) {
  if (m_ai->clickMode()) m_ai->setClickMode(false);  // a tool, or Navigate (N), ends click mode
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal})
    p->setInteraction(on ? SlicePanel::Interaction::Paint : SlicePanel::Interaction::Navigate);
}

void MainWindow::setClicking(bool on) {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal})
    p->setInteraction(on ? SlicePanel::Interaction::Click : SlicePanel::Interaction::Navigate);
}

void MainWindow::setWindowLevel(WindowLevel wl) {
  m_windowLevel = wl;
  m_windowLevelText->setText(tr("W %1  L %2").arg(wl.window, 0, 'f', wl.window < 10 ? 1 : 0)
                                 .arg(wl.level, 0, 'f', std::abs(wl.level) < 10 && wl.window < 10 ? 1 : 0));
  // The preset these values are (the automatic range included) is ticked; a dragged window ticks none.
  if (m_presetGroup != nullptr) {
    auto same = [&](const WindowLevel& p) {
      return std::abs(p.window - wl.window) < 1e-6 && std::abs(p.level - wl.level) < 1e-6;
    };
    QAction* match = nullptr;
    for (QAction* a : m_presetGroup->actions()) {
      const QString name = a->data().toString();
      bool is = name == "Automatic" && m_document->hasStudy() && same(m_automatic);
      for (const auto& p : ctPresets()) is = is || (QString::fromStdString(p.name) == name && same(p.value));
      if (is && match == nullptr) match = a;
    }
    if (match != nullptr) {
      match->setChecked(true);
    } else if (QAction* checked = m_presetGroup->checkedAction()) {
      m_presetGroup->setExclusive(false);  // an exclusive group cannot be emptied
      checked->setChecked(false);
      m_presetGroup->setExclusive(true);
    }
  }
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setWindowLevel(wl.window, wl.level);
  m_surface->scene().setWindowLevel(wl.window, wl.level);
  m_surface->refresh();
  refreshViews();
}

void MainWindow::applyPreset(const QString& name) {
  if (name == "Automatic") {
    if (m_document->hasStudy()) setWindowLevel(m_automatic);
    return;
  }
  for (const auto& p : ctPresets())
    if (QString::fromStdString(p.name) == name) setWindowLevel(p.value);
}

void MainWindow::setViewLayout(ViewLayout layout) {
  m_layout = layout;
  QWidget* panels[4] = {m_axial, m_sagittal, m_coronal, m_surface};
  for (QWidget* w : panels) {
    m_grid->removeWidget(w);
    w->hide();
  }
  for (int i = 0; i < 3; ++i) {
    m_grid->setRowStretch(i, 0);
    m_grid->setColumnStretch(i, 0);
  }
  switch (layout) {
    case ViewLayout::OneByOne:
      m_grid->addWidget(m_maximized, 0, 0);
      m_maximized->show();
      break;
    case ViewLayout::TwoByTwo:
      m_grid->addWidget(m_axial, 0, 0);
      m_grid->addWidget(m_sagittal, 0, 1);
      m_grid->addWidget(m_coronal, 1, 0);
      m_grid->addWidget(m_surface, 1, 1);
      for (QWidget* w : panels) w->show();
      m_grid->setRowStretch(0, 1), m_grid->setRowStretch(1, 1);
      m_grid->setColumnStretch(0, 1), m_grid->setColumnStretch(1, 1);
      break;
    case ViewLayout::OnePlusThree:
      m_grid->addWidget(m_axial, 0, 0, 3, 1);
      m_grid->addWidget(m_sagittal, 0, 1);
      m_grid->addWidget(m_coronal, 1, 1);
      m_grid->addWidget(m_surface, 2, 1);
      for (QWidget* w : panels) w->show();
      m_grid->setColumnStretch(0, 3), m_grid->setColumnStretch(1, 1);
      for (int r = 0; r < 3; ++r) m_grid->setRowStretch(r, 1);
      break;
  }
  for (QAction* a : m_layoutGroup ? m_layoutGroup->actions() : QList<QAction*>{})
    a->setChecked(a->data().toInt() == static_cast<int>(layout));
  refreshViews();
}

void MainWindow::setCursor(const core::Vec3& lps) {
  const core::AnnotationSession* session = m_document->session();
  if (!session) return;
  // The cursor stays on the image's grid (its nearest voxel centre, clamped to the image).
  const auto& g = session->image().geometry();
  core::Index3 ijk = g.lpsToNearestIndex(lps);
  for (std::size_t a = 0; a < 3; ++a) ijk[a] = std::clamp<std::int64_t>(ijk[a], 0, g.dimensions()[a] - 1);
  m_cursor = g.indexToLps(ijk);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setCursor(m_cursor);
  m_surface->scene().setCursor(m_cursor);
  m_surface->refresh();
  updateReadout(m_cursor);
  refreshViews();
}

SlicePanel* MainWindow::slicePanel(SliceOrientation orientation) const {
  switch (orientation) {
    case SliceOrientation::Axial: return m_axial;
    case SliceOrientation::Coronal: return m_coronal;
    case SliceOrientation::Sagittal: return m_sagittal;
  }
  return m_axial;
}

QString MainWindow::readout() const { return m_readout->text(); }

void MainWindow::updateReadout(const core::Vec3& lps) {
  const core::AnnotationSession* session = m_document->session();
  if (!session) return;
  const auto& g = session->image().geometry();
  const core::Index3 ijk = g.lpsToNearestIndex(lps);
  QString text = tr("LPS (%1, %2, %3) mm").arg(lps[0], 0, 'f', 1).arg(lps[1], 0, 'f', 1).arg(lps[2], 0, 'f', 1);
  if (g.contains(ijk)) {
    const double value = session->image().at(ijk);
    const core::Label label = session->labels().at(ijk);
    const core::LabelEntry* e = session->table().find(label);
    text += tr("   voxel (%1, %2, %3)   %4 %5").arg(ijk[0]).arg(ijk[1]).arg(ijk[2])
                .arg(m_document->isCt() ? tr("HU") : tr("value"))
                .arg(value, 0, 'f', 1);
    if (label) text += tr("   label %1 %2").arg(label).arg(e ? QString::fromStdString(e->name) : QString());
  } else {
    text += tr("   outside the image");
  }
  m_readout->setText(text);
}

void MainWindow::refreshViews() {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->refresh();
}

QImage MainWindow::screenshot() { return grab().toImage(); }

QString MainWindow::saveScreenshot(const QString& path) {
  // QImage::save would leave the file to the umask (0644 under the usual 022): a picture of a patient's images.
  QByteArray png;
  QBuffer buffer(&png);
  if (!buffer.open(QIODevice::WriteOnly) || !screenshot().save(&buffer, "PNG"))
    return tr("%1: cannot encode the screenshot").arg(path);
  io::AtomicWriteOptions options;
  options.access = io::FileAccess::Personal;
  if (core::Status s = io::writeFileAtomically(path.toStdString(), png.constData(), std::size_t(png.size()), options); !s)
    return QString::fromStdString(s.error().describe());
  return {};
}

ModelDownloadsDialog* MainWindow::showModelDownloads() {
  if (!m_modelDownloads) {
    m_modelDownloads = new ModelDownloadsDialog(*this, this);
    connect(m_modelDownloads, &ModelDownloadsDialog::useRequested, this, [this](const QString& reference) {
      m_ai->rebuildEngine();  // the preferences' checkpoint is now model:NAME
      m_aiDock->raise();
      showStatus(tr("VISTA-3D checkpoint: %1").arg(reference), 5000);
    });
  } else {
    m_modelDownloads->refresh();
  }
  m_modelDownloads->show();
  m_modelDownloads->raise();
  return m_modelDownloads;
}

ModelRegistryDialog* MainWindow::showModelRegistry() {
  if (!m_registry) {
    m_registry = new ModelRegistryDialog(*this, this);
    connect(m_registry, &ModelRegistryDialog::modelChosen, this, [this](const QString& reference) {
      if (m_ai->useModel(reference)) {
        m_aiDock->raise();
        showStatus(tr("AI engine: %1").arg(reference), 5000);
      }
    });
  } else {
    m_registry->refresh();
  }
  m_registry->show();
  m_registry->raise();
  return m_registry;
}

PacsBrowserDialog* MainWindow::showPacsBrowser() {
  if (!m_pacsBrowser) {
    m_pacsBrowser = new PacsBrowserDialog(*this, this);
    connect(m_pacsBrowser, &PacsBrowserDialog::openRequested, this, &MainWindow::openFromPacs);
  }
  m_pacsBrowser->setServers(pacsServers());  // as the preferences have them now
  m_pacsBrowser->show();
  m_pacsBrowser->raise();
  m_pacsBrowser->activateWindow();
  return m_pacsBrowser;
}

void MainWindow::openFromPacs(const PacsOpenRequest& request) {
  if (!m_files->maybeFinishSession()) return;
  m_pacsBrowser->hide();  // it steps aside for the study (File > Query/Retrieve from PACS shows it again, as it was)
  if (!request.root.isEmpty()) {
    QSettings().setValue("share/root", request.root);
    m_loader->openShareStudy(request.root, request.study, request.series);
  } else {
    m_loader->openDicomFolder(request.folder);
  }
}

PacsSendDialog* MainWindow::showSendToPacs() {
  if (!m_pacsSend) {
    // The SEG and its report, written by the exports into the dialog's private folder.
    auto makeFiles = [this](const QString& folder) -> core::Result<std::vector<std::string>> {
      const QString seg = folder + "/seg.dcm", sr = StudyExports::reportPathFor(seg);
      if (core::Status written = m_exports->writeSegAndReport(seg, sr); !written) return written.error();
      std::vector<std::string> files{seg.toStdString(), sr.toStdString()};
      // File > Send to PACS Includes an RT Structure Set: the same labels as contours, for planning systems.
      if (QSettings().value("pacs/sendRtStruct", false).toBool()) {
        const QString rt = folder + "/rtstruct.dcm";
        if (core::Status written = m_exports->writeRtStructFile(rt, false); !written) return written.error();
        files.push_back(rt.toStdString());
      }
      return files;
    };
    m_pacsSend = new PacsSendDialog(*this, makeFiles, this);
  }
  m_pacsSend->setServers(pacsServers());
  m_pacsSend->show();
  m_pacsSend->raise();
  m_pacsSend->activateWindow();
  return m_pacsSend;
}

void MainWindow::openFromShare() {
  QString root = QSettings().value("share/root").toString();
  StudyBrowserDialog dialog(this);
  connect(&dialog, &StudyBrowserDialog::datasetSaved, m_training, [this](const QString& name, int revision) {
    showStatus(tr("Dataset %1 version %2 saved: choose it in the Training dock").arg(name).arg(revision), 8000);
    m_training->refreshDatasets();
  });
  if (root.isEmpty() || !dialog.setRoot(root)) {
    root = chooseShareFolder(this, root);  // where a new share can be made too (issue 41)
    if (root.isEmpty()) return;
    if (!dialog.setRoot(root)) {
      reportError(dialog.error());
      return;
    }
  }
  QSettings().setValue("share/root", dialog.root());
  if (dialog.exec() != QDialog::Accepted) return;
  const auto choice = dialog.choice();
  if (!choice || !m_files->maybeFinishSession()) return;
  QSettings().setValue("share/root", choice->root);
  m_loader->openShareStudy(choice->root, choice->study, choice->series, choice->labelSet, choice->revision,
                           choice->rtStructSeries);
}

void MainWindow::addRecent(const QString& path) {
  // A share study's local copy is not what to reopen: its "share:" entry is (added when it opened).
  if (path.startsWith(QString::fromStdString(io::userCacheFolder()) + "/studies/")) return;
  QSettings settings;
  QStringList recent = settings.value("recentStudies").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10) recent.removeLast();
  settings.setValue("recentStudies", recent);
  fillRecentMenu();
}

void MainWindow::fillRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = QSettings().value("recentStudies").toStringList();
  for (const QString& path : recent) {
    QString text;
    QString root, study;  // a share study's
    // A share study: "share:ROOT#STUDY/SERIES[/LABELSET]", reopened from the share (with the set's newest revision).
    if (path.startsWith("share:")) {
      const qsizetype hash = path.lastIndexOf('#');
      const QStringList parts = path.mid(hash + 1).split('/');
      if (hash < 0 || parts.size() < 2) continue;
      root = path.mid(6, hash - 6);
      study = parts[0];
      const QString labelSet = parts.size() > 2 ? parts[2] : QString();
      text = labelSet.isEmpty() ? tr("%1 (share %2)").arg(parts[0], root)
                                : tr("%1, %2 (share %3)").arg(parts[0], labelSet, root);
    } else if (const qsizetype hash = path.lastIndexOf(" #"); hash > 0) {
      // A DICOM series is recorded as "<folder> #<series number>" and reopens through its folder (the chooser asks
      // when the folder holds several series).
      text = tr("%1 (DICOM series %2)").arg(path.left(hash), path.mid(hash + 2));
    } else {
      text = path;
    }
    // With the labels last saved (or opened) with it: said in the entry unless it names them already (issue 41).
    const QString labels = recentLabelsOf(path);
    const auto share = parseShareLabelSet(labels);
    if (share && !(share->root == root && share->study == study))
      text += QString::fromUtf8("  \u2014 ") + tr("labels: %1").arg(tr("%1, %2 (share %3)").arg(share->study, share->labelSet, share->root));
    else if (!labels.isEmpty() && !share)
      text += QString::fromUtf8("  \u2014 ") + tr("labels: %1").arg(labels);
    m_recentMenu->addAction(text, this, [this, path, labels, share] {
      if (!m_files->maybeFinishSession()) return;
      QString with = labels;
      if (!share && !labels.isEmpty() && !QFileInfo::exists(labels)) {
        // Said, not silently dropped: the study opens, and the user knows where the labels were.
        reportError(tr("The labels last saved with this study were written to %1, which is not there any more: the "
                       "study opens without them")
                        .arg(labels));
        with.clear();
      }
      m_loader->openRecent(path, with);
    });
  }
  m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_files->saving()) {  // the save's own loop is running: Cancel it first
    statusBar()->showMessage(tr("A save to the share is running: cancel it or wait before closing"), 5000);
    event->ignore();
    return;
  }
  if (!m_files->maybeFinishSession()) {
    event->ignore();
    return;
  }
  if (m_training->run().running() && dialogsEnabled()) {
    // The run is a process of its own: it may go on without the window, which follows it again when it opens.
    const auto answer = QMessageBox::question(
        this, tr("Training"),
        tr("A training run (%1) is going on. Keep it running after the window closes? The window follows it again "
           "when it opens; No stops it with its checkpoint saved.")
            .arg(m_training->run().request().modelName),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, QMessageBox::Yes);
    if (answer == QMessageBox::Cancel) {
      event->ignore();
      return;
    }
    m_training->run().setKeepOnClose(answer == QMessageBox::Yes);
  }
  m_files->windowClosing();
  if (m_job) m_job->cancel();
  m_surfaces->cancel();
  QMainWindow::closeEvent(event);
}

}  // namespace delineate::app::gui
