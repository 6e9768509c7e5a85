#pragma once
// Pieces of computeLabelStatistics (core/statistics.h) kept apart to keep files short and exposed to the tests with
// their tuning, so small test grids can force the paths large studies take. Not an interface for other code.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/geometry.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::core::detail {

// --- Median (statistics_median.cpp) ---

struct MedianRequest {
  std::uint64_t finiteCount = 0;  // finite intensities under the label (0: no median, NaN)
  float min = 0, max = 0;         // their range
  IndexBox box;                   // where the label's counted voxels lie (inside the slices, when given)
};

struct MedianTuning {
  std::uint64_t collectMax = std::uint64_t(1) << 16;  // a label with at most this many candidates collects them
  std::uint64_t histogramBudget = std::uint64_t(1) << 22;  // bins shared by the labels histogrammed in one pass
  std::uint64_t minBins = 256, maxBins = 65536;  // per label and pass (powers of two)
};

// Exact medians, indexed like `requests` (slot of label l = slotOf[l], -1 for labels not counted). Radix selection
// on the order-preserving 32-bit key of each float: every pass narrows each unfinished label's key interval to the
// bin holding the lower middle rank, or collects the interval's values once few enough and selects among them; the
// upper middle rank comes with it, or is the smallest key above the interval (tracked in the same pass). `passes`
// receives the number of passes over the voxels.
std::vector<double> labelMedians(const LabelMap& labels, ImageView image,
                                 const std::vector<std::int32_t>& slotOf, const std::vector<MedianRequest>& requests,
                                 const MedianTuning& tuning = {}, int* passes = nullptr);

// --- Longest diameter (statistics_diameter.cpp) ---

// Collects, during the base pass, the points that can be vertices of each label's convex hull: the first and last
// voxel of each row (voxels between them lie on a segment), reduced at the end of each slice to the vertices of the
// slice's 2D hull. The diameter of a point set is attained between two vertices of its convex hull, and an affine map
// (index -> LPS) maps hull vertices to hull vertices, so the exact diameter is the largest distance among them.
class DiameterCandidates {
 public:
  // Label `slot` occupies row j of the current slice from iFirst to iLast (within the counted region).
  void addRow(std::size_t slot, std::int64_t j, std::int64_t iFirst, std::int64_t iLast);
  // Ends slice k: each label's rows in it become its 2D hull's vertices.
  void endSlice(std::int64_t k);
  const std::vector<Index3>& candidates(std::size_t slot) const;

 private:
  struct PerLabel {
    std::vector<Index3> slice;       // row ends in the current slice
    std::vector<Index3> candidates;  // hull vertices of finished slices
  };
  std::vector<PerLabel> m_labels;
  std::vector<std::size_t> m_touched;  // labels with rows in the current slice
};

// Keeps only the vertices of the 2D convex hull of distinct points sharing every coordinate but `a` and `b` (exact
// integer arithmetic; points on hull edges are dropped).
void keepHullVertices2D(std::vector<Index3>& points, int a, int b);

// Largest distance in mm between the LPS centres of `points` (distinct voxel indices), 0 for fewer than two. Drops
// points that are not hull vertices within their i- and j-slices first, then compares the remaining pairs, skipping
// those whose distances to the points' centre prove them shorter than the best found. `pairsCompared` is for tests.
double longestDistanceMm(std::vector<Index3> points, const Geometry& grid, std::uint64_t* pairsCompared = nullptr);

}  // namespace delineate::core::detail
