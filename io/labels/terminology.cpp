#include "io/labels/terminology.h"

#include <algorithm>
#include <array>
#include <map>

#include <nlohmann/json.hpp>

#include "io/labels/label_table_formats_internal.h"

namespace delineate::io {

using namespace label_io_detail;
using core::CodedConcept;
using core::ErrorCode;
using core::LabelTable;
using core::makeError;
using core::Result;
using core::Status;

std::string normalizeLabelName(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (c == ' ' || c == '_' || c == '\t') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  std::sort(words.begin(), words.end());
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// ---- TerminologyMap ---------------------------------------------------------------------------------------------

Status TerminologyMap::add(TerminologyMapEntry entry) {
  std::string key = normalizeLabelName(entry.name);
  if (key.empty()) return makeError(ErrorCode::InvalidArgument, {}, "terminology map entry has no name");
  if (m_index.count(key))
    return makeError(ErrorCode::InvalidArgument, {}, "duplicate structure name '" + entry.name + "'");
  m_index.emplace(std::move(key), m_entries.size());
  m_entries.push_back(std::move(entry));
  return Status::success();
}

const TerminologyMapEntry* TerminologyMap::find(std::string_view name) const {
  auto it = m_index.find(normalizeLabelName(name));
  return it == m_index.end() ? nullptr : &m_entries[it->second];
}

namespace {

struct MapSequence {
  const char* prefix;
  CodedConcept core::Terminology::*member;
};
constexpr std::array<MapSequence, 5> kMapSequences = {{
    {"SegmentedPropertyCategoryCodeSequence", &core::Terminology::category},
    {"SegmentedPropertyTypeCodeSequence", &core::Terminology::type},
    {"SegmentedPropertyTypeModifierCodeSequence", &core::Terminology::typeModifier},
    {"AnatomicRegionSequence", &core::Terminology::region},
    {"AnatomicRegionModifierSequence", &core::Terminology::regionModifier},
}};
constexpr std::array<const char*, 3> kMapParts = {"CodingSchemeDesignator", "CodeValue", "CodeMeaning"};

std::string& part(CodedConcept& c, std::size_t p) { return p == 0 ? c.scheme : p == 1 ? c.value : c.meaning; }
const std::string& part(const CodedConcept& c, std::size_t p) {
  return p == 0 ? c.scheme : p == 1 ? c.value : c.meaning;
}

}  // namespace

Result<TerminologyMap> readTerminologyMapString(std::string_view text, const std::string& subject) {
  const std::vector<TextLine> lines = splitLines(stripBom(text));
  std::size_t i = 0;
  while (i < lines.size() && isBlank(lines[i].text)) ++i;
  if (i == lines.size()) return parseError(subject, 0, "no header line (Structure,...)");
  const TextLine& headerLine = lines[i];
  const SplitResult header = splitDelimited(headerLine.text, ',');
  if (!header.error.empty()) return parseError(subject, headerLine.number, header.error);
  auto column = [&](const std::string& name) -> int {
    const std::string want = toLower(name);
    for (std::size_t c = 0; c < header.fields.size(); ++c)
      if (toLower(trim(header.fields[c])) == want) return static_cast<int>(c);
    return -1;
  };
  const int nameCol = column("Structure");
  if (nameCol < 0) return parseError(subject, headerLine.number, "missing column 'Structure'");
  int codeCol[5][3];
  for (std::size_t s = 0; s < kMapSequences.size(); ++s)
    for (std::size_t p = 0; p < kMapParts.size(); ++p)
      codeCol[s][p] = column(std::string(kMapSequences[s].prefix) + "." + kMapParts[p]);
  const int colorCol = column("DicomRGBColor");

  TerminologyMap map;
  for (++i; i < lines.size(); ++i) {
    const TextLine& line = lines[i];
    if (isBlank(line.text)) continue;
    const SplitResult row = splitDelimited(line.text, ',');
    if (!row.error.empty()) return parseError(subject, line.number, row.error);
    if (row.fields.size() != header.fields.size())
      return parseError(
          subject, line.number,
          "expected " + std::to_string(header.fields.size()) + " fields, found " + std::to_string(row.fields.size()));
    auto cell = [&](int c) { return c < 0 ? std::string() : std::string(trim(row.fields[c])); };
    TerminologyMapEntry e;
    e.name = cell(nameCol);
    if (e.name.empty()) return parseError(subject, line.number, "empty structure name");
    for (std::size_t s = 0; s < kMapSequences.size(); ++s)
      for (std::size_t p = 0; p < kMapParts.size(); ++p)
        part(e.terminology.*(kMapSequences[s].member), p) = cell(codeCol[s][p]);
    const std::string rgb = cell(colorCol);
    if (!rgb.empty()) {
      const SplitResult parts = splitDelimited(rgb, ',');
      if (parts.fields.size() != 3)
        return parseError(subject, line.number, "DicomRGBColor '" + rgb + "' must be three numbers r,g,b");
      core::Rgba color;
      std::uint8_t* c3[3] = {&color.r, &color.g, &color.b};
      for (std::size_t k = 0; k < 3; ++k) {
        auto v = parseColorComponent(parts.fields[k], "colour", subject, line.number);
        if (!v) return v.error();
        *c3[k] = *v;
      }
      e.color = color;
    }
    if (Status s = map.add(std::move(e)); !s) return parseError(subject, line.number, s.error().detail);
  }
  return map;
}

Result<TerminologyMap> readTerminologyMapFile(const std::filesystem::path& path) {
  return parseWholeFile(path, [](std::string_view t, const std::string& s) { return readTerminologyMapString(t, s); });
}

std::string writeTerminologyMapString(const TerminologyMap& map) {
  std::vector<std::string> header = {"Structure"};
  for (const MapSequence& s : kMapSequences)
    for (const char* p : kMapParts) header.push_back(std::string(s.prefix) + "." + p);
  header.push_back("DicomRGBColor");
  std::string out = joinFields(header, ',') + "\n";
  for (const TerminologyMapEntry& e : map.entries()) {
    std::vector<std::string> row = {singleLine(e.name)};
    for (const MapSequence& s : kMapSequences)
      for (std::size_t p = 0; p < kMapParts.size(); ++p) row.push_back(singleLine(part(e.terminology.*(s.member), p)));
    row.push_back(e.color
                      ? std::to_string(e.color->r) + "," + std::to_string(e.color->g) + "," + std::to_string(e.color->b)
                      : std::string());
    out += joinFields(row, ',') + "\n";
  }
  return out;
}

Status writeTerminologyMapFile(const std::filesystem::path& path, const TerminologyMap& map) {
  return writeFileAtomically(path, writeTerminologyMapString(map));
}

std::size_t applyTerminologyMap(LabelTable& table, const TerminologyMap& map, const ApplyTerminologyOptions& options) {
  std::vector<core::Label> ids;
  for (const core::LabelEntry& e : table.entries()) ids.push_back(e.id);
  std::size_t matched = 0;
  for (core::Label id : ids) {
    core::LabelEntry* e = table.find(id);
    const TerminologyMapEntry* m = e ? map.find(e->name) : nullptr;
    if (!m) continue;
    ++matched;
    if (options.replaceTerminology || e->terminology.empty()) e->terminology = m->terminology;
    if (options.setColor && m->color) {
      e->color.r = m->color->r;
      e->color.g = m->color->g;
      e->color.b = m->color->b;
    }
  }
  return matched;
}

// ---- Slicer terminology context JSON ----------------------------------------------------------------------------

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSegName = "SegmentationCategoryTypeContextName";
constexpr const char* kAnatName = "AnatomicContextName";

struct Node {
  CodedConcept code;
  std::optional<core::Rgba> color;
  std::string label;
  std::optional<int> integerLabel;
  std::vector<std::pair<std::string, std::string>> attributes;
};

int lineOfByte(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

core::Error structureError(const std::string& subject, const std::string& path, const std::string& why) {
  return parseError(subject, 0, path + ": " + why);
}

Result<Node> parseNode(const Json& j, const std::string& path, const char* childKey, const std::string& subject) {
  if (!j.is_object()) return structureError(subject, path, "expected an object");
  Node n;
  bool have[3] = {false, false, false};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == childKey) continue;
    bool isPart = false;
    for (std::size_t p = 0; p < kMapParts.size(); ++p) {
      if (key != kMapParts[p]) continue;
      isPart = true;
      // Some hand-made contexts write CodeValue as a number; keep its text.
      if (v.is_string())
        part(n.code, p) = v.get<std::string>();
      else if (v.is_number())
        part(n.code, p) = v.dump();
      else
        return structureError(subject, path, key + " must be a string");
      have[p] = true;
    }
    if (isPart) continue;
    if (key == "recommendedDisplayRGBValue") {
      if (!v.is_array() || (v.size() != 3 && v.size() != 4))
        return structureError(subject, path, "recommendedDisplayRGBValue must be 3 or 4 numbers");
      core::Rgba c;
      std::uint8_t* dst[4] = {&c.r, &c.g, &c.b, &c.a};
      for (std::size_t k = 0; k < v.size(); ++k) {
        const Json& x = v[k];
        if (!x.is_number() || x.get<double>() < 0 || x.get<double>() > 255)
          return structureError(subject, path, "recommendedDisplayRGBValue " + x.dump() + " out of range 0..255");
        *dst[k] = static_cast<std::uint8_t>(std::lround(x.get<double>()));
      }
      n.color = c;
    } else if (key == "3dSlicerLabel") {
      if (!v.is_string()) return structureError(subject, path, "3dSlicerLabel must be a string");
      n.label = v.get<std::string>();
    } else if (key == "3dSlicerIntegerLabel") {
      if (!v.is_number_integer()) return structureError(subject, path, "3dSlicerIntegerLabel must be an integer");
      const auto x = v.get<long long>();
      if (x < -2147483647LL || x > 2147483647LL)
        return structureError(subject, path, "3dSlicerIntegerLabel " + v.dump() + " out of range");
      n.integerLabel = static_cast<int>(x);
    } else {
      n.attributes.emplace_back(key, v.dump());
    }
  }
  for (std::size_t p = 0; p < kMapParts.size(); ++p)
    if (!have[p]) return structureError(subject, path, std::string("missing ") + kMapParts[p]);
  return n;
}

TerminologyContextEntry entryFrom(const Node& n) {
  TerminologyContextEntry e;
  e.recommendedColor = n.color;
  e.slicerLabel = n.label;
  e.slicerIntegerLabel = n.integerLabel;
  e.attributes = n.attributes;
  return e;
}

// Children arrays are optional; when present they must be arrays.
Result<const Json*> children(const Json& parent, const char* key, const std::string& path, const std::string& subject) {
  auto it = parent.find(key);
  if (it == parent.end()) return static_cast<const Json*>(nullptr);
  if (!it->is_array()) return structureError(subject, path, std::string(key) + " must be an array");
  return &*it;
}

Result<TerminologyContext> parseContext(const Json& doc, const std::string& subject) {
  if (!doc.is_object()) return parseError(subject, 0, "expected a JSON object at the top level");
  TerminologyContext ctx;
  auto stringField = [&](const char* key) -> std::string {
    auto it = doc.find(key);
    return (it != doc.end() && it->is_string()) ? it->get<std::string>() : std::string();
  };
  ctx.schema = stringField("@schema");
  const bool seg = doc.contains("SegmentationCodes");
  if (!seg && !doc.contains("AnatomicCodes"))
    return parseError(subject, 0, "neither SegmentationCodes nor AnatomicCodes: not a Slicer terminology context");
  ctx.kind = seg ? TerminologyContextKind::SegmentationCategoryType : TerminologyContextKind::AnatomicRegion;
  ctx.name = stringField(seg ? kSegName : kAnatName);
  const char* codesKey = seg ? "SegmentationCodes" : "AnatomicCodes";
  const char* topKey = seg ? "Category" : "AnatomicRegion";
  const Json& codes = doc.at(codesKey);
  if (!codes.is_object()) return parseError(subject, 0, std::string(codesKey) + " must be an object");
  auto tops = children(codes, topKey, codesKey, subject);
  if (!tops) return tops.error();
  if (!*tops) return parseError(subject, 0, std::string(codesKey) + "." + topKey + " is missing");

  const std::string topPath = std::string(codesKey) + "." + topKey;
  for (std::size_t a = 0; a < (*tops)->size(); ++a) {
    const std::string pathA = topPath + "[" + std::to_string(a) + "]";
    const Json& ja = (**tops)[a];
    const char* childA = seg ? "Type" : "Modifier";
    auto na = parseNode(ja, pathA, childA, subject);
    if (!na) return na.error();
    TerminologyContextEntry ea = entryFrom(*na);
    ea.category = na->code;
    ctx.entries.push_back(ea);
    auto kidsA = children(ja, childA, pathA, subject);
    if (!kidsA) return kidsA.error();
    if (!*kidsA) continue;
    for (std::size_t b = 0; b < (*kidsA)->size(); ++b) {
      const std::string pathB = pathA + "." + childA + "[" + std::to_string(b) + "]";
      const Json& jb = (**kidsA)[b];
      auto nb = parseNode(jb, pathB, seg ? "Modifier" : "", subject);
      if (!nb) return nb.error();
      TerminologyContextEntry eb = entryFrom(*nb);
      eb.category = na->code;
      if (!seg) {
        eb.modifier = nb->code;
        ctx.entries.push_back(std::move(eb));
        continue;
      }
      eb.type = nb->code;
      ctx.entries.push_back(eb);
      auto kidsB = children(jb, "Modifier", pathB, subject);
      if (!kidsB) return kidsB.error();
      if (!*kidsB) continue;
      for (std::size_t c = 0; c < (*kidsB)->size(); ++c) {
        const std::string pathC = pathB + ".Modifier[" + std::to_string(c) + "]";
        auto nc = parseNode((**kidsB)[c], pathC, "", subject);
        if (!nc) return nc.error();
        TerminologyContextEntry ec = entryFrom(*nc);
        ec.category = na->code;
        ec.type = nb->code;
        ec.modifier = nc->code;
        ctx.entries.push_back(std::move(ec));
      }
    }
  }
  return ctx;
}

Json nodeJson(const CodedConcept& code, const TerminologyContextEntry* e) {
  Json j = Json::object();
  j["CodingSchemeDesignator"] = code.scheme;
  j["CodeValue"] = code.value;
  j["CodeMeaning"] = code.meaning;
  if (!e) return j;
  for (const auto& [key, text] : e->attributes) {
    Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    j[key] = v.is_discarded() ? Json(text) : v;
  }
  if (e->recommendedColor) {
    const core::Rgba& c = *e->recommendedColor;
    Json rgb = Json::array({int(c.r), int(c.g), int(c.b)});
    if (c.a != 255) rgb.push_back(int(c.a));
    j["recommendedDisplayRGBValue"] = rgb;
  }
  if (!e->slicerLabel.empty()) j["3dSlicerLabel"] = e->slicerLabel;
  if (e->slicerIntegerLabel) j["3dSlicerIntegerLabel"] = *e->slicerIntegerLabel;
  return j;
}

struct TypeNode {
  CodedConcept code;
  const TerminologyContextEntry* entry = nullptr;
  std::vector<const TerminologyContextEntry*> modifiers;
};
struct TopNode {
  CodedConcept code;
  const TerminologyContextEntry* entry = nullptr;
  std::vector<TypeNode> types;                            // segmentation contexts
  std::vector<const TerminologyContextEntry*> modifiers;  // anatomic contexts
};

template <class T>
T& lastWithCode(std::vector<T>& nodes, const CodedConcept& code) {
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if (it->code == code) return *it;
  nodes.push_back(T{});
  nodes.back().code = code;
  return nodes.back();
}

// Offset of the first bracket nesting deeper than `limit` (outside strings), or npos. nlohmann's parser and
// serializer recurse once per level, so a file of a few hundred kB of '[' would exhaust the stack; real terminology
// files nest 6 levels deep.
std::size_t excessiveNesting(std::string_view text, int limit) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

constexpr int kMaxJsonDepth = 64;

}  // namespace

