#include "app/gui/error_text.h"
#include "app/gui/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <cmath>

#include "app/gui/ai_panel.h"
#include "app/gui/edit_tools.h"
#include "app/gui/job.h"
#include "app/gui/label_panel.h"
#include "app/gui/session_files.h"
#include "app/gui/share_browser.h"
#include "app/gui/view_panels.h"
#include "core/statistics.h"
#include "inference/engine.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg.h"
#include "io/volume/image_file.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

using viewer::SliceOrientation;

// What a background job hands back to the window (built on the worker, read on the GUI thread).
struct MainWindow::Loaded {
  std::optional<core::ImageVolume> image;
  std::optional<core::LabelMap> labels;
  QString source;
  QString error;
  bool labelsOnly = false;
  std::string shareRevision;  // "study/set/rN" when the labels came from a share
  std::string revisionExtra;  // that revision's sidecar JSON (its label table)
  std::optional<core::LabelTable> segTable;  // a DICOM SEG's segments
  std::size_t flattened = 0;                 // voxels where overlapping segments were flattened (allowed)
  std::optional<io::DicomSeries> dicomSeries;  // the series a DICOM study came from (for SEG export)
  ShareTarget shareTarget;
  // A DICOM folder's index: the window picks the series, then loads it.
  std::vector<io::DicomSeries> series;
  QString folder;
};

namespace {


// The default table: the classic engine's classes (names and colours for what it segments).
core::LabelTable defaultLabelTable() {
  auto engine = inference::createEngine("classic");
  return engine ? engine->info().classes : core::LabelTable{};
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Delineate"));
  resize(1400, 900);
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
  m_surfaceTimer = new QTimer(this);
  m_surfaceTimer->setSingleShot(true);
  m_surfaceTimer->setInterval(400);
  connect(m_surfaceTimer, &QTimer::timeout, this, [this] {
    // Several quick edits, one rebuild: the worker's copy of the map is the costly part on a large study.
    const std::set<core::Label> labels = std::move(m_surfaceBacklog);
    m_surfaceBacklog.clear();
    rebuildSurfaces(&labels);
  });
  m_progressTimer = new QTimer(this);
  m_progressTimer->setInterval(100);
  connect(m_progressTimer, &QTimer::timeout, this, [this] {
    if (m_job) m_progressBar->setValue(static_cast<int>(m_job->fraction() * 1000));
  });

  buildDocks();
  buildMenus();
  m_labelsDock->setWindowTitle(tr("Labels"));
  m_toolsDock->setWindowTitle(tr("Tools"));
  m_aiDock->setWindowTitle(tr("AI"));
  setViewLayout(ViewLayout::TwoByTwo);
  m_readout->setText(tr("Open an image (File > Open Image) or a DICOM folder"));
}

MainWindow::~MainWindow() {
  m_tools->cancelStroke();  // an open stroke writes the session's map, which dies before the tools' widget
  if (m_job) m_job->cancel();
  if (m_surfaceJob) m_surfaceJob->cancel();
  m_workers.waitForDone();  // no worker of this window may outlive it
}

void MainWindow::buildDocks() {
  auto dock = [this](QWidget* content, const char* name, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(this);
    d->setObjectName(name);
    content->setParent(d);
    d->setWidget(content);
    addDockWidget(area, d);
    return d;
  };
  m_labels = new LabelPanel(*this);
  m_labelsDock = dock(m_labels, "labels-dock", Qt::RightDockWidgetArea);
  m_tools = new EditTools(*this);
  m_toolsDock = dock(m_tools, "tools-dock", Qt::LeftDockWidgetArea);
  m_ai = new AiPanel(*this);
  m_aiDock = dock(m_ai, "ai-dock", Qt::LeftDockWidgetArea);
  m_files = new SessionFiles(*this);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    m_tools->attach(p);
    connect(p, &SlicePanel::pointClicked, this, [this](core::Vec3 lps, bool positive) { m_ai->addPoint(lps, positive); });
  }
  connect(m_labels, &LabelPanel::activeLabelChanged, m_tools, &EditTools::setActiveLabel);
}

