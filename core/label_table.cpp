#include "core/label_table.h"

#include <algorithm>
#include <cmath>

namespace delineate::core {

std::vector<LabelEntry>::iterator LabelTable::lowerBound(Label id) {
  return std::lower_bound(m_entries.begin(), m_entries.end(), id,
                          [](const LabelEntry& e, Label v) { return e.id < v; });
}

std::vector<LabelEntry>::const_iterator LabelTable::lowerBound(Label id) const {
  return std::lower_bound(m_entries.begin(), m_entries.end(), id,
                          [](const LabelEntry& e, Label v) { return e.id < v; });
}

Status LabelTable::add(LabelEntry entry) {
  if (entry.name.empty())
    return makeError(ErrorCode::InvalidArgument, {}, "label " + std::to_string(entry.id) + " has no name");
  auto it = lowerBound(entry.id);
  if (it != m_entries.end() && it->id == entry.id)
    return makeError(ErrorCode::InvalidArgument, {}, "duplicate label id " + std::to_string(entry.id));
  m_entries.insert(it, std::move(entry));
  return Status::success();
}

void LabelTable::set(LabelEntry entry) {
  auto it = lowerBound(entry.id);
  if (it != m_entries.end() && it->id == entry.id)
    *it = std::move(entry);
  else
    m_entries.insert(it, std::move(entry));
}

bool LabelTable::remove(Label id) {
  auto it = lowerBound(id);
  if (it == m_entries.end() || it->id != id) return false;
  m_entries.erase(it);
  return true;
}

const LabelEntry* LabelTable::find(Label id) const {
  auto it = lowerBound(id);
  return (it != m_entries.end() && it->id == id) ? &*it : nullptr;
}

LabelEntry* LabelTable::find(Label id) {
  auto it = lowerBound(id);
  return (it != m_entries.end() && it->id == id) ? &*it : nullptr;
}

const LabelEntry* LabelTable::findByName(const std::string& name) const {
  for (const LabelEntry& e : m_entries)
    if (e.name == name) return &e;
  return nullptr;
}

Label LabelTable::nextFreeId() const {
  Label expected = 1;
  for (const LabelEntry& e : m_entries) {
    if (e.id < expected) continue;
    if (e.id > expected) return expected;
    if (expected == 65535) return 0;
    ++expected;
  }
  return expected;
}

Label LabelTable::nextFreeId(const std::set<Label>& alsoTaken) const {
  for (std::uint32_t id = 1; id <= 65535; ++id)
    if (!contains(static_cast<Label>(id)) && !alsoTaken.count(static_cast<Label>(id))) return static_cast<Label>(id);
  return 0;
}

Rgba LabelTable::defaultColor(Label id) {
  // Golden-angle hue steps keep neighbouring ids far apart in hue; saturation/value alternate for more contrast.
  const double hue = std::fmod(double(id) * 137.50776405, 360.0) / 60.0;
  const double sat = (id % 2 == 0) ? 0.65 : 0.85;
  const double val = (id % 3 == 0) ? 0.80 : 0.95;
  const double c = val * sat;
  const double x = c * (1 - std::abs(std::fmod(hue, 2.0) - 1));
  const double m = val - c;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(hue)) {
    case 0: r = c; g = x; break;
    case 1: r = x; g = c; break;
    case 2: g = c; b = x; break;
    case 3: g = x; b = c; break;
    case 4: r = x; b = c; break;
    default: r = c; b = x; break;
  }
  auto to8 = [m](double v) { return static_cast<std::uint8_t>(std::lround((v + m) * 255.0)); };
  return Rgba{to8(r), to8(g), to8(b), 255};
}

}  // namespace delineate::core
