#include "app/gui/views/surface_builder.h"

#include <malloc.h>  // malloc_trim

#include <QFutureWatcher>
#include <QSettings>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <map>
#include <new>
#include <optional>
#include <set>
#include <vector>

#include "app/gui/base/job.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"
#include "core/label_runs.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

namespace delineate::app::gui {
namespace {

// The part of `map` that holds `labels`, as a map of its own placed where that part lies: what an incremental rebuild
// meshes, instead of a copy of the whole map per edit (issue 27). The part is the union of the labels' boxes as the
// document keeps them (no scan of the map), other labels in it cleared; a 1-voxel background map when none of the
// labels is left.
std::shared_ptr<const core::LabelMap> labelsAround(const core::LabelMap& map, const std::set<core::Label>& labels,
                                                   const std::map<core::Label, core::IndexBox>& boxes) {
  std::vector<std::uint8_t> wanted(65536, 0);
  core::IndexBox box;
  for (const core::Label l : labels) {
    const auto it = boxes.find(l);
    if (l == 0 || it == boxes.end()) continue;
    wanted[l] = 1;
    box.include(it->second);
  }
  const core::Geometry& g = map.geometry();
  box = box.intersected(g.fullBox());
  if (box.empty()) box = core::IndexBox{{0, 0, 0}, {0, 0, 0}};
  const core::Size3& d = g.dimensions();
  const core::Size3 size{box.max[0] - box.min[0] + 1, box.max[1] - box.min[1] + 1, box.max[2] - box.min[2] + 1};
  const core::Geometry part(size, g.spacingMm(), g.indexToLps(box.min), g.direction());
  auto voxels = core::Volume<core::Label>::create(part);
  if (!voxels) return nullptr;
  const core::Label* data = map.data();
  for (std::int64_t z = 0; z < size[2]; ++z)
    for (std::int64_t y = 0; y < size[1]; ++y) {
      const core::Label* from = data + ((z + box.min[2]) * d[1] + y + box.min[1]) * d[0] + box.min[0];
      core::Label* to = voxels->data() + (z * size[1] + y) * size[0];
      for (std::int64_t x = 0; x < size[0]; ++x) to[x] = wanted[from[x]] ? from[x] : core::Label{0};
    }
  return std::make_shared<const core::LabelMap>(std::move(voxels).value());
}

}  // namespace

namespace {

// The preference as set: "auto", "full" or "reduced".
QString surfaceDetailPreference() { return QSettings().value("view/surfaceDetail", "auto").toString(); }

}  // namespace

viewer::SurfaceDetail surfaceDetailSetting() {
  const QString wanted = surfaceDetailPreference();
  if (wanted == "full") return viewer::SurfaceDetail::Full;
  if (wanted == "reduced") return viewer::SurfaceDetail::Reduced;
  return viewer::VtkView::softwareRenderer() ? viewer::SurfaceDetail::Reduced : viewer::SurfaceDetail::Full;
}

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
  connect(&m_document, &StudyDocument::labelsReplaced, this, [this] { rebuild(); });
  connect(&m_document, &StudyDocument::edited, this, [this](const std::set<core::Label>& changed) {
    if (changed.empty()) return;
    m_backlog.insert(changed.begin(), changed.end());
    m_timer->start();
  });
}

void SurfaceBuilder::cancel() {
  if (m_job) m_job->cancel();
}

void SurfaceBuilder::settingsChanged() {
  if (surfaceDetailSetting() != m_detail) rebuild();
}

void SurfaceBuilder::retranslate() {
  if (m_job) m_panel.setStatus(tr("building surfaces..."));
  else if (!m_document.session() || m_panel.scene().surfaceCount() == 0) m_panel.setStatus({});
  else showStatus();
}

void SurfaceBuilder::showStatus() {
  const int count = static_cast<int>(m_panel.scene().surfaceCount());
  // Reduced detail is said where it made a label coarser, and why (the user may ask for full detail).
  bool coarser = false;
  if (m_detail != viewer::SurfaceDetail::Full)
    for (const auto& [label, box] : m_document.labelBoxes()) {
      const core::Size3 extent{box.max[0] - box.min[0] + 1, box.max[1] - box.min[1] + 1, box.max[2] - box.min[2] + 1};
      coarser = coarser || (!box.empty() && viewer::surfaceBlockSize(extent, m_detail) !=
                                                viewer::surfaceBlockSize(extent, viewer::SurfaceDetail::Full));
    }
  if (!coarser) m_panel.setStatus(tr("%n surface(s)", nullptr, count));
  else
    m_panel.setStatus(tr("%n surface(s), reduced detail", nullptr, count),
                      surfaceDetailPreference() == "reduced"
                          ? tr("Large labels are meshed coarser, as the preferences ask (File > Preferences > 3D "
                               "surface detail). Exported surface files are meshed at full detail.")
                          : tr("Large labels are meshed coarser: the OpenGL renderer (%1) draws on the CPU, where "
                               "full detail costs memory and slows every frame. File > Preferences > 3D surface "
                               "detail can ask for full detail; exported surface files are always full detail.")
                                .arg(viewer::VtkView::openGlRenderer()));
}

void SurfaceBuilder::rebuild(const std::set<core::Label>* changed) {
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
  // An incremental rebuild meshes at the detail of the surfaces it joins.
  if (!only) m_detail = surfaceDetailSetting();
  const viewer::SurfaceDetail detail = m_detail;
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
  // The worker's own copy of the labels, as edits go on meanwhile: the runs of the map (a few MB for a segmentation)
  // for a full rebuild, the box holding the changed labels for an incremental one, a copy of the whole map only for a
  // map whose runs would take more than half its size (noise).
  struct Snapshot {
    std::optional<core::LabelRuns> runs;
    std::shared_ptr<const core::LabelMap> map;
  };
  auto labels = std::make_shared<Snapshot>();
  if (only) {
    labels->map = labelsAround(session->labels(), *only, m_document.labelBoxes());
  } else {
    const core::LabelMap& from = session->labels();
    labels->runs = core::LabelRuns::encode(from, from.size() * sizeof(core::Label) / 2);
    if (!labels->runs) {
      try {
        labels->map = std::make_shared<const core::LabelMap>(from);
      } catch (const std::bad_alloc&) {
        labels->map = nullptr;
      }
    }
  }
  if (!labels->runs && !labels->map) {  // no memory for the copy: the surfaces stay as they are, said in the panel
    m_panel.setStatus(tr("not enough memory to rebuild the surfaces"));
    m_job.reset();
    return;
  }
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
    showStatus();
    m_panel.refresh();
    Q_EMIT ready();
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [labels, job, only, detail] {
    const std::set<core::Label>* which = only ? &*only : nullptr;
    auto built = labels->runs ? viewer::buildLabelSurfaces(*labels->runs, 15, job.get(), which, detail)
                              : viewer::buildLabelSurfaces(*labels->map, 15, job.get(), which, detail);
#ifdef __GLIBC__
    // The pipeline's intermediate meshes were freed, but glibc keeps their pages in this worker's arena; handing them
    // back before the meshes are drawn (llvmpipe then bins every triangle in RAM) lowered the window's peak with a
    // 512^3 CT, its labels and surfaces from a median 1540 MB to 1408 MB (bench_viewer, 5 and 6 runs).
    ::malloc_trim(0);
#endif
    return built;
  }));
}

}  // namespace delineate::app::gui
