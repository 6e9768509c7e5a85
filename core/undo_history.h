#pragma once
// Named edit steps with a memory budget: the oldest steps are dropped first, a new edit clears redo.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/edit_step.h"
#include "core/label_map.h"

namespace delineate::core {

class UndoHistory {
 public:
  static constexpr std::size_t kDefaultBudgetBytes = std::size_t(256) << 20;

  explicit UndoHistory(std::size_t budgetBytes = kDefaultBudgetBytes) : m_budget(budgetBytes) {}

  // Records an applied step. Clears redo, then drops the oldest steps while over budget (the newest step is always
  // kept, even alone over budget, so the edit just made can be undone).
  void push(EditStep step);

  bool canUndo() const { return !m_undo.empty(); }
  bool canRedo() const { return !m_redo.empty(); }
  const std::string* nextUndoName() const { return m_undo.empty() ? nullptr : &m_undo.back().name(); }
  const std::string* nextRedoName() const { return m_redo.empty() ? nullptr : &m_redo.back().name(); }

  // Apply the inverse / the step again to `map`; return the step's name, or nothing when there is none.
  std::optional<std::string> undo(LabelMap& map);
  std::optional<std::string> redo(LabelMap& map);

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

  std::deque<EditStep> m_undo;
  std::vector<EditStep> m_redo;
  std::size_t m_budget;
  std::size_t m_bytes = 0;
  std::size_t m_dropped = 0;
  std::uint64_t m_nextSerial = 1;
  std::uint64_t m_baseSerial = 0;
};

}  // namespace delineate::core
