#pragma once
// Binary morphology on masks of a voxel grid (1 = set, x fastest), measured in millimetres so anisotropic voxels
// behave as the patient is shaped: exact Euclidean distance transforms, erosion and dilation by a ball, connected
// components and hole filling. Shared by the classic engine (automatic segmentation, click sessions), the
// simulated-click evaluator, VISTA-3D's postprocessing and the manual label tools (core/label_tools.h), which is why
// it lives in core.

#include <cstdint>
#include <vector>

#include "core/geometry.h"

namespace delineate::core {

using Mask = std::vector<std::uint8_t>;

// Squared distance (mm^2) from every voxel to the nearest voxel where mask == 0 (0 on those voxels). With
// `borderIsBackground` the voxels just outside the grid count as background too. Exact (lower envelope of parabolas
// per axis, as Felzenszwalb and Huttenlocher describe it).
std::vector<float> squaredDistanceToBackground(const Mask& mask, const Size3& n, const Vec3& spacingMm,
                                               bool borderIsBackground);

// Voxels of mask farther than radiusMm from its background (outside the grid counts as set: an object cut by the
// image edge is not eroded from there).
Mask erode(const Mask& mask, const Size3& n, const Vec3& spacingMm, double radiusMm);
// Voxels within radiusMm of the mask.
Mask dilate(const Mask& mask, const Size3& n, const Vec3& spacingMm, double radiusMm);

// Connected components of the set voxels: a component id per voxel (-1 for unset) and each component's size. Ids
// follow the order of each component's first voxel in the grid's memory order (skimage's label numbers them the
// same way, which VISTA-3D's postprocessing relies on). Faces: 6-neighbourhood; full: 26-neighbourhood.
enum class Connectivity { Faces, Full };
struct Components {
  std::vector<std::int32_t> id;
  std::vector<std::int64_t> size;
  std::int32_t largest() const;  // -1 when there is none
};
Components connectedComponents(const Mask& mask, const Size3& n, Connectivity connectivity = Connectivity::Faces);

// Sets every unset voxel not connected (6-neighbourhood) to the grid's border. With sliceAxis in 0..2 this is done
// in every 2D slice across that axis instead (4-neighbourhood in the slice).
void fillHoles(Mask& mask, const Size3& n, int sliceAxis = -1);

}  // namespace delineate::core
