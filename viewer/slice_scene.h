#pragma once
// One slice view of a study in patient orientation: the image resliced through the cursor (any direction matrix),
// the label overlay on top in the same plane, a crosshair through the cursor and the orientation letters at the
// edges. Axial views are seen from the feet (patient right on the screen's left, anterior up), coronal from the
// front, sagittal from the patient's left (anterior on the screen's left). World coordinates are LPS millimetres.

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include <vtkSmartPointer.h>

#include "core/geometry.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/label_table.h"
#include "core/volume.h"

class vtkActor;
class vtkImageData;
class vtkImageResliceMapper;
class vtkImageSlice;
class vtkImageActor;
class vtkImageMapToColors;
class vtkImageReslice;
class vtkLineSource;
class vtkRegularPolygonSource;
class vtkRenderer;
class vtkTextActor;
class vtkPolyData;

namespace delineate::viewer {

enum class SliceOrientation { Axial, Coronal, Sagittal };
const char* orientationName(SliceOrientation o);

// How a click preview is drawn over the labels (issue 41: a one-voxel rim was hard to see): its inside at this
// opacity in its colour, an opaque rim along its edge and a dark outline just outside it, their widths in pixels of
// an nx x ny slice plane (wider planes are shown smaller, so the bands grow with them).
inline constexpr double kPreviewFillOpacity = 0.6;
inline constexpr double kPreviewOutlineOpacity = 0.85;
inline int previewRimWidth(int nx, int ny) { return std::max(2, (std::max(nx, ny) + 128) / 256); }
inline int previewOutlineWidth(int nx, int ny) { return std::max(1, previewRimWidth(nx, ny) / 2); }

class SliceScene {
 public:
  SliceScene(vtkRenderer* renderer, SliceOrientation orientation);
  ~SliceScene();
  SliceScene(const SliceScene&) = delete;
  SliceScene& operator=(const SliceScene&) = delete;

  SliceOrientation orientation() const { return m_orientation; }
  // The image to show (must outlive the scene or be replaced); nullptr clears. Resets the camera and the cursor to
  // the image's centre.
  void setImage(core::ImageView image);
  // The label map over the same grid (nullptr: none), drawn with `opacity` in the table's colours, `hidden` not.
  void setLabels(const core::LabelMap* labels);
  void setLabelColors(const core::LabelTable& table, const std::set<core::Label>& hidden);
  void setLabelOpacity(double opacity);
  // Outline: only each label's boundary within the slice (4-neighbours), the image visible inside.
  void setLabelOutline(bool outline);
  bool labelOutline() const { return m_outline; }
  // The label voxels changed in place.
  void labelsModified();
  // A candidate object drawn over the labels (an AI click session's preview): `voxels` (non-zero inside, x fastest)
  // over `box` of the image grid, copied. An empty box clears it.
  void setPreview(const core::IndexBox& box, const std::uint8_t* voxels, core::Rgba color);
  void clearPreview() { setPreview({}, nullptr, {}); }
  bool hasPreview() const { return m_previewData != nullptr; }
  // The preview's colour (its fill is translucent, a band along its edge in the slice opaque and a dark outline just
  // outside it, so it shows over any label: previewRimWidth, previewOutlineWidth, in plane pixels).
  core::Rgba previewColor() const { return m_previewColor; }
  // An AI click session's points: a "+" (positive) or "-" (negative) marker where each lies, drawn in the views
  // whose slice holds it (within half a slice), a constant size on the screen. An empty list clears them.
  struct ClickPoint {
    core::Vec3 lps;
    bool positive = true;
  };
  void setClickPoints(std::vector<ClickPoint> points);
  // How many markers of that sign this view draws now.
  std::size_t shownClickPoints(bool positive) const;
  // Prompts drawn as lines (a box's rectangle, a scribble, a lasso): green for positive, red for negative, in the
  // views whose slice holds them (their points' mean within half a slice), projected onto it. The draft is the one
  // being drawn now (nullopt: none).
  struct PromptShape {
    std::vector<core::Vec3> lps;
    bool closed = false;
    bool positive = true;
  };
  void setPromptShapes(std::vector<PromptShape> shapes);
  void setDraftShape(std::optional<PromptShape> shape);
  std::size_t shownPromptShapes() const { return m_shownShapes; }
  // The brush's outline on this view's plane, centred on `centerLps` projected onto it; nullopt hides it.
  void setBrushOutline(std::optional<core::Vec3> centerLps, double radiusMm);
  void setWindowLevel(double window, double level);

