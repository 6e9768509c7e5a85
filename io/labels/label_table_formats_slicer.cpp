// ITK-SNAP label descriptions and the two 3D Slicer colour-table forms (.txt/.ctbl and CSV).

#include <array>
#include <cmath>
#include <cstdio>

#include "io/labels/label_table_formats_internal.h"
#include "io/labels/label_table_io.h"

namespace delineate::io {

using namespace label_io_detail;

namespace {

// ---- ITK-SNAP ---------------------------------------------------------------------------------------------------

constexpr const char* kItkSnapColumnHeader = "# IDX   -R-  -G-  -B-  -A--  VIS MSH  LABEL";

bool isItkSnapColumnHeader(std::string_view line) {
  const TokenizeResult t = tokenizeWhitespace(line.substr(1));
  static const std::array<const char*, 8> expected = {"IDX", "-R-", "-G-", "-B-", "-A--", "VIS", "MSH", "LABEL"};
  if (!t.error.empty() || t.tokens.size() != expected.size()) return false;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (t.tokens[i] != expected[i]) return false;
  return true;
}

Result<bool> parseFlag(std::string_view field, const char* what, const std::string& subject, int line) {
  const auto v = parseInteger(field);
  if (!v || (*v != 0 && *v != 1))
    return parseError(subject, line, std::string(what) + " '" + std::string(trim(field)) + "' must be 0 or 1");
  return *v == 1;
}

// Two decimals are what ITK-SNAP writes; a third is added only when two would not read back to the same alpha.
std::string itkSnapOpacity(std::uint8_t alpha) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", alpha / 255.0);
  const auto back = parseDecimal(buf);
  if (back && std::lround(*back * 255.0) == alpha) return buf;
  std::snprintf(buf, sizeof buf, "%.3f", alpha / 255.0);
  return buf;
}

// ---- Slicer -----------------------------------------------------------------------------------------------------

std::vector<std::string_view> splitSpaces(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

struct TerminologyColumn {
  const char* prefix;
  core::CodedConcept core::Terminology::*member;
};
constexpr std::array<TerminologyColumn, 5> kTerminologyColumns = {{
    {"Category", &core::Terminology::category},
    {"Type", &core::Terminology::type},
    {"TypeModifier", &core::Terminology::typeModifier},
    {"Region", &core::Terminology::region},
    {"RegionModifier", &core::Terminology::regionModifier},
}};
constexpr std::array<const char*, 3> kCodeParts = {"CodingScheme", "CodeValue", "CodeMeaning"};

std::string& codePart(core::CodedConcept& c, std::size_t part) {
  return part == 0 ? c.scheme : part == 1 ? c.value : c.meaning;
}
const std::string& codePart(const core::CodedConcept& c, std::size_t part) {
  return part == 0 ? c.scheme : part == 1 ? c.value : c.meaning;
}

}  // namespace

// ---- ITK-SNAP ---------------------------------------------------------------------------------------------------

Result<LabelTable> readItkSnapLabelsString(std::string_view text, const std::string& subject) {
  LabelTable table;
  for (const TextLine& line : splitLines(stripBom(text))) {
    const std::string_view t = trim(line.text);
    if (t.empty()) continue;
    if (t.front() == '#') {
      if (!isItkSnapColumnHeader(t)) table.notes().push_back(commentText(t));
      continue;
    }
    const TokenizeResult tok = tokenizeWhitespace(t);
    if (!tok.error.empty()) return parseError(subject, line.number, tok.error);
    if (tok.tokens.size() != 8)
      return parseError(
          subject, line.number,
          "expected 8 fields, found " + std::to_string(tok.tokens.size()) + " (IDX R G B A VIS MSH \"LABEL\")");
    if (!tok.quoted[7]) return parseError(subject, line.number, "the label name must be in double quotes");
    for (std::size_t i = 0; i < 7; ++i)
      if (tok.quoted[i])
        return parseError(subject, line.number, "field " + std::to_string(i + 1) + " must not be quoted");

    LabelEntry e;
    auto id = parseLabelId(tok.tokens[0], subject, line.number);
    if (!id) return id.error();
    e.id = *id;
    std::uint8_t* rgb[3] = {&e.color.r, &e.color.g, &e.color.b};
    for (std::size_t c = 0; c < 3; ++c) {
      auto v = parseColorComponent(tok.tokens[1 + c], "colour", subject, line.number);
      if (!v) return v.error();
      *rgb[c] = *v;
    }
    const auto a = parseDecimal(tok.tokens[4]);
    if (!a) return parseError(subject, line.number, "opacity '" + tok.tokens[4] + "' is not a number");
    if (*a < 0.0 || *a > 1.0)
      return parseError(subject, line.number, "opacity " + tok.tokens[4] + " out of range 0..1");
    e.color.a = static_cast<std::uint8_t>(std::lround(*a * 255.0));
    auto vis = parseFlag(tok.tokens[5], "visibility", subject, line.number);
    if (!vis) return vis.error();
    auto msh = parseFlag(tok.tokens[6], "mesh visibility", subject, line.number);
    if (!msh) return msh.error();
    e.visible = *vis;
    e.meshVisible = *msh;
    e.name = tok.tokens[7];
    if (Status s = addEntry(table, std::move(e), subject, line.number); !s) return s.error();
  }
  return table;
}

Result<LabelTable> readItkSnapLabelsFile(const std::filesystem::path& path) {
  return parseWholeFile(path, [](std::string_view t, const std::string& s) { return readItkSnapLabelsString(t, s); });
}

std::string writeItkSnapLabelsString(const LabelTable& table) {
  std::string out;
  for (const std::string& note : table.notes()) out += commentLine(note) + "\n";
  out += kItkSnapColumnHeader;
  out += "\n";
  char buf[96];
  for (const LabelEntry& e : table.entries()) {
    std::string name = singleLine(e.name);
    for (char& c : name)
      if (c == '"') c = '\'';  // ITK-SNAP has no escape for quotes inside the label
    std::snprintf(buf, sizeof buf, "%5d %5d %4d %4d %5s %2d %3d    ", int(e.id), int(e.color.r), int(e.color.g),
                  int(e.color.b), itkSnapOpacity(e.color.a).c_str(), e.visible ? 1 : 0, e.meshVisible ? 1 : 0);
    out += buf;
    out += "\"" + name + "\"\n";
  }
  return out;
}

Status writeItkSnapLabelsFile(const std::filesystem::path& path, const LabelTable& table) {
  return writeFileAtomically(path, writeItkSnapLabelsString(table));
}

// ---- Slicer .txt / .ctbl ----------------------------------------------------------------------------------------

Result<LabelTable> readSlicerColorTableString(std::string_view text, const std::string& subject) {
  LabelTable table;
  for (const TextLine& line : splitLines(stripBom(text))) {
    const std::string_view t = trim(line.text);
    if (t.empty()) continue;
    if (t.front() == '#') {
      if (startsWith(t, "# Color procedural file"))
        return core::makeError(core::ErrorCode::Unsupported, subject,
                               "a procedural (continuous) colour file is not a label table", line.number);
      table.notes().push_back(commentText(t));
      continue;
    }
    const std::vector<std::string_view> f = splitSpaces(t);
    if (f.size() < 6)
      return parseError(subject, line.number,
                        "expected 6 fields, found " + std::to_string(f.size()) + " (idx name R G B A)");
    LabelEntry e;
    auto id = parseLabelId(f[0], subject, line.number);
    if (!id) return id.error();
    e.id = *id;
    std::string_view name = f[1];
    // Names copied out of a MRML scene carry single quotes; Slicer strips them too.
    if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
    e.name = std::string(name);
    std::uint8_t* rgba[4] = {&e.color.r, &e.color.g, &e.color.b, &e.color.a};
    for (std::size_t c = 0; c < 4; ++c) {
      auto v = parseColorComponent(f[2 + c], "colour", subject, line.number);
      if (!v) return v.error();
      *rgba[c] = *v;
    }
    if (Status s = addEntry(table, std::move(e), subject, line.number); !s) return s.error();
  }
  return table;
}

Result<LabelTable> readSlicerColorTableFile(const std::filesystem::path& path) {
  return parseWholeFile(path, [](std::string_view t, const std::string& s) { return readSlicerColorTableString(t, s); });
}

std::string writeSlicerColorTableString(const LabelTable& table) {
  std::string out;
  for (const std::string& note : table.notes()) out += commentLine(note) + "\n";
  for (const LabelEntry& e : table.entries()) {
    std::string name = singleLine(e.name);
    for (char& c : name)
      if (c == ' ' || c == '\t') c = '_';
    if (name.empty()) name = "_";
    out += std::to_string(e.id) + " " + name + " " + std::to_string(e.color.r) + " " + std::to_string(e.color.g) + " " +
           std::to_string(e.color.b) + " " + std::to_string(e.color.a) + "\n";
  }
  return out;
}

Status writeSlicerColorTableFile(const std::filesystem::path& path, const LabelTable& table) {
  return writeFileAtomically(path, writeSlicerColorTableString(table));
}

// ---- Slicer CSV -------------------------------------------------------------------------------------------------

Result<LabelTable> readSlicerCsvString(std::string_view text, const std::string& subject) {
  LabelTable table;
  const std::vector<TextLine> lines = splitLines(stripBom(text));
  std::size_t i = skipLeadingComments(lines, table);
  if (i == lines.size()) return parseError(subject, 0, "no header line (LabelValue,Name,Color_R,...)");

  const TextLine& headerLine = lines[i];
  const char delimiter =
      headerLine.text.find('\t') != std::string_view::npos && headerLine.text.find(',') == std::string_view::npos ? '\t'
                                                                                                                  : ',';
  const SplitResult header = splitDelimited(headerLine.text, delimiter);
  if (!header.error.empty()) return parseError(subject, headerLine.number, header.error);
  auto column = [&](std::string_view name) -> int {
    const std::string want = toLower(name);
    for (std::size_t c = 0; c < header.fields.size(); ++c)
      if (toLower(trim(header.fields[c])) == want) return static_cast<int>(c);
    return -1;
  };
  const int idCol = column("LabelValue");
  const int nameCol = column("Name");
  const int rgbaCol[4] = {column("Color_R"), column("Color_G"), column("Color_B"), column("Color_A")};
  for (const char* required : {"LabelValue", "Color_R", "Color_G", "Color_B"})
    if (column(required) < 0)
      return parseError(subject, headerLine.number, std::string("missing column '") + required + "'");
  int termCol[5][3];
  for (std::size_t k = 0; k < kTerminologyColumns.size(); ++k)
    for (std::size_t p = 0; p < kCodeParts.size(); ++p)
      termCol[k][p] = column(std::string(kTerminologyColumns[k].prefix) + "_" + kCodeParts[p]);

  for (++i; i < lines.size(); ++i) {
    const TextLine& line = lines[i];
    const std::string_view t = trim(line.text);
    if (t.empty()) continue;
    if (t.front() == '#') {
      table.notes().push_back(commentText(t));
      continue;
    }
    const SplitResult row = splitDelimited(line.text, delimiter);
    if (!row.error.empty()) return parseError(subject, line.number, row.error);
    if (row.fields.size() != header.fields.size())
      return parseError(
          subject, line.number,
          "expected " + std::to_string(header.fields.size()) + " fields, found " + std::to_string(row.fields.size()));
    auto cell = [&](int c) -> std::string { return c < 0 ? std::string() : std::string(trim(row.fields[c])); };

    LabelEntry e;
    auto id = parseLabelId(cell(idCol), subject, line.number);
    if (!id) return id.error();
    e.id = *id;
    std::uint8_t* rgba[4] = {&e.color.r, &e.color.g, &e.color.b, &e.color.a};
    for (std::size_t c = 0; c < 4; ++c) {
      if (rgbaCol[c] < 0) continue;  // only Color_A may be missing; it stays 255
      auto v = parseColorComponent(cell(rgbaCol[c]), "colour", subject, line.number);
      if (!v) return v.error();
      *rgba[c] = *v;
    }
    for (std::size_t k = 0; k < kTerminologyColumns.size(); ++k)
      for (std::size_t p = 0; p < kCodeParts.size(); ++p)
        codePart(e.terminology.*(kTerminologyColumns[k].member), p) = cell(termCol[k][p]);
    e.name = cell(nameCol);
    if (e.name.empty()) e.name = nameFromTerminology(e.terminology);
    if (trim(e.name).empty()) e.name = "label_" + std::to_string(e.id);
    if (Status s = addEntry(table, std::move(e), subject, line.number); !s) return s.error();
  }
  return table;
}

Result<LabelTable> readSlicerCsvFile(const std::filesystem::path& path) {
  return parseWholeFile(path, [](std::string_view t, const std::string& s) { return readSlicerCsvString(t, s); });
}

std::string writeSlicerCsvString(const LabelTable& table) {
  bool withTerminology = false;
  for (const LabelEntry& e : table.entries()) withTerminology = withTerminology || !e.terminology.empty();

  std::vector<std::string> header = {"LabelValue", "Name", "Color_R", "Color_G", "Color_B", "Color_A"};
  if (withTerminology)
    for (const TerminologyColumn& col : kTerminologyColumns)
      for (const char* part : kCodeParts) header.push_back(std::string(col.prefix) + "_" + part);
  std::string out = joinFields(header, ',') + "\n";
  for (const LabelEntry& e : table.entries()) {
    std::vector<std::string> row = {std::to_string(e.id),      singleLine(e.name),        std::to_string(e.color.r),
                                    std::to_string(e.color.g), std::to_string(e.color.b), std::to_string(e.color.a)};
    if (withTerminology)
      for (const TerminologyColumn& col : kTerminologyColumns)
        for (std::size_t p = 0; p < kCodeParts.size(); ++p)
          row.push_back(singleLine(codePart(e.terminology.*(col.member), p)));
    out += joinFields(row, ',') + "\n";
  }
  return out;
}

Status writeSlicerCsvFile(const std::filesystem::path& path, const LabelTable& table) {
  return writeFileAtomically(path, writeSlicerCsvString(table));
}

}  // namespace delineate::io