void MainWindow::retranslate() {
  m_labelsDock->setWindowTitle(tr("Labels"));
  m_toolsDock->setWindowTitle(tr("Tools"));
  m_aiDock->setWindowTitle(tr("AI"));
  m_cancelButton->setText(tr("Cancel"));
  m_labels->retranslate();
  m_tools->retranslate();
  m_ai->retranslate();
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
  for (QAction* top : menuBar()->actions())
    if (top->menu())
      for (QAction* a : top->menu()->actions())
        if (const auto it = checked.find(a->objectName()); it != checked.end() && a->isCheckable()) {
          const QSignalBlocker block(a);
          a->setChecked(it->second);
        }
  for (QAction* a : m_layoutGroup->actions()) a->setChecked(a->data().toInt() == static_cast<int>(m_layout));
  if (m_session) refreshLabelList();
  updateReadout(m_cursor);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->refresh();
  m_surface->setStatus({});
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && m_labels) retranslate();
  QMainWindow::changeEvent(event);
}

QTreeWidget* MainWindow::labelTree() const { return m_labels->tree(); }

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

void MainWindow::finishProgress(const std::shared_ptr<JobProgress>& job) {
  if (job != m_job) return;
  m_job.reset();
  m_progressTimer->stop();
  m_progressBar->hide();
  m_cancelButton->hide();
  statusBar()->clearMessage();
}

void MainWindow::cancelJob() {
  if (m_job) m_job->cancel();
}

void MainWindow::startJob(const QString& what, std::function<std::shared_ptr<Loaded>(JobProgress&)> work) {
  auto job = startProgress(what);
  m_loading = true;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, this, [this, watcher, job] {
    auto result = watcher->result();
    watcher->deleteLater();
    if (job != m_job) return;
    finishProgress(job);
    m_loading = false;
    if (job->cancelled()) {
      m_files->abandonPendingRecovery();
      statusBar()->showMessage(tr("Cancelled"), 4000);
      return;
    }
    finishJob(std::move(result));
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [job, work = std::move(work)] {
    try {
      return work(*job);
    } catch (const std::bad_alloc&) {
      auto r = std::make_shared<Loaded>();
      r->error = QObject::tr("out of memory");
      return r;
    }
  }));
}

bool MainWindow::openImage(const QString& imagePath, const QString& labelsPath) {
  if (busy()) return false;
  const std::string image = imagePath.toStdString(), labels = labelsPath.toStdString();
  startJob(tr("Loading %1").arg(QFileInfo(imagePath).fileName()), [image, labels, imagePath](JobProgress& progress) {
    auto r = std::make_shared<Loaded>();
    r->source = imagePath;
    progress.report(0.05, "read");
    auto img = io::readImageFile(image);
    if (!img) {
      r->error = fromError(img.error());
      return r;
    }
    progress.report(labels.empty() ? 1.0 : 0.7, "read");
    if (!labels.empty()) {
      auto lab = io::readLabelFile(labels);
      if (!lab) {
        r->error = fromError(lab.error());
        return r;
      }
      if (!lab->geometry().isCloseTo(img->geometry())) {
        r->error = QObject::tr("%1: the label map's grid differs from the image's").arg(QString::fromStdString(labels));
        return r;
      }
      r->labels = std::move(lab).value();
    }
    r->image = std::move(img).value();
    return r;
  });
  return true;
}

bool MainWindow::openLabels(const QString& labelsPath) {
  if (busy() || !m_session) return false;
  const std::string labels = labelsPath.toStdString();
  const core::Geometry grid = m_session->image().geometry();
  startJob(tr("Loading %1").arg(QFileInfo(labelsPath).fileName()), [labels, grid, labelsPath](JobProgress&) {
    auto r = std::make_shared<Loaded>();
    r->labelsOnly = true;
    r->source = labelsPath;
    auto lab = io::readLabelFile(labels);
    if (!lab) {
      r->error = fromError(lab.error());
      return r;
    }
    if (!lab->geometry().isCloseTo(grid)) {
      r->error = QObject::tr("%1: the label map's grid differs from the image's").arg(labelsPath);
      return r;
    }
    r->labels = std::move(lab).value();
    return r;
  });
  return true;
}

