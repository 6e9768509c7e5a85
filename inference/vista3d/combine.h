#pragma once
// VISTA3D.forward's connected_components_combine (SPEC.md 2.4 step 6), the bundle's way of merging a click with a
// class prompt inside one window: where the point head says "object" and the class head did not (or the click is on
// the class's object), and where the class head said "object" but the point head did not, the 26-connected
// components that hold a click of the matching sign take the point head's logits; everywhere else the class head's
// stay. Torch-free; arrays in torch order ([H, W, D], the last axis fastest), one object.

#include <cstdint>
#include <vector>

#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d {

std::vector<float> connectedComponentsCombine(const std::vector<float>& classLogits, std::vector<float> pointLogits,
                                              const std::int64_t size[3],
                                              const std::vector<Vista3dModel::WindowPoint>& points);

// VISTA3D.forward's gaussian_combine (SPEC.md 2.4 step 6, used when the network gets no window coordinates; the
// bundle never takes this path, a caller running whole small volumes may): each click spreads a Gaussian disc of
// radius `radius` voxels (min(H, W, D) / 5 when <= 0), w = max(0, 1 - the discs' sum), and the result is
// class * w + point * (1 - w). Points labelled -1 take no part.
std::vector<float> gaussianCombine(const std::vector<float>& classLogits, const std::vector<float>& pointLogits,
                                   const std::int64_t size[3], const std::vector<Vista3dModel::WindowPoint>& points,
                                   double radius = 0);

}  // namespace delineate::inference::vista3d
