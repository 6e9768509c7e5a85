#pragma once
// The same image stored with its axes in another order or direction (LPS vs LAS, i and j swapped) is one of 48
// storage orders of the same voxels: an exact permutation of the buffer, no resampling. Engines whose results must
// not depend on how a file happened to store its axes run on the canonical order (canonicalAxisOrder: the storage
// axes permuted and flipped so that the direction matrix is closest to the identity in LPS) and map the result back.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/volume.h"

namespace delineate::core {

// Reordered axis a is the source's storage axis `axis[a]`, reversed where `flip[a]`.
struct AxisOrder {
  std::array<int, 3> axis{0, 1, 2};
  std::array<bool, 3> flip{false, false, false};

  bool isIdentity() const {
    return axis[0] == 0 && axis[1] == 1 && axis[2] == 2 && !flip[0] && !flip[1] && !flip[2];
  }
  bool operator==(const AxisOrder& o) const { return axis == o.axis && flip == o.flip; }
};

// All 48 orders (6 permutations x 8 flips), identity first.
std::vector<AxisOrder> allAxisOrders();

// The order whose reordered direction matrix is closest to the identity: the permutation maximising the summed
// |cosines| on the diagonal, each axis flipped to point along +L, +P or +S. Every storage order of the same voxels
// maps to the same canonical grid, except for exact ties (an axis at exactly 45 degrees between two LPS axes).
AxisOrder canonicalAxisOrder(const Geometry& geometry);

// The geometry of the reordered grid: every voxel keeps its LPS position.
Geometry reorderedGeometry(const Geometry& source, const AxisOrder& order);
// The source index of a reordered index, and back.
Index3 sourceIndexOf(const Index3& reordered, const Size3& sourceDims, const AxisOrder& order);
Index3 reorderedIndexOf(const Index3& source, const Size3& sourceDims, const AxisOrder& order);
// The box in the other grid that holds the same voxels.
IndexBox sourceBoxOf(const IndexBox& reordered, const Size3& sourceDims, const AxisOrder& order);
IndexBox reorderedBoxOf(const IndexBox& source, const Size3& sourceDims, const AxisOrder& order);

// Copies `box` of a buffer laid out on `layout` (a box of the source grid `sourceDims` holding `box`; x fastest)
// into the same voxels of the reordered grid: the result covers reorderedBoxOf(box), x fastest. `restoreBox` goes the other way, from a buffer
// laid out on `reorderedBox` to one laid out on sourceBoxOf(reorderedBox).
template <class T, class SrcBuf>
std::vector<T> reorderBox(const SrcBuf& source, const IndexBox& layout, const IndexBox& box, const Size3& sourceDims,
                          const AxisOrder& order);
// The same copy into `out` (reorderedBoxOf(box).voxelCount() elements), for callers that split a box among threads.
template <class T, class SrcBuf>
void reorderBoxInto(const SrcBuf& source, const IndexBox& layout, const IndexBox& box, const Size3& sourceDims,
                    const AxisOrder& order, T* out);
template <class T, class SrcBuf>
std::vector<T> restoreBox(const SrcBuf& reordered, const IndexBox& reorderedBox, const Size3& sourceDims,
                          const AxisOrder& order);

// The whole volume reordered (a copy).
template <class T>
Result<Volume<T>> reorderedVolume(const Volume<T>& source, const AxisOrder& order);

// Calls `f(const Volume<T>&)` with `source` in axis order `order` and returns what f returns (a Result): the source
// itself when the order is the identity (most CT: no copy), else a reordered copy that lives for the call; the
// copy's error (out of memory) is returned instead of calling f. The one way engines and training "reorder the axes
// or keep the volume".
template <class T, class F>
auto withAxisOrder(const Volume<T>& source, const AxisOrder& order, F&& f) -> decltype(f(source));

// ---- implementation ----

namespace axis_order_detail {
// Walks the reordered box `rbox` (x fastest) and calls f(position in the walk, linear index of the same voxel in a
// source buffer laid out on `sbox`).
template <class F>
void walk(const IndexBox& rbox, const IndexBox& sbox, const Size3& sourceDims, const AxisOrder& order, F&& f) {
  const Size3 sn{sbox.max[0] - sbox.min[0] + 1, sbox.max[1] - sbox.min[1] + 1, sbox.max[2] - sbox.min[2] + 1};
  const std::array<std::int64_t, 3> sstride{1, sn[0], sn[0] * sn[1]};
  // Per reordered axis: the source-box offset at the box's first voxel and its step.
  std::array<std::int64_t, 3> start{}, step{};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto s = static_cast<std::size_t>(order.axis[a]);
    const std::int64_t first = order.flip[a] ? sourceDims[s] - 1 - rbox.min[a] : rbox.min[a];
    start[a] = (first - sbox.min[s]) * sstride[s];
    step[a] = order.flip[a] ? -sstride[s] : sstride[s];
  }
  const Size3 rn{rbox.max[0] - rbox.min[0] + 1, rbox.max[1] - rbox.min[1] + 1, rbox.max[2] - rbox.min[2] + 1};
  std::size_t out = 0;
  for (std::int64_t z = 0; z < rn[2]; ++z)
    for (std::int64_t y = 0; y < rn[1]; ++y) {
      std::int64_t src = start[0] + start[1] + start[2] + y * step[1] + z * step[2];
      for (std::int64_t x = 0; x < rn[0]; ++x, src += step[0]) f(out++, static_cast<std::size_t>(src));
    }
}
}  // namespace axis_order_detail

