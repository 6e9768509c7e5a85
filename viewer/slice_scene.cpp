#include "viewer/slice_scene.h"

#include <algorithm>
#include <cmath>

#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCamera.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkImageActor.h>
#include <vtkImageMapToColors.h>
#include <vtkImageMapper3D.h>
#include <vtkImageReslice.h>
#include <vtkLineSource.h>
#include <vtkLookupTable.h>
#include <vtkMatrix4x4.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRegularPolygonSource.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

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

// The image's voxel centres projected on a direction: the lowest and highest value.
std::pair<double, double> extentAlong(const core::Geometry& g, const Vec3& direction) {
  const auto cs = corners(g);
  double lo = dot(cs[0], direction), hi = lo;
  for (const auto& c : cs) lo = std::min(lo, dot(c, direction)), hi = std::max(hi, dot(c, direction));
  return {lo, hi};
}

// Whether the non-zero pixel (x, y) of an nx x ny plane lies on its region's edge: a 4-neighbour holds another value,
// or the plane's border is next to it. Label outlines and the click preview's rim both draw this.
template <class T>
bool onPlaneEdge(const T* in, int x, int y, int nx, int ny) {
  const T v = in[y * nx + x];
  return x == 0 || y == 0 || x == nx - 1 || y == ny - 1 || in[y * nx + x - 1] != v || in[y * nx + x + 1] != v ||
         in[(y - 1) * nx + x] != v || in[(y + 1) * nx + x] != v;
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
  // Slices want crisp pixels, not multisampling (which a software rasterizer pays for on every frame).
  if (vtkRenderWindow* window = m_renderer->GetRenderWindow()) window->SetMultiSamples(0);

  m_imageMapper = vtkSmartPointer<vtkImageResliceMapper>::New();
  m_imageMapper->SliceFacesCameraOn();
  m_imageMapper->SliceAtFocalPointOn();
  m_imageSlice = vtkSmartPointer<vtkImageSlice>::New();
  m_imageSlice->SetMapper(m_imageMapper);
  m_imageSlice->GetProperty()->SetInterpolationTypeToLinear();
  m_imageSlice->GetProperty()->SetLayerNumber(0);

  m_labelReslice = vtkSmartPointer<vtkImageReslice>::New();
  m_labelReslice->SetInterpolationModeToNearestNeighbor();
  m_labelReslice->SetOutputDimensionality(2);
  m_labelReslice->SetBackgroundLevel(0);
  m_overlayLabels = vtkSmartPointer<vtkImageData>::New();
  m_overlayColors = vtkSmartPointer<vtkImageMapToColors>::New();
  m_overlayColors->SetInputData(m_overlayLabels);
  m_overlayColors->SetOutputFormatToRGBA();
  m_overlayActor = vtkSmartPointer<vtkImageActor>::New();
  m_overlayActor->GetMapper()->SetInputConnection(m_overlayColors->GetOutputPort());
  m_overlayActor->GetProperty()->SetInterpolationTypeToNearest();
  m_overlayActor->PickableOff();
  m_overlayActor->VisibilityOff();
  m_renderer->AddViewProp(m_overlayActor);

  m_previewReslice = vtkSmartPointer<vtkImageReslice>::New();
  m_previewReslice->SetInterpolationModeToNearestNeighbor();
  m_previewReslice->SetOutputDimensionality(2);
  m_previewReslice->SetBackgroundLevel(0);
  m_previewPlane = vtkSmartPointer<vtkImageData>::New();
  m_previewColors = vtkSmartPointer<vtkImageMapToColors>::New();
  m_previewColors->SetInputData(m_previewPlane);
  m_previewColors->SetOutputFormatToRGBA();
  m_previewActor = vtkSmartPointer<vtkImageActor>::New();
  m_previewActor->GetMapper()->SetInputConnection(m_previewColors->GetOutputPort());
  m_previewActor->GetProperty()->SetInterpolationTypeToNearest();
  m_previewActor->PickableOff();
  m_previewActor->VisibilityOff();
  m_renderer->AddViewProp(m_previewActor);

  // Click points: one polydata of "+" and "-" strokes, drawn twice: a wide dark stroke under the coloured one, so a
  // marker shows over any label and any grey.
  m_pointGlyphs = vtkSmartPointer<vtkPolyData>::New();
  for (auto* actor : {&m_pointShadow, &m_pointActor}) {
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(m_pointGlyphs);
    *actor = vtkSmartPointer<vtkActor>::New();
    (*actor)->SetMapper(mapper);
    (*actor)->GetProperty()->LightingOff();
    (*actor)->PickableOff();
    (*actor)->VisibilityOff();
    if (actor == &m_pointShadow) {
      mapper->ScalarVisibilityOff();
      (*actor)->GetProperty()->SetColor(0, 0, 0);
      (*actor)->GetProperty()->SetLineWidth(6);
    } else {
      mapper->SetScalarModeToUseCellData();
      mapper->SetColorModeToDirectScalars();
      (*actor)->GetProperty()->SetLineWidth(3);
    }
    m_renderer->AddActor(*actor);
  }

  m_brush = vtkSmartPointer<vtkRegularPolygonSource>::New();
  m_brush->SetNumberOfSides(72);
  m_brush->GeneratePolygonOff();
  m_brush->GeneratePolylineOn();
  m_brush->SetNormal(m_normal[0], m_normal[1], m_normal[2]);
  auto brushMapper = vtkSmartPointer<vtkPolyDataMapper>::New();
  brushMapper->SetInputConnection(m_brush->GetOutputPort());
  m_brushActor = vtkSmartPointer<vtkActor>::New();
  m_brushActor->SetMapper(brushMapper);
  m_brushActor->GetProperty()->SetColor(0.3, 0.9, 1.0);
  m_brushActor->GetProperty()->LightingOff();
  m_brushActor->PickableOff();
  m_brushActor->VisibilityOff();
  m_renderer->AddActor(m_brushActor);

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
  m_renderer->RemoveViewProp(m_imageSlice);
  m_renderer->RemoveViewProp(m_overlayActor);
  m_renderer->RemoveViewProp(m_previewActor);
  m_renderer->RemoveActor(m_brushActor);
  m_renderer->RemoveActor(m_pointActor);
  m_renderer->RemoveActor(m_pointShadow);
  m_renderer->RemoveActor(m_crosshairA);
  m_renderer->RemoveActor(m_crosshairB);
  for (auto& t : m_markers) m_renderer->RemoveActor2D(t);
}

