#include "core/edit_transaction.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace delineate::core {

EditTransaction::EditTransaction(LabelMap& map, std::string name, const LabelTable* table, EditPolicy policy)
    : m_map(&map), m_name(std::move(name)), m_policy(policy) {
  if (map.m_transactionOpen) return;  // starts closed
  const Size3& d = map.geometry().dimensions();
  try {
    m_rowSlot.assign(static_cast<std::size_t>(d[1] * d[2]), kUntouched);
    if (table && policy.respectLocks) {
      for (const LabelEntry& e : table->entries()) {
        if (!e.locked) continue;
        if (m_locked.empty()) m_locked.assign(65536, false);
        m_locked[e.id] = true;
      }
    }
  } catch (const std::bad_alloc&) {
    return;  // starts closed: refusing the edit beats crashing the program
  }
  m_open = true;
  m_startRevision = map.contentRevision();
  m_lineage = map.m_lineage;
  map.m_transactionOpen = true;
}

EditTransaction::EditTransaction(EditTransaction&& o) noexcept
    : m_map(o.m_map),
      m_name(std::move(o.m_name)),
      m_locked(std::move(o.m_locked)),
      m_policy(o.m_policy),
      m_open(o.m_open),
      m_startRevision(o.m_startRevision),
      m_lineage(o.m_lineage),
      m_rowSlot(std::move(o.m_rowSlot)),
      m_originalRows(std::move(o.m_originalRows)),
      m_box(o.m_box),
      m_writes(o.m_writes) {
  o.m_open = false;
}

EditTransaction::~EditTransaction() {
  if (m_open) rollback();
}

void EditTransaction::close() {
  if (!m_open) return;
  m_open = false;
  if (mapIntact()) m_map->m_transactionOpen = false;  // a replaced map may already carry another's transaction
  m_originalRows.clear();
  m_originalRows.shrink_to_fit();
  m_rowSlot.clear();
  m_rowSlot.shrink_to_fit();
}

void EditTransaction::rememberRow(std::int64_t row) {
  std::int64_t& slot = m_rowSlot[static_cast<std::size_t>(row)];
  if (slot != kUntouched) return;
  const std::int64_t nx = m_map->geometry().dimensions()[0];
  const std::size_t start = m_originalRows.size();
  const Label* src = m_map->data() + row * nx;
  if (std::all_of(src, src + nx, [](Label l) { return l == 0; })) {
    slot = kZeroRow;
    return;
  }
  // Copy first: if the copy throws (bad_alloc), the slot still says "untouched" and nothing is inconsistent.
  m_originalRows.insert(m_originalRows.end(), src, src + nx);
  slot = static_cast<std::int64_t>(start / static_cast<std::size_t>(nx));
}

bool EditTransaction::writeLinear(std::size_t index, std::int64_t row, Label label) {
  Label* data = m_map->mutableData();
  const Label current = data[index];
  if (current == label) return true;
  if (m_policy.overwriteOnly && current != *m_policy.overwriteOnly) return false;
  if (!m_locked.empty() && m_locked[current]) return false;
  rememberRow(row);
  data[index] = label;
  ++m_writes;
  m_map->bumpRevision();  // a stroke in progress is visible: views redraw on the revision
  return true;
}

bool EditTransaction::set(const Index3& ijk, Label label) {
  if (!m_open || !mapIntact() || !m_map->geometry().contains(ijk)) return false;
  const Size3& d = m_map->geometry().dimensions();
  const bool ok = writeLinear(m_map->geometry().linearIndex(ijk), ijk[1] + d[1] * ijk[2], label);
  m_box.include(ijk);
  return ok;
}

std::size_t EditTransaction::paintSphere(const Vec3& centerLps, double radiusMm, Label label) {
  if (!m_open || !mapIntact() || !std::isfinite(radiusMm) || radiusMm < 0) return 0;
  for (double v : centerLps)
    if (!std::isfinite(v)) return 0;
  const Geometry& g = m_map->geometry();
  const Vec3 c = g.lpsToIndex(centerLps);
  // Index-space half extents: exact because Geometry only admits orthonormal directions. Clamped in double before
  // the cast so a far-away or huge brush cannot overflow.
  IndexBox box;
  for (std::size_t a = 0; a < 3; ++a) {
    const double half = radiusMm / g.spacingMm()[a];
    const double hi = double(g.dimensions()[a]);
    box.min[a] = static_cast<std::int64_t>(std::clamp(std::floor(c[a] - half), -1.0, hi));
    box.max[a] = static_cast<std::int64_t>(std::clamp(std::ceil(c[a] + half), -1.0, hi));
  }
  box = box.intersected(g.fullBox());
  if (box.empty()) return 0;
  const double r2 = radiusMm * radiusMm;
  const Size3& d = g.dimensions();
  std::size_t written = 0;
  IndexBox touched;
  for (std::int64_t k = box.min[2]; k <= box.max[2]; ++k)
    for (std::int64_t j = box.min[1]; j <= box.max[1]; ++j)
      for (std::int64_t i = box.min[0]; i <= box.max[0]; ++i) {
        const Vec3 p = g.indexToLps(Index3{i, j, k});
        const double dx = p[0] - centerLps[0], dy = p[1] - centerLps[1], dz = p[2] - centerLps[2];
        if (dx * dx + dy * dy + dz * dz > r2) continue;
        if (writeLinear(static_cast<std::size_t>(i + d[0] * (j + d[1] * k)), j + d[1] * k, label)) ++written;
        touched.include(Index3{i, j, k});
      }
  m_box.include(touched);
  return written;
}

