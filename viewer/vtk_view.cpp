#include "viewer/vtk_view.h"

#include <QElapsedTimer>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOffscreenSurface>
#include <QOpenGLExtraFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <vtkCallbackCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkRenderer.h>

namespace delineate::viewer {
namespace {

// VTK asks its host about the OpenGL context through events; the host answers through the call data.
void onWindowEvent(vtkObject*, unsigned long event, void* clientData, void* callData) {
  auto* view = static_cast<VtkView*>(clientData);
  switch (event) {
    case vtkCommand::WindowMakeCurrentEvent:
      // QOpenGLWidget::makeCurrent also binds the widget's framebuffer: doing that while VTK is current (inside
      // paintGL, in the middle of VTK setting up its own framebuffers) would make VTK attach its buffers to ours.
      if (QOpenGLContext::currentContext() != view->context()) view->makeCurrent();
      break;
    case vtkCommand::WindowIsCurrentEvent:
      *static_cast<bool*>(callData) = QOpenGLContext::currentContext() == view->context();
      break;
    case vtkCommand::WindowSupportsOpenGLEvent:
    case vtkCommand::WindowIsDirectEvent:
      *static_cast<int*>(callData) = 1;
      break;
    default:
      break;
  }
}

}  // namespace

VtkView::VtkView(QWidget* parent)
    : QOpenGLWidget(parent),
      m_window(vtkSmartPointer<vtkGenericOpenGLRenderWindow>::New()),
      m_renderer(vtkSmartPointer<vtkRenderer>::New()) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(64, 64);
  m_window->AddRenderer(m_renderer);
  m_window->SetReadyForRendering(false);  // until the context exists
  m_window->SetFrameBlitModeToNoBlit();  // paintGL blits into the widget's framebuffer itself
  m_window->SetForceMaximumHardwareLineWidth(1);
  auto observer = vtkSmartPointer<vtkCallbackCommand>::New();
  observer->SetCallback(&onWindowEvent);
  observer->SetClientData(this);
  for (const auto event : {vtkCommand::WindowMakeCurrentEvent, vtkCommand::WindowIsCurrentEvent,
                           vtkCommand::WindowSupportsOpenGLEvent, vtkCommand::WindowIsDirectEvent})
    m_window->AddObserver(event, observer);
}

VtkView::~VtkView() {
  // VTK frees its OpenGL resources with the context current.
  makeCurrent();
  m_window->Finalize();
  doneCurrent();
}

vtkRenderer* VtkView::renderer() const { return m_renderer; }
vtkGenericOpenGLRenderWindow* VtkView::renderWindow() const { return m_window; }

QSize VtkView::pixelSize() const {
  const double ratio = devicePixelRatioF();
  return {static_cast<int>(width() * ratio + 0.5), static_cast<int>(height() * ratio + 0.5)};
}

void VtkView::setDefaultSurfaceFormat() {
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(8);
  format.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  QSurfaceFormat::setDefaultFormat(format);
}

QString VtkView::openGlRenderer() {
  static const QString name = [] {
    QOpenGLContext context;
    QOffscreenSurface surface;
    surface.create();
    if (!context.create() || !context.makeCurrent(&surface)) return QString();
    const auto* text = reinterpret_cast<const char*>(context.functions()->glGetString(GL_RENDERER));
    QString out = text ? QString::fromUtf8(text) : QString();
    context.doneCurrent();
    return out;
  }();
  return name;
}

bool VtkView::softwareRenderer() {
  const QString name = openGlRenderer();
  for (const char* software : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer", "Microsoft Basic Render",
                               "Apple Software Renderer"})
    if (name.contains(QLatin1String(software), Qt::CaseInsensitive)) return true;
  return false;
}

void VtkView::initializeGL() {
  m_window->SetOwnContext(false);
  m_window->OpenGLInitContext();
  m_window->SetReadyForRendering(true);
}

void VtkView::resizeGL(int, int) {
  const QSize size = pixelSize();
  m_window->SetSize(size.width(), size.height());
  Q_EMIT resized();
}

void VtkView::paintGL() {
  QElapsedTimer timer;
  timer.start();
  const QSize size = pixelSize();
  if (m_window->GetSize()[0] != size.width() || m_window->GetSize()[1] != size.height())
    m_window->SetSize(size.width(), size.height());
  // Qt changed OpenGL state behind VTK's cache; VTK must re-read it.
  auto* state = m_window->GetState();
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);  // Qt leaves GL_LESS; VTK expects GL_LEQUAL
  m_window->Render();
  state->Pop();
  // VTK rendered into its own framebuffer; copy it into the widget's, then make alpha opaque (Mesa would otherwise
  // blend the view with what lies behind the window).
  makeCurrent();
  QOpenGLExtraFunctions* f = context()->extraFunctions();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  const GLenum buffers[1] = {GL_COLOR_ATTACHMENT0};
  f->glDrawBuffers(1, buffers);
  const GLboolean scissor = f->glIsEnabled(GL_SCISSOR_TEST);
  if (scissor) {
    state->vtkglDisable(GL_SCISSOR_TEST);
    f->glDisable(GL_SCISSOR_TEST);
  }
  int* rendered = m_window->GetRenderFramebuffer()->GetLastSize();
  m_window->BlitDisplayFramebuffer(0, 0, 0, rendered[0], rendered[1], 0, 0, size.width(), size.height(),
                                   GL_COLOR_BUFFER_BIT, GL_LINEAR);
  GLboolean mask[4];
  f->glGetBooleanv(GL_COLOR_WRITEMASK, mask);
  f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  GLfloat clear[4];
  f->glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  f->glClearColor(0, 0, 0, 1);
  f->glViewport(0, 0, size.width(), size.height());
  f->glClear(GL_COLOR_BUFFER_BIT);
  f->glColorMask(mask[0], mask[1], mask[2], mask[3]);
  f->glClearColor(clear[0], clear[1], clear[2], clear[3]);
  if (scissor) {
    state->vtkglEnable(GL_SCISSOR_TEST);
    f->glEnable(GL_SCISSOR_TEST);
  }
  if (m_measure) f->glFinish();
  m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

QImage VtkView::capture() { return grabFramebuffer(); }

QPointF VtkView::toDisplay(const QPointF& logical) const {
  const double ratio = devicePixelRatioF();
  return {logical.x() * ratio, (height() - logical.y()) * ratio};
}

void VtkView::mousePressEvent(QMouseEvent* event) {
  Q_EMIT mousePressed(toDisplay(event->position()), event->button(), event->modifiers());
}

void VtkView::mouseMoveEvent(QMouseEvent* event) {
  Q_EMIT mouseMoved(toDisplay(event->position()), event->buttons(), event->modifiers());
}

void VtkView::mouseReleaseEvent(QMouseEvent* event) {
  Q_EMIT mouseReleased(toDisplay(event->position()), event->button(), event->modifiers());
}

void VtkView::wheelEvent(QWheelEvent* event) {
  // 120 units a notch; touchpads send less at a time.
  m_wheelRemainder += event->angleDelta().y();
  const int steps = m_wheelRemainder / 120;
  m_wheelRemainder -= steps * 120;
  if (steps) Q_EMIT wheelTurned(toDisplay(event->position()), steps, event->modifiers());
  event->accept();
}

void VtkView::keyPressEvent(QKeyEvent* event) {
  Q_EMIT keyPressed(event->key(), event->modifiers());
  QOpenGLWidget::keyPressEvent(event);
}

}  // namespace delineate::viewer
