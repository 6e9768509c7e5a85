#pragma once
// Label-table files from other tools, read into core::LabelTable and written back:
//   ITK-SNAP label descriptions (.label), 3D Slicer colour tables (.txt/.ctbl and the CSV form with DICOM
//   terminology columns), plain id/name lists (CSV/TSV, e.g. TotalSegmentator class lists) and the Spinal Cord
//   Toolbox atlas info_label.txt. TotalSegmentator's SNOMED mapping and Slicer's terminology JSON are in
//   io/labels/terminology.h.
//
// Every reader comes in two forms, from a file and from a string; `subject` names the source in errors (the file
// path for the file form). Malformed content yields ErrorCode::ParseError with `line` set to the 1-based line,
// a missing file NotFound. Writers never fail on the string form; the file form writes a temporary file in the
// same folder and renames it over the target, so a failed write leaves an existing file untouched.
//
// Line endings: CRLF and LF are read alike; files are written with LF.

#include <filesystem>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/label_table.h"

namespace delineate::io {

enum class LabelTableFormat {
  Unknown,
  ItkSnap,                   // .label: IDX R G B A VIS MSH "LABEL"
  SlicerColorTable,          // .txt / .ctbl: idx name R G B A
  SlicerCsv,                 // .csv: LabelValue,Name,Color_R,...[,terminology columns]
  LabelList,                 // .csv / .tsv: an id column and a name column, found from the header
  SctAtlasInfo,              // SCT info_label.txt (# Keyword=IndivLabels)
  SlicerTerminologyContext,  // Slicer terminology JSON; read-only as a label table (see io/labels/terminology.h)
  TerminologyMap,            // TotalSegmentator SNOMED mapping CSV; has no label ids (see io/labels/terminology.h)
};

const char* labelTableFormatName(LabelTableFormat format);

// ---------------------------------------------------------------------------------------------------------------
// ITK-SNAP label description. The A column (opacity 0..1) maps to alpha 0..255 by rounding A*255; the writer uses
// two decimals whenever they read back to the same alpha (always true for files ITK-SNAP wrote) and three
// otherwise, so any alpha survives. VIS -> visible, MSH -> meshVisible. Comment lines become table notes, except
// ITK-SNAP's column header line, which the writer always puts first.

core::Result<core::LabelTable> readItkSnapLabelsString(std::string_view text, const std::string& subject);
core::Result<core::LabelTable> readItkSnapLabelsFile(const std::filesystem::path& path);
std::string writeItkSnapLabelsString(const core::LabelTable& table);
core::Status writeItkSnapLabelsFile(const std::filesystem::path& path, const core::LabelTable& table);

// ---------------------------------------------------------------------------------------------------------------
// 3D Slicer colour table (.txt, .ctbl). Names are kept exactly as written (underscores included; Slicer 5.x turns
// underscores into spaces when it loads a file, we do not, so names keep matching other sources). The writer
// turns spaces into underscores and an empty name into "_", as Slicer does. Slicer (through 5.x) stores
// terminology only in its CSV form, never in .txt/.ctbl, and ignores columns after the sixth; so do we. Comment
// lines become notes and are written back at the top.

core::Result<core::LabelTable> readSlicerColorTableString(std::string_view text, const std::string& subject);
core::Result<core::LabelTable> readSlicerColorTableFile(const std::filesystem::path& path);
std::string writeSlicerColorTableString(const core::LabelTable& table);
core::Status writeSlicerColorTableFile(const std::filesystem::path& path, const core::LabelTable& table);

// ---------------------------------------------------------------------------------------------------------------
// 3D Slicer CSV colour table: LabelValue (required), Name, Color_R/G/B (required), Color_A (optional, default
// 255) and the 15 terminology columns Category_/Type_/TypeModifier_/Region_/RegionModifier_ x
// CodingScheme/CodeValue/CodeMeaning; columns are found by name, unknown ones are ignored. A tab-separated file
// (Slicer reads .tsv too) is recognised from its header. The writer adds the terminology columns only when some
// entry has terminology; it writes no notes, because Slicer would take a comment line for a broken row. A row
// without a name gets one from its terminology, or "label_<id>".

core::Result<core::LabelTable> readSlicerCsvString(std::string_view text, const std::string& subject);
core::Result<core::LabelTable> readSlicerCsvFile(const std::filesystem::path& path);
std::string writeSlicerCsvString(const core::LabelTable& table);
core::Status writeSlicerCsvFile(const std::filesystem::path& path, const core::LabelTable& table);

// ---------------------------------------------------------------------------------------------------------------
// Plain label lists (CSV or TSV): the id and name columns are found from the header (label, label_value,
// labelvalue, id, index, value / name, structure, structure_name, label_name, description, ...; case-insensitive);
// a file whose first row is already data is read as id,name without a header. Other columns are ignored. Entries
// get LabelTable::defaultColor(id). Lines starting with '#' are notes. The first line after the table that is
// not a label row starts the notes section (free text that some atlases append): it and every later line become
// notes and are written back as '#' lines after the table. A label row after such a line is an error reported at
// the malformed line, because a broken row inside a table must not silently truncate it.

struct LabelListLayout {
  char delimiter = ',';
  bool hasHeader = true;
  std::string idHeader = "label";
  std::string nameHeader = "name";