template <class T, class SrcBuf>
void reorderBoxInto(const SrcBuf& source, const IndexBox& layout, const IndexBox& box, const Size3& sourceDims,
                    const AxisOrder& order, T* out) {
  axis_order_detail::walk(reorderedBoxOf(box, sourceDims, order), layout, sourceDims, order,
                          [&](std::size_t o, std::size_t s) { out[o] = source[s]; });
}

template <class T, class SrcBuf>
std::vector<T> reorderBox(const SrcBuf& source, const IndexBox& layout, const IndexBox& box, const Size3& sourceDims,
                          const AxisOrder& order) {
  std::vector<T> out(static_cast<std::size_t>(reorderedBoxOf(box, sourceDims, order).voxelCount()));
  reorderBoxInto(source, layout, box, sourceDims, order, out.data());
  return out;
}

template <class T, class SrcBuf>
std::vector<T> restoreBox(const SrcBuf& reordered, const IndexBox& reorderedBox, const Size3& sourceDims,
                          const AxisOrder& order) {
  const IndexBox sbox = sourceBoxOf(reorderedBox, sourceDims, order);
  std::vector<T> out(static_cast<std::size_t>(sbox.voxelCount()));
  axis_order_detail::walk(reorderedBox, sbox, sourceDims, order,
                          [&](std::size_t o, std::size_t s) { out[s] = reordered[o]; });
  return out;
}

template <class T>
Result<Volume<T>> reorderedVolume(const Volume<T>& source, const AxisOrder& order) {
  const Geometry& g = source.geometry();
  const IndexBox full = g.fullBox();
  typename Volume<T>::UninitBuffer buf;
  try {
    buf.resize(static_cast<std::size_t>(g.voxelCount()));
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, "reorder", "cannot allocate a reordered copy of the image");
  }
  axis_order_detail::walk(reorderedBoxOf(full, g.dimensions(), order), full, g.dimensions(), order,
                          [&](std::size_t o, std::size_t s) { buf[o] = source[s]; });
  return Volume<T>::adopt(reorderedGeometry(g, order), std::move(buf), "reorder");
}

template <class T, class F>
auto withAxisOrder(const Volume<T>& source, const AxisOrder& order, F&& f) -> decltype(f(source)) {
  if (order.isIdentity()) return f(source);
  Result<Volume<T>> reordered = reorderedVolume(source, order);
  if (!reordered) return reordered.error();
  return f(*reordered);
}

}  // namespace delineate::core