  // The point every view's slice passes through.
  void setCursor(const core::Vec3& lps);
  const core::Vec3& cursor() const { return m_cursor; }
  void setCrosshairVisible(bool visible);
  // Moves the cursor `steps` voxels along the view's normal (towards the camera's far side for positive steps),
  // staying inside the image.
  void scroll(int steps);
  // Zoom by `factor` (> 1 magnifies) and pan by a display-pixel offset.
  void zoom(double factor);
  void pan(double dxPixels, double dyPixels);
  void resetCamera();

  // The LPS point under a display position (pixels, origin bottom left) on the slice plane.
  core::Vec3 pick(double displayX, double displayY) const;
  // The inverse: where an LPS point shows, in display pixels (origin bottom left).
  std::array<double, 2> displayPoint(const core::Vec3& lps) const;
  // The slice's voxel index along the normal, and how many there are (for the slice counter).
  std::pair<std::int64_t, std::int64_t> sliceIndex() const;
  // The voxel axis (0 = i, 1 = j, 2 = k) nearest this view's normal and the voxel index along it of the view's slice
  // `slice` (counted as sliceIndex counts, from 0), through the cursor. The numbering of the views and of the voxels
  // can run opposite ways (a k axis from head to feet); this is the one place that turns one into the other.
  std::pair<int, std::int64_t> voxelSlice(std::int64_t slice) const;
  const core::Vec3& normal() const { return m_normal; }

 private:
  void placeCamera(bool fit);
  void updateCrosshair();
  void updateClickPoints();
  // Reslices the overlay when the view's plane moved (or always, with `force`: new labels, edits, outline mode).
  void updateOverlay(bool force = false);
  double sliceStep() const;
  int normalAxis() const;  // the voxel axis nearest the view's normal
  // Reslices `input` (local frame: index x spacing from the image's origin) onto the plane through `origin`.
  void reslicePlane(vtkImageReslice* reslice, const core::Vec3& origin);

  vtkRenderer* m_renderer;
  SliceOrientation m_orientation;
  core::Vec3 m_right{}, m_up{}, m_normal{};  // screen right, screen up, view direction (into the screen), LPS
  core::ImageView m_image;
  core::Vec3 m_cursor{0, 0, 0};
  vtkSmartPointer<vtkImageData> m_imageData, m_labelData;
  // The map shown and the buffer m_labelData wraps: a map that took over another buffer (labels opened onto an empty
  // map) is wrapped again before the overlay is resliced, never read through the old pointer.
  const core::LabelMap* m_labels = nullptr;
  const core::Label* m_wrappedLabels = nullptr;
  vtkSmartPointer<vtkImageResliceMapper> m_imageMapper;
  vtkSmartPointer<vtkImageSlice> m_imageSlice;
  // The overlay: the labels resliced on the view's plane (nearest), outlined if asked, coloured, as an image actor.
  vtkSmartPointer<vtkImageReslice> m_labelReslice;
  vtkSmartPointer<vtkImageData> m_overlayLabels;
  vtkSmartPointer<vtkImageMapToColors> m_overlayColors;
  vtkSmartPointer<vtkImageActor> m_overlayActor;
  bool m_outline = false;
  double m_overlayOffset = std::numeric_limits<double>::quiet_NaN();  // the plane the overlay shows, along the normal
  // The preview: its own small box image through the same reslicing, one colour.
  vtkSmartPointer<vtkImageData> m_previewData;
  vtkSmartPointer<vtkImageReslice> m_previewReslice;
  vtkSmartPointer<vtkImageMapToColors> m_previewColors;
  vtkSmartPointer<vtkImageActor> m_previewActor;
  vtkSmartPointer<vtkImageData> m_previewPlane;  // the resliced plane, its border marked 2
  core::Rgba m_previewColor{255, 220, 40, 255};
  std::vector<ClickPoint> m_clickPoints;
  std::vector<PromptShape> m_shapes;
  std::optional<PromptShape> m_draft;
  std::size_t m_shownPositive = 0, m_shownNegative = 0, m_shownShapes = 0;
  vtkSmartPointer<vtkPolyData> m_pointGlyphs;
  vtkSmartPointer<vtkActor> m_pointActor, m_pointShadow;
  vtkSmartPointer<vtkRegularPolygonSource> m_brush;
  vtkSmartPointer<vtkActor> m_brushActor;
  vtkSmartPointer<vtkLineSource> m_lineA, m_lineB;
  vtkSmartPointer<vtkActor> m_crosshairA, m_crosshairB;
  std::array<vtkSmartPointer<vtkTextActor>, 4> m_markers;  // left, right, top, bottom
  core::LabelTable m_table;
  std::set<core::Label> m_hidden;
  double m_labelOpacity = 0.5;
};

}  // namespace delineate::viewer