void SliceScene::setImage(core::ImageView image) {
  m_renderer->RemoveViewProp(m_imageSlice);
  m_image = image;
  m_labelData = nullptr;
  m_labels = nullptr;
  m_wrappedLabels = nullptr;
  m_overlayActor->VisibilityOff();
  m_previewData = nullptr;
  m_previewActor->VisibilityOff();
  m_brushActor->VisibilityOff();
  m_clickPoints.clear();
  m_shapes.clear();
  m_draft.reset();
  updateClickPoints();
  const bool shown = image && image.size() > 0;
  for (auto& t : m_markers) t->SetVisibility(shown);
  m_crosshairA->SetVisibility(shown);
  m_crosshairB->SetVisibility(shown);
  if (!shown) {
    m_imageData = nullptr;
    return;
  }
  m_imageData = wrapImage(image);
  m_imageMapper->SetInputData(m_imageData);
  m_imageSlice->SetUserMatrix(localToLps(image.geometry()));
  m_renderer->AddViewProp(m_imageSlice);
  const auto& d = image.geometry().dimensions();
  // The middle voxel (a voxel centre: a plane between two slices would show a blend of both).
  m_cursor = image.geometry().indexToLps(core::Index3{(d[0] - 1) / 2, (d[1] - 1) / 2, (d[2] - 1) / 2});
  placeCamera(true);
}

void SliceScene::setLabels(const core::LabelMap* labels) {
  m_labels = nullptr;
  m_wrappedLabels = nullptr;
  if (!labels || !m_image || !labels->geometry().isCloseTo(m_image.geometry())) {
    m_labelData = nullptr;
    m_overlayActor->VisibilityOff();
    return;
  }
  m_labels = labels;
  m_wrappedLabels = labels->data();
  m_labelData = wrapLabels(*labels);
  m_labelReslice->SetInputData(m_labelData);
  setLabelColors(m_table, m_hidden);
  m_overlayActor->VisibilityOn();
  updateOverlay(true);
}

void SliceScene::setLabelColors(const core::LabelTable& table, const std::set<core::Label>& hidden) {
  m_table = table;
  m_hidden = hidden;
  // Every 16-bit id has an entry, so no scan of the label volume for its largest id (and none again after edits).
  m_overlayColors->SetLookupTable(labelLookupTable(table, hidden, 65535));
  m_overlayActor->SetOpacity(m_labelOpacity);
}

