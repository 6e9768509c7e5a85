#pragma once
// Text helpers shared by the label-table readers and writers (io/labels/label_table_*.cpp, io/labels/terminology.cpp).
// Not part of the io API: the namespace keeps these names away from other io files' helpers.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/label_table.h"

namespace delineate::io::label_io_detail {

using core::LabelEntry;
using core::LabelTable;
using core::Result;
using core::Status;

// Label files are small; anything larger is not a label table and is refused before it is read.
constexpr std::uintmax_t kMaxLabelFileBytes = 64u << 20;

struct TextLine {
  std::string_view text;  // without the line break (a trailing '\r' is removed too)
  int number = 0;         // 1-based
};

// Splits on '\n'; a final line without a break is kept, an empty tail after the last break is not.
std::vector<TextLine> splitLines(std::string_view text);

// Removes a UTF-8 byte-order mark, which spreadsheet programs put in front of CSV files.
std::string_view stripBom(std::string_view text);

std::string_view trim(std::string_view s);
bool isBlank(std::string_view s);
std::string toLower(std::string_view s);
bool startsWith(std::string_view s, std::string_view prefix);

core::Error parseError(const std::string& subject, int line, std::string detail);

// A label file read whole (io/base/file_read.h): NotFound when it does not exist, ReadFailed when it cannot be read
// or is no regular file (a pipe, socket, device or folder: io/base/regular_file.h), SizeLimit when longer than
// kMaxLabelFileBytes.
core::Result<std::string> readLabelFile(const std::filesystem::path& path);
// Reads `path` and hands its text to `parse(text, subject)` with the path as subject: every *File reader is this.
template <class Parse>
auto parseWholeFile(const std::filesystem::path& path, Parse&& parse) -> decltype(parse(std::string_view{}, path.string())) {
  auto text = readLabelFile(path);
  if (!text) return text.error();
  return parse(std::string_view(*text), path.string());
}

// io::writeFileAtomically (io/base/atomic_file.h) for text: temporary file beside `path`, fsync, rename; a failure
// leaves the previous file as it was.
core::Status writeFileAtomically(const std::filesystem::path& path, std::string_view text);

// One line of a delimited file split into fields. Quoted fields follow RFC 4180 ("" inside quotes is one quote)
// but may not span lines: label lists are line-oriented and their free-text notes often hold stray quotes.
struct SplitResult {
  std::vector<std::string> fields;
  std::string error;  // non-empty when the line is malformed (unterminated quote, text after a closing quote)
};
SplitResult splitDelimited(std::string_view line, char delimiter);

// Quotes a field when it holds the delimiter, a quote or leading/trailing spaces.
std::string quoteField(std::string_view field, char delimiter);
std::string joinFields(const std::vector<std::string>& fields, char delimiter);

// Whitespace-separated tokens; a token starting with '"' runs to the next '"' (ITK-SNAP's quoted label).
struct TokenizeResult {
  std::vector<std::string> tokens;
  std::vector<bool> quoted;
  std::string error;
};
TokenizeResult tokenizeWhitespace(std::string_view line);

// Strict numbers: the whole (trimmed) field must be the number.
std::optional<long long> parseInteger(std::string_view s);
std::optional<double> parseDecimal(std::string_view s);

// Parse helpers that produce the ParseError for `subject`:`line` with a reason that names the offending value.
core::Result<core::Label> parseLabelId(std::string_view field, const std::string& subject, int line);
// A colour component 0..255; decimals are accepted (Slicer writes r*255.0 as a double) and rounded.
core::Result<std::uint8_t> parseColorComponent(std::string_view field, const char* what, const std::string& subject,
                                               int line);

// Names are single-line everywhere; a writer replaces line breaks so the file stays parseable.
std::string singleLine(std::string_view name);

// Comment lines: "# text" <-> "text". A note that itself starts with '#' is written without the space so that
// banner lines ("#####") survive a round trip unchanged.
std::string commentText(std::string_view line);  // line starts with '#'
// Index of the first line that is neither blank nor a '#' comment (lines.size() when there is none); the comments
// passed on the way become notes of `table`. Every tabular format starts with such a block.
std::size_t skipLeadingComments(const std::vector<TextLine>& lines, core::LabelTable& table);
std::string commentLine(std::string_view note);

// Adds `entry` to `table`, turning a duplicate id or an empty name into a ParseError at `line`.
core::Status addEntry(core::LabelTable& table, core::LabelEntry entry, const std::string& subject, int line);

// "Name Of Thing" for a concept list: used when a format has no name column but carries terminology.
std::string nameFromTerminology(const core::Terminology& t);

}  // namespace delineate::io::label_io_detail
