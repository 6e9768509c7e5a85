// Format detection and dispatch for label-table files; the formats themselves are in label_table_formats_*.cpp.

#include "io/labels/label_table_io.h"

#include "io/labels/label_table_formats_internal.h"
#include "io/labels/terminology.h"

namespace delineate::io {

using namespace label_io_detail;
using core::ErrorCode;
using core::LabelTable;
using core::makeError;
using core::Result;
using core::Status;

const char* labelTableFormatName(LabelTableFormat format) {
  switch (format) {
    case LabelTableFormat::Unknown: return "unknown";
    case LabelTableFormat::ItkSnap: return "ITK-SNAP label description";
    case LabelTableFormat::SlicerColorTable: return "3D Slicer colour table";
    case LabelTableFormat::SlicerCsv: return "3D Slicer CSV colour table";
    case LabelTableFormat::LabelList: return "label list";
    case LabelTableFormat::SctAtlasInfo: return "SCT atlas info_label";
    case LabelTableFormat::SlicerTerminologyContext: return "3D Slicer terminology context";
    case LabelTableFormat::TerminologyMap: return "terminology mapping";
  }
  return "unknown";
}

namespace {

// The first line that is neither blank nor a '#' comment, trimmed.
std::string_view firstContentLine(std::string_view content) {
  for (const TextLine& line : splitLines(stripBom(content))) {
    const std::string_view t = trim(line.text);
    if (!t.empty() && t.front() != '#') return t;
  }
  return {};
}

bool looksItkSnap(std::string_view line) {
  const TokenizeResult t = tokenizeWhitespace(line);
  return t.error.empty() && t.tokens.size() == 8 && t.quoted[7] && parseInteger(t.tokens[0]).has_value();
}

bool looksSlicerRow(std::string_view line) {
  const TokenizeResult t = tokenizeWhitespace(line);
  if (!t.error.empty() || t.tokens.size() < 6 || !parseInteger(t.tokens[0])) return false;
  for (std::size_t k = 2; k < 6; ++k)
    if (!parseDecimal(t.tokens[k])) return false;
  return true;
}

bool looksSlicerCsvHeader(std::string_view line) {
  const std::string lower = toLower(line);
  return startsWith(lower, "labelvalue") && lower.find("color_r") != std::string::npos;
}

bool looksTerminologyMapHeader(std::string_view line) {
  return startsWith(toLower(line), "structure,") && line.find("CodeSequence") != std::string_view::npos;
}

bool looksDelimited(std::string_view line) {
  return line.find(',') != std::string_view::npos || line.find('\t') != std::string_view::npos;
}

bool isJson(std::string_view content) {
  const std::string_view t = trim(stripBom(content));
  return !t.empty() && t.front() == '{';
}

LabelTableFormat fromTableHeader(std::string_view first) {
  if (looksSlicerCsvHeader(first)) return LabelTableFormat::SlicerCsv;
  if (looksTerminologyMapHeader(first)) return LabelTableFormat::TerminologyMap;
  return LabelTableFormat::LabelList;
}

LabelTableFormat formatForWriting(const std::filesystem::path& path) {
  const std::string ext = toLower(path.extension().string());
  if (ext == ".label") return LabelTableFormat::ItkSnap;
  if (ext == ".txt" || ext == ".ctbl") return LabelTableFormat::SlicerColorTable;
  if (ext == ".csv") return LabelTableFormat::SlicerCsv;
  if (ext == ".tsv") return LabelTableFormat::LabelList;
  return LabelTableFormat::Unknown;
}

}  // namespace

LabelTableFormat detectLabelTableFormat(const std::filesystem::path& path, std::string_view content) {
  const std::string ext = toLower(path.extension().string());
  const std::string_view first = firstContentLine(content);
  const bool sct = content.find("Keyword=IndivLabels") != std::string_view::npos;

  if (ext == ".label") return LabelTableFormat::ItkSnap;
  if (ext == ".ctbl") return LabelTableFormat::SlicerColorTable;
  if (ext == ".json") return LabelTableFormat::SlicerTerminologyContext;
  if (ext == ".csv" || ext == ".tsv") return fromTableHeader(first);
  if (ext == ".txt") {
    if (sct) return LabelTableFormat::SctAtlasInfo;
    if (looksItkSnap(first)) return LabelTableFormat::ItkSnap;
    if (looksSlicerRow(first) || first.empty()) return LabelTableFormat::SlicerColorTable;
    if (looksDelimited(first)) return fromTableHeader(first);
    return LabelTableFormat::SlicerColorTable;
  }
  if (isJson(content)) return LabelTableFormat::SlicerTerminologyContext;
  if (sct) return LabelTableFormat::SctAtlasInfo;
  if (first.empty()) return LabelTableFormat::Unknown;
  if (looksItkSnap(first)) return LabelTableFormat::ItkSnap;
  if (looksSlicerRow(first)) return LabelTableFormat::SlicerColorTable;
  if (looksDelimited(first)) return fromTableHeader(first);
  return LabelTableFormat::Unknown;
}

Result<LabelTable> readLabelTableFile(const std::filesystem::path& path, LabelTableFormat* detected) {
  auto text = readLabelFile(path);
  if (!text) return text.error();
  const std::string subject = path.string();
  const LabelTableFormat format = detectLabelTableFormat(path, *text);
  if (detected) *detected = format;
  switch (format) {
    case LabelTableFormat::ItkSnap: return readItkSnapLabelsString(*text, subject);
    case LabelTableFormat::SlicerColorTable: return readSlicerColorTableString(*text, subject);
    case LabelTableFormat::SlicerCsv: return readSlicerCsvString(*text, subject);
    case LabelTableFormat::LabelList: return readLabelListString(*text, subject);
    case LabelTableFormat::SctAtlasInfo: return readSctInfoLabelString(*text, subject);
    case LabelTableFormat::SlicerTerminologyContext: {
      auto ctx = readTerminologyContextString(*text, subject);
      if (!ctx) return ctx.error();
      if (ctx->kind != TerminologyContextKind::SegmentationCategoryType)
        return makeError(ErrorCode::Unsupported, subject,
                         "an anatomic-region context has no label values; read it with readTerminologyContextFile");
      return labelTableFromTerminologyContext(*ctx);
    }
    case LabelTableFormat::TerminologyMap:
      return makeError(ErrorCode::Unsupported, subject,
                       "a terminology mapping has no label values; read it with readTerminologyMapFile");
    case LabelTableFormat::Unknown: break;
  }
  return makeError(ErrorCode::Unsupported, subject, "not a recognised label table format");
}

Result<std::string> writeLabelTableString(const LabelTable& table, LabelTableFormat format) {
  switch (format) {
    case LabelTableFormat::ItkSnap: return writeItkSnapLabelsString(table);
    case LabelTableFormat::SlicerColorTable: return writeSlicerColorTableString(table);
    case LabelTableFormat::SlicerCsv: return writeSlicerCsvString(table);
    case LabelTableFormat::LabelList: return writeLabelListString(table);
    case LabelTableFormat::SctAtlasInfo: return writeSctInfoLabelString(table);
    case LabelTableFormat::SlicerTerminologyContext:
    case LabelTableFormat::TerminologyMap:
      return makeError(ErrorCode::Unsupported, {},
                       std::string("cannot write a label table as a ") + labelTableFormatName(format));
    case LabelTableFormat::Unknown: break;
  }
  return makeError(ErrorCode::InvalidArgument, {}, "no label table format given");
}

Status writeLabelTableFile(const std::filesystem::path& path, const LabelTable& table, LabelTableFormat format) {
  if (format == LabelTableFormat::Unknown) format = formatForWriting(path);
  if (format == LabelTableFormat::Unknown)
    return makeError(ErrorCode::InvalidArgument, path.string(),
                     "cannot tell the label table format from the extension (.label, .txt, .ctbl, .csv, .tsv)");
  if (format == LabelTableFormat::LabelList) return writeLabelListFile(path, table);
  auto text = writeLabelTableString(table, format);
  if (!text) {
    core::Error e = text.error();
    e.subject = path.string();
    return e;
  }
  return writeFileAtomically(path, *text);
}

std::optional<std::filesystem::path> findLabelTableBeside(const std::filesystem::path& labelMap) {
  std::filesystem::path stem = labelMap;
  if (stem.extension() == ".gz" || stem.extension() == ".GZ") stem.replace_extension();
  stem.replace_extension();
  for (const char* extension : {".label", ".txt", ".ctbl", ".csv", ".tsv"}) {
    std::filesystem::path candidate = stem;
    candidate += extension;
    std::error_code ec;
    if (candidate != labelMap && std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

core::Result<std::optional<LabelTableBeside>> readLabelTableBeside(const std::filesystem::path& labelMap) {
  const auto path = findLabelTableBeside(labelMap);
  if (!path) return std::optional<LabelTableBeside>();
  auto table = readLabelTableFile(*path);
  if (!table) return table.error();
  return std::optional<LabelTableBeside>(LabelTableBeside{*path, std::move(table).value()});
}

namespace {
// The note that marks a table as one a program wrote for the map beside it (and may write again).
std::string besideMarker(const std::filesystem::path& labelMap) {
  return "Label names of " + labelMap.filename().string() + ", written with it by ";
}
}  // namespace

core::Result<std::filesystem::path> writeLabelTableBeside(const std::filesystem::path& labelMap,
                                                          const core::LabelTable& table, const std::string& writer) {
  std::filesystem::path target = labelMap;
  if (target.extension() == ".gz" || target.extension() == ".GZ") target.replace_extension();
  target.replace_extension(".label");
  if (target == labelMap)
    return core::makeError(core::ErrorCode::InvalidArgument, labelMap.string(),
                           "a label map named .label leaves no name for its table");
  const std::string marker = besideMarker(labelMap);
  std::error_code ec;
  if (std::filesystem::symlink_status(target, ec).type() != std::filesystem::file_type::not_found) {
    // Ours only when it reads as a table whose note says so; anything else there is the user's and stays.
    bool ours = false;
    if (std::filesystem::is_regular_file(target, ec))
      if (auto existing = readItkSnapLabelsFile(target))
        for (const std::string& note : existing->notes()) ours = ours || note.rfind(marker, 0) == 0;
    if (!ours)
      return core::makeError(core::ErrorCode::InvalidArgument, target.string(),
                             "exists and was not written for " + labelMap.filename().string() +
                                 ": left as it is, so the labels' names were not written");
  }
  core::LabelTable out = table;
  out.notes().insert(out.notes().begin(), marker + writer);
  if (core::Status s = writeItkSnapLabelsFile(target, out); !s) return s.error();
  return target;
}

}  // namespace delineate::io