void SliceScene::setLabelOpacity(double opacity) {
  m_labelOpacity = std::clamp(opacity, 0.0, 1.0);
  m_overlayActor->SetOpacity(m_labelOpacity);
}

void SliceScene::setLabelOutline(bool outline) {
  m_outline = outline;
  updateOverlay(true);
}

void SliceScene::labelsModified() {
  if (!m_labelData) return;
  m_labelData->Modified();
  m_labelData->GetPointData()->GetScalars()->Modified();
  updateOverlay(true);
}

void SliceScene::updateOverlay(bool force) {
  if ((!m_labelData && !m_previewData) || !m_image) return;
  if (m_labelData && m_labels && m_labels->data() != m_wrappedLabels) {
    setLabels(m_labels);  // wraps the map's new buffer, then reslices
    return;
  }
  // The overlay depends on the plane only (its origin is the image's middle projected onto it): a cursor move within
  // the plane, as another view's scroll or a click here, leaves it as it is.
  const double offset = dot(m_cursor, m_normal);
  if (!force && offset == m_overlayOffset) return;
  m_overlayOffset = offset;
  const auto& dims = m_image.geometry().dimensions();
  const Vec3 middle = m_image.geometry().indexToLps(core::Index3{(dims[0] - 1) / 2, (dims[1] - 1) / 2, (dims[2] - 1) / 2});
  const Vec3 origin = add(middle, m_normal, offset - dot(middle, m_normal));
  if (m_labelData) {
    reslicePlane(m_labelReslice, origin);
    vtkImageData* plane = m_labelReslice->GetOutput();
    m_overlayLabels->DeepCopy(plane);
    if (m_outline) {
      // Keep a pixel where a 4-neighbour holds another label (the plane's border counts as background).
      int e[6];
      plane->GetExtent(e);
      const int nx = e[1] - e[0] + 1, ny = e[3] - e[2] + 1;
      const auto* in = static_cast<const unsigned short*>(plane->GetScalarPointer());
      auto* out = static_cast<unsigned short*>(m_overlayLabels->GetScalarPointer());
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x)
          if (const unsigned short v = in[y * nx + x]) out[y * nx + x] = onPlaneEdge(in, x, y, nx, ny) ? v : 0;
    }
    m_overlayLabels->Modified();
  }
  // Output (x, y) of the plane sits at cursor + x right + y up, a hair in front of the image slice.
  const Vec3 at = add(origin, m_normal, -0.01 * sliceStep());
  auto place = vtkSmartPointer<vtkMatrix4x4>::New();
  const Vec3 lpsCols[4] = {m_right, m_up, m_normal, at};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) place->SetElement(r, c, lpsCols[c][static_cast<std::size_t>(r)]);
  m_overlayActor->SetUserMatrix(place);
  if (m_previewData) {
    reslicePlane(m_previewReslice, origin);
    m_previewReslice->Update();
    // Issue 41: a one-voxel rim was hard to see over other labels. The inside is a translucent fill (1), a band
    // along the object's edge an opaque rim (2) and, just outside it, a dark outline (3) that separates the
    // rim from whatever label lies around it; both widths grow with the plane so they stay visible zoomed out.
    vtkImageData* plane = m_previewReslice->GetOutput();
    m_previewPlane->DeepCopy(plane);
    int e[6];
    plane->GetExtent(e);
    const int nx = e[1] - e[0] + 1, ny = e[3] - e[2] + 1;
    const auto* in = static_cast<const unsigned char*>(plane->GetScalarPointer());
    auto* out = static_cast<unsigned char*>(m_previewPlane->GetScalarPointer());
    const int rim = previewRimWidth(nx, ny), halo = previewOutlineWidth(nx, ny);
    int x0 = nx, x1 = -1, y0 = ny, y1 = -1;  // the object's box in the plane
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        if (in[y * nx + x]) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < nx && y < ny && in[y * nx + x] != 0; };
    // Whether a pixel within `r` (a square) of (x, y) is `wanted` (inside or not; off the plane counts as outside).
    auto near = [&](int x, int y, int r, bool wanted) {
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
          if (inside(x + dx, y + dy) == wanted) return true;
      return false;
    };
    for (int y = std::max(0, y0 - halo); y <= std::min(ny - 1, y1 + halo); ++y)
      for (int x = std::max(0, x0 - halo); x <= std::min(nx - 1, x1 + halo); ++x) {
        unsigned char& v = out[y * nx + x];
        if (in[y * nx + x]) v = near(x, y, rim - 1, false) ? 2 : 1;
        else if (near(x, y, halo, true)) v = 3;
      }
    m_previewPlane->Modified();
    const Vec3 front = add(origin, m_normal, -0.02 * sliceStep());
    auto placePreview = vtkSmartPointer<vtkMatrix4x4>::New();
    placePreview->DeepCopy(place);
    for (int r = 0; r < 3; ++r) placePreview->SetElement(r, 3, front[static_cast<std::size_t>(r)]);
    m_previewActor->SetUserMatrix(placePreview);
  }
}