std::size_t EditTransaction::fillBox(const IndexBox& requested, Label label) {
  if (!m_open || !mapIntact()) return 0;
  const Geometry& g = m_map->geometry();
  const IndexBox box = requested.intersected(g.fullBox());
  if (box.empty()) return 0;
  const Size3& d = g.dimensions();
  std::size_t written = 0;
  for (std::int64_t k = box.min[2]; k <= box.max[2]; ++k)
    for (std::int64_t j = box.min[1]; j <= box.max[1]; ++j)
      for (std::int64_t i = box.min[0]; i <= box.max[0]; ++i)
        if (writeLinear(static_cast<std::size_t>(i + d[0] * (j + d[1] * k)), j + d[1] * k, label)) ++written;
  m_box.include(box);
  return written;
}

Result<std::size_t> EditTransaction::assignAll(const Volume<Label>& labels) {
  const Geometry& g = m_map->geometry();
  if (!labels.geometry().isCloseTo(g))
    return makeError(ErrorCode::GeometryMismatch, {}, "labels are not on the image grid");
  if (!m_open || !mapIntact()) return makeError(ErrorCode::InvalidArgument, {}, "transaction already finished");
  const Size3& d = g.dimensions();
  const Label* src = labels.data();
  // Every row may change: reserve the originals of the rows holding a label at once (rows of background keep no
  // copy) instead of doubling towards a whole copy of the map.
  std::size_t labelledRows = 0;
  for (std::int64_t row = 0; row < d[1] * d[2]; ++row) {
    const Label* r = m_map->data() + row * d[0];
    labelledRows += std::any_of(r, r + d[0], [](Label l) { return l != 0; });
  }
  m_originalRows.reserve(labelledRows * static_cast<std::size_t>(d[0]));
  std::size_t written = 0;
  IndexBox changed;
  for (std::int64_t row = 0; row < d[1] * d[2]; ++row) {
    const std::size_t base = static_cast<std::size_t>(row * d[0]);
    for (std::int64_t i = 0; i < d[0]; ++i) {
      const std::size_t idx = base + static_cast<std::size_t>(i);
      if (m_map->data()[idx] == src[idx]) continue;
      if (writeLinear(idx, row, src[idx])) ++written;
      changed.include(Index3{i, row % d[1], row / d[1]});
    }
  }
  m_box.include(changed);
  return written;
}

Result<std::size_t> EditTransaction::assignAll(Volume<Label>&& labels) {
  const Geometry& g = m_map->geometry();
  if (!labels.geometry().isCloseTo(g))
    return makeError(ErrorCode::GeometryMismatch, {}, "labels are not on the image grid");
  if (!m_open || !mapIntact()) return makeError(ErrorCode::InvalidArgument, {}, "transaction already finished");
  const bool policyAllows = (!m_policy.overwriteOnly || *m_policy.overwriteOnly == 0) && (m_locked.empty() || !m_locked[0]);
  const Label* current = m_map->data();
  // Reading the zeros of a fresh map maps no memory; the check stops at the first label.
  if (!policyAllows || m_writes != 0 || labels.size() != m_map->size() ||
      !std::all_of(current, current + m_map->size(), [](Label l) { return l == 0; }))
    return assignAll(static_cast<const Volume<Label>&>(labels));
  m_map->mutableVoxels().buffer().swap(labels.buffer());
  // Every row that now holds a label was background: its undo is the row itself (kZeroRow), nothing copied.
  const Size3& d = g.dimensions();
  const Label* data = m_map->data();
  std::size_t written = 0;
  IndexBox changed;
  for (std::int64_t row = 0; row < d[1] * d[2]; ++row) {
    const Label* r = data + row * d[0];
    std::int64_t first = -1, last = -1;
    for (std::int64_t i = 0; i < d[0]; ++i)
      if (r[i] != 0) {
        if (first < 0) first = i;
        last = i;
        ++written;
      }
    if (first < 0) continue;
    m_rowSlot[static_cast<std::size_t>(row)] = kZeroRow;
    changed.include(IndexBox{{first, row % d[1], row / d[1]}, {last, row % d[1], row / d[1]}});
  }
  m_writes += written;
  if (written > 0) m_map->bumpRevision();
  m_box.include(changed);
  return written;
}

