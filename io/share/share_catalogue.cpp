#include "io/share/share_catalogue.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/gzip.h"
#include "io/base/process_info.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;
using nlohmann::json;

// A snapshot of 100,000 studies is ~40 MB of records; a segment a few hundred.
constexpr std::uintmax_t kMaxSegmentBytes = kMaxRecordBytes;
// A snapshot of 100,000 studies is 9 MB packed, 65 MB of records: these caps leave room for some 3 million.
constexpr std::uintmax_t kMaxSnapshotBytes = std::uintmax_t(256) << 20;
constexpr std::uintmax_t kMaxSnapshotInflated = std::uintmax_t(2) << 30;

std::string safeHost() {
  std::string h = localHostName();
  for (char& c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  if (h.empty()) h = "host";
  return h.substr(0, 40);
}

// "<epoch-ms>-<host>-<pid>-<random>": sorts by time, unique across writers without coordination.
std::string newRecordFileStem(std::int64_t* epochMs) {
  const auto now = std::chrono::system_clock::now();
  *epochMs = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ (std::uint64_t(::getpid()) << 32)};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%013lld-%s-%d-%08llx", static_cast<long long>(*epochMs), safeHost().c_str(),
                static_cast<int>(::getpid()), static_cast<unsigned long long>(rng() & 0xffffffffULL));
  return buf;
}

std::string utcDay(std::int64_t epochMs) {
  const std::time_t t = static_cast<std::time_t>(epochMs / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
  return buf;
}

bool isDayName(const std::string& name) {
  return name.size() == 8 && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

core::Result<std::vector<std::string>> listNames(const fs::path& folder, bool folders) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::exists(folder, ec)) return names;
  fs::directory_iterator it(folder, ec), end;
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), "cannot list the folder: " + ec.message());
  for (; it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // temporary files of writes in progress
    if (folders != it->is_directory(ec)) continue;
    names.push_back(name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), "cannot list the folder: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

core::Result<std::string> gunzipCapped(const std::string& in, const std::string& subject) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return makeError(ErrorCode::ReadFailed, subject, "cannot start inflating");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > kMaxSnapshotInflated) {
      inflateEnd(&zs);
      return makeError(ErrorCode::SizeLimit, subject, "inflates to more than 2 GiB: not a catalogue snapshot this program wrote");
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // a further gzip member (gzipCompress writes several)
      continue;
    }
    if (rc != Z_OK) {
      inflateEnd(&zs);
      return makeError(ErrorCode::Corrupt, subject, "damaged gzip data");
    }
    if (zs.avail_in == 0) {
      inflateEnd(&zs);
      return makeError(ErrorCode::Corrupt, subject, "the gzip data ends early (a cut-off file)");
    }
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

core::Result<std::string> appendCatalogue(const ShareStore& store, const std::vector<std::string>& records) {
  if (records.empty()) return makeError(ErrorCode::InvalidArgument, store.root(), "no catalogue records to write");
  const std::string now = utcNowIso(), user = processUserName(), host = localHostName();
  std::string text;
  for (const std::string& r : records) {
    json j = json::parse(r, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("kind"))
      return makeError(ErrorCode::InvalidArgument, store.root(), "a catalogue record must be a JSON object with a kind");
    if (!j.contains("time")) j["time"] = now;
    if (!j.contains("user")) j["user"] = user;
    if (!j.contains("host")) j["host"] = host;
    text += j.dump();
    text += '\n';
  }
  std::int64_t ms = 0;
  const std::string stem = newRecordFileStem(&ms);
  const std::string path = std::string(kCatalogueLog) + "/" + utcDay(ms) + "/" + stem + ".jsonl";
  auto written = store.writeFile(path, text.data(), text.size(), true);
  if (!written) return written.error();
  return path;
}

std::string appendCatalogueOrWarn(const ShareStore& store, const std::string& record) {
  auto written = appendCatalogue(store, {record});
  if (written) return {};
  return "saved, but the study catalogue was not told (" + written.error().describe() +
         "): other users' study lists miss this change until `delineate-cli study reindex " + store.root() +
         "` runs";
}

std::string catalogueLabelsRecord(const std::string& study, const std::string& labelSet, int revision,
                                  const std::string& author, const std::string& time, const std::string& series) {
  json j{{"kind", "labels"}, {"study", study}, {"labelSet", labelSet}, {"revision", revision}, {"author", author}};
  if (!time.empty()) j["time"] = time;
  if (!series.empty()) j["series"] = series;
  return j.dump();
}

std::string catalogueReviewRecord(const std::string& study, const std::string& labelSet, int revision,
                                  const std::string& action, const std::string& user, const std::string& time,
                                  int sequence) {
  json j{{"kind", "review"}, {"study", study},   {"labelSet", labelSet},
         {"revision", revision}, {"action", action}, {"sequence", sequence}};
  if (!user.empty()) j["user"] = user;
  if (!time.empty()) j["time"] = time;
  return j.dump();
}

std::string catalogueLeaseRecord(const std::string& study, const std::string& labelSet, const std::string& event,
                                 const std::string& user, const std::string& host) {
  json j{{"kind", "lease"}, {"study", study}, {"labelSet", labelSet}, {"event", event}};
  if (!user.empty()) j["user"] = user;
  if (!host.empty()) j["host"] = host;
  return j.dump();
}

