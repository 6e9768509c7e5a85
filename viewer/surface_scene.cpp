#include "viewer/surface_scene.h"

#include <algorithm>

#include <vtkActor.h>
#include <vtkAnnotatedCubeActor.h>
#include <vtkCamera.h>
#include <vtkDataArray.h>
#include <vtkDiscreteFlyingEdges3D.h>
#include <vtkCellArray.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkPlane.h>
#include <vtkMatrix4x4.h>
#include <vtkOutlineSource.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkWindowedSincPolyDataFilter.h>

#include "viewer/vtk_bridge.h"

namespace delineate::viewer {

namespace {

struct LabelBox {
  core::Index3 lo{0, 0, 0}, hi{-1, -1, -1};
  std::size_t count = 0;
};

// Points and normals from the label's local frame (index x spacing) into LPS, in place (the direction is a rotation).
void placeInLps(vtkPolyData* mesh, const core::Geometry& g) {
  const auto& d = g.direction();
  const auto& o = g.originLps();
  vtkPoints* points = mesh->GetPoints();
  for (vtkIdType i = 0; i < points->GetNumberOfPoints(); ++i) {
    double p[3];
    points->GetPoint(i, p);
    double q[3];
    for (int r = 0; r < 3; ++r) q[r] = o[static_cast<std::size_t>(r)] + d(r, 0) * p[0] + d(r, 1) * p[1] + d(r, 2) * p[2];
    points->SetPoint(i, q);
  }
  if (vtkDataArray* normals = mesh->GetPointData()->GetNormals())
    for (vtkIdType i = 0; i < normals->GetNumberOfTuples(); ++i) {
      double n[3];
      normals->GetTuple(i, n);
      double m[3];
      for (int r = 0; r < 3; ++r) m[r] = d(r, 0) * n[0] + d(r, 1) * n[1] + d(r, 2) * n[2];
      normals->SetTuple(i, m);
    }
  points->Modified();
}

}  // namespace

namespace {

// The surfaces of a map read row by row: forRuns(y, z, f) calls f(x0, x1, label) for each run of one label other than
// background in row (y, z), x in [x0, x1).
template <class ForRuns>
std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildSurfaces(const core::Geometry& g, const ForRuns& forRuns,
                                                                  int smoothingIterations, core::ProgressSink* progress,
                                                                  const std::set<core::Label>* only, SurfaceDetail detail) {
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> out;
  const auto& d = g.dimensions();
  const auto& sp = g.spacingMm();
  // One pass: each label's bounding box.
  std::vector<LabelBox> boxes(65536);
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      forRuns(y, z, [&](std::int64_t x0, std::int64_t x1, core::Label l) {  // x in [x0, x1)
        LabelBox& b = boxes[l];
        if (b.count == 0) {
          b.lo = {x0, y, z};
          b.hi = {x1 - 1, y, z};
        } else {
          b.lo = {std::min(b.lo[0], x0), std::min(b.lo[1], y), std::min(b.lo[2], z)};
          b.hi = {std::max(b.hi[0], x1 - 1), std::max(b.hi[1], y), std::max(b.hi[2], z)};
        }
        b.count += static_cast<std::size_t>(x1 - x0);
      });
  std::vector<core::Label> ids;
  for (int id = 1; id < 65536; ++id)
    if (boxes[static_cast<std::size_t>(id)].count && (!only || only->count(static_cast<core::Label>(id))))
      ids.push_back(static_cast<core::Label>(id));
  std::size_t done = 0;
  for (const core::Label id : ids) {
    if (progress && progress->cancelled()) return {};
    const LabelBox& b = boxes[id];
    // A label over a large box is meshed on a coarser grid (blocks of s^3 voxels, inside where any voxel is): at most
    // the detail's budget of samples, so a whole-body label's surface takes hundreds of MB, not GBs, and stays smooth.
    core::Size3 extent;
    for (std::size_t a = 0; a < 3; ++a) extent[a] = b.hi[a] - b.lo[a] + 1;
    const std::int64_t s = surfaceBlockSize(extent, detail);
    const std::int64_t n[3] = {(extent[0] + s - 1) / s + 2, (extent[1] + s - 1) / s + 2, (extent[2] + s - 1) / s + 2};
    auto mask = vtkSmartPointer<vtkImageData>::New();
    mask->SetDimensions(static_cast<int>(n[0]), static_cast<int>(n[1]), static_cast<int>(n[2]));
    mask->SetSpacing(sp[0] * double(s), sp[1] * double(s), sp[2] * double(s));
    // Sample (1, 1, 1) of the mask is the block starting at the box's corner; the centre of a block of s voxels
    // lies (s - 1) / 2 voxels past its first.
    mask->SetOrigin((double(b.lo[0]) + double(s - 1) / 2 - double(s)) * sp[0], (double(b.lo[1]) + double(s - 1) / 2 - double(s)) * sp[1],
                    (double(b.lo[2]) + double(s - 1) / 2 - double(s)) * sp[2]);
    mask->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
    auto* m = static_cast<unsigned char*>(mask->GetScalarPointer());
    std::fill(m, m + n[0] * n[1] * n[2], 0);
    for (std::int64_t z = b.lo[2]; z <= b.hi[2]; ++z)
      for (std::int64_t y = b.lo[1]; y <= b.hi[1]; ++y) {
        const std::int64_t mz = (z - b.lo[2]) / s + 1, my = (y - b.lo[1]) / s + 1;
        unsigned char* mrow = m + (mz * n[1] + my) * n[0];
        forRuns(y, z, [&](std::int64_t x0, std::int64_t x1, core::Label l) {
          if (l != id) return;
          for (std::int64_t x = x0; x < x1; ++x) mrow[(x - b.lo[0]) / s + 1] = 1;
        });
      }
    auto contour = vtkSmartPointer<vtkDiscreteFlyingEdges3D>::New();
    contour->SetInputData(mask);
    contour->SetValue(0, 1);
    contour->ComputeScalarsOff();
    contour->ComputeNormalsOff();
    contour->ComputeGradientsOff();
    // Each stage's mesh is released once the next has read it: one intermediate copy of a large surface at a time.
    contour->ReleaseDataFlagOn();
    vtkSmartPointer<vtkAlgorithm> last = contour;
    if (smoothingIterations > 0) {
      auto smooth = vtkSmartPointer<vtkWindowedSincPolyDataFilter>::New();
      smooth->SetInputConnection(contour->GetOutputPort());
      smooth->SetNumberOfIterations(smoothingIterations);
      smooth->SetPassBand(0.05);
      smooth->BoundarySmoothingOff();
      smooth->FeatureEdgeSmoothingOff();
      smooth->NonManifoldSmoothingOn();
      smooth->NormalizeCoordinatesOn();
      smooth->ReleaseDataFlagOn();
      last = smooth;
    }
    auto normals = vtkSmartPointer<vtkPolyDataNormals>::New();
    normals->SetInputConnection(last->GetOutputPort());
    normals->SplittingOff();
    normals->ConsistencyOn();
    normals->AutoOrientNormalsOff();
    normals->Update();
    vtkSmartPointer<vtkPolyData> mesh = normals->GetOutput();
    // Triangles as 32-bit ids (VTK keeps 64-bit offsets and connectivity): a whole-body surface's cells in half the
    // memory. Left 64-bit when the mesh is too large for that.
    mesh->GetPolys()->ConvertTo32BitStorage();
    if (mesh->GetNumberOfPolys() > 0) {
      placeInLps(mesh, g);
      out[id] = mesh;
    }
    if (progress) progress->report(static_cast<double>(++done) / static_cast<double>(ids.size()), "surfaces");
  }
  return out;
}

}  // namespace

std::int64_t surfaceSampleBudget(SurfaceDetail detail) {
  return detail == SurfaceDetail::Full ? std::int64_t(16) << 20 : std::int64_t(2) << 20;
}

std::int64_t surfaceBlockSize(const core::Size3& extent, SurfaceDetail detail) {
  const std::int64_t budget = surfaceSampleBudget(detail);
  std::int64_t s = 1;
  while ((extent[0] / s + 1) * (extent[1] / s + 1) * (extent[2] / s + 1) > budget) ++s;
  return s;
}

std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildLabelSurfaces(const core::LabelMap& labels, int smoothingIterations,
                                                                       core::ProgressSink* progress,
                                                                       const std::set<core::Label>* only,
                                                                       SurfaceDetail detail) {
  const core::Size3& d = labels.geometry().dimensions();
  auto forRuns = [&](std::int64_t y, std::int64_t z, const auto& f) {
    core::forEachLabelRun(labels.data() + (z * d[1] + y) * d[0], d[0], f);
  };
  return buildSurfaces(labels.geometry(), forRuns, smoothingIterations, progress, only, detail);
}

std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildLabelSurfaces(const core::LabelRuns& labels, int smoothingIterations,
                                                                       core::ProgressSink* progress,
                                                                       const std::set<core::Label>* only,
                                                                       SurfaceDetail detail) {
  auto forRuns = [&](std::int64_t y, std::int64_t z, const auto& f) {
    const auto [first, last] = labels.row(y, z);
    for (const core::LabelRuns::Run* r = first; r != last; ++r) f(r->begin, r->end, r->value);
  };
  return buildSurfaces(labels.geometry(), forRuns, smoothingIterations, progress, only, detail);
}

SurfaceScene::SurfaceScene(vtkRenderer* renderer) : m_renderer(renderer) {
  m_renderer->SetBackground(0.08, 0.09, 0.12);
  m_renderer->SetBackground2(0.22, 0.24, 0.3);
  m_renderer->GradientBackgroundOn();
  const double normals[3][3] = {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}};  // axial, coronal, sagittal (LPS)
  for (std::size_t i = 0; i < 3; ++i) {
    m_planes[i] = vtkSmartPointer<vtkPlane>::New();
    m_planes[i]->SetNormal(normals[i][0], normals[i][1], normals[i][2]);
    auto mapper = vtkSmartPointer<vtkImageResliceMapper>::New();
    mapper->SliceFacesCameraOff();
    mapper->SliceAtFocalPointOff();
    mapper->SetSlicePlane(m_planes[i]);
    m_slices[i] = vtkSmartPointer<vtkImageSlice>::New();
    m_slices[i]->SetMapper(mapper);
    m_slices[i]->GetProperty()->SetInterpolationTypeToLinear();
    m_slices[i]->PickableOff();
  }
  // The orientation marker: its own small renderer in the bottom-left corner, on a layer above the scene, its camera
  // turned as the scene's (world = LPS, so +x is the patient's left).
  auto cube = vtkSmartPointer<vtkAnnotatedCubeActor>::New();
  cube->SetXPlusFaceText("L");
  cube->SetXMinusFaceText("R");
  cube->SetYPlusFaceText("P");
  cube->SetYMinusFaceText("A");
  cube->SetZPlusFaceText("S");
  cube->SetZMinusFaceText("I");
  cube->SetFaceTextScale(0.6);
  cube->GetCubeProperty()->SetColor(0.35, 0.38, 0.45);
  cube->GetTextEdgesProperty()->SetColor(0.9, 0.9, 0.9);
  cube->GetTextEdgesProperty()->SetLineWidth(1.5);
  for (vtkProperty* face : {cube->GetXPlusFaceProperty(), cube->GetXMinusFaceProperty()}) face->SetColor(1.0, 0.55, 0.45);
  for (vtkProperty* face : {cube->GetYPlusFaceProperty(), cube->GetYMinusFaceProperty()}) face->SetColor(0.5, 0.9, 0.5);
  for (vtkProperty* face : {cube->GetZPlusFaceProperty(), cube->GetZMinusFaceProperty()}) face->SetColor(0.5, 0.7, 1.0);
  m_marker = cube;
  m_markerRenderer = vtkSmartPointer<vtkRenderer>::New();
  m_markerRenderer->SetViewport(0.0, 0.0, 0.2, 0.2);
  m_markerRenderer->SetLayer(1);
  m_markerRenderer->InteractiveOff();
  m_markerRenderer->AddViewProp(m_marker);
  if (vtkRenderWindow* window = m_renderer->GetRenderWindow()) {
    window->SetNumberOfLayers(std::max(2, window->GetNumberOfLayers()));
    window->AddRenderer(m_markerRenderer);
  }
  m_marker->VisibilityOff();  // until there is a study
  updateMarker();
}

