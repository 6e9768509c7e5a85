// How the views follow the study document's labels: colours and visibility, the overlay's opacity and outline, and
// what the views redraw when voxels change during a stroke and after it.
#include <QSlider>
#include <QTimer>

#include <cmath>

#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

void MainWindow::observeDocument() {
  StudyDocument* doc = m_document;
  connect(doc, &StudyDocument::edited, this, &MainWindow::afterEdit);
  connect(doc, &StudyDocument::modifiedInPlace, this, &MainWindow::modifiedInPlace);
  connect(doc, &StudyDocument::labelEntryChanged, this, &MainWindow::recolourScenes);
  connect(doc, &StudyDocument::tableChanged, this, &MainWindow::recolourScenes);
  connect(doc, &StudyDocument::visibilityChanged, this, &MainWindow::recolourScenes);
}

void MainWindow::labelsRedrawn() {
  // The document wrote into the map the scenes already show (or replaced it): the label under the cursor may differ.
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().labelsModified();
  refreshViews();
  updateReadout(m_cursor);
}

void MainWindow::afterEdit() {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().labelsModified();
  m_otherViewsTimer->stop();
  m_paintedIn = nullptr;
  refreshViews();
  updateReadout(m_cursor);
  Q_EMIT labelsChanged();
}

void MainWindow::modifiedInPlace(QObject* paintedIn) {
  m_paintedIn = paintedIn;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    if (paintedIn && p != paintedIn) continue;
    p->scene().labelsModified();
    p->view().repaint();  // now: a stroke's dabs show as the mouse moves, not when the event queue drains
  }
  if (paintedIn && !m_otherViewsTimer->isActive()) m_otherViewsTimer->start();
}

void MainWindow::recolourScenes() {
  const core::AnnotationSession* session = m_document->session();
  if (!session) return;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal})
    p->scene().setLabelColors(session->table(), m_document->hiddenLabels());
  m_surface->scene().setLabelColors(session->table(), m_document->hiddenLabels());
  refreshViews();
  m_surface->refresh();
}

void MainWindow::setLabelOpacity(double opacity) {
  m_opacity = std::clamp(opacity, 0.0, 1.0);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelOpacity(m_opacity);
  QSlider* slider = m_labels->opacitySlider();
  if (slider->value() != static_cast<int>(std::lround(m_opacity * 100)))
    slider->setValue(static_cast<int>(std::lround(m_opacity * 100)));
  refreshViews();
}

void MainWindow::setLabelOutline(bool outline) {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelOutline(outline);
  refreshViews();
}

}  // namespace delineate::app::gui
