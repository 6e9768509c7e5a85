#pragma once
// One recorded edit: the run-length-encoded XOR of the label voxels before and after, over the touched box.
// XOR makes undo and redo the same operation (ITK-SNAP stores RLE differences for the same reason).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/label_map.h"

namespace delineate::core {

class EditStep {
 public:
  EditStep() = default;
  EditStep(std::string name, IndexBox box, std::vector<std::uint8_t> encodedRuns, std::size_t changedVoxels);

  const std::string& name() const { return m_name; }
  const IndexBox& box() const { return m_box; }
  std::size_t changedVoxels() const { return m_changedVoxels; }
  // Bytes this step keeps alive (the encoded runs, the name and the object itself).
  std::size_t memoryBytes() const;
  std::uint64_t serial() const { return m_serial; }

  // XORs the delta into the voxels (undo and redo alike). The map must be on the grid the step was recorded on.
  void applyTo(Volume<Label>& voxels) const;

  // Run encoding: each run is a LEB128 varint count followed by the 16-bit XOR value, little endian.
  static void appendRun(std::vector<std::uint8_t>& out, std::uint64_t count, Label value);

 private:
  friend class UndoHistory;
  std::string m_name;
  IndexBox m_box;
  std::vector<std::uint8_t> m_runs;
  std::size_t m_changedVoxels = 0;
  std::uint64_t m_serial = 0;
};

}  // namespace delineate::core
