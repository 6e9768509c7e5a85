#pragma once
// A label map as runs of one label along each row, background left out: the read-only snapshot a worker takes of the
// map while edits go on (the window's surfaces), a few MB for a real segmentation where a copy of the map costs its
// full size (issue 27). A map of noise has as many runs as voxels: encode() then gives up at the caller's bound and
// the caller copies the map instead.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/geometry.h"
#include "core/label_map.h"

namespace delineate::core {

// f(x0, x1, label) for each run of one label other than background in `row` of `n` voxels, x in [x0, x1), left to
// right.
template <class F>
void forEachLabelRun(const Label* row, std::int64_t n, F&& f) {
  for (std::int64_t x = 0; x < n;) {
    const Label v = row[x];
    std::int64_t end = x + 1;
    while (end < n && row[end] == v) ++end;
    if (v != 0) f(x, end, v);
    x = end;
  }
}

class LabelRuns {
 public:
  struct Run {
    std::int32_t begin = 0, end = 0;  // x in [begin, end)
    Label value = 0;
  };

  // The runs of `map`, or nothing when they would take more than `maxBytes` or memory runs out.
  static std::optional<LabelRuns> encode(const LabelMap& map, std::size_t maxBytes);

  const Geometry& geometry() const { return m_geometry; }
  // The labelled runs of row (y, z), left to right: [first, second).
  std::pair<const Run*, const Run*> row(std::int64_t y, std::int64_t z) const {
    const auto r = static_cast<std::size_t>(y + m_geometry.dimensions()[1] * z);
    return {m_runs.data() + m_rowStart[r], m_runs.data() + m_rowStart[r + 1]};
  }
  std::size_t runCount() const { return m_runs.size(); }
  std::size_t byteSize() const { return m_runs.size() * sizeof(Run) + m_rowStart.size() * sizeof(std::uint64_t); }

 private:
  Geometry m_geometry;
  std::vector<std::uint64_t> m_rowStart;  // per row (y + ny * z), its first run; one more at the end
  std::vector<Run> m_runs;
};

}  // namespace delineate::core