SurfaceScene::~SurfaceScene() {
  if (vtkRenderWindow* window = m_markerRenderer->GetRenderWindow()) window->RemoveRenderer(m_markerRenderer);
  for (auto& slice : m_slices) m_renderer->RemoveViewProp(slice);
  if (m_outline) m_renderer->RemoveActor(m_outline);
  for (auto& [label, actor] : m_actors) m_renderer->RemoveActor(actor);
}

void SurfaceScene::setBounds(const core::Geometry& geometry) {
  if (m_outline) m_renderer->RemoveActor(m_outline);
  m_outline = nullptr;
  m_bounds.reset();
  m_marker->VisibilityOff();
  if (geometry.voxelCount() == 0) return;
  const auto& d = geometry.dimensions();
  const auto& s = geometry.spacingMm();
  auto box = vtkSmartPointer<vtkOutlineSource>::New();
  box->SetBounds(0, double(d[0] - 1) * s[0], 0, double(d[1] - 1) * s[1], 0, double(d[2] - 1) * s[2]);
  auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
  mapper->SetInputConnection(box->GetOutputPort());
  m_outline = vtkSmartPointer<vtkActor>::New();
  m_outline->SetMapper(mapper);
  m_outline->SetUserMatrix(localToLps(geometry));
  m_outline->GetProperty()->SetColor(0.6, 0.6, 0.65);
  m_outline->GetProperty()->LightingOff();
  m_renderer->AddActor(m_outline);
  // The box in LPS from the corners' voxel centres (the outline's), so the camera frames this study only: the previous
  // study's slices and surfaces are still in the scene now and would set the view's scale (a mouse brain after a CT
  // was a speck).
  std::array<double, 6> b{1e300, -1e300, 1e300, -1e300, 1e300, -1e300};
  for (int i = 0; i < 8; ++i) {
    const core::Vec3 c = geometry.indexToLps(core::Vec3{(i & 1) ? double(d[0] - 1) : 0.0, (i & 2) ? double(d[1] - 1) : 0.0,
                                                        (i & 4) ? double(d[2] - 1) : 0.0});
    for (std::size_t a = 0; a < 3; ++a) b[2 * a] = std::min(b[2 * a], c[a]), b[2 * a + 1] = std::max(b[2 * a + 1], c[a]);
  }
  m_bounds = b;
  m_marker->VisibilityOn();
  resetCamera();
}