bool splitLabelSetFolder(const std::string& folder, std::string* study, std::string* labelSet) {
  // studies/<study>/labelsets/<set>
  const std::string head = "studies/";
  if (folder.compare(0, head.size(), head) != 0) return false;
  const std::size_t a = folder.find('/', head.size());
  if (a == std::string::npos) return false;
  const std::string mid = "/labelsets/";
  if (folder.compare(a, mid.size(), mid) != 0) return false;
  const std::string set = folder.substr(a + mid.size());
  if (set.empty() || set.find('/') != std::string::npos) return false;
  *study = folder.substr(head.size(), a - head.size());
  *labelSet = set;
  return true;
}

core::Result<std::vector<std::string>> listCatalogueDayNames(const ShareStore& store) {
  auto names = listNames(fs::path(store.root()) / kCatalogueLog, true);
  if (!names) return names.error();
  std::vector<std::string> days;
  for (std::string& n : *names)
    if (isDayName(n)) days.push_back(std::move(n));
  return days;
}

core::Result<std::int64_t> catalogueDayTime(const ShareStore& store, const std::string& day) {
  if (!isDayName(day)) return makeError(ErrorCode::InvalidArgument, day, "not a catalogue day folder");
  const std::string path = (fs::path(store.root()) / kCatalogueLog / day).string();
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0)
    return makeError(ErrorCode::ReadFailed, path, std::string("cannot read the folder's time: ") + std::strerror(errno));
  return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

core::Result<std::vector<std::string>> listCatalogueSegments(const ShareStore& store, const std::string& day) {
  if (!isDayName(day)) return makeError(ErrorCode::InvalidArgument, day, "not a catalogue day folder");
  auto names = listNames(fs::path(store.root()) / kCatalogueLog / day, false);
  if (!names) return names.error();
  std::vector<std::string> segments;
  for (std::string& n : *names)
    if (endsWith(n, ".jsonl")) segments.push_back(std::move(n));
  return segments;
}

core::Result<std::vector<std::string>> readCatalogueSegment(const ShareStore& store, const std::string& day,
                                                            const std::string& name) {
  const std::string path = (fs::path(store.root()) / kCatalogueLog / day / name).string();
  auto text = readWholeFile(path, kMaxSegmentBytes, "catalogue segment");
  if (!text) return text.error();
  return splitLines(*text);
}

core::Result<std::vector<std::string>> listCatalogueSnapshots(const ShareStore& store) {
  auto names = listNames(fs::path(store.root()) / kCatalogueSnapshots, false);
  if (!names) return names.error();
  std::vector<std::string> snapshots;
  for (std::string& n : *names)
    if (endsWith(n, ".jsonl.gz")) snapshots.push_back(std::move(n));
  return snapshots;
}

core::Result<CatalogueSnapshot> readCatalogueSnapshot(const ShareStore& store, const std::string& name) {
  const std::string path = (fs::path(store.root()) / kCatalogueSnapshots / name).string();
  auto packed = readWholeFile(path, kMaxSnapshotBytes, "catalogue snapshot");
  if (!packed) return packed.error();
  auto text = gunzipCapped(*packed, path);
  if (!text) return text.error();
  CatalogueSnapshot snapshot;
  std::size_t start = 0;
  bool first = true;
  while (start < text->size()) {
    std::size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    if (end > start) {
      if (first) {
        const json head = json::parse(text->begin() + std::ptrdiff_t(start), text->begin() + std::ptrdiff_t(end),
                                      nullptr, false);
        if (head.is_discarded() || !head.is_object() || head.value("format", 0) != 1 ||
            !head.contains("covered") || !head["covered"].is_array())
          return makeError(ErrorCode::ParseError, path, "the first line is not a catalogue snapshot header (format 1)");
        for (const json& c : head["covered"]) {
          if (!c.is_object() || !c.contains("day") || !c["day"].is_string() || !c.contains("segments") ||
              !c["segments"].is_array())
            return makeError(ErrorCode::ParseError, path, "a covered day without day and segments");
          CatalogueSnapshot::Covered cov;
          cov.day = c["day"].get<std::string>();
          cov.mtimeNs = c.value("mtimeNs", std::int64_t(0));
          cov.confirmed = c.value("confirmed", false);
          for (const json& s : c["segments"])
            if (s.is_string()) cov.segments.push_back(s.get<std::string>());
          snapshot.covered.push_back(std::move(cov));
        }
        first = false;
      } else {
        snapshot.records.push_back(text->substr(start, end - start));
      }
    }
    start = end + 1;
  }
  if (first) return makeError(ErrorCode::ParseError, path, "an empty catalogue snapshot");
  return snapshot;
}

core::Result<std::string> writeCatalogueSnapshot(const ShareStore& store, const CatalogueSnapshot& snapshot,
                                                 const std::string& kind) {
  if (kind != "compact" && kind != "reindex")
    return makeError(ErrorCode::InvalidArgument, kind, "a catalogue snapshot is a compact or a reindex one");
  json covered = json::array();
  for (const auto& c : snapshot.covered)
    covered.push_back({{"day", c.day}, {"mtimeNs", c.mtimeNs}, {"confirmed", c.confirmed}, {"segments", c.segments}});
  std::string text = json{{"format", 1}, {"time", utcNowIso()}, {"host", localHostName()}, {"covered", covered}}.dump();
  text += '\n';
  for (const std::string& r : snapshot.records) {
    text += r;
    text += '\n';
  }
  std::int64_t ms = 0;
  const std::string name = newRecordFileStem(&ms) + "." + kind + ".jsonl.gz";
  auto packed = gzipCompress(text.data(), text.size(), kDefaultGzipLevel, name);
  if (!packed) return packed.error();
  auto written = store.writeFile(std::string(kCatalogueSnapshots) + "/" + name, packed->data(), packed->size(), true);
  if (!written) return written.error();
  return name;
}

}  // namespace delineate::io
