#include "core/undo_history.h"

#include <utility>

namespace delineate::core {

void UndoHistory::push(EditStep step) {
  for (const EditStep& s : m_redo) m_bytes -= s.memoryBytes();
  m_redo.clear();
  step.m_serial = m_nextSerial++;
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
}

void UndoHistory::setBudgetBytes(std::size_t bytes) {
  m_budget = bytes;
  trim();
}

std::optional<std::string> UndoHistory::undo(LabelMap& map) {
  if (m_undo.empty()) return std::nullopt;
  EditStep step = std::move(m_undo.back());
  m_undo.pop_back();
  step.applyTo(map.m_voxels);
  map.bumpRevision();
  std::string name = step.name();
  m_redo.push_back(std::move(step));
  return name;
}

std::optional<std::string> UndoHistory::redo(LabelMap& map) {
  if (m_redo.empty()) return std::nullopt;
  EditStep step = std::move(m_redo.back());
  m_redo.pop_back();
  step.applyTo(map.m_voxels);
  map.bumpRevision();
  std::string name = step.name();
  m_undo.push_back(std::move(step));
  return name;
}

void UndoHistory::clear() {
  m_baseSerial = stateSerial();
  m_undo.clear();
  m_redo.clear();
  m_bytes = 0;
}

}  // namespace delineate::core