bool MainWindow::openDicomSeg(const QString& segPath, bool allowOverlap) {
  if (busy() || !m_session) return false;
  const std::string path = segPath.toStdString();
  const core::Geometry grid = m_session->image().geometry();
  startJob(tr("Loading %1").arg(QFileInfo(segPath).fileName()), [path, grid, segPath, allowOverlap](JobProgress&) {
    auto r = std::make_shared<Loaded>();
    r->labelsOnly = true;
    r->source = segPath;
    auto doc = io::readDicomSeg(path, grid);
    if (!doc) {
      r->error = fromError(doc.error());
      return r;
    }
    auto map = io::segToLabelMap(*doc, allowOverlap);
    if (!map) {
      r->error = QObject::tr("%1: %2").arg(segPath, fromError(map.error()));
      return r;
    }
    r->labels = std::move(map->first);
    r->segTable = std::move(map->second);
    r->flattened = doc->overlappingVoxels;
    return r;
  });
  return true;
}

bool MainWindow::openDicomFolder(const QString& folder) {
  if (busy()) return false;
  const std::string path = folder.toStdString();
  startJob(tr("Indexing %1").arg(folder), [path, folder](JobProgress& progress) {
    auto r = std::make_shared<Loaded>();
    r->folder = folder;
    io::DicomScanOptions options;
    options.progress = &progress;
    auto index = io::indexDicomFolder(path, options);
    if (!index) {
      r->error = fromError(index.error());
      return r;
    }
    for (const io::DicomSeries* s : index->allSeries())
      if (s->isImage) r->series.push_back(*s);
    if (r->series.empty()) r->error = QObject::tr("%1: no image series found").arg(folder);
    return r;
  });
  return true;
}

bool MainWindow::openShareRevision(const QString& root, const QString& study, const QString& labelSet, int revision) {
  if (busy() || !m_session) return false;
  const std::string r = root.toStdString(), st = study.toStdString(), set = labelSet.toStdString();
  const core::Geometry grid = m_session->image().geometry();
  startJob(tr("Loading %1 / %2 r%3").arg(study, labelSet).arg(revision), [r, st, set, revision, grid](JobProgress&) {
    auto result = std::make_shared<Loaded>();
    result->labelsOnly = true;
    result->source = QString::fromStdString(st + " / " + set + " r" + std::to_string(revision));
    auto store = io::ShareStore::open(r);
    if (!store) {
      result->error = fromError(store.error());
      return result;
    }
    auto folder = io::LabelSetRevisions::open(*store, st, set);
    if (!folder) {
      result->error = fromError(folder.error());
      return result;
    }
    auto labels = folder->loadLabels(revision);
    if (!labels) {
      result->error = fromError(labels.error());
      return result;
    }
    if (!labels->geometry().isCloseTo(grid)) {
      result->error = QObject::tr("%1: revision %2 is on another grid than the open image")
                          .arg(QString::fromStdString(st + "/" + set))
                          .arg(revision);
      return result;
    }
    result->labels = std::move(labels).value();
    if (auto list = folder->list())
      if (const io::RevisionInfo* info = list->find(revision)) result->revisionExtra = info->extraJson;
    result->shareRevision = st + "/" + set + "/r" + std::to_string(revision);
    result->shareTarget = ShareTarget{QString::fromStdString(r), QString::fromStdString(st), QString::fromStdString(set), revision};
    return result;
  });
  return true;
}

