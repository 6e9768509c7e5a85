#pragma once
// Terminology sources that are not label tables themselves:
//  - a name -> (DICOM terminology, colour) mapping such as TotalSegmentator's SNOMED mapping CSV, applied to a
//    LabelTable by name;
//  - 3D Slicer terminology context JSON files (SegmentationCategoryTypeModifier-*.json,
//    AnatomicRegionAndModifier-*.json; the dcmqi segment/anatomic context schemas).
// Errors follow io/labels/label_table_io.h: ParseError naming the source and line, NotFound for a missing file, atomic
// file writes.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/label_table.h"

namespace delineate::io {

// Lower-cases, splits on spaces and underscores, sorts the words and joins them with one space, so that
// "right kidney", "Kidney_Right" and "kidney right" compare equal.
std::string normalizeLabelName(std::string_view name);

// ---------------------------------------------------------------------------------------------------------------
// Name -> terminology mapping.

struct TerminologyMapEntry {
  std::string name;  // as written in the file, e.g. "kidney_right"
  core::Terminology terminology;
  std::optional<core::Rgba> color;  // DicomRGBColor (alpha 255); absent when the cell is empty

  bool operator==(const TerminologyMapEntry& o) const {
    return name == o.name && terminology == o.terminology && color == o.color;
  }
  bool operator!=(const TerminologyMapEntry& o) const { return !(*this == o); }
};

class TerminologyMap {
 public:
  // Fails (InvalidArgument) on an empty name or one whose normalised form is already present.
  core::Status add(TerminologyMapEntry entry);
  // Looks the name up by its normalised form.
  const TerminologyMapEntry* find(std::string_view name) const;

  // In file order.
  const std::vector<TerminologyMapEntry>& entries() const { return m_entries; }
  std::size_t size() const { return m_entries.size(); }
  bool empty() const { return m_entries.empty(); }

  bool operator==(const TerminologyMap& o) const { return m_entries == o.m_entries; }
  bool operator!=(const TerminologyMap& o) const { return !(*this == o); }

 private:
  std::vector<TerminologyMapEntry> m_entries;
  std::unordered_map<std::string, std::size_t> m_index;  // normalised name -> position in m_entries
};

// The TotalSegmentator mapping CSV: Structure, then SegmentedPropertyCategoryCodeSequence / SegmentedPropertyType-
// CodeSequence / SegmentedPropertyTypeModifierCodeSequence / AnatomicRegionSequence / AnatomicRegionModifier-
// Sequence, each .CodingSchemeDesignator/.CodeValue/.CodeMeaning, and DicomRGBColor ("r,g,b"). Columns are found
// by name; Structure is required.
core::Result<TerminologyMap> readTerminologyMapString(std::string_view text, const std::string& subject);
core::Result<TerminologyMap> readTerminologyMapFile(const std::filesystem::path& path);
std::string writeTerminologyMapString(const TerminologyMap& map);
core::Status writeTerminologyMapFile(const std::filesystem::path& path, const TerminologyMap& map);

struct ApplyTerminologyOptions {
  bool setColor = true;            // take the mapping's RGB (the entry keeps its alpha)
  bool replaceTerminology = true;  // false: only entries without terminology get one
};

// Gives every table entry whose normalised name is in `map` the mapped terminology (and colour). Returns how many
// entries matched.
std::size_t applyTerminologyMap(core::LabelTable& table, const TerminologyMap& map,
                                const ApplyTerminologyOptions& options = {});

// ---------------------------------------------------------------------------------------------------------------
// Slicer terminology context JSON, flattened: one entry per node of the file's tree, in file order.
//   Segmentation contexts: a category node (type and modifier empty), each of its type nodes (modifier empty) and
//   each type's modifier nodes.
//   Anatomic contexts: a region node (`category` holds the region, modifier empty) and each region modifier node.
// Attributes other than the code, recommendedDisplayRGBValue, 3dSlicerLabel and 3dSlicerIntegerLabel (cid,
// contextGroupName, UMLSConceptUID, SNOMEDCTConceptID, showAnatomy, paired, ...) are kept as JSON text in
// `attributes` so the file can be written back without losing them.

enum class TerminologyContextKind { SegmentationCategoryType, AnatomicRegion };

struct TerminologyContextEntry {
  core::CodedConcept category;  // the anatomic region in anatomic contexts
  core::CodedConcept type;      // empty for category nodes and in anatomic contexts
  core::CodedConcept modifier;  // empty unless this is a modifier node
  std::optional<core::Rgba> recommendedColor;
  std::string slicerLabel;                                      // 3dSlicerLabel
  std::optional<int> slicerIntegerLabel;                        // 3dSlicerIntegerLabel
  std::vector<std::pair<std::string, std::string>> attributes;  // other keys of this node: name -> JSON text

  bool operator==(const TerminologyContextEntry& o) const {
    return category == o.category && type == o.type && modifier == o.modifier &&
           recommendedColor == o.recommendedColor && slicerLabel == o.slicerLabel &&
           slicerIntegerLabel == o.slicerIntegerLabel && attributes == o.attributes;
  }
  bool operator!=(const TerminologyContextEntry& o) const { return !(*this == o); }
};

struct TerminologyContext {
  TerminologyContextKind kind = TerminologyContextKind::SegmentationCategoryType;
  std::string name;    // SegmentationCategoryTypeContextName or AnatomicContextName
  std::string schema;  // "@schema"
  std::vector<TerminologyContextEntry> entries;

  bool operator==(const TerminologyContext& o) const {
    return kind == o.kind && name == o.name && schema == o.schema && entries == o.entries;
  }
  bool operator!=(const TerminologyContext& o) const { return !(*this == o); }
};

// JSON syntax errors carry the line; structural errors (a node without CodeValue, a colour that is not three
// numbers 0..255) name the node path, e.g. "SegmentationCodes.Category[2].Type[5]: missing CodeValue".
core::Result<TerminologyContext> readTerminologyContextString(std::string_view text, const std::string& subject);
core::Result<TerminologyContext> readTerminologyContextFile(const std::filesystem::path& path);
// Nodes are regrouped under the most recent parent with the same codes (a parent missing from the list is
// created), so reading what was written gives back the same entries.
std::string writeTerminologyContextString(const TerminologyContext& context);
core::Status writeTerminologyContextFile(const std::filesystem::path& path, const TerminologyContext& context);

// The entries that carry 3dSlicerIntegerLabel (0..65535) as a LabelTable: name = 3dSlicerLabel, else the code
// meanings ("Left Kidney"); colour = recommendedDisplayRGBValue, else LabelTable::defaultColor; terminology =
// category/type/modifier. Slicer's own files reuse some integer labels; the first entry that has a 3dSlicerLabel
// wins, else the first one.
core::LabelTable labelTableFromTerminologyContext(const TerminologyContext& context);

}  // namespace delineate::io