void SurfaceScene::setImage(core::ImageView image) {
  for (auto& slice : m_slices) m_renderer->RemoveViewProp(slice);
  m_imageData = nullptr;
  if (!image || image.size() == 0) return;
  m_imageData = wrapImage(image);
  for (auto& slice : m_slices) {
    static_cast<vtkImageResliceMapper*>(slice->GetMapper())->SetInputData(m_imageData);
    // The plane is in world (LPS) coordinates; the mapper takes it through the prop's matrix.
    slice->SetUserMatrix(localToLps(image.geometry()));
    slice->SetVisibility(m_slicesVisible);
    m_renderer->AddViewProp(slice);
  }
  const auto& d = image.geometry().dimensions();
  setCursor(image.geometry().indexToLps(core::Index3{(d[0] - 1) / 2, (d[1] - 1) / 2, (d[2] - 1) / 2}));
}

void SurfaceScene::setCursor(const core::Vec3& lps) {
  for (auto& plane : m_planes) plane->SetOrigin(lps[0], lps[1], lps[2]);
  for (auto& slice : m_slices) slice->Modified();
}

void SurfaceScene::setWindowLevel(double window, double level) {
  for (auto& slice : m_slices) {
    slice->GetProperty()->SetColorWindow(std::max(window, 1e-6));
    slice->GetProperty()->SetColorLevel(level);
  }
}

