#pragma once
// A QOpenGLWidget that hosts a vtkGenericOpenGLRenderWindow (Debian's VTK Qt module is built for Qt 5, so we host
// VTK ourselves). VTK renders into its own framebuffer inside paintGL and blits into the widget's; renders are
// requested with update(), never run outside paintGL. Mouse, wheel and key events reach the owner as signals in
// device pixels with VTK's origin (bottom left), so controllers work in the render window's coordinates on any
// high-DPI screen.

#include <QOpenGLWidget>
#include <QPointF>

#include <vtkSmartPointer.h>

class QImage;
class vtkGenericOpenGLRenderWindow;
class vtkRenderer;

namespace delineate::viewer {

class VtkView : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkView(QWidget* parent = nullptr);
  ~VtkView() override;

  vtkRenderer* renderer() const;
  vtkGenericOpenGLRenderWindow* renderWindow() const;
  // The widget's size in device pixels (what VTK renders).
  QSize pixelSize() const;
  // Renders now and returns the frame (for screenshots and render tests).
  QImage capture();
  // Milliseconds the last paintGL took (VTK's render and the blit, finished with glFinish when measuring is on).
  double lastPaintMs() const { return m_lastPaintMs; }
  void setMeasurePaint(bool on) { m_measure = on; }

  // The default surface format VTK needs (OpenGL 3.2 core, depth and stencil); call before QApplication exists.
  static void setDefaultSurfaceFormat();
  // The OpenGL renderer the views get (GL_RENDERER of a context in the default format, asked once; GUI thread, after
  // QApplication exists), and whether it draws on the CPU (Mesa's llvmpipe, softpipe or swrast, Windows' basic
  // render driver, Apple's software renderer): those keep every drawn triangle's vertices and bins in RAM.
  static QString openGlRenderer();
  static bool softwareRenderer();

 Q_SIGNALS:
  // Positions in device pixels, origin at the bottom left (VTK's display coordinates).
  void mousePressed(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers);
  void mouseMoved(QPointF pos, Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers);
  void mouseReleased(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers);
  void wheelTurned(QPointF pos, int steps, Qt::KeyboardModifiers modifiers);
  void keyPressed(int key, Qt::KeyboardModifiers modifiers);
  void resized();

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  QPointF toDisplay(const QPointF& logical) const;

  vtkSmartPointer<vtkGenericOpenGLRenderWindow> m_window;
  vtkSmartPointer<vtkRenderer> m_renderer;
  double m_lastPaintMs = 0;
  bool m_measure = false;
  int m_wheelRemainder = 0;
};

}  // namespace delineate::viewer