std::optional<const io::DicomSeries*> MainWindow::chooseSeries(const std::vector<const io::DicomSeries*>& series) {
  if (series.size() == 1 || !m_dialogs) return series.front();
  QStringList items;
  for (const auto* s : series) {
    QString item = QString("%1 %2  %3  (%4 images)")
                       .arg(QString::fromStdString(s->seriesNumber), QString::fromStdString(s->modality),
                            QString::fromStdString(s->seriesDescription))
                       .arg(s->instanceCount);
    if (!s->issues.empty()) item += tr("  - warning: %1").arg(QString::fromStdString(s->issues.front().detail));
    items << item;
  }
  bool ok = false;
  const QString chosen = QInputDialog::getItem(this, tr("Open DICOM Series"), tr("Series:"), items, 0, false, &ok);
  if (!ok) return std::nullopt;
  return series[static_cast<std::size_t>(items.indexOf(chosen))];
}

void MainWindow::finishJob(std::shared_ptr<Loaded> result) {
  if (!result->error.isEmpty()) {
    fail(result->error);
    return;
  }
  if (!result->series.empty()) {
    std::vector<const io::DicomSeries*> series;
    for (const auto& s : result->series) series.push_back(&s);
    auto chosen = chooseSeries(series);
    if (!chosen) return;
    const io::DicomSeries picked = **chosen;
    bool allowIrregular = false;
    if (!picked.issues.empty()) {
      QStringList lines;
      for (const auto& issue : picked.issues) lines << QString::fromStdString(issue.detail);
      const QString text = tr("This series has problems:\n%1").arg(lines.join("\n"));
      if (!picked.isRegular()) {
        if (!m_dialogs ||
            QMessageBox::warning(this, tr("Open DICOM Series"), text + tr("\n\nLoad it anyway?"),
                                 QMessageBox::Yes | QMessageBox::No) != QMessageBox::Yes) {
          if (!m_dialogs) fail(text);
          return;
        }
        allowIrregular = true;
      } else if (m_dialogs) {
        QMessageBox::information(this, tr("Open DICOM Series"), text);
      }
    }
    const QString source = result->folder + " #" + QString::fromStdString(picked.seriesNumber);
    startJob(tr("Loading series %1").arg(QString::fromStdString(picked.seriesNumber)),
             [picked, allowIrregular, source](JobProgress& progress) {
               auto r = std::make_shared<Loaded>();
               r->source = source;
               io::DicomLoadOptions options;
               options.progress = &progress;
               options.allowIrregular = allowIrregular;
               auto loaded = io::loadDicomSeries(picked, options);
               if (!loaded) {
                 r->error = fromError(loaded.error());
                 return r;
               }
               r->image = std::move(loaded->image);
               r->dicomSeries = picked;
               return r;
             });
    return;
  }
  if (result->labelsOnly) {
    if (!setLabelMap(std::move(*result->labels))) return;  // reported; the labels in the window stay
    if (result->segTable) {  // the SEG's segments name their labels (names, colours, codes)
      for (const core::LabelEntry& e : result->segTable->entries()) m_session->setLabelEntry(e);
      recolourScenes();
      m_labels->refresh(m_counts);
    }
    if (!result->shareRevision.empty()) {
      if (auto table = SessionFiles::tableFromRevisionExtra(result->revisionExtra)) {
        m_session->setTable(std::move(*table));  // the table saved with the revision
        recolourScenes();
        m_labels->refresh(m_counts);
      }
      m_session->markSaved(result->shareRevision);
      m_files->setShareTarget(result->shareTarget);
    }
    m_tools->updateUndoActions();
    m_files->noteEdit();
    statusBar()->showMessage(tr("Labels from %1").arg(result->source), 5000);
    if (result->flattened)
      statusBar()->showMessage(tr("%1: %2 voxels belonged to more than one segment; the higher segment number was kept")
                                   .arg(result->source)
                                   .arg(result->flattened),
                               10000);
    Q_EMIT labelsLoaded();
    return;
  }
  if (setStudy(std::move(*result->image), std::move(result->labels), result->source))
    m_dicomSource = std::move(result->dicomSeries);
}

