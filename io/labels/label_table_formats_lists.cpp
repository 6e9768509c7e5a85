// Plain id/name label lists (CSV/TSV) and the Spinal Cord Toolbox atlas info_label.txt.

#include <algorithm>
#include <optional>

#include "io/labels/label_table_formats_internal.h"
#include "io/labels/label_table_io.h"

namespace delineate::io {

using namespace label_io_detail;

namespace {

std::string headerKey(std::string_view field) {
  std::string key = toLower(trim(field));
  for (char& c : key)
    if (c == ' ' || c == '-') c = '_';
  return key;
}

int findColumn(const std::vector<std::string>& header, std::initializer_list<const char*> names, int skip = -1) {
  // Priority follows `names`, so "label_value" beats a later "id" column and the choice does not depend on order.
  for (const char* name : names)
    for (std::size_t c = 0; c < header.size(); ++c)
      if (static_cast<int>(c) != skip && headerKey(header[c]) == name) return static_cast<int>(c);
  return -1;
}

char detectDelimiter(std::string_view header) {
  if (header.find('\t') != std::string_view::npos) return '\t';
  if (header.find(',') != std::string_view::npos) return ',';
  if (header.find(';') != std::string_view::npos) return ';';
  return ',';
}

struct RowAttempt {
  std::optional<LabelEntry> entry;
  std::string reason;
};

RowAttempt tryListRow(std::string_view text, char delimiter, int idCol, int nameCol, std::size_t headerColumns,
                      const std::string& subject, int line) {
  RowAttempt r;
  SplitResult row = splitDelimited(text, delimiter);
  if (!row.error.empty()) {
    r.reason = row.error;
    return r;
  }
  const std::size_t needed = static_cast<std::size_t>(std::max(idCol, nameCol)) + 1;
  if (row.fields.size() < needed) {
    r.reason = "expected at least " + std::to_string(needed) + " fields, found " + std::to_string(row.fields.size());
    return r;
  }
  auto id = parseLabelId(row.fields[idCol], subject, line);
  if (!id) {
    r.reason = id.error().detail;
    return r;
  }
  std::string name = row.fields[nameCol];
  // Hand-written lists put unquoted commas in names ("lemniscus (a, b)"); when the name is the last column the
  // surplus fields are part of it.
  if (static_cast<std::size_t>(nameCol) + 1 == headerColumns)
    for (std::size_t k = headerColumns; k < row.fields.size(); ++k) name += delimiter + row.fields[k];
  name = std::string(trim(name));
  if (name.empty()) {
    r.reason = "label " + std::to_string(*id) + " has an empty name";
    return r;
  }
  LabelEntry e;
  e.id = *id;
  e.name = std::move(name);
  e.color = LabelTable::defaultColor(e.id);
  r.entry = std::move(e);
  return r;
}

constexpr const char* kSctKeyword = "Keyword=IndivLabels";
constexpr const char* kSctKeywordLine = "# Keyword=IndivLabels (Please DO NOT change this line)";

std::string sctDefaultFile(core::Label id) {
  std::string n = std::to_string(id);
  if (n.size() < 2) n = "0" + n;
  return "atlas_" + n + ".nii.gz";
}

}  // namespace

// ---- plain lists ------------------------------------------------------------------------------------------------

LabelListLayout LabelListLayout::forPath(const std::filesystem::path& path) {
  LabelListLayout layout;
  if (toLower(path.extension().string()) == ".tsv") layout.delimiter = '\t';
  return layout;
}

Result<LabelTable> readLabelListString(std::string_view text, const std::string& subject, LabelListLayout* layoutOut) {
  LabelTable table;
  const std::vector<TextLine> lines = splitLines(stripBom(text));
  std::size_t i = skipLeadingComments(lines, table);
  if (i == lines.size()) return parseError(subject, 0, "no header or label rows");

  LabelListLayout layout;
  const TextLine& first = lines[i];
  layout.delimiter = detectDelimiter(first.text);
  const SplitResult header = splitDelimited(first.text, layout.delimiter);
  if (!header.error.empty()) return parseError(subject, first.number, header.error);

  int idCol = findColumn(header.fields, {"label_value", "labelvalue", "label_id", "labelid", "label_index", "id", "idx",
                                         "index", "value", "intensity", "label_number", "number"});
  if (idCol < 0) idCol = findColumn(header.fields, {"label", "labels"});
  int nameCol = findColumn(
      header.fields,
      {"name", "label_name", "labelname", "structure_name", "structurename", "structure", "region_name", "region",
       "class_name", "classname", "class", "organ", "description", "label_description", "abbreviation"},
      idCol);
  if (nameCol < 0) nameCol = findColumn(header.fields, {"label", "labels"}, idCol);
  std::size_t columns = header.fields.size();

  if (idCol < 0 || nameCol < 0) {
    if (!parseInteger(header.fields.front()) || header.fields.size() < 2)
      return parseError(subject, first.number,
                        "cannot find the label id and name columns in header '" + std::string(trim(first.text)) + "'");
    // No header: the first row is already a label.
    layout.hasHeader = false;
    idCol = 0;
    nameCol = 1;
    columns = 2;
  } else {
    layout.idHeader = std::string(trim(header.fields[idCol]));
    layout.nameHeader = std::string(trim(header.fields[nameCol]));
    ++i;
  }

  std::optional<std::pair<int, std::string>> firstBad;  // where the table ended and why
  for (; i < lines.size(); ++i) {
    const TextLine& line = lines[i];
    const std::string_view t = trim(line.text);
    if (!t.empty() && t.front() == '#') {
      table.notes().push_back(commentText(t));
      continue;
    }
    if (t.empty()) {
      if (firstBad) table.notes().emplace_back();
      continue;
    }
    RowAttempt row = tryListRow(line.text, layout.delimiter, idCol, nameCol, columns, subject, line.number);
    if (firstBad) {
      if (row.entry)
        return parseError(subject, firstBad->first,
                          firstBad->second + " (and a label row follows at line " + std::to_string(line.number) + ")");
      table.notes().emplace_back(trim(line.text));
      continue;
    }
    if (!row.entry) {
      firstBad.emplace(line.number, row.reason);
      table.notes().emplace_back(trim(line.text));
      continue;
    }
    if (Status s = addEntry(table, std::move(*row.entry), subject, line.number); !s) return s.error();
  }
  while (!table.notes().empty() && table.notes().back().empty()) table.notes().pop_back();
  table.assignDistinctColors();  // a list names labels only: colours that stay apart in the table (issue 41)
  if (layoutOut) *layoutOut = layout;
  return table;
}

Result<LabelTable> readLabelListFile(const std::filesystem::path& path, LabelListLayout* layout) {
  return parseWholeFile(path, [layout](std::string_view t, const std::string& s) { return readLabelListString(t, s, layout); });
}

std::string writeLabelListString(const LabelTable& table, const LabelListLayout& layout) {
  const char d = layout.delimiter;
  std::string out;
  if (layout.hasHeader) out += joinFields({layout.idHeader, layout.nameHeader}, d) + "\n";
  for (const LabelEntry& e : table.entries())
    out += std::to_string(e.id) + d + quoteField(singleLine(e.name), d) + "\n";
  for (const std::string& note : table.notes()) out += commentLine(note) + "\n";
  return out;
}

Status writeLabelListFile(const std::filesystem::path& path, const LabelTable& table, const LabelListLayout& layout) {
  return writeFileAtomically(path, writeLabelListString(table, layout));
}

Status writeLabelListFile(const std::filesystem::path& path, const LabelTable& table) {
  return writeLabelListFile(path, table, LabelListLayout::forPath(path));
}

// ---- SCT info_label.txt -----------------------------------------------------------------------------------------

Result<LabelTable> readSctInfoLabelString(std::string_view text, const std::string& subject,
                                          SctAtlasExtras* extrasOut) {
  LabelTable table;
  SctAtlasExtras extras;
  const std::vector<TextLine> lines = splitLines(stripBom(text));
  std::size_t i = 0;
  bool keyword = false;
  for (; i < lines.size() && !keyword; ++i) {
    const std::string_view t = trim(lines[i].text);
    if (t.empty()) {
      table.notes().emplace_back();
    } else if (t.front() == '#') {
      if (t.find(kSctKeyword) != std::string_view::npos)
        keyword = true;
      else
        table.notes().push_back(commentText(t));
    } else {
      return parseError(subject, lines[i].number, "label row before the '# Keyword=IndivLabels' line");
    }
  }
  if (!keyword) return parseError(subject, 0, "no '# Keyword=IndivLabels' line: not an SCT atlas info_label file");

  bool sawRow = false;
  for (; i < lines.size(); ++i) {
    const TextLine& line = lines[i];
    const std::string_view t = trim(line.text);
    if (t.empty() || t.front() == '#') {
      if (!sawRow) continue;  // the "# ID, name, file" column line; the writer regenerates it
      break;
    }
    const SplitResult row = splitDelimited(t, ',');
    if (!row.error.empty()) return parseError(subject, line.number, row.error);
    if (row.fields.size() < 3)
      return parseError(subject, line.number,
                        "expected 3 fields, found " + std::to_string(row.fields.size()) + " (ID, name, file)");
    auto id = parseLabelId(row.fields.front(), subject, line.number);
    if (!id) return id.error();
    std::string name;
    for (std::size_t k = 1; k + 1 < row.fields.size(); ++k) name += (k > 1 ? "," : "") + row.fields[k];
    LabelEntry e;
    e.id = *id;
    e.name = std::string(trim(name));
    e.color = LabelTable::defaultColor(e.id);
    const std::string file(trim(row.fields.back()));
    if (file.empty()) return parseError(subject, line.number, "label " + std::to_string(*id) + " has no file name");
    if (Status s = addEntry(table, std::move(e), subject, line.number); !s) return s.error();
    extras.files[*id] = file;
    sawRow = true;
  }
  for (; i < lines.size(); ++i) extras.trailer.emplace_back(lines[i].text);
  table.assignDistinctColors();  // no colours in the file: colours that stay apart in the table (issue 41)
  if (extrasOut) *extrasOut = std::move(extras);
  return table;
}

Result<LabelTable> readSctInfoLabelFile(const std::filesystem::path& path, SctAtlasExtras* extras) {
  return parseWholeFile(path, [extras](std::string_view t, const std::string& s) { return readSctInfoLabelString(t, s, extras); });
}

std::string writeSctInfoLabelString(const LabelTable& table, const SctAtlasExtras* extras) {
  std::string out;
  for (const std::string& note : table.notes()) out += commentLine(note) + "\n";
  out += kSctKeywordLine;
  out += "\n# ID, name, file\n";
  for (const LabelEntry& e : table.entries()) {
    std::string file;
    if (extras) {
      auto it = extras->files.find(e.id);
      if (it != extras->files.end()) file = it->second;
    }
    if (file.empty()) file = sctDefaultFile(e.id);
    out += std::to_string(e.id) + ", " + singleLine(e.name) + ", " + singleLine(file) + "\n";
  }
  if (extras)
    for (const std::string& line : extras->trailer) out += singleLine(line) + "\n";
  return out;
}

Status writeSctInfoLabelFile(const std::filesystem::path& path, const LabelTable& table, const SctAtlasExtras* extras) {
  return writeFileAtomically(path, writeSctInfoLabelString(table, extras));
}

}  // namespace delineate::io
