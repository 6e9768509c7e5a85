#pragma once
// One recorded edit: the run-length-encoded XOR of the label voxels before and after, over the touched box.
// XOR makes undo and redo the same operation (ITK-SNAP stores RLE differences for the same reason).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/label_map.h"
#include "core/label_table.h"

namespace delineate::core {

class EditStep {
 public:
  EditStep() = default;
  // revisionBefore/After: the map's content revision when the transaction opened and after it committed.
  EditStep(std::string name, IndexBox box, std::vector<std::uint8_t> encodedRuns, std::size_t changedVoxels,
           std::uint64_t revisionBefore, std::uint64_t revisionAfter);

  const std::string& name() const { return m_name; }
  const IndexBox& box() const { return m_box; }
  std::size_t changedVoxels() const { return m_changedVoxels; }
  // Bytes this step keeps alive (the encoded runs, the name and the object itself).
  std::size_t memoryBytes() const;
  std::uint64_t serial() const { return m_serial; }
  std::uint64_t revisionBefore() const { return m_revisionBefore; }
  std::uint64_t revisionAfter() const { return m_revisionAfter; }

  // XORs the delta into the voxels (undo and redo alike). Returns false, writing nothing, when the step's box does
  // not fit the grid (a step recorded on another map).
  bool applyTo(Volume<Label>& voxels) const;

  // The labels this step changes between (each changed voxel's value in `voxels`, and that value XOR the delta, i.e.
  // its value on the other side of the step), so a window refreshes only those labels' counts and surfaces after an
  // undo or redo. Works on either side of the step. Empty for a box that does not fit the grid.
  std::set<Label> labelsInvolved(const Volume<Label>& voxels) const;
  // How many voxels each label gained (positive) or lost (negative) going from the other side of the step to the
  // state `voxels` is in: after a commit or redo, the edit's effect; after an undo, its reversal. Labels whose count
  // did not change are left out. Lets a window keep label volumes without recounting the whole map.
  std::map<Label, std::int64_t> countDelta(const Volume<Label>& voxels) const;
  // Both in one pass over the step (a window refreshing after an edit needs both).
  struct LabelChanges {
    std::set<Label> involved;
    std::map<Label, std::int64_t> delta;
  };
  LabelChanges labelChanges(const Volume<Label>& voxels) const;

  // The label table before and after the step, for steps that change what voxels mean (a new label, a rename, an
  // imported table, the names an engine or a file brings): undo and redo restore it with the voxels. A step may
  // change the table only (an empty box). Absent for steps that change voxels only.
  struct TableChange {
    LabelTable before;
    LabelTable after;
  };
  const TableChange* tableChange() const { return m_table.get(); }
  void setTableChange(LabelTable before, LabelTable after);

  // Run encoding: each run is a LEB128 varint count followed by the 16-bit XOR value, little endian.
  static void appendRun(std::vector<std::uint8_t>& out, std::uint64_t count, Label value);

 private:
  // Calls visit(valueInVoxels, valueOnTheOtherSide) for every voxel the step changes.
  template <typename Visit>
  void forEachChange(const Volume<Label>& voxels, Visit&& visit) const;
  friend class UndoHistory;
  std::string m_name;
  IndexBox m_box;
  std::vector<std::uint8_t> m_runs;
  std::size_t m_changedVoxels = 0;
  std::uint64_t m_serial = 0;
  std::uint64_t m_revisionBefore = 0;
  std::uint64_t m_revisionAfter = 0;
  std::shared_ptr<const TableChange> m_table;
};

}  // namespace delineate::core
