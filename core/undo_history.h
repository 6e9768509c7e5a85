#pragma once
// Named edit steps with a memory budget: the oldest steps are dropped first, a new edit clears redo.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "core/edit_step.h"
#include "core/label_map.h"

namespace delineate::core {

class UndoHistory {
 public:
  static constexpr std::size_t kDefaultBudgetBytes = std::size_t(256) << 20;

  explicit UndoHistory(std::size_t budgetBytes = kDefaultBudgetBytes) : m_budget(budgetBytes) {}

  // The history follows one map by its content revision: it starts over at `contentRevision` (the map's current
  // one) with no steps and a new state serial.
  void reset(std::uint64_t contentRevision);

  // Records an applied step. Clears redo, then drops the oldest steps while over budget (the newest step is always
  // kept, even alone over budget, so the edit just made can be undone). When the map changed since the history's
  // last recorded state by an edit it never saw, the older steps can no longer be undone safely and are dropped.
  void push(EditStep step);


  bool canUndo() const { return !m_undo.empty(); }
  bool canRedo() const { return !m_redo.empty(); }
  const std::string* nextUndoName() const { return m_undo.empty() ? nullptr : &m_undo.back().name(); }
  const std::string* nextRedoName() const { return m_redo.empty() ? nullptr : &m_redo.back().name(); }
  // The step the next undo / redo would apply (after an undo, nextRedo() is the step just undone).
  const EditStep* nextUndo() const { return m_undo.empty() ? nullptr : &m_undo.back(); }
  const EditStep* nextRedo() const { return m_redo.empty() ? nullptr : &m_redo.back(); }

  // Apply the inverse / the step again to `map`; return the step's name, or nothing when there is none, while a
  // transaction is open on the map (it is refused, nothing changes), or when the map was changed behind the
  // history's back (the steps no longer describe it: they are dropped).
  std::optional<std::string> undo(LabelMap& map);
  std::optional<std::string> redo(LabelMap& map);
  // Whether the map's finished edits are all recorded here (false after an edit the history did not see).
  bool inSyncWith(const LabelMap& map) const { return map.contentRevision() == m_expectedRevision; }

  std::size_t undoCount() const { return m_undo.size(); }
  std::size_t redoCount() const { return m_redo.size(); }
  std::size_t droppedCount() const { return m_dropped; }
  std::size_t memoryBytes() const { return m_bytes; }
  std::size_t budgetBytes() const { return m_budget; }
  void setBudgetBytes(std::size_t bytes);

  // Identifies the current state of the map: the serial of the last applied step, or of the last dropped one.
  // Equal serials mean identical label voxels, which is what the session's dirty flag compares.
  std::uint64_t stateSerial() const { return m_undo.empty() ? m_baseSerial : m_undo.back().serial(); }

  void clear();

 private:
  void trim();
  std::optional<std::string> replay(LabelMap& map, bool forward);

  std::deque<EditStep> m_undo;
  std::deque<EditStep> m_redo;  // back() is the next redo
  std::size_t m_budget;
  std::size_t m_bytes = 0;
  std::size_t m_dropped = 0;
  std::uint64_t m_nextSerial = 1;
  std::uint64_t m_baseSerial = 0;
  std::uint64_t m_expectedRevision = 0;  // the map's content revision in the last recorded state
};

}  // namespace delineate::core
