#pragma once
// The 3D view: one smoothed surface per label (discrete flying edges, windowed-sinc smoothing) in LPS, coloured from
// the label table, each shown or hidden on its own; the image's bounding box for context. Building surfaces is the
// expensive part and runs anywhere (a worker thread); attaching them to the scene runs on the render thread.

#include <array>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <vtkSmartPointer.h>

#include "core/geometry.h"
#include "core/label_map.h"
#include "core/label_runs.h"
#include "core/scalar_image.h"
#include "core/label_table.h"
#include "core/progress.h"
#include "core/volume.h"

class vtkActor;
class vtkImageData;
class vtkImageSlice;
class vtkPlane;
class vtkPolyData;
class vtkProp3D;
class vtkRenderer;

namespace delineate::viewer {

// How finely a label is meshed. A label is sampled on the voxel grid while its bounding box holds at most the
// detail's budget of samples; a larger box is meshed on a grid of s x s x s voxel blocks, s as small as the budget
// allows. Full: 16 M samples (a 512^3 whole-body label on blocks of 3). Reduced: 2 M (blocks of 5), about a third of
// the triangles, for renderers that draw in RAM (llvmpipe keeps about 100 bytes per triangle while it draws).
enum class SurfaceDetail { Full, Reduced };
std::int64_t surfaceSampleBudget(SurfaceDetail detail);
// The block size s a label whose bounding box spans `extent` voxels is meshed on (1: its own voxels).
std::int64_t surfaceBlockSize(const core::Size3& extent, SurfaceDetail detail);

// Surfaces of `labels` (every id present but 0, or only those in `only`) in LPS, by label id. Cancelled through
// `progress` (empty result).
std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildLabelSurfaces(const core::LabelMap& labels,
                                                                       int smoothingIterations = 15,
                                                                       core::ProgressSink* progress = nullptr,
                                                                       const std::set<core::Label>* only = nullptr,
                                                                       SurfaceDetail detail = SurfaceDetail::Full);
// The same from a run snapshot of the map (the window's worker copy): the same surfaces.
std::map<core::Label, vtkSmartPointer<vtkPolyData>> buildLabelSurfaces(const core::LabelRuns& labels,
                                                                       int smoothingIterations = 15,
                                                                       core::ProgressSink* progress = nullptr,
                                                                       const std::set<core::Label>* only = nullptr,
                                                                       SurfaceDetail detail = SurfaceDetail::Full);

class SurfaceScene {
 public:
  explicit SurfaceScene(vtkRenderer* renderer);
  ~SurfaceScene();
  SurfaceScene(const SurfaceScene&) = delete;
  SurfaceScene& operator=(const SurfaceScene&) = delete;

  // The bounding box of `geometry` (nothing for an empty one); resets the camera.
  void setBounds(const core::Geometry& geometry);
  void setSurfaces(std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces);
  // After an edit: the surfaces of `labels` replaced by `surfaces` (a label missing there has gone), the others kept.
  void updateSurfaces(const std::set<core::Label>& labels, std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces);
  // The mesh shown for `label` (nullptr when none), for tests.
  vtkPolyData* surface(core::Label label) const;
  // Every label's mesh (LPS mm), for export.
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces() const;
  void setLabelColors(const core::LabelTable& table, const std::set<core::Label>& hidden);
  // The three orthogonal slices through the cursor shown in 3D (the image must outlive the scene; nullptr: none).
  void setImage(core::ImageView image);
  void setCursor(const core::Vec3& lps);
  void setWindowLevel(double window, double level);
  void setSlicesVisible(bool visible);
  bool slicesVisible() const { return m_slicesVisible; }
  std::size_t surfaceCount() const { return m_actors.size(); }
  std::size_t visibleSurfaceCount() const;
  // Rotation by display-pixel drags (azimuth, elevation), zoom, reset to an anterior view.
  void rotate(double dxPixels, double dyPixels);
  void zoom(double factor);
  // Frames the study's box (setBounds), whatever else the scene still holds: an anterior view, head up.
  void resetCamera();
  // The orientation marker: a cube lettered L/R/A/P/S/I in the corner that turns with the camera.
  bool orientationMarkerShown() const;
  vtkRenderer* orientationMarkerRenderer() const;

 private:
  void updateMarker();

  vtkRenderer* m_renderer;
  vtkSmartPointer<vtkRenderer> m_markerRenderer;
  vtkSmartPointer<vtkProp3D> m_marker;
  std::optional<std::array<double, 6>> m_bounds;  // the study's box in LPS (xmin, xmax, ymin, ...)
  vtkSmartPointer<vtkActor> m_outline;
  vtkSmartPointer<vtkImageData> m_imageData;
  std::array<vtkSmartPointer<vtkImageSlice>, 3> m_slices;  // axial, coronal, sagittal planes
  std::array<vtkSmartPointer<vtkPlane>, 3> m_planes;
  bool m_slicesVisible = true;
  std::map<core::Label, vtkSmartPointer<vtkActor>> m_actors;
  core::LabelTable m_table;
  std::set<core::Label> m_hidden;
};

}  // namespace delineate::viewer
