#include "core/undo_history.h"

#include <utility>

namespace delineate::core {

void UndoHistory::reset(std::uint64_t contentRevision) {
  clear();
  m_baseSerial = m_nextSerial++;
  m_expectedRevision = contentRevision;
}

void UndoHistory::push(EditStep step) {
  // The map was changed by an edit never pushed here: what it holds now is a state no serial names yet.
  if (step.revisionBefore() != m_expectedRevision) reset(step.revisionBefore());
  for (const EditStep& s : m_redo) m_bytes -= s.memoryBytes();
  m_redo.clear();
  step.m_serial = m_nextSerial++;
  m_expectedRevision = step.revisionAfter();
  m_bytes += step.memoryBytes();
  m_undo.push_back(std::move(step));
  trim();
}

void UndoHistory::trim() {
  while (m_bytes > m_budget && m_undo.size() > 1) {
    m_bytes -= m_undo.front().memoryBytes();
    m_baseSerial = m_undo.front().serial();
    m_undo.pop_front();
    ++m_dropped;
  }
  // Then the redo steps furthest in the future; the next redo goes last, like the newest undo step.
  while (m_bytes > m_budget && m_redo.size() > 1) {
    m_bytes -= m_redo.front().memoryBytes();
    m_redo.pop_front();
    ++m_dropped;
  }
}

void UndoHistory::setBudgetBytes(std::size_t bytes) {
  m_budget = bytes;
  trim();
}

std::optional<std::string> UndoHistory::replay(LabelMap& map, bool forward) {
  if (map.hasOpenTransaction()) return std::nullopt;
  if (!inSyncWith(map)) {
    reset(map.contentRevision());
    return std::nullopt;
  }
  auto& from = forward ? m_redo : m_undo;
  if (from.empty()) return std::nullopt;
  EditStep step = std::move(from.back());
  from.pop_back();
  if (!step.applyTo(map.mutableVoxels())) {  // recorded on another grid: these steps do not describe this map
    m_bytes -= step.memoryBytes();
    reset(map.contentRevision());
    return std::nullopt;
  }
  map.bumpContentRevision();
  m_expectedRevision = map.contentRevision();
  std::string name = step.name();
  (forward ? m_undo : m_redo).push_back(std::move(step));
  return name;
}

std::optional<std::string> UndoHistory::undo(LabelMap& map) { return replay(map, false); }
std::optional<std::string> UndoHistory::redo(LabelMap& map) { return replay(map, true); }

void UndoHistory::clear() {
  m_baseSerial = stateSerial();
  m_undo.clear();
  m_redo.clear();
  m_bytes = 0;
}

}  // namespace delineate::core