void SurfaceScene::setSlicesVisible(bool visible) {
  m_slicesVisible = visible;
  for (auto& slice : m_slices) slice->SetVisibility(visible && m_imageData);
}

void SurfaceScene::setSurfaces(std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces) {
  std::set<core::Label> all;
  for (const auto& [label, actor] : m_actors) all.insert(label);
  for (const auto& [label, mesh] : surfaces) all.insert(label);
  updateSurfaces(all, std::move(surfaces));
}

void SurfaceScene::updateSurfaces(const std::set<core::Label>& labels,
                                  std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces) {
  for (const core::Label label : labels) {
    auto it = m_actors.find(label);
    if (it != m_actors.end()) {
      m_renderer->RemoveActor(it->second);
      m_actors.erase(it);
    }
    auto mesh = surfaces.find(label);
    if (mesh == surfaces.end()) continue;
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(mesh->second);
    mapper->ScalarVisibilityOff();
    auto actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    actor->GetProperty()->SetSpecular(0.2);
    actor->GetProperty()->SetSpecularPower(20);
    m_renderer->AddActor(actor);
    m_actors[label] = actor;
  }
  setLabelColors(m_table, m_hidden);
}

vtkPolyData* SurfaceScene::surface(core::Label label) const {
  auto it = m_actors.find(label);
  return it == m_actors.end() ? nullptr : vtkPolyData::SafeDownCast(it->second->GetMapper()->GetInput());
}

