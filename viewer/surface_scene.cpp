#include "viewer/surface_scene.h"

#include <algorithm>
#include <unordered_map>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkDiscreteFlyingEdges3D.h>
#include <vtkIdList.h>
#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkOutlineSource.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkTransform.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkWindowedSincPolyDataFilter.h>

#include "viewer/vtk_bridge.h"

namespace delineate::viewer {

std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildLabelSurfaces(const core::LabelMap& labels, int smoothingIterations,
                                                                       core::ProgressSink* progress) {
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> out;
  std::vector<bool> present(65536, false);
  for (std::size_t i = 0; i < labels.size(); ++i) present[labels[i]] = true;
  std::vector<core::Label> ids;
  for (int id = 1; id < 65536; ++id)
    if (present[static_cast<std::size_t>(id)]) ids.push_back(static_cast<core::Label>(id));
  if (ids.empty()) return out;
  if (progress && progress->cancelled()) return {};

  // One pass for every label: each surface comes out with its label as the point scalar.
  auto image = wrapLabels(labels);
  auto contour = vtkSmartPointer<vtkDiscreteFlyingEdges3D>::New();
  contour->SetInputData(image);
  contour->SetNumberOfContours(static_cast<int>(ids.size()));
  for (std::size_t i = 0; i < ids.size(); ++i) contour->SetValue(static_cast<int>(i), ids[i]);
  contour->ComputeScalarsOn();
  contour->ComputeNormalsOff();
  contour->ComputeGradientsOff();
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
    last = smooth;
  }
  // Into LPS.
  auto transform = vtkSmartPointer<vtkTransform>::New();
  transform->SetMatrix(localToLps(labels.geometry()));
  auto place = vtkSmartPointer<vtkTransformPolyDataFilter>::New();
  place->SetInputConnection(last->GetOutputPort());
  place->SetTransform(transform);
  place->Update();
  if (progress) progress->report(0.7, "surfaces");
  if (progress && progress->cancelled()) return {};
  vtkPolyData* all = place->GetOutput();
  vtkDataArray* scalars = all->GetPointData()->GetScalars();
  if (!scalars || all->GetNumberOfPolys() == 0) return out;

  // Split by label: each triangle belongs to the label of its points; points are renumbered per label.
  struct Part {
    vtkSmartPointer<vtkPoints> points = vtkSmartPointer<vtkPoints>::New();
    vtkSmartPointer<vtkCellArray> polys = vtkSmartPointer<vtkCellArray>::New();
    std::unordered_map<vtkIdType, vtkIdType> renumber;
  };
  std::map<core::Label, Part> parts;
  vtkCellArray* polys = all->GetPolys();
  auto ids3 = vtkSmartPointer<vtkIdList>::New();
  polys->InitTraversal();
  while (polys->GetNextCell(ids3)) {
    if (ids3->GetNumberOfIds() < 3) continue;
    const auto label = static_cast<core::Label>(scalars->GetTuple1(ids3->GetId(0)));
    Part& part = parts[label];
    std::vector<vtkIdType> cell;
    for (vtkIdType k = 0; k < ids3->GetNumberOfIds(); ++k) {
      const vtkIdType id = ids3->GetId(k);
      auto it = part.renumber.find(id);
      if (it == part.renumber.end()) it = part.renumber.emplace(id, part.points->InsertNextPoint(all->GetPoint(id))).first;
      cell.push_back(it->second);
    }
    part.polys->InsertNextCell(static_cast<vtkIdType>(cell.size()), cell.data());
  }
  for (auto& [label, part] : parts) {
    auto mesh = vtkSmartPointer<vtkPolyData>::New();
    mesh->SetPoints(part.points);
    mesh->SetPolys(part.polys);
    auto normals = vtkSmartPointer<vtkPolyDataNormals>::New();
    normals->SetInputData(mesh);
    normals->SplittingOff();
    normals->ConsistencyOn();
    normals->AutoOrientNormalsOff();
    normals->Update();
    out[label] = normals->GetOutput();
  }
  if (progress) progress->report(1.0, "surfaces");
  return out;
}

SurfaceScene::SurfaceScene(vtkRenderer* renderer) : m_renderer(renderer) {
  m_renderer->SetBackground(0.08, 0.09, 0.12);
  m_renderer->SetBackground2(0.22, 0.24, 0.3);
  m_renderer->GradientBackgroundOn();
}

SurfaceScene::~SurfaceScene() {
  if (m_outline) m_renderer->RemoveActor(m_outline);
  for (auto& [label, actor] : m_actors) m_renderer->RemoveActor(actor);
}

void SurfaceScene::setBounds(const core::Geometry& geometry) {
  if (m_outline) m_renderer->RemoveActor(m_outline);
  m_outline = nullptr;
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
  resetCamera();
}

void SurfaceScene::setSurfaces(std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces) {
  for (auto& [label, actor] : m_actors) m_renderer->RemoveActor(actor);
  m_actors.clear();
  for (auto& [label, mesh] : surfaces) {
    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(mesh);
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
  m_renderer->ResetCamera();
}

}  // namespace delineate::viewer
