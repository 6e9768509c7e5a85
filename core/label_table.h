#pragma once
// Label descriptions: id, name, colour, visibility, lock and DICOM-style coded concepts (SNOMED where known),
// so DICOM SEG export gets real codes.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"

namespace delineate::core {

// A DICOM code: coding scheme designator (e.g. "SCT"), code value and code meaning.
struct CodedConcept {
  std::string scheme;
  std::string value;
  std::string meaning;

  bool empty() const { return scheme.empty() && value.empty() && meaning.empty(); }
  bool operator==(const CodedConcept& o) const {
    return scheme == o.scheme && value == o.value && meaning == o.meaning;
  }
  bool operator!=(const CodedConcept& o) const { return !(*this == o); }
};

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  bool operator==(const Rgba& o) const { return r == o.r && g == o.g && b == o.b && a == o.a; }
  bool operator!=(const Rgba& o) const { return !(*this == o); }
};

// The segmented property and anatomic region of a label, as DICOM SEG's segment sequence describes them.
struct Terminology {
  CodedConcept category;       // e.g. SCT 123037004 "Anatomical Structure"
  CodedConcept type;           // e.g. SCT 10200004 "Liver"
  CodedConcept typeModifier;   // e.g. SCT 7771000 "Left"
  CodedConcept region;         // anatomic region (for types such as "Mass")
  CodedConcept regionModifier;

  bool empty() const {
    return category.empty() && type.empty() && typeModifier.empty() && region.empty() && regionModifier.empty();
  }
  bool operator==(const Terminology& o) const {
    return category == o.category && type == o.type && typeModifier == o.typeModifier && region == o.region &&
           regionModifier == o.regionModifier;
  }
  bool operator!=(const Terminology& o) const { return !(*this == o); }
};

struct LabelEntry {
  Label id = 0;
  std::string name;
  Rgba color;
  bool visible = true;
  bool locked = false;
  bool meshVisible = true;  // ITK-SNAP's MSH column: shown in 3D
  Terminology terminology;

  bool operator==(const LabelEntry& o) const {
    return id == o.id && name == o.name && color == o.color && visible == o.visible && locked == o.locked &&
           meshVisible == o.meshVisible && terminology == o.terminology;
  }
  bool operator!=(const LabelEntry& o) const { return !(*this == o); }
};

class LabelTable {
 public:
  LabelTable() = default;

  // Adds an entry; fails if the id is already present or the name is empty.
  Status add(LabelEntry entry);
  // Adds or replaces the entry with the same id.
  void set(LabelEntry entry);
  bool remove(Label id);

  const LabelEntry* find(Label id) const;
  LabelEntry* find(Label id);
  const LabelEntry* findByName(const std::string& name) const;  // exact match
  bool contains(Label id) const { return find(id) != nullptr; }

  // Entries sorted by id.
  const std::vector<LabelEntry>& entries() const { return m_entries; }
  std::size_t size() const { return m_entries.size(); }
  bool empty() const { return m_entries.empty(); }

  // Lowest id >= 1 not in the table (0 when all 65535 are taken).
  Label nextFreeId() const;
  // Lowest id >= 1 neither in the table nor among `alsoTaken` (e.g. the ids the label map carries): a new label must
  // never take an id that voxels already have, or those voxels silently become the new label. 0 when none is left.
  Label nextFreeId(const std::set<Label>& alsoTaken) const;
  bool isLocked(Label id) const {
    const LabelEntry* e = find(id);
    return e != nullptr && e->locked;
  }

  // Free-text notes carried by some formats (comments, trailing notes in CSV files); kept for round trips.
  std::vector<std::string>& notes() { return m_notes; }
  const std::vector<std::string>& notes() const { return m_notes; }

  // A distinct, deterministic colour for label ids that come without one (golden-angle hue walk).
  static Rgba defaultColor(Label id);

  // Colours that stay apart in a table (issue 41: the golden-angle walk gave labels 1 and 14 of the mouse atlas
  // nearly the same green, 7 CIELAB units apart). A fixed palette of kDistinctColors, chosen farthest-first in
  // CIELAB among colours light and saturated enough to show over a grey image: any 30 of its first colours are at
  // least 30 units (CIE76 delta E) apart, 38 at least 25. Past the palette: defaultColor.
  static constexpr std::size_t kDistinctColors = 64;
  static Rgba distinctColor(std::size_t index);
  // Every entry's colour from the palette, in id order, 0 left out (for tables read from files that carry none).
  void assignDistinctColors();
  // The palette colour farthest (CIELAB) from every colour in the table: what a label added to it gets.
  Rgba colorForNewLabel() const;
  // CIE76 colour difference (Euclidean distance in CIELAB, D65) of two sRGB colours.
  static double colorDistance(Rgba a, Rgba b);

  bool operator==(const LabelTable& o) const { return m_entries == o.m_entries; }
  bool operator!=(const LabelTable& o) const { return !(*this == o); }

 private:
  std::vector<LabelEntry>::iterator lowerBound(Label id);
  std::vector<LabelEntry>::const_iterator lowerBound(Label id) const;

  std::vector<LabelEntry> m_entries;
  std::vector<std::string> m_notes;
};

}  // namespace delineate::core
