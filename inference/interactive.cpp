#include "inference/interactive.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace delineate::inference {

bool ObjectMask::contains(const core::Index3& ijk) const {
  if (!box.contains(ijk)) return false;
  const std::int64_t nx = box.max[0] - box.min[0] + 1, ny = box.max[1] - box.min[1] + 1;
  const std::int64_t i = ((ijk[2] - box.min[2]) * ny + (ijk[1] - box.min[1])) * nx + (ijk[0] - box.min[0]);
  return voxels[static_cast<std::size_t>(i)] != 0;
}

std::size_t ObjectMask::count() const {
  return static_cast<std::size_t>(std::count_if(voxels.begin(), voxels.end(), [](std::uint8_t v) { return v != 0; }));
}

PackedMask packMask(const ObjectMask& mask) {
  PackedMask p;
  p.box = mask.box;
  const std::uint8_t* v = mask.voxels.data();
  const std::size_t n = mask.voxels.size();
  std::uint8_t value = 0;
  std::uint64_t run = 0;
  std::size_t i = 0;
  while (i < n) {
    // Whole words of the current value at a time (masks hold 0 and 1), then byte by byte.
    const std::uint64_t word = value ? 0x0101010101010101ull : 0;
    std::uint64_t w = 0;
    while (i + 8 <= n && (std::memcpy(&w, v + i, 8), w == word)) {
      i += 8;
      run += 8;
    }
    while (i < n && (v[i] != 0) == (value != 0)) {
      ++i;
      ++run;
      if ((i & 7) == 0) break;
    }
    if (i < n && (v[i] != 0) != (value != 0)) {
      // A run longer than 32 bits continues after an empty run of the other value.
      for (; run > UINT32_MAX; run -= UINT32_MAX) {
        p.runs.push_back(UINT32_MAX);
        p.runs.push_back(0);
      }
      p.runs.push_back(static_cast<std::uint32_t>(run));
      run = 0;
      value ^= 1;
    }
  }
  for (; run > UINT32_MAX; run -= UINT32_MAX) {
    p.runs.push_back(UINT32_MAX);
    p.runs.push_back(0);
  }
  p.runs.push_back(static_cast<std::uint32_t>(run));
  p.runs.shrink_to_fit();
  return p;
}

ObjectMask unpackMask(const PackedMask& packed) {
  ObjectMask m;
  m.box = packed.box;
  if (packed.box.empty()) return m;
  m.voxels.reserve(static_cast<std::size_t>(packed.box.voxelCount()));
  std::uint8_t value = 0;
  for (const std::uint32_t run : packed.runs) {
    m.voxels.insert(m.voxels.end(), run, value);
    value ^= 1;
  }
  return m;
}

core::Result<core::LabelPatch> InteractiveSession::accept(core::Label label) const {
  if (label == 0) return core::makeError(core::ErrorCode::InvalidArgument, "accept", "the object needs a label other than 0");
  const ObjectMask& m = mask();
  if (m.box.empty() || m.count() == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "accept", "there is no object to accept yet");
  core::LabelPatch patch;
  patch.box = m.box;
  patch.voxels.resize(m.voxels.size());
  std::transform(m.voxels.begin(), m.voxels.end(), patch.voxels.begin(),
                 [label](std::uint8_t v) { return v ? label : core::Label(0); });
  return patch;
}

}  // namespace delineate::inference