void MainWindow::fail(const QString& message) {
  statusBar()->showMessage(message, 10000);
  if (m_dialogs) QMessageBox::warning(this, tr("Delineate"), message);
  Q_EMIT loadFailed(message);
}

bool MainWindow::setStudy(core::ImageVolume image, std::optional<core::LabelMap> labels, const QString& source) {
  auto session = labels ? core::AnnotationSession::create(std::move(image), std::move(*labels), defaultLabelTable())
                        : core::AnnotationSession::create(std::move(image), defaultLabelTable());
  if (!session) {
    fail(fromError(session.error()));
    return false;
  }
  m_tools->cancelStroke();
  // The previous study's journal: removed when saved or discarded, else left for recovery.
  if (m_session) m_files->closing(m_discardOnReplace);
  m_discardOnReplace = false;
  m_session.emplace(std::move(session).value());
  m_dicomSource.reset();
  m_hidden.clear();
  for (const core::LabelEntry& e : m_session->table().entries())
    if (!e.visible) m_hidden.insert(e.id);
  setWindowTitle(tr("Delineate - %1").arg(QFileInfo(source).fileName()));
  setWindowFilePath(source);  // what the study came from (exports name it unless de-identified)
  const core::ImageVolume& img = m_session->image();
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    p->scene().setImage(&img);
    p->scene().setLabels(&m_session->labels());
    p->scene().setLabelColors(m_session->table(), m_hidden);
    p->scene().setLabelOpacity(m_opacity);
  }
  m_surface->scene().setBounds(img.geometry());
  m_surface->scene().setImage(&img);
  m_cursor = m_axial->scene().cursor();
  m_isCt = looksLikeCt(img);
  m_automatic = automaticWindowLevel(img);  // once per study: Ctrl+0 and non-CT images reuse it
  if (m_isCt) applyPreset("Soft tissue");
  else applyPreset("Automatic");
  setCursor(m_cursor);
  refreshLabelList();
  addRecent(source);
  m_ai->studyChanged();
  m_tools->updateUndoActions();
  m_files->studyOpened(QFileInfo::exists(source) ? QFileInfo(source).absoluteFilePath() : source);
  statusBar()->showMessage(tr("Opened %1").arg(source), 5000);
  Q_EMIT studyLoaded();
  rebuildSurfaces();  // after studyLoaded: for a map without labels it reports surfacesReady at once
  return true;
}