std::map<core::Label, vtkSmartPointer<vtkPolyData>> SurfaceScene::surfaces() const {
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> out;
  for (const auto& [label, actor] : m_actors) out[label] = surface(label);
  return out;
}

void SurfaceScene::setLabelColors(const core::LabelTable& table, const std::set<core::Label>& hidden) {
  m_table = table;
  m_hidden = hidden;
  for (auto& [label, actor] : m_actors) {
    const core::LabelEntry* e = table.find(label);
    const core::Rgba c = e ? e->color : core::LabelTable::defaultColor(label);
    actor->GetProperty()->SetColor(c.r / 255.0, c.g / 255.0, c.b / 255.0);
    actor->SetVisibility(!hidden.count(label) && (!e || (e->visible && e->meshVisible)));
  }
}

std::size_t SurfaceScene::visibleSurfaceCount() const {
  return static_cast<std::size_t>(std::count_if(m_actors.begin(), m_actors.end(), [](const auto& a) { return a.second->GetVisibility() != 0; }));
}

void SurfaceScene::rotate(double dxPixels, double dyPixels) {
  auto* camera = m_renderer->GetActiveCamera();
  camera->Azimuth(-dxPixels * 0.4);
  camera->Elevation(-dyPixels * 0.4);
  camera->OrthogonalizeViewUp();
  m_renderer->ResetCameraClippingRange();
  updateMarker();
}

void SurfaceScene::zoom(double factor) {
  if (factor <= 0) return;
  m_renderer->GetActiveCamera()->Dolly(factor);
  m_renderer->ResetCameraClippingRange();
}

void SurfaceScene::resetCamera() {
  // Anterior view, head up (LPS: looking towards +P, S up).
  auto* camera = m_renderer->GetActiveCamera();
  camera->SetFocalPoint(0, 0, 0);
  camera->SetPosition(0, -1, 0);
  camera->SetViewUp(0, 0, 1);
  if (m_bounds) {
    double b[6];
    std::copy(m_bounds->begin(), m_bounds->end(), b);
    m_renderer->ResetCamera(b);
  } else {
    m_renderer->ResetCamera();
  }
  updateMarker();
}

bool SurfaceScene::orientationMarkerShown() const {
  return m_marker->GetVisibility() && m_markerRenderer->GetRenderWindow() != nullptr;
}

vtkRenderer* SurfaceScene::orientationMarkerRenderer() const { return m_markerRenderer; }

void SurfaceScene::updateMarker() {
  // The marker's camera looks along the scene camera's direction with its up, from a fixed distance.
  vtkCamera* scene = m_renderer->GetActiveCamera();
  vtkCamera* marker = m_markerRenderer->GetActiveCamera();
  double dop[3], up[3];
  scene->GetDirectionOfProjection(dop);
  scene->GetViewUp(up);
  marker->SetFocalPoint(0, 0, 0);
  marker->SetPosition(-dop[0] * 5, -dop[1] * 5, -dop[2] * 5);
  marker->SetViewUp(up);
  marker->SetViewAngle(30);
  marker->SetClippingRange(1, 10);
}

}  // namespace delineate::viewer
