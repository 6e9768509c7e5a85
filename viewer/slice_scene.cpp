#include "viewer/slice_scene.h"

#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkImageStack.h>
#include <vtkLineSource.h>
#include <vtkLookupTable.h>
#include <vtkMatrix4x4.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include "viewer/label_colors.h"
#include "viewer/vtk_bridge.h"

namespace delineate::viewer {
namespace {

using core::Vec3;

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 add(const Vec3& a, const Vec3& b, double s = 1.0) { return {a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]}; }

// The letter of the patient direction a unit LPS vector points to most.
char directionLetter(const Vec3& v) {
  std::size_t a = 0;
  for (std::size_t i = 1; i < 3; ++i)
    if (std::fabs(v[i]) > std::fabs(v[a])) a = i;
  static const char positive[3] = {'L', 'P', 'S'}, negative[3] = {'R', 'A', 'I'};
  return v[a] >= 0 ? positive[a] : negative[a];
}

// The eight corners of the image's voxel centres in LPS.
std::array<Vec3, 8> corners(const core::Geometry& g) {
  std::array<Vec3, 8> out{};
  const auto& d = g.dimensions();
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = g.indexToLps(Vec3{(i & 1) ? double(d[0] - 1) : 0.0, (i & 2) ? double(d[1] - 1) : 0.0,
                                                          (i & 4) ? double(d[2] - 1) : 0.0});
  return out;
}

}  // namespace

const char* orientationName(SliceOrientation o) {
  switch (o) {
    case SliceOrientation::Axial: return "axial";
    case SliceOrientation::Coronal: return "coronal";
    case SliceOrientation::Sagittal: return "sagittal";
  }
  return "axial";
}

SliceScene::SliceScene(vtkRenderer* renderer, SliceOrientation orientation)
    : m_renderer(renderer), m_orientation(orientation) {
  switch (orientation) {
    case SliceOrientation::Axial:  // from the feet: right of screen = patient left, up = anterior
      m_right = {1, 0, 0}, m_up = {0, -1, 0}, m_normal = {0, 0, 1};
      break;
    case SliceOrientation::Coronal:  // from the front
      m_right = {1, 0, 0}, m_up = {0, 0, 1}, m_normal = {0, 1, 0};
      break;
    case SliceOrientation::Sagittal:  // from the patient's left
      m_right = {0, 1, 0}, m_up = {0, 0, 1}, m_normal = {-1, 0, 0};
      break;
  }
  m_renderer->SetBackground(0, 0, 0);
  m_renderer->GetActiveCamera()->ParallelProjectionOn();

  m_imageMapper = vtkSmartPointer<vtkImageResliceMapper>::New();
  m_imageMapper->SliceFacesCameraOn();
  m_imageMapper->SliceAtFocalPointOn();
  m_imageSlice = vtkSmartPointer<vtkImageSlice>::New();
  m_imageSlice->SetMapper(m_imageMapper);
  m_imageSlice->GetProperty()->SetInterpolationTypeToLinear();
  m_imageSlice->GetProperty()->SetLayerNumber(0);

  m_labelMapper = vtkSmartPointer<vtkImageResliceMapper>::New();
  m_labelMapper->SliceFacesCameraOn();
  m_labelMapper->SliceAtFocalPointOn();
  m_labelSlice = vtkSmartPointer<vtkImageSlice>::New();
  m_labelSlice->SetMapper(m_labelMapper);
  m_labelSlice->GetProperty()->SetInterpolationTypeToNearest();
  m_labelSlice->GetProperty()->UseLookupTableScalarRangeOn();
  m_labelSlice->GetProperty()->SetLayerNumber(1);

  m_stack = vtkSmartPointer<vtkImageStack>::New();
  m_stack->SetActiveLayer(0);

  for (auto* line : {&m_lineA, &m_lineB}) *line = vtkSmartPointer<vtkLineSource>::New();
  for (auto [line, actor] : {std::pair{m_lineA.Get(), &m_crosshairA}, std::pair{m_lineB.Get(), &m_crosshairB}}) {
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputConnection(line->GetOutputPort());
    *actor = vtkSmartPointer<vtkActor>::New();
    (*actor)->SetMapper(mapper);
    (*actor)->GetProperty()->SetColor(1.0, 0.85, 0.2);
    (*actor)->GetProperty()->SetOpacity(0.7);
    (*actor)->GetProperty()->LightingOff();
    (*actor)->PickableOff();
    (*actor)->VisibilityOff();
    m_renderer->AddActor(*actor);
  }

  const char letters[4] = {directionLetter({-m_right[0], -m_right[1], -m_right[2]}), directionLetter(m_right),
                           directionLetter(m_up), directionLetter({-m_up[0], -m_up[1], -m_up[2]})};
  const double at[4][2] = {{0.01, 0.5}, {0.99, 0.5}, {0.5, 0.98}, {0.5, 0.02}};
  for (std::size_t i = 0; i < 4; ++i) {
    auto& t = m_markers[i];
    t = vtkSmartPointer<vtkTextActor>::New();
    t->SetInput(std::string(1, letters[i]).c_str());
    t->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    t->GetPositionCoordinate()->SetValue(at[i][0], at[i][1]);
    auto* p = t->GetTextProperty();
    p->SetFontSize(16);
    p->SetBold(true);
    p->SetColor(0.95, 0.75, 0.2);
    p->SetJustification(i == 0 ? VTK_TEXT_LEFT : i == 1 ? VTK_TEXT_RIGHT : VTK_TEXT_CENTERED);
    p->SetVerticalJustification(i == 2 ? VTK_TEXT_TOP : i == 3 ? VTK_TEXT_BOTTOM : VTK_TEXT_CENTERED);
    t->VisibilityOff();
    m_renderer->AddActor2D(t);
  }
}