Result<TerminologyContext> readTerminologyContextString(std::string_view text, const std::string& subject) {
  text = stripBom(text);
  if (const std::size_t deep = excessiveNesting(text, kMaxJsonDepth); deep != std::string_view::npos)
    return parseError(subject, lineOfByte(text, deep),
                      "JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." -> keep the part after the tag.
    if (const std::size_t close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    return parseError(subject, lineOfByte(text, e.byte > 0 ? e.byte - 1 : 0), "JSON " + what);
  }
  try {
    return parseContext(doc, subject);
  } catch (const Json::exception& e) {
    // Every access above is type-checked first; this is a safety net so garbage never escapes as an exception.
    return parseError(subject, 0, std::string("unexpected JSON structure: ") + e.what());
  }
}

Result<TerminologyContext> readTerminologyContextFile(const std::filesystem::path& path) {
  return parseWholeFile(path, [](std::string_view t, const std::string& s) { return readTerminologyContextString(t, s); });
}

std::string writeTerminologyContextString(const TerminologyContext& ctx) {
  const bool seg = ctx.kind == TerminologyContextKind::SegmentationCategoryType;
  std::vector<TopNode> tops;
  for (const TerminologyContextEntry& e : ctx.entries) {
    if (seg) {
      if (e.type.empty()) {
        tops.push_back(TopNode{e.category, &e, {}, {}});
        continue;
      }
      TopNode& top = lastWithCode(tops, e.category);
      if (e.modifier.empty()) {
        top.types.push_back(TypeNode{e.type, &e, {}});
        continue;
      }
      lastWithCode(top.types, e.type).modifiers.push_back(&e);
    } else {
      if (e.modifier.empty()) {
        tops.push_back(TopNode{e.category, &e, {}, {}});
        continue;
      }
      lastWithCode(tops, e.category).modifiers.push_back(&e);
    }
  }

  Json doc = Json::object();
  doc[seg ? kSegName : kAnatName] = ctx.name;
  doc["@schema"] = ctx.schema;
  Json list = Json::array();
  for (const TopNode& top : tops) {
    Json jt = nodeJson(top.code, top.entry);
    if (seg) {
      Json types = Json::array();
      for (const TypeNode& t : top.types) {
        Json jty = nodeJson(t.code, t.entry);
        if (!t.modifiers.empty()) {
          Json mods = Json::array();
          for (const TerminologyContextEntry* m : t.modifiers) mods.push_back(nodeJson(m->modifier, m));
          jty["Modifier"] = std::move(mods);
        }
        types.push_back(std::move(jty));
      }
      jt["Type"] = std::move(types);
    } else if (!top.modifiers.empty()) {
      Json mods = Json::array();
      for (const TerminologyContextEntry* m : top.modifiers) mods.push_back(nodeJson(m->modifier, m));
      jt["Modifier"] = std::move(mods);
    }
    list.push_back(std::move(jt));
  }
  doc[seg ? "SegmentationCodes" : "AnatomicCodes"][seg ? "Category" : "AnatomicRegion"] = std::move(list);
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Status writeTerminologyContextFile(const std::filesystem::path& path, const TerminologyContext& ctx) {
  return writeFileAtomically(path, writeTerminologyContextString(ctx));
}

LabelTable labelTableFromTerminologyContext(const TerminologyContext& ctx) {
  const bool seg = ctx.kind == TerminologyContextKind::SegmentationCategoryType;
  std::map<core::Label, const TerminologyContextEntry*> chosen;
  for (const TerminologyContextEntry& e : ctx.entries) {
    if (!e.slicerIntegerLabel || *e.slicerIntegerLabel < 0 || *e.slicerIntegerLabel > 65535) continue;
    const auto id = static_cast<core::Label>(*e.slicerIntegerLabel);
    auto [it, inserted] = chosen.emplace(id, &e);
    if (!inserted && it->second->slicerLabel.empty() && !e.slicerLabel.empty()) it->second = &e;
  }
  LabelTable table;
  for (const auto& [id, e] : chosen) {
    core::LabelEntry entry;
    entry.id = id;
    if (seg) {
      entry.terminology.category = e->category;
      entry.terminology.type = e->type;
      entry.terminology.typeModifier = e->modifier;
    } else {
      entry.terminology.region = e->category;
      entry.terminology.regionModifier = e->modifier;
    }
    entry.name = e->slicerLabel;
    if (entry.name.empty()) {
      const CodedConcept& base = seg ? (e->type.empty() ? e->category : e->type) : e->category;
      entry.name = e->modifier.empty() ? base.meaning : e->modifier.meaning + " " + base.meaning;
    }
    if (trim(entry.name).empty()) entry.name = "label_" + std::to_string(id);
    entry.color = e->recommendedColor ? *e->recommendedColor : LabelTable::defaultColor(id);
    table.set(std::move(entry));
  }
  return table;
}

}  // namespace delineate::io
