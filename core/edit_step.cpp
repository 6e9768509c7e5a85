#include "core/edit_step.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace delineate::core {

EditStep::EditStep(std::string name, IndexBox box, std::vector<std::uint8_t> encodedRuns, std::size_t changedVoxels,
                   std::uint64_t revisionBefore, std::uint64_t revisionAfter)
    : m_name(std::move(name)),
      m_box(box),
      m_runs(std::move(encodedRuns)),
      m_changedVoxels(changedVoxels),
      m_revisionBefore(revisionBefore),
      m_revisionAfter(revisionAfter) {
  m_runs.shrink_to_fit();
}

std::size_t EditStep::memoryBytes() const {
  std::size_t bytes = sizeof(EditStep) + m_runs.capacity() + m_name.capacity();
  if (m_table)
    for (const LabelTable* t : {&m_table->before, &m_table->after})
      for (const LabelEntry& e : t->entries()) bytes += sizeof(LabelEntry) + e.name.capacity();
  return bytes;
}

void EditStep::setTableChange(LabelTable before, LabelTable after) {
  m_table = std::make_shared<const TableChange>(TableChange{std::move(before), std::move(after)});
}

void EditStep::appendRun(std::vector<std::uint8_t>& out, std::uint64_t count, Label value) {
  while (count >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(count | 0x80));
    count >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(count));
  out.push_back(static_cast<std::uint8_t>(value & 0xff));
  out.push_back(static_cast<std::uint8_t>(value >> 8));
}

bool EditStep::applyTo(Volume<Label>& voxels) const {
  if (m_box.empty()) return true;
  if (!(m_box.intersected(voxels.geometry().fullBox()) == m_box)) return false;
  const Size3& dims = voxels.geometry().dimensions();
  const std::int64_t bx = m_box.max[0] - m_box.min[0] + 1;
  const std::int64_t by = m_box.max[1] - m_box.min[1] + 1;
  const std::int64_t total = m_box.voxelCount();
  Label* data = voxels.data();

  std::int64_t pos = 0;  // linear position inside the box, x fastest
  std::size_t i = 0;
  // Two passes: the first only checks that the runs decode within the buffer and cover exactly the box, so a damaged
  // step changes nothing rather than half of the map.
  {
    std::size_t j = 0;
    std::int64_t covered = 0;
    while (j < m_runs.size()) {
      std::uint64_t count = 0;
      int shift = 0;
      bool more = true;
      while (more) {
        if (j >= m_runs.size() || shift > 63) return false;
        const std::uint8_t byte = m_runs[j++];
        count |= std::uint64_t(byte & 0x7f) << shift;
        more = (byte & 0x80) != 0;
        shift += 7;
      }
      if (j + 2 > m_runs.size() || count > std::uint64_t(total - covered)) return false;
      j += 2;
      covered += static_cast<std::int64_t>(count);
    }
    if (covered != total) return false;
  }
  while (i < m_runs.size() && pos < total) {
    std::uint64_t count = 0;
    int shift = 0;
    while (true) {
      const std::uint8_t byte = m_runs[i++];
      count |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
      shift += 7;
    }
    const Label value = static_cast<Label>(m_runs[i] | (m_runs[i + 1] << 8));
    i += 2;
    if (value == 0) {
      pos += static_cast<std::int64_t>(count);
      continue;
    }
    // Walk the run row by row: inside a row the voxels are contiguous in the map too.
    std::int64_t remaining = static_cast<std::int64_t>(count);
    while (remaining > 0) {
      const std::int64_t x = pos % bx;
      const std::int64_t y = (pos / bx) % by;
      const std::int64_t z = pos / (bx * by);
      const std::int64_t n = std::min(remaining, bx - x);
      Label* row = data + (m_box.min[0] + x) + dims[0] * ((m_box.min[1] + y) + dims[1] * (m_box.min[2] + z));
      for (std::int64_t k = 0; k < n; ++k) row[k] ^= value;
      pos += n;
      remaining -= n;
    }
  }
  assert(pos == total);
  return true;
}

template <typename Visit>
void EditStep::forEachChange(const Volume<Label>& voxels, Visit&& visit) const {
  if (m_box.empty() || !(m_box.intersected(voxels.geometry().fullBox()) == m_box)) return;
  const Size3& dims = voxels.geometry().dimensions();
  const std::int64_t bx = m_box.max[0] - m_box.min[0] + 1;
  const std::int64_t by = m_box.max[1] - m_box.min[1] + 1;
  const std::int64_t total = m_box.voxelCount();
  std::int64_t pos = 0;
  std::size_t i = 0;
  while (i < m_runs.size() && pos < total) {
    std::uint64_t count = 0;
    int shift = 0;
    while (i < m_runs.size()) {
      const std::uint8_t byte = m_runs[i++];
      count |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
      shift += 7;
    }
    if (i + 2 > m_runs.size()) break;
    const Label value = static_cast<Label>(m_runs[i] | (m_runs[i + 1] << 8));
    i += 2;
    const std::int64_t end = std::min<std::int64_t>(total, pos + static_cast<std::int64_t>(count));
    if (value != 0) {
      for (std::int64_t p = pos; p < end; ++p) {
        const std::int64_t x = m_box.min[0] + p % bx, y = m_box.min[1] + (p / bx) % by, z = m_box.min[2] + p / (bx * by);
        const Label v = voxels.data()[static_cast<std::size_t>(x + dims[0] * (y + dims[1] * z))];
        visit(v, static_cast<Label>(v ^ value));
      }
    }
    pos = end;
  }
}

EditStep::LabelChanges EditStep::labelChanges(const Volume<Label>& voxels) const {
  std::vector<std::int64_t> delta(65536, 0);
  std::vector<bool> seen(65536, false);
  forEachChange(voxels, [&](Label now, Label other) {
    ++delta[now];
    --delta[other];
    seen[now] = seen[other] = true;
  });
  LabelChanges out;
  for (std::size_t l = 0; l < delta.size(); ++l) {
    if (seen[l]) out.involved.insert(static_cast<Label>(l));
    if (delta[l] != 0) out.delta[static_cast<Label>(l)] = delta[l];
  }
  return out;
}

std::set<Label> EditStep::labelsInvolved(const Volume<Label>& voxels) const { return labelChanges(voxels).involved; }

std::map<Label, std::int64_t> EditStep::countDelta(const Volume<Label>& voxels) const {
  return labelChanges(voxels).delta;
}

}  // namespace delineate::core
