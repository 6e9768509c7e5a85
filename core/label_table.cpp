#include "core/label_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

namespace {

struct Lab {
  double l = 0, a = 0, b = 0;
};

Lab toLab(double r8, double g8, double b8) {
  auto linear = [](double c) {
    c /= 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  const double r = linear(r8), g = linear(g8), b = linear(b8);
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}
Lab toLab(Rgba c) { return toLab(c.r, c.g, c.b); }
double distance(const Lab& p, const Lab& q) { return std::sqrt((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) + (p.b - q.b) * (p.b - q.b)); }

// Farthest-first in CIELAB over an sRGB grid (steps of 15), kept to lightness 45..92 and chroma 30 and up: darker or
// greyer colours vanish over a CT's soft tissue. Starts at a crimson; each next colour is the candidate farthest
// from all chosen so far (the first of equals in grid order), so the palette is the same on every machine.
const std::vector<Rgba>& palette() {
  static const std::vector<Rgba> colours = [] {
    std::vector<Rgba> rgb;
    std::vector<Lab> lab;
    for (int r = 0; r <= 255; r += 15)
      for (int g = 0; g <= 255; g += 15)
        for (int b = 0; b <= 255; b += 15) {
          const Lab c = toLab(r, g, b);
          if (c.l < 45 || c.l > 92 || std::hypot(c.a, c.b) < 30) continue;
          rgb.push_back(Rgba{std::uint8_t(r), std::uint8_t(g), std::uint8_t(b), 255});
          lab.push_back(c);
        }
    std::vector<Rgba> out;
    std::vector<double> nearest(rgb.size(), std::numeric_limits<double>::infinity());
    const Lab start = toLab(230, 25, 75);
    std::size_t pick = 0;
    for (std::size_t i = 1; i < lab.size(); ++i)
      if (distance(lab[i], start) < distance(lab[pick], start)) pick = i;
    while (out.size() < LabelTable::kDistinctColors) {
      out.push_back(rgb[pick]);
      for (std::size_t i = 0; i < lab.size(); ++i) nearest[i] = std::min(nearest[i], distance(lab[i], lab[pick]));
      pick = 0;
      for (std::size_t i = 1; i < lab.size(); ++i)
        if (nearest[i] > nearest[pick]) pick = i;
    }
    return out;
  }();
  return colours;
}

}  // namespace

Rgba LabelTable::distinctColor(std::size_t index) {
  return index < kDistinctColors ? palette()[index] : defaultColor(static_cast<Label>(std::min<std::size_t>(index + 1, 65535)));
}

void LabelTable::assignDistinctColors() {
  std::size_t next = 0;
  for (auto& e : m_entries)
    if (e.id != 0) e.color = distinctColor(next++);  // background (0) is never drawn
}

Rgba LabelTable::colorForNewLabel() const {
  std::vector<Lab> used;
  for (const auto& e : m_entries)
    if (e.id != 0) used.push_back(toLab(e.color));
  if (used.empty()) return distinctColor(0);
  std::size_t best = 0;
  double bestDistance = -1;
  for (std::size_t i = 0; i < kDistinctColors; ++i) {
    const Lab c = toLab(distinctColor(i));
    double nearest = std::numeric_limits<double>::infinity();
    for (const Lab& u : used) nearest = std::min(nearest, distance(c, u));
    if (nearest > bestDistance) best = i, bestDistance = nearest;
  }
  return distinctColor(best);
}

double LabelTable::colorDistance(Rgba a, Rgba b) { return distance(toLab(a), toLab(b)); }

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
