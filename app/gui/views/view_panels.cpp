#include "app/gui/views/view_panels.h"

#include <QEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QVBoxLayout>

#include <cmath>

namespace delineate::app::gui {

namespace {

QLabel* titleLabel(QWidget* parent) {
  auto* title = new QLabel(parent);
  title->setStyleSheet("QLabel { background: #202228; color: #d8d8d8; padding: 1px 6px; }");
  // A long title is cut at the view's edge; it never widens its view in a layout.
  title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  return title;
}

QString orientationTitle(viewer::SliceOrientation o) {
  switch (o) {
    case viewer::SliceOrientation::Axial: return SlicePanel::tr("Axial");
    case viewer::SliceOrientation::Coronal: return SlicePanel::tr("Coronal");
    case viewer::SliceOrientation::Sagittal: return SlicePanel::tr("Sagittal");
  }
  return {};
}

}  // namespace

SlicePanel::SlicePanel(viewer::SliceOrientation orientation, QWidget* parent) : QFrame(parent) {
  setObjectName(QString("slice-") + viewer::orientationName(orientation));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_title = titleLabel(this);
  m_view = new viewer::VtkView(this);
  m_view->setObjectName(objectName() + "-view");
  layout->addWidget(m_title);
  layout->addWidget(m_view, 1);
  m_scene = std::make_unique<viewer::SliceScene>(m_view->renderer(), orientation);
  m_view->installEventFilter(this);
  connect(m_view, &viewer::VtkView::mousePressed, this, &SlicePanel::onPress);
  connect(m_view, &viewer::VtkView::mouseMoved, this, &SlicePanel::onMove);
  connect(m_view, &viewer::VtkView::mouseReleased, this, [this] {
    if (m_drag == Drag::Paint) Q_EMIT paintReleased();
    m_drag = Drag::None;
  });
  connect(m_view, &viewer::VtkView::wheelTurned, this, &SlicePanel::onWheel);
  connect(m_view, &viewer::VtkView::keyPressed, this, &SlicePanel::onKey);
  connect(m_view, &viewer::VtkView::resized, this, [this] { m_view->update(); });
  refresh();
}

void SlicePanel::refresh() {
  const auto [index, count] = m_scene->sliceIndex();
  m_title->setText(count > 0 ? tr("%1  %2 / %3").arg(orientationTitle(m_scene->orientation())).arg(index + 1).arg(count)
                             : orientationTitle(m_scene->orientation()));
  m_view->update();
}

bool SlicePanel::eventFilter(QObject* watched, QEvent* event) {
  // Double click = one view alone, when navigating; painting and AI points take fast clicks as clicks.
  if (watched == m_view && event->type() == QEvent::MouseButtonDblClick && m_interaction == Interaction::Navigate) {
    Q_EMIT maximizeToggled();
    return true;
  }
  return QFrame::eventFilter(watched, event);
}

void SlicePanel::setInteraction(Interaction mode) {
  if (m_drag == Drag::Paint) Q_EMIT paintReleased();
  m_drag = Drag::None;
  m_interaction = mode;
  m_view->setCursor(mode == Interaction::Navigate ? Qt::ArrowCursor : Qt::CrossCursor);
}

void SlicePanel::onPress(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers) {
  m_last = pos;
  if (m_interaction == Interaction::Click && (button == Qt::LeftButton || button == Qt::RightButton)) {
    Q_EMIT pointClicked(m_scene->pick(pos.x(), pos.y()), button == Qt::LeftButton && !(modifiers & Qt::ShiftModifier));
    return;
  }
  if (m_interaction == Interaction::Paint && button == Qt::LeftButton && !(modifiers & Qt::ShiftModifier)) {
    m_drag = Drag::Paint;
    m_lastPaint = m_scene->pick(pos.x(), pos.y());
    Q_EMIT paintPressed(m_lastPaint);
    return;
  }
  if (button == Qt::LeftButton && !(modifiers & Qt::ShiftModifier)) {
    m_drag = Drag::Cursor;
    Q_EMIT cursorRequested(m_scene->pick(pos.x(), pos.y()));
  } else if (button == Qt::MiddleButton || (button == Qt::LeftButton && (modifiers & Qt::ShiftModifier))) {
    m_drag = Drag::Pan;
  } else if (button == Qt::RightButton) {
    m_drag = Drag::WindowLevel;
  }
}

void SlicePanel::onMove(QPointF pos, Qt::MouseButtons, Qt::KeyboardModifiers) {
  const QPointF delta = pos - m_last;
  m_last = pos;
  switch (m_drag) {
    case Drag::Cursor:
      Q_EMIT cursorRequested(m_scene->pick(pos.x(), pos.y()));
      break;
    case Drag::Pan:
      m_scene->pan(delta.x(), delta.y());
      m_view->update();
      break;
    case Drag::WindowLevel:
      Q_EMIT windowLevelDragged(delta.x(), delta.y());
      break;
    case Drag::Paint: {
      const core::Vec3 to = m_scene->pick(pos.x(), pos.y());
      Q_EMIT paintDragged(m_lastPaint, to);
      m_lastPaint = to;
      break;
    }
    case Drag::None:
      break;
  }
  Q_EMIT hovered(m_scene->pick(pos.x(), pos.y()));
}

void SlicePanel::onWheel(QPointF, int steps, Qt::KeyboardModifiers modifiers) {
  if (m_interaction == Interaction::Paint && (modifiers & Qt::ShiftModifier)) {
    Q_EMIT brushResizeRequested(steps);
    return;
  }
  if (modifiers & Qt::ControlModifier) {
    m_scene->zoom(std::pow(1.15, steps));
    m_view->update();
    return;
  }
  m_scene->scroll(-steps);
  Q_EMIT cursorRequested(m_scene->cursor());
}

void SlicePanel::onKey(int key, Qt::KeyboardModifiers) {
  int steps = 0;
  if (key == Qt::Key_Up) steps = -1;
  else if (key == Qt::Key_Down) steps = 1;
  else if (key == Qt::Key_PageUp) steps = -10;
  else if (key == Qt::Key_PageDown) steps = 10;
  else if (key == Qt::Key_R) {
    m_scene->resetCamera();
    refresh();
    return;
  } else if (key == Qt::Key_Plus || key == Qt::Key_Equal) {
    m_scene->zoom(1.25);
    m_view->update();
    return;
  } else if (key == Qt::Key_Minus) {
    m_scene->zoom(0.8);
    m_view->update();
    return;
  }
  if (steps) {
    m_scene->scroll(steps);
    Q_EMIT cursorRequested(m_scene->cursor());
  }
}

SurfacePanel::SurfacePanel(QWidget* parent) : QFrame(parent) {
  setObjectName("surface-3d");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_title = titleLabel(this);
  m_title->setText(tr("3D"));
  m_view = new viewer::VtkView(this);
  m_view->setObjectName("surface-3d-view");
  layout->addWidget(m_title);
  layout->addWidget(m_view, 1);
  m_scene = std::make_unique<viewer::SurfaceScene>(m_view->renderer());
  m_view->installEventFilter(this);
  connect(m_view, &viewer::VtkView::mousePressed, this, [this](QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers) {
    m_last = pos;
    m_rotating = button == Qt::LeftButton;
  });
  connect(m_view, &viewer::VtkView::mouseReleased, this, [this] { m_rotating = false; });
  connect(m_view, &viewer::VtkView::mouseMoved, this, [this](QPointF pos, Qt::MouseButtons, Qt::KeyboardModifiers) {
    if (!m_rotating) return;
    const QPointF d = pos - m_last;
    m_last = pos;
    m_scene->rotate(d.x(), d.y());
    m_view->update();
  });
  connect(m_view, &viewer::VtkView::wheelTurned, this, [this](QPointF, int steps, Qt::KeyboardModifiers) {
    m_scene->zoom(std::pow(1.1, steps));
    m_view->update();
  });
  connect(m_view, &viewer::VtkView::keyPressed, this, [this](int key, Qt::KeyboardModifiers) {
    if (key == Qt::Key_R) {
      m_scene->resetCamera();
      m_view->update();
    }
  });
}

void SurfacePanel::setStatus(const QString& text, const QString& toolTip) {
  m_title->setText(text.isEmpty() ? tr("3D") : tr("3D  %1").arg(text));
  m_title->setToolTip(toolTip);
}

void SurfacePanel::refresh() { m_view->update(); }

bool SurfacePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view && event->type() == QEvent::MouseButtonDblClick) {
    Q_EMIT maximizeToggled();
    return true;
  }
  return QFrame::eventFilter(watched, event);
}

}  // namespace delineate::app::gui
