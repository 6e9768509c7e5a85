#include "core/label_runs.h"

#include <limits>
#include <new>

namespace delineate::core {

std::optional<LabelRuns> LabelRuns::encode(const LabelMap& map, std::size_t maxBytes) {
  const Geometry& g = map.geometry();
  const Size3& d = g.dimensions();
  if (d[0] > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
  const auto rows = static_cast<std::size_t>(d[1] * d[2]);
  LabelRuns out;
  out.m_geometry = g;
  try {
    if ((rows + 1) * sizeof(std::uint64_t) > maxBytes) return std::nullopt;
    out.m_rowStart.reserve(rows + 1);
    const std::size_t maxRuns = (maxBytes - (rows + 1) * sizeof(std::uint64_t)) / sizeof(Run);
    const Label* data = map.data();
    const auto nx = static_cast<std::int32_t>(d[0]);
    for (std::size_t r = 0; r < rows; ++r) {
      out.m_rowStart.push_back(out.m_runs.size());
      bool full = false;
      forEachLabelRun(data + r * static_cast<std::size_t>(nx), nx, [&](std::int64_t x0, std::int64_t x1, Label v) {
        if (out.m_runs.size() >= maxRuns) full = true;
        else out.m_runs.push_back(Run{static_cast<std::int32_t>(x0), static_cast<std::int32_t>(x1), v});
      });
      if (full) return std::nullopt;
    }
    out.m_rowStart.push_back(out.m_runs.size());
    out.m_runs.shrink_to_fit();
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
  return out;
}

}  // namespace delineate::core
