#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/regular_file.h"
#include "io/labels/label_table_formats_internal.h"

namespace delineate::io::label_io_detail {

using core::ErrorCode;
using core::makeError;

std::vector<TextLine> splitLines(std::string_view text) {
  std::vector<TextLine> lines;
  std::size_t pos = 0;
  int number = 1;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(TextLine{line, number++});
    if (last) break;
    pos = end + 1;
  }
  return lines;
}

std::string_view stripBom(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  const std::size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const std::size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

bool isBlank(std::string_view s) { return trim(s).empty(); }

std::string toLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

core::Error parseError(const std::string& subject, int line, std::string detail) {
  return makeError(ErrorCode::ParseError, subject, std::move(detail), line);
}

core::Result<std::string> readLabelFile(const std::filesystem::path& path) {
  // A label table is a user-given input: a pipe, socket or device is refused as such (readWholeFile alone would
  // read a pipe to its end, which suits the store's records but hides a wrong path here).
  if (core::Status s = checkRegularFile(path.string(), "label table"); !s) return s.error();
  return readWholeFile(path.string(), kMaxLabelFileBytes, "label table");
}

core::Status writeFileAtomically(const std::filesystem::path& path, std::string_view text) {
  return io::writeFileAtomically(path.string(), text.data(), text.size());
}

SplitResult splitDelimited(std::string_view line, char delimiter) {
  SplitResult r;
  std::string field;
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    field.clear();
    // Spaces before an opening quote are tolerated: "1, \"a, b\"" is common in hand-written files.
    std::size_t j = i;
    while (j < n && line[j] == ' ' && delimiter != ' ') ++j;
    if (j < n && line[j] == '"') {
      i = j + 1;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field += line[i++];
      }
      if (!closed) {
        r.error = "unterminated quoted field";
        return r;
      }
      while (i < n && line[i] == ' ') ++i;
      if (i < n && line[i] != delimiter) {
        r.error = "unexpected text after a closing quote";
        return r;
      }
    } else {
      while (i < n && line[i] != delimiter) field += line[i++];
    }
    r.fields.push_back(field);
    if (i >= n) break;
    ++i;  // the delimiter
    if (i == n) {
      r.fields.emplace_back();  // a trailing delimiter means a final empty field
      break;
    }
  }
  return r;
}

std::string quoteField(std::string_view field, char delimiter) {
  const bool needs = field.find(delimiter) != std::string_view::npos || field.find('"') != std::string_view::npos ||
                     (!field.empty() && (field.front() == ' ' || field.back() == ' '));
  if (!needs) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string joinFields(const std::vector<std::string>& fields, char delimiter) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += delimiter;
    out += quoteField(fields[i], delimiter);
  }
  return out;
}

TokenizeResult tokenizeWhitespace(std::string_view line) {
  TokenizeResult r;
  std::size_t i = 0;
  const std::size_t n = line.size();
  auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (i < n) {
    while (i < n && space(line[i])) ++i;
    if (i >= n) break;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) {
        r.error = "unterminated quoted label";
        return r;
      }
      r.tokens.emplace_back(line.substr(i + 1, close - i - 1));
      r.quoted.push_back(true);
      i = close + 1;
    } else {
      const std::size_t start = i;
      while (i < n && !space(line[i])) ++i;
      r.tokens.emplace_back(line.substr(start, i - start));
      r.quoted.push_back(false);
    }
  }
  return r;
}

std::optional<long long> parseInteger(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parseDecimal(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {
std::string shown(std::string_view s) {
  s = trim(s);
  std::string out(s.substr(0, 40));
  if (s.size() > 40) out += "...";
  return out;
}
}  // namespace

core::Result<core::Label> parseLabelId(std::string_view field, const std::string& subject, int line) {
  const auto v = parseInteger(field);
  if (!v) return parseError(subject, line, "label id '" + shown(field) + "' is not an integer");
  if (*v < 0 || *v > 65535)
    return parseError(subject, line, "label id " + std::to_string(*v) + " out of range 0..65535");
  return static_cast<core::Label>(*v);
}

core::Result<std::uint8_t> parseColorComponent(std::string_view field, const char* what, const std::string& subject,
                                               int line) {
  const auto v = parseDecimal(field);
  if (!v) return parseError(subject, line, std::string(what) + " '" + shown(field) + "' is not a number");
  const double r = std::round(*v);
  if (r < 0 || r > 255) {
    std::string text(trim(field));
    return parseError(subject, line, std::string(what) + " " + text + " out of range 0..255");
  }
  return static_cast<std::uint8_t>(r);
}

std::string singleLine(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

std::size_t skipLeadingComments(const std::vector<TextLine>& lines, core::LabelTable& table) {
  std::size_t i = 0;
  for (; i < lines.size(); ++i) {
    const std::string_view t = trim(lines[i].text);
    if (t.empty()) continue;
    if (t.front() != '#') break;
    table.notes().push_back(commentText(t));
  }
  return i;
}

std::string commentText(std::string_view line) {
  if (!line.empty() && line.front() == '#') line.remove_prefix(1);
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return std::string(line);
}

std::string commentLine(std::string_view note) {
  const std::string text = singleLine(note);
  if (text.empty()) return "#";
  if (text.front() == '#') return "#" + text;
  return "# " + text;
}

core::Status addEntry(core::LabelTable& table, core::LabelEntry entry, const std::string& subject, int line) {
  if (entry.name.empty()) return parseError(subject, line, "label " + std::to_string(entry.id) + " has an empty name");
  if (table.contains(entry.id)) return parseError(subject, line, "duplicate label id " + std::to_string(entry.id));
  const core::Label id = entry.id;
  core::Status s = table.add(std::move(entry));
  if (!s) return parseError(subject, line, "cannot add label " + std::to_string(id) + ": " + s.error().detail);
  return core::Status::success();
}

std::string nameFromTerminology(const core::Terminology& t) {
  std::string name = t.type.meaning;
  if (!t.typeModifier.meaning.empty()) name = t.typeModifier.meaning + " " + name;
  if (!t.region.meaning.empty())
    name += " of " +
            (t.regionModifier.meaning.empty() ? t.region.meaning : t.regionModifier.meaning + " " + t.region.meaning);
  return name;
}

}  // namespace delineate::io::label_io_detail
