#pragma once
// Segmentation labels (uint16 per voxel) on the reference image grid. Voxels are written only through
// EditTransaction (and UndoHistory replaying its deltas), so every change is undoable and accounted for.

#include <cstdint>
#include <utility>

#include "core/volume.h"

namespace delineate::core {

using Label = std::uint16_t;

class EditTransaction;
class UndoHistory;

class LabelMap {
 public:
  LabelMap() = default;
  explicit LabelMap(Volume<Label> voxels) : m_voxels(std::move(voxels)) {}

  // An all-background map on `geometry`.
  static Result<LabelMap> create(const Geometry& geometry, const std::string& subject = {}) {
    auto v = Volume<Label>::create(geometry, 0, subject);
    if (!v) return v.error();
    return LabelMap(std::move(v).value());
  }

  const Geometry& geometry() const { return m_voxels.geometry(); }
  const Volume<Label>& voxels() const { return m_voxels; }
  const Label* data() const { return m_voxels.data(); }
  std::size_t size() const { return m_voxels.size(); }
  Label at(const Index3& ijk) const { return m_voxels.at(ijk); }
  Label operator[](std::size_t i) const { return m_voxels[i]; }

  // Increases on every change to a voxel (writes of an open transaction, rollback, undo, redo): views compare it to
  // know when to re-upload.
  std::uint64_t revision() const { return m_revision; }
  // Increases only when a finished edit changed voxels (a commit that changed something, undo, redo); an open
  // transaction's writes and a rollback leave it alone. The undo history compares it to notice edits it missed.
  std::uint64_t contentRevision() const { return m_contentRevision; }
  // At most one transaction writes a map at a time; undo and redo wait until it is finished.
  bool hasOpenTransaction() const { return m_transactionOpen; }

 private:
  friend class EditTransaction;
  friend class UndoHistory;
  Label* mutableData() { return m_voxels.data(); }
  Volume<Label>& mutableVoxels() { return m_voxels; }
  void bumpRevision() { ++m_revision; }
  void bumpContentRevision() {
    ++m_revision;
    ++m_contentRevision;
  }

  Volume<Label> m_voxels;
  std::uint64_t m_revision = 0;
  std::uint64_t m_contentRevision = 0;
  bool m_transactionOpen = false;
};

}  // namespace delineate::core
