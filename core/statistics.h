#pragma once
// Per-label statistics: voxel count, volume, intensity summary (mean, spread, range, median), bounding box, centroid
// and longest diameter, over the whole grid or a range of slices.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::core {

struct LabelStatistics {
  Label label = 0;
  std::uint64_t voxelCount = 0;
  double volumeMl = 0;  // voxelCount * voxel volume (mm^3) / 1000
  // Intensities of the image under the label, non-finite voxels left out (NaN when no image was given or none is
  // finite). stddev is the population value.
  double mean = 0, stddev = 0, min = 0, max = 0;
  IndexBox box;      // index bounding box
  Vec3 centroidLps{0, 0, 0};  // mean voxel centre, physical
  // Exact median of the same finite intensities; with an even count, the mean of the two middle values. NaN when no
  // image was given, none is finite or StatisticsOptions::median is off.
  double median = std::numeric_limits<double>::quiet_NaN();
  // Largest distance between two voxel centres of the label, in mm between physical (LPS) points, so spacing and
  // direction count. Exact. 0 for a single voxel and when StatisticsOptions::diameter is off.
  double longestDiameterMm = 0;
};

// Voxel slices across `axis` (0 = i, 1 = j, 2 = k), both ends inclusive; last = -1 means the grid's last slice.
struct SliceRange {
  int axis = 2;
  std::int64_t first = 0;
  std::int64_t last = -1;
};

struct StatisticsOptions {
  bool includeBackground = false;
  // The base statistics take one pass over the grid (or the slices). The median adds passes over the union of the
  // labels' bounding boxes, reading label and image again: two (a histogram of up to 65536 bins per label over the
  // float keys, then that of the one bin holding the middle ranks, which is exact), up to four when more than 64
  // labels of over 65536 voxels share the histograms' 32 MiB; a label, or bin, of at most 65536 values is collected
  // and selected directly instead. Memory: the histograms, plus at most 65536 floats per label.
  // The diameter adds work per row and slice inside the base pass (each label's first and last voxel of every row,
  // reduced per slice to the vertices of their 2D hull), then distances among the points left (a few thousand for
  // an organ, most pairs skipped by a bound): little next to the base pass (tens of ms for a 7 M-voxel ball).
  bool median = true;
  bool diameter = true;
  // Only voxels in these slices count: volume, intensities, box, centroid, median and diameter alike.
  std::optional<SliceRange> slices;
};

// The index box `range` covers on `grid`, or InvalidArgument naming the range when its axis is not 0..2 or its
// slices are not first <= last inside the grid (after resolving last = -1).
Result<IndexBox> sliceRangeBox(const Geometry& grid, const SliceRange& range);

// One entry per label present (in the slices, when given), sorted by label. `image` (any stored type) may be null;
// when given its grid must match the map's.
Result<std::vector<LabelStatistics>> computeLabelStatistics(const LabelMap& labels, ImageView image,
                                                            const StatisticsOptions& options = {});

// How a volume is written for people (the window's labels dock and PDF, the CLI's text tables): in mL from 1 mL up
// (what rounds to it), in mm³ below, with three significant digits, so that a mouse structure of 0.0174 mL reads
// "17.4 mm³", not "0.02". Files meant for programs (CSV, JSON, DICOM SR) keep mL at full precision.
struct VolumeText {
  double value = 0;      // in the unit below
  int decimals = 0;      // to print
  bool millilitres = true;  // else cubic millimetres
};
VolumeText volumeText(double mm3);

}  // namespace delineate::core