void SliceScene::reslicePlane(vtkImageReslice* reslice, const Vec3& origin) {
  // The view's plane through the cursor, in the labels' local frame (index x spacing): columns right, up, normal
  // and the cursor, each taken through the transposed direction.
  const core::Geometry& g = m_image.geometry();
  const auto& d = g.direction();
  const auto& o = g.originLps();
  auto toLocal = [&](const Vec3& v, bool point) {
    Vec3 w = point ? Vec3{v[0] - o[0], v[1] - o[1], v[2] - o[2]} : v;
    return Vec3{d(0, 0) * w[0] + d(1, 0) * w[1] + d(2, 0) * w[2], d(0, 1) * w[0] + d(1, 1) * w[1] + d(2, 1) * w[2],
                d(0, 2) * w[0] + d(1, 2) * w[1] + d(2, 2) * w[2]};
  };
  const Vec3 cols[4] = {toLocal(m_right, false), toLocal(m_up, false), toLocal(m_normal, false), toLocal(origin, true)};
  auto axes = vtkSmartPointer<vtkMatrix4x4>::New();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) axes->SetElement(r, c, cols[c][static_cast<std::size_t>(r)]);
  reslice->SetResliceAxes(axes);
  // Pixels as fine as the finest in-plane voxel, covering the image's projection on the plane.
  const auto& sp = g.spacingMm();
  const double pixel = std::min({sp[0], sp[1], sp[2]});
  auto [r0, r1] = extentAlong(g, m_right);
  auto [u0, u1] = extentAlong(g, m_up);
  r0 -= dot(origin, m_right), r1 -= dot(origin, m_right);  // relative to the plane's origin
  u0 -= dot(origin, m_up), u1 -= dot(origin, m_up);
  reslice->SetOutputSpacing(pixel, pixel, 1);
  reslice->SetOutputOrigin(0, 0, 0);
  reslice->SetOutputExtent(static_cast<int>(std::floor(r0 / pixel)), static_cast<int>(std::ceil(r1 / pixel)),
                                  static_cast<int>(std::floor(u0 / pixel)), static_cast<int>(std::ceil(u1 / pixel)), 0, 0);
  reslice->Update();
}

void SliceScene::setPreview(const core::IndexBox& box, const std::uint8_t* voxels, core::Rgba color) {
  if (box.empty() || !voxels || !m_image) {
    m_previewData = nullptr;
    m_previewActor->VisibilityOff();
    return;
  }
  const auto& sp = m_image.geometry().spacingMm();
  m_previewData = vtkSmartPointer<vtkImageData>::New();
  const int nx = static_cast<int>(box.max[0] - box.min[0] + 1), ny = static_cast<int>(box.max[1] - box.min[1] + 1),
            nz = static_cast<int>(box.max[2] - box.min[2] + 1);
  m_previewData->SetDimensions(nx, ny, nz);
  m_previewData->SetSpacing(sp[0], sp[1], sp[2]);
  // The labels' local frame (index x spacing), shifted to the box.
  m_previewData->SetOrigin(double(box.min[0]) * sp[0], double(box.min[1]) * sp[1], double(box.min[2]) * sp[2]);
  m_previewData->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
  std::copy(voxels, voxels + std::size_t(nx) * std::size_t(ny) * std::size_t(nz),
            static_cast<unsigned char*>(m_previewData->GetScalarPointer()));
  m_previewReslice->SetInputData(m_previewData);
  auto lut = vtkSmartPointer<vtkLookupTable>::New();
  lut->SetNumberOfTableValues(4);
  lut->SetTableRange(0, 3);
  lut->SetTableValue(0, 0, 0, 0, 0);
  lut->SetTableValue(1, color.r / 255.0, color.g / 255.0, color.b / 255.0, kPreviewFillOpacity);
  lut->SetTableValue(2, color.r / 255.0, color.g / 255.0, color.b / 255.0, 1.0);
  lut->SetTableValue(3, 0, 0, 0, kPreviewOutlineOpacity);
  m_previewColors->SetLookupTable(lut);
  m_previewColor = color;
  m_previewActor->SetOpacity(1.0);
  m_previewActor->VisibilityOn();
  updateOverlay(true);
}