SliceScene::~SliceScene() {
  m_renderer->RemoveViewProp(m_stack);
  m_renderer->RemoveActor(m_crosshairA);
  m_renderer->RemoveActor(m_crosshairB);
  for (auto& t : m_markers) m_renderer->RemoveActor2D(t);
}

void SliceScene::setImage(const core::ImageVolume* image) {
  m_renderer->RemoveViewProp(m_stack);
  m_stack->RemoveImage(m_imageSlice);
  m_stack->RemoveImage(m_labelSlice);
  m_image = image;
  m_labels = nullptr;
  const bool shown = image && image->size() > 0;
  for (auto& t : m_markers) t->SetVisibility(shown);
  m_crosshairA->SetVisibility(shown);
  m_crosshairB->SetVisibility(shown);
  if (!shown) {
    m_imageData = nullptr;
    return;
  }
  m_imageData = wrapImage(*image);
  m_imageMapper->SetInputData(m_imageData);
  m_imageSlice->SetUserMatrix(localToLps(image->geometry()));
  m_stack->AddImage(m_imageSlice);
  m_renderer->AddViewProp(m_stack);
  const auto& d = image->geometry().dimensions();
  // The middle voxel (a voxel centre: a plane between two slices would show a blend of both).
  m_cursor = image->geometry().indexToLps(core::Index3{(d[0] - 1) / 2, (d[1] - 1) / 2, (d[2] - 1) / 2});
  placeCamera(true);
}

void SliceScene::setLabels(const core::LabelMap* labels) {
  m_stack->RemoveImage(m_labelSlice);
  m_labels = labels;
  if (!labels || !m_image || !labels->geometry().isCloseTo(m_image->geometry())) {
    m_labels = nullptr;
    m_labelData = nullptr;
    return;
  }
  m_labelData = wrapLabels(*labels);
  m_labelMapper->SetInputData(m_labelData);
  m_labelSlice->SetUserMatrix(localToLps(labels->geometry()));
  setLabelColors(m_table, m_hidden);
  m_stack->AddImage(m_labelSlice);
}