Result<std::size_t> EditTransaction::applyPatch(const LabelPatch& patch, bool keepBackground) {
  const Geometry& g = m_map->geometry();
  // Containment first: it bounds the box, so the voxel count in valid() cannot overflow.
  if (patch.box.empty() || !(patch.box.intersected(g.fullBox()) == patch.box))
    return makeError(ErrorCode::GeometryMismatch, {}, "label patch extends outside the image grid");
  if (!patch.valid()) return makeError(ErrorCode::InvalidArgument, {}, "label patch size does not match its box");
  if (!m_open || !mapIntact()) return makeError(ErrorCode::InvalidArgument, {}, "transaction already finished");
  const Size3& d = g.dimensions();
  std::size_t written = 0;
  std::size_t src = 0;
  for (std::int64_t k = patch.box.min[2]; k <= patch.box.max[2]; ++k)
    for (std::int64_t j = patch.box.min[1]; j <= patch.box.max[1]; ++j)
      for (std::int64_t i = patch.box.min[0]; i <= patch.box.max[0]; ++i, ++src) {
        const Label v = patch.voxels[src];
        if (keepBackground && v == 0) continue;
        if (writeLinear(static_cast<std::size_t>(i + d[0] * (j + d[1] * k)), j + d[1] * k, v)) ++written;
      }
  m_box.include(patch.box);
  return written;
}

std::optional<EditStep> EditTransaction::commit() {
  if (!m_open) return std::nullopt;
  if (!mapIntact()) {  // the map object was moved from while we were open: nothing of ours is in it any more
    close();
    return std::nullopt;
  }
  if (m_box.empty() || m_writes == 0) {
    close();
    return std::nullopt;
  }

  const Size3& d = m_map->geometry().dimensions();
  const std::int64_t bx = m_box.max[0] - m_box.min[0] + 1;
  const std::int64_t nx = d[0];
  const Label* data = m_map->data();
  std::vector<std::uint8_t> runs;
  std::uint64_t runCount = 0;
  Label runValue = 0;
  std::size_t changed = 0;
  auto push = [&](Label v, std::uint64_t n) {
    if (n == 0) return;
    if (runCount == 0 || v == runValue) {
      runValue = v;
      runCount += n;
      return;
    }
    EditStep::appendRun(runs, runCount, runValue);
    runValue = v;
    runCount = n;
  };

  for (std::int64_t k = m_box.min[2]; k <= m_box.max[2]; ++k)
    for (std::int64_t j = m_box.min[1]; j <= m_box.max[1]; ++j) {
      const std::int64_t row = j + d[1] * k;
      const std::int64_t slot = m_rowSlot[static_cast<std::size_t>(row)];
      if (slot == kUntouched) {  // before == after
        push(0, static_cast<std::uint64_t>(bx));
        continue;
      }
      const Label* after = data + row * nx + m_box.min[0];
      if (slot == kZeroRow) {  // before was background: the change is the row itself
        for (std::int64_t i = 0; i < bx; ++i) {
          if (after[i] != 0) ++changed;
          push(after[i], 1);
        }
        continue;
      }
      const Label* before = m_originalRows.data() + slot * nx + m_box.min[0];
      for (std::int64_t i = 0; i < bx; ++i) {
        const Label x = static_cast<Label>(before[i] ^ after[i]);
        if (x != 0) ++changed;
        push(x, 1);
      }
    }
  if (runCount > 0) EditStep::appendRun(runs, runCount, runValue);

  close();
  if (changed == 0) return std::nullopt;  // every write was undone within the transaction
  m_map->bumpContentRevision();
  return EditStep(m_name, m_box, std::move(runs), changed, m_startRevision, m_map->contentRevision());
}

void EditTransaction::rollback() {
  if (!m_open) return;
  if (!mapIntact()) {
    close();
    return;
  }
  const std::int64_t nx = m_map->geometry().dimensions()[0];
  Label* data = m_map->mutableData();
  for (std::size_t row = 0; row < m_rowSlot.size(); ++row) {
    const std::int64_t slot = m_rowSlot[row];
    if (slot == kUntouched) continue;
    if (slot == kZeroRow) std::fill_n(data + static_cast<std::int64_t>(row) * nx, nx, Label{0});
    else std::copy_n(m_originalRows.data() + slot * nx, nx, data + static_cast<std::int64_t>(row) * nx);
  }
  if (m_writes > 0) m_map->bumpRevision();  // views drawing the abandoned stroke must redraw
  close();
}

}  // namespace delineate::core