void SliceScene::setClickPoints(std::vector<ClickPoint> points) {
  m_clickPoints = std::move(points);
  updateClickPoints();
}

std::size_t SliceScene::shownClickPoints(bool positive) const { return positive ? m_shownPositive : m_shownNegative; }

void SliceScene::setPromptShapes(std::vector<PromptShape> shapes) {
  m_shapes = std::move(shapes);
  updateClickPoints();
}

void SliceScene::setDraftShape(std::optional<PromptShape> shape) {
  m_draft = std::move(shape);
  updateClickPoints();
}

void SliceScene::updateClickPoints() {
  m_shownPositive = m_shownNegative = 0;
  auto points = vtkSmartPointer<vtkPoints>::New();
  auto lines = vtkSmartPointer<vtkCellArray>::New();
  auto colors = vtkSmartPointer<vtkUnsignedCharArray>::New();
  colors->SetNumberOfComponents(3);
  if (m_image) {
    // A marker a few percent of the view's height across, whatever the zoom; in front of the overlay and preview.
    const double half = 0.035 * m_renderer->GetActiveCamera()->GetParallelScale();
    const double plane = dot(m_cursor, m_normal), step = sliceStep();
    for (const ClickPoint& p : m_clickPoints) {
      if (std::fabs(dot(p.lps, m_normal) - plane) > 0.5 * step + 1e-6) continue;
      const Vec3 c = add(p.lps, m_normal, plane - dot(p.lps, m_normal) - 0.06 * step);
      // A positive marker leaves its middle open: a small object under the click (a few voxels) stays visible.
      const double gap = p.positive ? 0.3 * half : 0.0;
      auto stroke = [&](const Vec3& direction) {
        for (const double sign : {-1.0, 1.0}) {
          const Vec3 a = add(c, direction, sign * gap), b = add(c, direction, sign * half);
          const vtkIdType ids[2] = {points->InsertNextPoint(a[0], a[1], a[2]), points->InsertNextPoint(b[0], b[1], b[2])};
          lines->InsertNextCell(2, ids);
          const unsigned char rgb[2][3] = {{255, 70, 70}, {60, 255, 90}};  // negative red, positive green
          colors->InsertNextTypedTuple(rgb[p.positive ? 1 : 0]);
        }
      };
      stroke(m_right);
      if (p.positive) stroke(m_up);
      ++(p.positive ? m_shownPositive : m_shownNegative);
    }
    m_shownShapes = 0;
    auto drawShape = [&](const PromptShape& s) {
      if (s.lps.size() < 2) return false;
      double mean = 0;
      for (const Vec3& p : s.lps) mean += dot(p, m_normal);
      mean /= static_cast<double>(s.lps.size());
      if (std::fabs(mean - plane) > 0.5 * step + 1e-6) return false;
      const unsigned char rgb[2][3] = {{255, 70, 70}, {60, 255, 90}};
      const std::size_t n = s.lps.size();
      for (std::size_t k = 0; k + 1 < n + (s.closed ? 1 : 0); ++k) {
        const Vec3& a0 = s.lps[k];
        const Vec3& b0 = s.lps[(k + 1) % n];
        const Vec3 a = add(a0, m_normal, plane - dot(a0, m_normal) - 0.06 * step);
        const Vec3 b = add(b0, m_normal, plane - dot(b0, m_normal) - 0.06 * step);
        const vtkIdType ids[2] = {points->InsertNextPoint(a[0], a[1], a[2]), points->InsertNextPoint(b[0], b[1], b[2])};
        lines->InsertNextCell(2, ids);
        colors->InsertNextTypedTuple(rgb[s.positive ? 1 : 0]);
      }
      return true;
    };
    for (const PromptShape& s : m_shapes)
      if (drawShape(s)) ++m_shownShapes;
    if (m_draft) drawShape(*m_draft);
  }
  m_pointGlyphs->SetPoints(points);
  m_pointGlyphs->SetLines(lines);
  m_pointGlyphs->GetCellData()->SetScalars(colors);
  m_pointGlyphs->Modified();
  // The dark stroke a hair behind the coloured one (the camera looks along the normal).
  const double behind = 0.01 * sliceStep();
  m_pointShadow->SetPosition(m_normal[0] * behind, m_normal[1] * behind, m_normal[2] * behind);
  const bool any = lines->GetNumberOfCells() > 0;
  m_pointActor->SetVisibility(any);
  m_pointShadow->SetVisibility(any);
}