void SliceScene::setLabelColors(const core::LabelTable& table, const std::set<core::Label>& hidden) {
  m_table = table;
  m_hidden = hidden;
  core::Label maxId = 0;
  if (m_labelData) {
    double range[2];
    m_labelData->GetScalarRange(range);
    maxId = static_cast<core::Label>(range[1]);
  }
  m_labelSlice->GetProperty()->SetLookupTable(labelLookupTable(table, hidden, maxId));
  m_labelSlice->GetProperty()->SetOpacity(m_labelOpacity);
}

void SliceScene::setLabelOpacity(double opacity) {
  m_labelOpacity = std::clamp(opacity, 0.0, 1.0);
  m_labelSlice->GetProperty()->SetOpacity(m_labelOpacity);
}

void SliceScene::labelsModified() {
  if (!m_labelData) return;
  m_labelData->Modified();
  m_labelData->GetPointData()->GetScalars()->Modified();
  setLabelColors(m_table, m_hidden);  // new ids may have appeared
}

void SliceScene::setWindowLevel(double window, double level) {
  m_imageSlice->GetProperty()->SetColorWindow(std::max(window, 1e-6));
  m_imageSlice->GetProperty()->SetColorLevel(level);
}

void SliceScene::setCursor(const core::Vec3& lps) {
  m_cursor = lps;
  placeCamera(false);
}

void SliceScene::setCrosshairVisible(bool visible) {
  const bool shown = visible && m_image;
  m_crosshairA->SetVisibility(shown);
  m_crosshairB->SetVisibility(shown);
}

double SliceScene::sliceStep() const {
  if (!m_image) return 1.0;
  const auto& g = m_image->geometry();
  std::size_t best = 0;
  double bestDot = -1;
  for (std::size_t a = 0; a < 3; ++a) {
    const Vec3 axis{g.direction()(0, static_cast<int>(a)), g.direction()(1, static_cast<int>(a)), g.direction()(2, static_cast<int>(a))};
    const double c = std::fabs(dot(axis, m_normal));
    if (c > bestDot) bestDot = c, best = a;
  }
  return g.spacingMm()[best];
}

void SliceScene::scroll(int steps) {
  if (!m_image) return;
  const auto cs = corners(m_image->geometry());
  double lo = dot(cs[0], m_normal), hi = lo;
  for (const auto& c : cs) lo = std::min(lo, dot(c, m_normal)), hi = std::max(hi, dot(c, m_normal));
  const double now = dot(m_cursor, m_normal);
  const double target = std::clamp(now + steps * sliceStep(), lo, hi);
  m_cursor = add(m_cursor, m_normal, target - now);
  placeCamera(false);
}

std::pair<std::int64_t, std::int64_t> SliceScene::sliceIndex() const {
  if (!m_image) return {0, 0};
  const auto cs = corners(m_image->geometry());
  double lo = dot(cs[0], m_normal), hi = lo;
  for (const auto& c : cs) lo = std::min(lo, dot(c, m_normal)), hi = std::max(hi, dot(c, m_normal));
  const double step = sliceStep();
  return {static_cast<std::int64_t>(std::llround((dot(m_cursor, m_normal) - lo) / step)),
          static_cast<std::int64_t>(std::llround((hi - lo) / step)) + 1};
}

void SliceScene::zoom(double factor) {
  if (factor <= 0) return;
  auto* camera = m_renderer->GetActiveCamera();
  camera->SetParallelScale(camera->GetParallelScale() / factor);
}

void SliceScene::pan(double dxPixels, double dyPixels) {
  auto* camera = m_renderer->GetActiveCamera();
  const int* size = m_renderer->GetSize();
  if (size[1] <= 0) return;
  const double mmPerPixel = 2.0 * camera->GetParallelScale() / size[1];
  const Vec3 shift = add(Vec3{m_right[0] * -dxPixels * mmPerPixel, m_right[1] * -dxPixels * mmPerPixel, m_right[2] * -dxPixels * mmPerPixel},
                         m_up, -dyPixels * mmPerPixel);
  double f[3], p[3];
  camera->GetFocalPoint(f);
  camera->GetPosition(p);
  camera->SetFocalPoint(f[0] + shift[0], f[1] + shift[1], f[2] + shift[2]);
  camera->SetPosition(p[0] + shift[0], p[1] + shift[1], p[2] + shift[2]);
}

