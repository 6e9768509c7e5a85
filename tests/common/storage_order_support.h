#pragma once
// Helpers for the storage-order tests: a crop that keeps every voxel's LPS position, and an order's name.
#include <sstream>
#include <string>

#include "core/axis_order.h"
#include "core/volume.h"

namespace delineate::test {

// "-i+j+k": the stored axes as reordered source axes, reversed where "-".
inline std::string describeOrder(const core::AxisOrder& o) {
  std::ostringstream s;
  for (std::size_t a = 0; a < 3; ++a) s << (o.flip[a] ? "-" : "+") << "ijk"[o.axis[a]];
  return s.str();
}

// `box` of a volume as a volume of its own (origin moved to the box's first voxel).
template <class T>
core::Volume<T> cropVolume(const core::Volume<T>& v, const core::IndexBox& box) {
  const auto& g = v.geometry();
  const core::Size3 n{box.max[0] - box.min[0] + 1, box.max[1] - box.min[1] + 1, box.max[2] - box.min[2] + 1};
  auto out = core::Volume<T>::create(core::Geometry(n, g.spacingMm(), g.indexToLps(box.min), g.direction())).value();
  std::size_t o = 0;
  for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
    for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
      for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x) out[o++] = v.at(core::Index3{x, y, z});
  return out;
}

}  // namespace delineate::test