bool MainWindow::setLabelMap(core::LabelMap labels) {
  if (!m_session) return false;
  m_tools->cancelStroke();
  if (core::Status s = m_session->replaceLabels(labels.voxels(), "Open label map"); !s) {
    fail(fromError(s.error()));
    return false;
  }
  // replaceLabels wrote into the map the scenes already show.
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().labelsModified();
  refreshLabelList();
  rebuildSurfaces(nullptr, std::make_shared<const core::LabelMap>(std::move(labels)));  // the file's map, no copy
  refreshViews();
  return true;
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

void MainWindow::rebuildSurfaces(const std::set<core::Label>* changed, std::shared_ptr<const core::LabelMap> source) {
  if (!changed) {  // everything: a gathered incremental rebuild is part of it
    m_surfaceTimer->stop();
    m_surfaceBacklog.clear();
  }
  if (m_surfaceJob) m_surfaceJob->cancel();
  const std::uint64_t generation = ++m_surfaceGeneration;
  if (!m_session) return;
  // A rebuild replaces a cancelled one's work too: the labels it was to redo join this one's.
  std::optional<std::set<core::Label>> only;
  if (changed) {
    only = *changed;
    only->insert(m_pendingSurfaces.begin(), m_pendingSurfaces.end());
    if (m_pendingAll) only.reset();
  }
  m_pendingAll = !only.has_value();
  m_pendingSurfaces = only ? *only : std::set<core::Label>{};
  if (!only && m_counts.empty()) {  // no label in the map (counted by refreshLabelList): nothing to mesh
    m_surface->scene().setSurfaces({});
    m_surface->setStatus({});
    m_surface->refresh();
    m_pendingAll = false;
    Q_EMIT surfacesReady();
    return;
  }
  m_surface->setStatus(tr("building surfaces..."));
  auto job = std::make_shared<JobProgress>();
  m_surfaceJob = job;
  // The worker's own map: edits go on meanwhile.
  std::shared_ptr<const core::LabelMap> labels = source ? std::move(source) : std::make_shared<const core::LabelMap>(m_session->labels());
  using Surfaces = std::map<core::Label, vtkSmartPointer<vtkPolyData>>;
  auto* watcher = new QFutureWatcher<Surfaces>(this);
  connect(watcher, &QFutureWatcher<Surfaces>::finished, this, [this, watcher, generation, job, only] {
    Surfaces surfaces = watcher->result();
    watcher->deleteLater();
    if (generation != m_surfaceGeneration || job->cancelled()) return;
    m_surfaceJob.reset();
    m_pendingAll = false;
    m_pendingSurfaces.clear();
    if (only) m_surface->scene().updateSurfaces(*only, std::move(surfaces));
    else m_surface->scene().setSurfaces(std::move(surfaces));
    m_surface->scene().setLabelColors(m_session->table(), m_hidden);
    m_surface->setStatus(tr("%n surface(s)", nullptr, static_cast<int>(m_surface->scene().surfaceCount())));
    m_surface->refresh();
    Q_EMIT surfacesReady();
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [labels, job, only] {
    return viewer::buildLabelSurfaces(*labels, 15, job.get(), only ? &*only : nullptr);
  }));
}

void MainWindow::setWindowLevel(WindowLevel wl) {
  m_windowLevel = wl;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setWindowLevel(wl.window, wl.level);
  m_surface->scene().setWindowLevel(wl.window, wl.level);
  m_surface->refresh();
  refreshViews();
}

void MainWindow::applyPreset(const QString& name) {
  if (name == "Automatic") {
    if (m_session) setWindowLevel(m_automatic);
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
  if (!m_session) return;
  // The cursor stays on the image's grid (its nearest voxel centre, clamped to the image).
  const auto& g = m_session->image().geometry();
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
  if (!m_session) return;
  const auto& g = m_session->image().geometry();
  const core::Index3 ijk = g.lpsToNearestIndex(lps);
  QString text = tr("LPS (%1, %2, %3) mm").arg(lps[0], 0, 'f', 1).arg(lps[1], 0, 'f', 1).arg(lps[2], 0, 'f', 1);
  if (g.contains(ijk)) {
    const float value = m_session->image().at(ijk);
    const core::Label label = m_session->labels().at(ijk);
    const core::LabelEntry* e = m_session->table().find(label);
    text += tr("   voxel (%1, %2, %3)   %4 %5").arg(ijk[0]).arg(ijk[1]).arg(ijk[2])
                .arg(m_isCt ? tr("HU") : tr("value"))
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

void MainWindow::addRecent(const QString& path) {
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
    if (path.contains(" #")) continue;  // DICOM series reopen through their folder
    m_recentMenu->addAction(path, this, [this, path] {
      if (maybeFinishSession()) openImage(path);
    });
  }
  m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

bool MainWindow::maybeFinishSession() {
  m_tools->cancelStroke();
  m_discardOnReplace = false;
  // Without dialogs unsaved edits are never thrown away: the journal stays for recovery.
  if (!m_session || !m_session->isDirty() || !m_dialogs) return true;
  const auto answer = QMessageBox::question(this, tr("Unsaved Edits"),
                                            tr("The labels have unsaved edits. Save them to the share?"),
                                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save && !m_files->saveToShare()) return false;
  m_discardOnReplace = answer == QMessageBox::Discard;
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeFinishSession()) {
    event->ignore();
    return;
  }
  m_files->closing(m_discardOnReplace);
  if (m_job) m_job->cancel();
  if (m_surfaceJob) m_surfaceJob->cancel();
  QMainWindow::closeEvent(event);
}

}  // namespace delineate::app::gui
