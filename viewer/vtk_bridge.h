#pragma once
// VTK views of core volumes without copies: the vtkImageData points at the volume's own buffer (which must outlive
// it, and whose edits show after Modified()), in the volume's index space scaled by its spacing; the prop matrix
// from localToLps() places it in LPS millimetres, which is the world of every Delineate scene.

#include <vtkSmartPointer.h>

#include "core/geometry.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

class vtkImageData;
class vtkMatrix4x4;

namespace delineate::viewer {

// In the image's stored type (uint8, int16, uint16, int32 or float32 arrays), no copy.
vtkSmartPointer<vtkImageData> wrapImage(core::ImageView image);
vtkSmartPointer<vtkImageData> wrapLabels(const core::LabelMap& labels);
// [direction | origin]: local (index x spacing) -> LPS.
vtkSmartPointer<vtkMatrix4x4> localToLps(const core::Geometry& geometry);

}  // namespace delineate::viewer
