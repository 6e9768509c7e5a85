#include "app/gui/surface_builder.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <map>
#include <optional>

#include "app/gui/job.h"
#include "app/gui/study_document.h"
#include "app/gui/view_panels.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

SurfaceBuilder::SurfaceBuilder(StudyDocument& document, SurfacePanel& panel, QThreadPool& workers, QObject* parent)
    : QObject(parent), m_document(document), m_panel(panel), m_workers(workers) {
  m_timer = new QTimer(this);
  m_timer->setSingleShot(true);
  m_timer->setInterval(400);
  connect(m_timer, &QTimer::timeout, this, [this] {
    const std::set<core::Label> labels = std::move(m_backlog);
    m_backlog.clear();
    rebuild(&labels);
  });
  connect(&m_document, &StudyDocument::studyReplaced, this, [this] { rebuild(); });
  connect(&m_document, &StudyDocument::labelsReplaced, this,
          [this](std::shared_ptr<const core::LabelMap> sameMap) { rebuild(nullptr, std::move(sameMap)); });
  connect(&m_document, &StudyDocument::edited, this, [this](const std::set<core::Label>& changed) {
    if (changed.empty()) return;
    m_backlog.insert(changed.begin(), changed.end());
    m_timer->start();
  });
}

void SurfaceBuilder::cancel() {
  if (m_job) m_job->cancel();
}

void SurfaceBuilder::rebuild(const std::set<core::Label>* changed, std::shared_ptr<const core::LabelMap> source) {
  if (!changed) {  // everything: a gathered incremental rebuild is part of it
    m_timer->stop();
    m_backlog.clear();
  }
  if (m_job) m_job->cancel();
  const std::uint64_t generation = ++m_generation;
  const core::AnnotationSession* session = m_document.session();
  if (!session) return;
  // A rebuild replaces a cancelled one's work too: the labels it was to redo join this one's.
  std::optional<std::set<core::Label>> only;
  if (changed) {
    only = *changed;
    only->insert(m_pending.begin(), m_pending.end());
    if (m_pendingAll) only.reset();
  }
  m_pendingAll = !only.has_value();
  m_pending = only ? *only : std::set<core::Label>{};
  if (!only && m_document.voxelCounts().empty()) {  // no label in the map: nothing to mesh
    m_panel.scene().setSurfaces({});
    m_panel.setStatus({});
    m_panel.refresh();
    m_pendingAll = false;
    Q_EMIT ready();
    return;
  }
  m_panel.setStatus(tr("building surfaces..."));
  auto job = std::make_shared<JobProgress>();
  m_job = job;
  // The worker's own map: edits go on meanwhile.
  std::shared_ptr<const core::LabelMap> labels =
      source ? std::move(source) : std::make_shared<const core::LabelMap>(session->labels());
  using Surfaces = std::map<core::Label, vtkSmartPointer<vtkPolyData>>;
  auto* watcher = new QFutureWatcher<Surfaces>(this);
  connect(watcher, &QFutureWatcher<Surfaces>::finished, this, [this, watcher, generation, job, only] {
    Surfaces surfaces = watcher->result();
    watcher->deleteLater();
    if (generation != m_generation || job->cancelled() || !m_document.session()) return;
    m_job.reset();
    m_pendingAll = false;
    m_pending.clear();
    if (only) m_panel.scene().updateSurfaces(*only, std::move(surfaces));
    else m_panel.scene().setSurfaces(std::move(surfaces));
    m_panel.scene().setLabelColors(m_document.session()->table(), m_document.hiddenLabels());
    m_panel.setStatus(tr("%n surface(s)", nullptr, static_cast<int>(m_panel.scene().surfaceCount())));
    m_panel.refresh();
    Q_EMIT ready();
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [labels, job, only] {
    return viewer::buildLabelSurfaces(*labels, 15, job.get(), only ? &*only : nullptr);
  }));
}

}  // namespace delineate::app::gui
