#pragma once
// The only way to write label voxels. A transaction keeps the original of every row it touches (copy on first
// write), so it can roll back, and on commit turns the touched box into an EditStep (RLE XOR delta).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/edit_step.h"
#include "core/label_map.h"
#include "core/label_patch.h"
#include "core/label_table.h"

namespace delineate::core {

// Which voxels an edit may overwrite.
struct EditPolicy {
  bool respectLocks = true;            // voxels holding a locked label are left alone
  std::optional<Label> overwriteOnly;  // when set, only voxels currently holding this label change
};

class EditTransaction {
 public:
  // `table` supplies locks (may be null: nothing locked). The map must outlive the transaction. Only one transaction
  // writes a map at a time: while another is open (or the row bookkeeping cannot be allocated) the new one starts
  // closed, isOpen() is false and every write is refused.
  EditTransaction(LabelMap& map, std::string name, const LabelTable* table = nullptr, EditPolicy policy = {});
  ~EditTransaction();  // rolls back unless committed
  EditTransaction(EditTransaction&& other) noexcept;
  EditTransaction(const EditTransaction&) = delete;
  EditTransaction& operator=(const EditTransaction&) = delete;
  EditTransaction& operator=(EditTransaction&&) = delete;

  const std::string& name() const { return m_name; }
  const Geometry& geometry() const { return m_map->geometry(); }
  bool isOpen() const { return m_open; }
  bool writes(const LabelMap& map) const { return m_map == &map; }

  // Writes one voxel if the policy allows; returns whether the voxel now holds `label`.
  bool set(const Index3& ijk, Label label);
  // Every voxel whose centre lies within radiusMm of centerLps (a 3D brush dab). Returns voxels written.
  std::size_t paintSphere(const Vec3& centerLps, double radiusMm, Label label);
  // Every voxel of the box (clipped to the grid).
  std::size_t fillBox(const IndexBox& box, Label label);
  // Sets the whole map to `labels` (imports, engine results). Grids must match.
  Result<std::size_t> assignAll(const Volume<Label>& labels);
  // The same, and when the map holds only background (a study's first labels) and nothing is locked, the map takes
  // over `labels`' buffer instead of copying it: one map in memory, not two; `labels` is left with the old zeros.
  Result<std::size_t> assignAll(Volume<Label>&& labels);

  // Writes an engine result. With `keepBackground`, patch voxels equal to 0 leave the map as it is (an organ added to
  // existing labels); without, the box is replaced. Fails when the patch is malformed or leaves the grid.
  Result<std::size_t> applyPatch(const LabelPatch& patch, bool keepBackground);

  // Voxels whose value differs from before the transaction is not known until commit; this is the written count.
  std::size_t writeCount() const { return m_writes; }
  const IndexBox& touchedBox() const { return m_box; }

  // Finishes the edit. Returns the recorded step, or nothing when no voxel changed value. On a map that belongs to
  // an AnnotationSession, commit through the session so the step reaches its undo history; a step committed here and
  // dropped is an edit the history did not see, and it stops undo from going back past it.
  std::optional<EditStep> commit();
  // Restores every touched voxel.
  void rollback();

 private:
  bool writeLinear(std::size_t index, std::int64_t row, Label label);
  bool mapIntact() const { return m_map->m_lineage == m_lineage; }
  void rememberRow(std::int64_t row);
  void close();

  LabelMap* m_map;
  std::string m_name;
  std::vector<bool> m_locked;  // indexed by label; empty when nothing is locked
  EditPolicy m_policy;
  bool m_open = false;
  std::uint64_t m_startRevision = 0;
  std::uint64_t m_lineage = 0;  // the map's lineage at the start: a map replaced under us is left alone

  // Per (y,z) row: index into m_originalRows, kUntouched, or kZeroRow (a touched row that held only background: no
  // copy kept, so labels opened or segmented onto an empty map cost no second map for their undo step).
  static constexpr std::int64_t kUntouched = -1, kZeroRow = -2;
  std::vector<std::int64_t> m_rowSlot;
  std::vector<Label> m_originalRows;    // copies of touched rows that held a label, nx each
  IndexBox m_box;
  std::size_t m_writes = 0;
};

}  // namespace delineate::core