void SliceScene::resetCamera() { placeCamera(true); }

void SliceScene::placeCamera(bool fit) {
  auto* camera = m_renderer->GetActiveCamera();
  Vec3 focal = m_cursor;
  if (!fit) {
    // Keep the pan: move the focal point along the normal only, onto the cursor's plane.
    double f[3];
    camera->GetFocalPoint(f);
    const Vec3 old{f[0], f[1], f[2]};
    focal = add(old, m_normal, dot(m_cursor, m_normal) - dot(old, m_normal));
  } else if (m_image) {
    // Centre on the image's middle in the screen plane, the cursor's plane along the normal.
    const auto cs = corners(m_image->geometry());
    Vec3 mid{0, 0, 0};
    for (const auto& c : cs) mid = add(mid, c, 1.0 / 8);
    focal = add(mid, m_normal, dot(m_cursor, m_normal) - dot(mid, m_normal));
  }
  const double distance = 2000.0;
  camera->SetFocalPoint(focal[0], focal[1], focal[2]);
  camera->SetPosition(focal[0] - distance * m_normal[0], focal[1] - distance * m_normal[1], focal[2] - distance * m_normal[2]);
  camera->SetViewUp(m_up[0], m_up[1], m_up[2]);
  camera->SetClippingRange(distance - 1000.0, distance + 1000.0);
  if (fit && m_image) {
    const auto cs = corners(m_image->geometry());
    double w0 = 1e300, w1 = -1e300, h0 = 1e300, h1 = -1e300;
    for (const auto& c : cs) {
      w0 = std::min(w0, dot(c, m_right)), w1 = std::max(w1, dot(c, m_right));
      h0 = std::min(h0, dot(c, m_up)), h1 = std::max(h1, dot(c, m_up));
    }
    const int* size = m_renderer->GetSize();
    const double aspect = size[1] > 0 ? double(size[0]) / double(size[1]) : 1.0;
    const double halfH = (h1 - h0) / 2 + sliceStep(), halfW = (w1 - w0) / 2 + sliceStep();
    camera->SetParallelScale(std::max(halfH, halfW / std::max(aspect, 1e-3)) * 1.05);
  }
  updateCrosshair();
}

void SliceScene::updateCrosshair() {
  // Two lines through the cursor along the screen axes, a little in front of the slice.
  const Vec3 c = add(m_cursor, m_normal, -0.05 * sliceStep());
  const double reach = 5000.0;
  m_lineA->SetPoint1(c[0] - reach * m_right[0], c[1] - reach * m_right[1], c[2] - reach * m_right[2]);
  m_lineA->SetPoint2(c[0] + reach * m_right[0], c[1] + reach * m_right[1], c[2] + reach * m_right[2]);
  m_lineB->SetPoint1(c[0] - reach * m_up[0], c[1] - reach * m_up[1], c[2] - reach * m_up[2]);
  m_lineB->SetPoint2(c[0] + reach * m_up[0], c[1] + reach * m_up[1], c[2] + reach * m_up[2]);
}

core::Vec3 SliceScene::pick(double displayX, double displayY) const {
  m_renderer->SetDisplayPoint(displayX, displayY, 0.5);
  m_renderer->DisplayToWorld();
  double w[4];
  m_renderer->GetWorldPoint(w);
  if (w[3] != 0) w[0] /= w[3], w[1] /= w[3], w[2] /= w[3];
  const Vec3 p{w[0], w[1], w[2]};
  return add(p, m_normal, dot(m_cursor, m_normal) - dot(p, m_normal));
}

}  // namespace delineate::viewer
