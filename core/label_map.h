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

// Revisions come from one process-wide counter, so equal revisions mean the same state of the same lineage of
// voxels, never a coincidence between two maps (an undo history cannot mistake a reloaded map for the one it
// recorded).
std::uint64_t nextLabelMapRevision();

class LabelMap {
 public:
  LabelMap() = default;
  explicit LabelMap(Volume<Label> voxels) : m_voxels(std::move(voxels)) {}
  // Copies, moves and assignments carry the voxels and their content revision (so an undo history that followed the
  // source follows the copy), never an open transaction: a transaction belongs to the voxels it was opened on, and
  // one whose map was replaced (assigned to, or moved from) finds out and leaves the map alone.
  LabelMap(const LabelMap& o) : m_voxels(o.m_voxels), m_contentRevision(o.m_contentRevision) {}
  LabelMap(LabelMap&& o) noexcept : m_voxels(std::move(o.m_voxels)), m_contentRevision(o.m_contentRevision) {
    o.replaced();
  }
  LabelMap& operator=(const LabelMap& o) {
    if (this != &o) {
      m_voxels = o.m_voxels;
      m_contentRevision = o.m_contentRevision;
      replaced();
    }
    return *this;
  }
  LabelMap& operator=(LabelMap&& o) noexcept {
    if (this != &o) {
      m_voxels = std::move(o.m_voxels);
      m_contentRevision = o.m_contentRevision;
      replaced();
      o.replaced();
    }
    return *this;
  }

  // An all-background map on `geometry`.
  static Result<LabelMap> create(const Geometry& geometry, const std::string& subject = {}) {
    auto v = Volume<Label>::create(geometry, 0, subject);
    if (!v) return v.error();
    return LabelMap(std::move(v).value());
  }

  const Geometry& geometry() const { return m_voxels.geometry(); }
  const Volume<Label>& voxels() const { return m_voxels; }
  // The voxels moved out (to be adopted by another map: AnnotationSession::replaceLabels); this map is left empty.
  Volume<Label> release() && {
    Volume<Label> out = std::move(m_voxels);
    m_voxels = Volume<Label>();
    replaced();
    return out;
  }
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
  void bumpRevision() { m_revision = nextLabelMapRevision(); }
  // The voxels were swapped for others: views redraw, open transactions are detached.
  void replaced() {
    m_revision = nextLabelMapRevision();
    m_lineage = nextLabelMapRevision();
    m_transactionOpen = false;
  }
  void bumpContentRevision() {
    m_contentRevision = nextLabelMapRevision();
    m_revision = m_contentRevision;
  }

  Volume<Label> m_voxels;
  std::uint64_t m_contentRevision = nextLabelMapRevision();
  std::uint64_t m_revision = nextLabelMapRevision();
  std::uint64_t m_lineage = nextLabelMapRevision();  // changes when the voxels are replaced wholesale
  bool m_transactionOpen = false;
};

}  // namespace delineate::core