  // '\t' for .tsv, ',' otherwise.
  static LabelListLayout forPath(const std::filesystem::path& path);
  bool operator==(const LabelListLayout& o) const {
    return delimiter == o.delimiter && hasHeader == o.hasHeader && idHeader == o.idHeader && nameHeader == o.nameHeader;
  }
};

// `layout`, when given, receives what was found so the writer can reproduce the file's header and delimiter.
core::Result<core::LabelTable> readLabelListString(std::string_view text, const std::string& subject,
                                                   LabelListLayout* layout = nullptr);
core::Result<core::LabelTable> readLabelListFile(const std::filesystem::path& path, LabelListLayout* layout = nullptr);
std::string writeLabelListString(const core::LabelTable& table, const LabelListLayout& layout = {});
core::Status writeLabelListFile(const std::filesystem::path& path, const core::LabelTable& table,
                                const LabelListLayout& layout);
// Layout from the file name (LabelListLayout::forPath).
core::Status writeLabelListFile(const std::filesystem::path& path, const core::LabelTable& table);

// ---------------------------------------------------------------------------------------------------------------
// Spinal Cord Toolbox atlas description (info_label.txt). The "# Keyword=IndivLabels" section (rows "ID, name,
// file") becomes the table; comment lines before it become notes. The per-label file names and everything after
// the section (combined labels, MAP clusters) are kept in SctAtlasExtras so the file can be written back.

struct SctAtlasExtras {
  std::map<core::Label, std::string> files;  // label id -> atlas file name (e.g. PAM50_atlas_00.nii.gz)
  std::vector<std::string> trailer;          // lines after the IndivLabels section, verbatim

  bool operator==(const SctAtlasExtras& o) const { return files == o.files && trailer == o.trailer; }
};

core::Result<core::LabelTable> readSctInfoLabelString(std::string_view text, const std::string& subject,
                                                      SctAtlasExtras* extras = nullptr);
core::Result<core::LabelTable> readSctInfoLabelFile(const std::filesystem::path& path,
                                                    SctAtlasExtras* extras = nullptr);
// Labels without a file name in `extras` get "atlas_<id, two digits>.nii.gz".
std::string writeSctInfoLabelString(const core::LabelTable& table, const SctAtlasExtras* extras = nullptr);
core::Status writeSctInfoLabelFile(const std::filesystem::path& path, const core::LabelTable& table,
                                   const SctAtlasExtras* extras = nullptr);

// ---------------------------------------------------------------------------------------------------------------
// Dispatch by extension and content.

// .label -> ItkSnap; .ctbl -> SlicerColorTable; .json -> SlicerTerminologyContext; .csv/.tsv -> SlicerCsv when
// the header has LabelValue and Color_R, TerminologyMap for TotalSegmentator's mapping header, else LabelList;
// .txt -> SctAtlasInfo when it holds "Keyword=IndivLabels", ItkSnap when its rows end in a quoted label, else
// SlicerColorTable. Other extensions are judged by content alone; Unknown when nothing fits.
LabelTableFormat detectLabelTableFormat(const std::filesystem::path& path, std::string_view content);

// Reads any supported label table. A terminology context JSON gives the entries that carry 3dSlicerIntegerLabel
// (see labelTableFromTerminologyContext); a TerminologyMap file or an Unknown one gives Unsupported.
core::Result<core::LabelTable> readLabelTableFile(const std::filesystem::path& path,
                                                  LabelTableFormat* detected = nullptr);

// The label table a label map file carries beside it: a file of the same name with a table extension instead of the
// image's (`atlas.nii.gz` -> `atlas.label`, `atlas.txt`, `atlas.ctbl`, `atlas.csv`, `atlas.tsv`, in that order).
// Nothing when there is none: the map's ids then have no names (never names borrowed from another table).
std::optional<std::filesystem::path> findLabelTableBeside(const std::filesystem::path& labelMap);
// That table, read: nothing when there is none, an error naming it when it cannot be read.
struct LabelTableBeside {
  std::filesystem::path path;
  core::LabelTable table;
};
core::Result<std::optional<LabelTableBeside>> readLabelTableBeside(const std::filesystem::path& labelMap);

// The label table a program writes beside a label map it made (`delineate-cli segment`, `delineate-vista3d
// segment`), so that the window, `info` and ITK-SNAP name the labels: `<stem>.label` (ITK-SNAP's format, the first
// one findLabelTableBeside looks for), its first note saying it was written for that map by `writer`. Such a file
// is replaced when the program writes the map again; any other file of that name (a user's own table) is never
// touched: the result is then an error naming it, which callers report as a warning (the map itself is written).
core::Result<std::filesystem::path> writeLabelTableBeside(const std::filesystem::path& labelMap,
                                                          const core::LabelTable& table, const std::string& writer);

// Format `Unknown` picks one from the extension: .label ItkSnap, .txt/.ctbl SlicerColorTable, .csv SlicerCsv,
// .tsv LabelList. SlicerTerminologyContext and TerminologyMap give Unsupported.
core::Result<std::string> writeLabelTableString(const core::LabelTable& table, LabelTableFormat format);
core::Status writeLabelTableFile(const std::filesystem::path& path, const core::LabelTable& table,
                                 LabelTableFormat format = LabelTableFormat::Unknown);

}  // namespace delineate::io
