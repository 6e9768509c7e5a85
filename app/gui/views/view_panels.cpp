#include "app/gui/views/view_panels.h"

#include <QEvent>
#include <QGuiApplication>
#include <QLabel>
#include <QMouseEvent>
#include <QVBoxLayout>

#include <algorithm>
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

std::vector<core::Vec3> boxCorners(const core::Vec3& a, const core::Vec3& b, const core::Vec3& normalLps) {
  std::size_t n = 0;
  for (std::size_t k = 1; k < 3; ++k)
    if (std::fabs(normalLps[k]) > std::fabs(normalLps[n])) n = k;
  const std::size_t u = (n + 1) % 3;
  core::Vec3 c1 = a, c2 = a;
  c1[u] = b[u];  // along u to b's coordinate, the rest a's
  c2 = b;
  c2[u] = a[u];
  return {a, c1, b, c2};
}

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
  m_hint = new QLabel(m_view);
  m_hint->setObjectName(objectName() + "-prompt-hint");
  m_hint->setStyleSheet("QLabel { background: rgba(20, 22, 28, 200); color: #f0f0f0; padding: 2px 5px; border-radius: 3px; }");
  m_hint->setAttribute(Qt::WA_TransparentForMouseEvents);
  m_hint->hide();
  connect(m_view, &viewer::VtkView::mousePressed, this, &SlicePanel::onPress);
  connect(m_view, &viewer::VtkView::mouseMoved, this, &SlicePanel::onMove);
  connect(m_view, &viewer::VtkView::mouseReleased, this, [this](QPointF, Qt::MouseButton, Qt::KeyboardModifiers) {
    if (m_drag == Drag::Paint) Q_EMIT paintReleased();
    if (m_drag == Drag::Prompt) {
      std::vector<core::Vec3> points = std::move(m_stroke);
      m_stroke.clear();
      m_scene->setDraftShape(std::nullopt);
      m_view->update();
      m_drag = Drag::None;
      // A box needs two distinct corners, a scribble two points, a lasso three: a click without a drag gives none.
      const std::size_t need = m_tool == PromptTool::Lasso ? 3 : 2;
      bool distinct = points.size() >= need;
      if (distinct && m_tool == PromptTool::Box) {
        const core::Vec3 d{points[1][0] - points[0][0], points[1][1] - points[0][1], points[1][2] - points[0][2]};
        distinct = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > 1e-6;
      }
      if (distinct) Q_EMIT promptDrawn(m_tool, std::move(points), m_scene->normal(), m_strokePositive);
      return;
    }
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

void SlicePanel::setPromptTool(PromptTool tool) {
  m_tool = tool;
  if (m_drag == Drag::Prompt) {
    m_drag = Drag::None;
    m_stroke.clear();
    m_scene->setDraftShape(std::nullopt);
    m_view->update();
  }
  if (m_hint->isVisible()) updateHint(m_hint->pos() - QPoint(16, 16), QGuiApplication::keyboardModifiers());
}

void SlicePanel::setPromptContext(const QString& text) {
  m_promptContext = text;
  if (m_hint->isVisible()) updateHint(m_hint->pos() - QPoint(16, 16), QGuiApplication::keyboardModifiers());
}

QString SlicePanel::promptHint() const { return m_hint->isVisible() ? m_hint->text() : QString(); }

void SlicePanel::updateHint(const QPoint& widgetPos, Qt::KeyboardModifiers modifiers) {
  if (m_interaction != Interaction::Click) {
    m_hint->hide();
    return;
  }
  const bool negative = (modifiers & Qt::ShiftModifier) || (m_drag == Drag::Prompt && !m_strokePositive);
  QString text;
  switch (m_tool) {
    case PromptTool::Point:
      text = negative ? tr("− point: not the object here") : tr("+ point: the object is here");
      break;
    case PromptTool::Box:
      text = negative ? tr("− box: drag over what is not the object") : tr("+ box: drag around the object");
      break;
    case PromptTool::Scribble:
      text = negative ? tr("− scribble: paint over what is not the object") : tr("+ scribble: paint over the object");
      break;
    case PromptTool::Lasso:
      text = negative ? tr("− lasso: circle what is not the object") : tr("+ lasso: circle part of the object");
      break;
  }
  if (!m_promptContext.isEmpty()) text += "\n" + m_promptContext;
  m_hint->setText(text);
  m_hint->adjustSize();
  // Beside the cursor, kept inside the view.
  QPoint at = widgetPos + QPoint(16, 16);
  at.setX(std::min(at.x(), std::max(0, m_view->width() - m_hint->width())));
  at.setY(std::min(at.y(), std::max(0, m_view->height() - m_hint->height())));
  m_hint->move(at);
  m_hint->show();
  m_hint->raise();
}

viewer::SliceScene::PromptShape SlicePanel::draftShape() const {
  viewer::SliceScene::PromptShape shape;
  shape.positive = m_strokePositive;
  if (m_tool == PromptTool::Box && m_stroke.size() == 2) {
    shape.lps = boxCorners(m_stroke[0], m_stroke[1], m_scene->normal());
    shape.closed = true;
  } else {
    shape.lps = m_stroke;
    shape.closed = m_tool == PromptTool::Lasso;
  }
  return shape;
}

bool SlicePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view && event->type() == QEvent::MouseMove)
    updateHint(static_cast<QMouseEvent*>(event)->position().toPoint(), static_cast<QMouseEvent*>(event)->modifiers());
  if (watched == m_view && event->type() == QEvent::Leave) m_hint->hide();
  // Double click = one view alone, when navigating; painting and AI points take fast clicks as clicks.
  if (watched == m_view && event->type() == QEvent::MouseButtonDblClick && m_interaction == Interaction::Navigate) {
    Q_EMIT maximizeToggled();
    return true;
  }
  return QFrame::eventFilter(watched, event);
}

void SlicePanel::setInteraction(Interaction mode) {
  if (m_drag == Drag::Paint) Q_EMIT paintReleased();
  if (m_drag == Drag::Prompt) {  // a prompt being drawn is dropped
    m_stroke.clear();
    m_scene->setDraftShape(std::nullopt);
    m_view->update();
  }
  m_drag = Drag::None;
  m_interaction = mode;
  m_view->setCursor(mode == Interaction::Navigate ? Qt::ArrowCursor : Qt::CrossCursor);
  if (mode != Interaction::Click) m_hint->hide();
}

void SlicePanel::onPress(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers) {
  m_last = pos;
  if (m_interaction == Interaction::Click && (button == Qt::LeftButton || button == Qt::RightButton)) {
    const bool positive = button == Qt::LeftButton && !(modifiers & Qt::ShiftModifier);
    if (m_tool == PromptTool::Point) {
      Q_EMIT pointClicked(m_scene->pick(pos.x(), pos.y()), positive);
      return;
    }
    m_drag = Drag::Prompt;
    m_strokePositive = positive;
    m_stroke = {m_scene->pick(pos.x(), pos.y())};
    m_strokeLast = pos;
    m_scene->setDraftShape(draftShape());
    m_view->update();
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
    case Drag::Prompt: {
      const core::Vec3 at = m_scene->pick(pos.x(), pos.y());
      if (m_tool == PromptTool::Box) {
        m_stroke.resize(1);
        m_stroke.push_back(at);
      } else if (std::hypot(pos.x() - m_strokeLast.x(), pos.y() - m_strokeLast.y()) >= 2.0) {
        m_stroke.push_back(at);  // every 2 display pixels: smooth enough, and a long stroke stays small
        m_strokeLast = pos;
      }
      m_scene->setDraftShape(draftShape());
      m_view->update();
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