void SliceScene::setBrushOutline(std::optional<core::Vec3> centerLps, double radiusMm) {
  if (!centerLps || !m_image || radiusMm <= 0) {
    m_brushActor->VisibilityOff();
    return;
  }
  // On the plane, a little in front of the overlay.
  const Vec3 c = add(*centerLps, m_normal, dot(m_cursor, m_normal) - dot(*centerLps, m_normal) - 0.04 * sliceStep());
  m_brush->SetCenter(c[0], c[1], c[2]);
  m_brush->SetRadius(radiusMm);
  m_brushActor->VisibilityOn();
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

int SliceScene::normalAxis() const {
  if (!m_image) return 2;
  const auto& g = m_image.geometry();
  int best = 0;
  double bestDot = -1;
  for (int a = 0; a < 3; ++a) {
    const Vec3 axis{g.direction()(0, a), g.direction()(1, a), g.direction()(2, a)};
    const double c = std::fabs(dot(axis, m_normal));
    if (c > bestDot) bestDot = c, best = a;
  }
  return best;
}

double SliceScene::sliceStep() const {
  if (!m_image) return 1.0;
  return m_image.geometry().spacingMm()[static_cast<std::size_t>(normalAxis())];
}

void SliceScene::scroll(int steps) {
  if (!m_image) return;
  const auto [lo, hi] = extentAlong(m_image.geometry(), m_normal);
  const double now = dot(m_cursor, m_normal);
  const double target = std::clamp(now + steps * sliceStep(), lo, hi);
  m_cursor = add(m_cursor, m_normal, target - now);
  placeCamera(false);
}

std::pair<std::int64_t, std::int64_t> SliceScene::sliceIndex() const {
  if (!m_image) return {0, 0};
  const auto [lo, hi] = extentAlong(m_image.geometry(), m_normal);
  const double step = sliceStep();
  return {static_cast<std::int64_t>(std::llround((dot(m_cursor, m_normal) - lo) / step)),
          static_cast<std::int64_t>(std::llround((hi - lo) / step)) + 1};
}

std::pair<int, std::int64_t> SliceScene::voxelSlice(std::int64_t slice) const {
  if (!m_image) return {2, 0};
  const auto& g = m_image.geometry();
  const int axis = normalAxis();
  const double lo = extentAlong(g, m_normal).first;
  const double along = lo + double(slice) * sliceStep() - dot(m_cursor, m_normal);
  const Vec3 point{m_cursor[0] + along * m_normal[0], m_cursor[1] + along * m_normal[1], m_cursor[2] + along * m_normal[2]};
  const std::int64_t last = g.dimensions()[static_cast<std::size_t>(axis)] - 1;
  const auto index = static_cast<std::int64_t>(std::llround(g.lpsToIndex(point)[static_cast<std::size_t>(axis)]));
  return {axis, std::clamp<std::int64_t>(index, 0, last)};
}

void SliceScene::zoom(double factor) {
  if (factor <= 0) return;
  auto* camera = m_renderer->GetActiveCamera();
  camera->SetParallelScale(camera->GetParallelScale() / factor);
  updateClickPoints();
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
    const auto cs = corners(m_image.geometry());
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
    const auto [w0, w1] = extentAlong(m_image.geometry(), m_right);
    const auto [h0, h1] = extentAlong(m_image.geometry(), m_up);
    const int* size = m_renderer->GetSize();
    const double aspect = size[1] > 0 ? double(size[0]) / double(size[1]) : 1.0;
    const double halfH = (h1 - h0) / 2 + sliceStep(), halfW = (w1 - w0) / 2 + sliceStep();
    camera->SetParallelScale(std::max(halfH, halfW / std::max(aspect, 1e-3)) * 1.05);
  }
  updateCrosshair();
  updateOverlay();
  updateClickPoints();
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

std::array<double, 2> SliceScene::displayPoint(const core::Vec3& lps) const {
  m_renderer->SetWorldPoint(lps[0], lps[1], lps[2], 1.0);
  m_renderer->WorldToDisplay();
  double d[3];
  m_renderer->GetDisplayPoint(d);
  return {d[0], d[1]};
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
