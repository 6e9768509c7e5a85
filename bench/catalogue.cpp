// The study catalogue at hospital scale (issue 24, item 3), measured beside a plain directory walk of the same tree.
//
// Targets (issue 24): with 100,000 studies, the first listing over sshfs behind a 2 ms RTT under 10 s, a search under
// 100 ms warm, a study imported elsewhere visible within 5 s. scripts/bench_catalogue.sh runs the whole thing: it
// generates the tree on local disk, mounts it through sshfs behind scripts/latency_proxy.py and runs `measure`.
//
// bench_catalogue generate ROOT --studies N [--segment-records 500] [--days 1] [--snapshot] [--seed 24] [--jobs J]
//   Makes ROOT a share store holding N synthetic studies, one DICOM series each: the manifest
//   studies/<study>/series/<series>.json (seriesManifestJson: patient, a study date spread over 2014-2025, CT/MR/PT/US,
//   a description from a small vocabulary, one file entry) and an empty series folder beside it, written with plain
//   file writes (the tree is a fixture); then the catalogue records through appendCatalogue in segments of
//   --segment-records, as the importer batches them: the series records first, then label-set revisions for ~30% of
//   the studies, review steps for half of those and leases for ~2.5% (0.5% still held, so "editing").
//   --days D moves the segments into D day folders ending today (folder times set to each day's end), as a catalogue
//   that grew over D days; the records are unchanged. --snapshot then compacts it as a client would.
// bench_catalogue compact ROOT
//   A client's compaction of ROOT (fresh local index, refresh, compact): one snapshot covering every segment.
// bench_catalogue saves ROOT --count K --studies N
//   K label-set saves since: each one record in a segment of its own (appendCatalogueOrWarn, as the window and the CLI
//   write them), on studies of a tree generated with N studies: what a new client reads after the newest snapshot.
// bench_catalogue measure ROOT [--writer-root PATH] [--parts listing,search,visibility,walk] [--label TEXT]
//                          [--repeats 20] [--visibility-runs 3] [--poll-ms 500] [--visibility-timeout 60]
//                          [--walk-seconds 120] [--walk-threads 1] [--index-dir DIR]
//   ROOT is the tree as a client sees it (the sshfs mount); --writer-root the same tree as the server sees it.
//   listing:    a fresh local index (under --index-dir): open + refresh + every study read back, then refreshes with
//               nothing new, and a client restart (the index kept: open + refresh + the browser's first 200 rows).
//   search:     the browser's queries, --repeats times each: p50 and max.
//   visibility: a writer on --writer-root publishes a new study's manifest and catalogue record at a random moment
//               while this client refreshes every --poll-ms, as the study browser does; seconds from the record's
//               publication until the client's index has the study.
//   walk:       the peer: what a client without the catalogue does. List studies/, then for each study list its
//               series/ folder and read and parse every manifest (the folders `study reindex` reads; label sets not
//               even looked at, so a lower bound), until --walk-seconds; the time for all N is extrapolated from the
//               rate and printed as such.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/geometry.h"
#include "io/base/process_info.h"
#include "io/base/sha256.h"
#include "io/share/share_catalogue.h"
#include "io/share/share_store.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace delineate;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
double since(Clock::time_point a) { return seconds(a, Clock::now()); }

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "bench_catalogue: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T need(core::Result<T> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.error().describe());
  return std::move(r).value();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * double(v.size() - 1) + 0.5));
  return v[i];
}

std::string isoUtc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string dayName(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
  return buf;
}

long maxRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

// ---------------------------------------------------------------------------------------------------------------
// The synthetic hospital.

constexpr const char* kStudyRoot = "1.2.826.0.1.3680043.10.543.";
constexpr const char* kFamilies[] = {"MUELLER", "SCHMIDT", "SCHNEIDER", "FISCHER", "WEBER", "MEYER", "WAGNER",
                                     "BECKER", "SCHULZ", "HOFFMANN", "MARTIN", "BERNARD", "DUBOIS", "THOMAS",
                                     "ROBERT", "RICHARD", "PETIT", "DURAND", "LEROY", "MOREAU", "SMITH", "JOHNSON",
                                     "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS", "WANG", "LI",
                                     "ZHANG", "LIU", "CHEN", "YANG", "HUANG", "ZHAO", "ROSSI", "RUSSO", "FERRARI",
                                     "ESPOSITO", "BIANCHI", "ROMANO", "NOVAK", "KOWALSKI", "NIELSEN", "HANSEN",
                                     "JANSSEN", "DE JONG", "SILVA", "SANTOS"};
constexpr const char* kGivens[] = {"ANNA", "MARIA", "PETER", "THOMAS", "MICHAEL", "SARAH", "JULIA", "LUKAS",
                                   "CLAIRE", "PIERRE", "LOUIS", "CAMILLE", "JAMES", "MARY", "JOHN", "LINDA",
                                   "WEI", "FANG", "JING", "MING", "GIULIA", "MARCO", "PIOTR", "EVA", "JAN"};
struct ModalityKind {
  const char* modality;
  int weight;  // percent
  std::vector<const char*> studies, series;
};
const std::vector<ModalityKind>& modalities() {
  static const std::vector<ModalityKind> kinds = {
      {"CT", 45,
       {"CT CHEST WITHOUT CONTRAST", "CT ABDOMEN PELVIS WITH CONTRAST", "CT HEAD WITHOUT CONTRAST",
        "CT CHEST ABDOMEN PELVIS", "CT ANGIO PULMONARY", "CT LIVER TRIPHASIC", "CT SPINE LUMBAR"},
       {"AXIAL 1.25MM", "AXIAL 5MM", "PORTAL VENOUS 1MM", "ARTERIAL 1MM", "LUNG 1MM"}},
      {"MR", 30,
       {"MR BRAIN WITH AND WITHOUT CONTRAST", "MR KNEE LEFT", "MR KNEE RIGHT", "MR LIVER", "MR PROSTATE",
        "MR SPINE CERVICAL", "MR BREAST BILATERAL"},
       {"T1 AXIAL", "T2 FLAIR", "T2 TSE SAG", "DWI B800", "T1 POST GD"}},
      {"PT", 10, {"PET CT WHOLE BODY FDG", "PET CT PSMA", "PET BRAIN FDG"}, {"PET AC", "PET NAC"}},
      {"US", 15, {"US ABDOMEN COMPLETE", "US THYROID", "US LIVER DOPPLER", "US OBSTETRIC"}, {"US IMAGES"}},
  };
  return kinds;
}
constexpr const char* kLabelSets[] = {"organs", "liver", "lesions", "lungs", "brain"};
constexpr const char* kAnnotators[] = {"alice", "bob", "carol", "dmitri", "emma", "farid", "grace"};

template <std::size_t N>
const char* pick(const char* const (&items)[N], std::mt19937_64& rng) {
  return items[rng() % N];
}

struct Synthetic {
  io::SeriesManifest manifest;
  std::time_t imported = 0;
};

// Study i of the hospital (the same for a given seed and i whoever asks).
Synthetic syntheticStudy(std::uint64_t seed, std::size_t i, std::size_t patients) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + i);
  Synthetic s;
  io::SeriesManifest& m = s.manifest;
  m.study = kStudyRoot + std::to_string(i + 1);
  m.series = m.study + ".1";
  m.kind = "dicom";
  m.studyInstanceUid = m.study;
  m.seriesInstanceUid = m.series;
  m.seriesNumber = std::to_string(1 + rng() % 8);
  const std::size_t patient = rng() % patients;
  char id[32];
  std::snprintf(id, sizeof id, "P%07zu", patient + 1);
  m.patientId = id;
  std::mt19937_64 prng(seed ^ (patient * 0xD1B54A32D192ED03ULL));  // a patient keeps their name
  m.patientName = std::string(pick(kFamilies, prng)) + "^" + pick(kGivens, prng);
  const std::time_t from = 1388534400;  // 2014-01-01
  const std::time_t span = std::time_t(12) * 365 * 86400;
  const std::time_t date = from + std::time_t(rng() % std::uint64_t(span));
  m.studyDate = dayName(date);
  int roll = int(rng() % 100);
  const ModalityKind* kind = &modalities().front();
  for (const ModalityKind& k : modalities()) {
    kind = &k;
    if ((roll -= k.weight) < 0) break;
  }
  m.modality = kind->modality;
  m.studyDescription = kind->studies[rng() % kind->studies.size()];
  m.seriesDescription = kind->series[rng() % kind->series.size()];
  const std::int64_t slices = m.modality == "US" ? 1 : 40 + std::int64_t(rng() % 500);
  const double pixel = m.modality == "MR" ? 0.9 : 0.7 + double(rng() % 20) / 100.0;
  m.geometry = core::Geometry({512, 512, slices}, {pixel, pixel, m.modality == "MR" ? 3.0 : 1.25},
                              {-180.0, -180.0, -double(slices) * 1.25});
  io::SeriesFile f;
  f.sha256 = io::sha256Hex(m.series.data(), m.series.size());
  f.name = f.sha256 + ".dcm";
  f.bytes = std::uint64_t(slices) * 527000;
  f.source = "IMG" + std::to_string(1 + rng() % 9999) + ".dcm";
  m.files.push_back(std::move(f));
  m.importedBy = kAnnotators[rng() % std::size(kAnnotators)];
  m.host = "ws-radiology-" + std::to_string(1 + rng() % 12);
  s.imported = date + std::time_t(3600 + rng() % (30 * 86400));
  m.time = isoUtc(s.imported);
  return s;
}

void writePlainFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (!out) die("cannot write " + path.string());
}

// Writes the study's folders and manifest; returns its catalogue record.
std::string writeStudyFolders(const fs::path& root, const io::SeriesManifest& m) {
  const fs::path seriesDir = root / "studies" / m.study / "series";
  std::error_code ec;
  fs::create_directories(seriesDir / m.series, ec);  // the folder the series' files would be in
  if (ec) die("cannot create " + seriesDir.string() + ": " + ec.message());
  const std::string text = io::seriesManifestJson(m);
  writePlainFile(seriesDir / (m.series + ".json"), text);
  return io::catalogueSeriesRecord(m, io::sha256Hex(text.data(), text.size()));
}

// The label, review and lease records of the studies that have them (the same for a given seed).
std::vector<std::string> activityRecords(std::uint64_t seed, const std::vector<Synthetic>& studies, int* editing) {
  std::vector<std::string> records;
  std::mt19937_64 rng(seed + 7);
  for (const Synthetic& s : studies) {
    const io::SeriesManifest& m = s.manifest;
    const int roll = int(rng() % 1000);
    if (roll >= 300) continue;  // 30% have labels
    const std::string set = pick(kLabelSets, rng);
    const int revisions = 1 + int(rng() % 5);
    const std::string author = pick(kAnnotators, rng);
    const std::time_t saved = s.imported + std::time_t(86400 + rng() % (60 * 86400));
    records.push_back(io::catalogueLabelsRecord(m.study, set, revisions, author, isoUtc(saved), m.series));
    if (roll < 150) {  // half of those were reviewed
      const std::string reviewer = pick(kAnnotators, rng);
      records.push_back(io::catalogueReviewRecord(m.study, set, revisions, "submit", author, isoUtc(saved + 600), 1));
      if (roll < 100)
        records.push_back(io::catalogueReviewRecord(m.study, set, revisions, roll < 80 ? "approve" : "reject",
                                                    reviewer, isoUtc(saved + 86400), 2));
    }
    if (roll >= 275) {  // leases: taken and given back, a fifth still held (their time is now: "editing")
      records.push_back(io::catalogueLeaseRecord(m.study, set, "acquired", author, "ws-radiology-1"));
      if (roll < 295) records.push_back(io::catalogueLeaseRecord(m.study, set, "released", author, "ws-radiology-1"));
      else ++*editing;
    }
  }
  return records;
}

// Segments spread over `days` day folders ending today, as a catalogue written over that many days.
void spreadOverDays(const fs::path& root, int days) {
  const fs::path log = root / io::kCatalogueLog;
  std::vector<fs::path> segments;
  for (const auto& day : fs::directory_iterator(log))
    for (const auto& seg : fs::directory_iterator(day.path())) segments.push_back(seg.path());
  std::sort(segments.begin(), segments.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename() < b.filename();
  });
  const std::time_t today = std::time(nullptr);
  std::map<std::string, std::time_t> dayEnds;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const int back = days - 1 - int(i * std::size_t(days) / segments.size());
    const std::time_t when = today - std::time_t(back) * 86400;
    const std::string day = dayName(when);
    fs::create_directories(log / day);
    if (segments[i].parent_path().filename() != day) fs::rename(segments[i], log / day / segments[i].filename());
    dayEnds[day] = back == 0 ? today : (when / 86400) * 86400 + 86399;
  }
  for (const auto& [day, end] : dayEnds) {
    if (fs::is_empty(log / day)) continue;
    const timespec times[2] = {{end, 0}, {end, 0}};
    utimensat(AT_FDCWD, (log / day).c_str(), times, 0);
  }
  for (const auto& day : fs::directory_iterator(log))
    if (fs::is_empty(day.path())) fs::remove(day.path());
}

void compactTree(const io::ShareStore& store, const fs::path& scratch) {
  const fs::path indexPath = scratch / ("compact-" + std::to_string(::getpid()) + ".sqlite");
  fs::remove(indexPath);
  const auto t0 = Clock::now();
  io::StudyIndex index = need(io::StudyIndex::open(store, indexPath.string()), "open a local index");
  const io::CatalogueRefresh r = need(index.refresh(), "read the catalogue");
  const double read = since(t0);
  const auto t1 = Clock::now();
  const std::string name = need(index.compact(), "compact");
  const double write = since(t1);
  std::printf("compaction: catalogue read in %.2f s (%d segments, %d records), snapshot %s written in %.2f s (%.1f MB)\n",
              read, r.segmentsRead, r.recordsApplied, name.c_str(), write,
              double(fs::file_size(fs::path(store.root()) / io::kCatalogueSnapshots / name)) / 1e6);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(indexPath.string() + suffix);
}

struct CatalogueSize {
  int days = 0, segments = 0, snapshots = 0;
  std::uintmax_t segmentBytes = 0, snapshotBytes = 0;
};
CatalogueSize catalogueSize(const fs::path& root) {
  CatalogueSize c;
  std::error_code ec;
  for (const auto& day : fs::directory_iterator(root / io::kCatalogueLog, ec)) {
    ++c.days;
    for (const auto& seg : fs::directory_iterator(day.path())) {
      ++c.segments;
      c.segmentBytes += seg.file_size();
    }
  }
  for (const auto& snap : fs::directory_iterator(root / io::kCatalogueSnapshots, ec)) {
    ++c.snapshots;
    c.snapshotBytes += snap.file_size();
  }
  return c;
}

void printCatalogueSize(const fs::path& root) {
  const CatalogueSize c = catalogueSize(root);
  std::printf("catalogue: %d segments (%.1f MB) in %d day folders; %d snapshots (%.1f MB)\n", c.segments,
              double(c.segmentBytes) / 1e6, c.days, c.snapshots, double(c.snapshotBytes) / 1e6);
}

int generate(const fs::path& root, std::size_t count, std::size_t perSegment, int days, bool snapshot,
             std::uint64_t seed, unsigned jobs) {
  fs::create_directories(root);
  if (fs::exists(root / "studies") && !fs::is_empty(root / "studies")) die(root.string() + " already holds studies");
  const io::ShareStore store = need(io::ShareStore::initialize(root.string()), "initialize the store");
  const std::size_t patients = std::max<std::size_t>(1, count * 2 / 5);
  std::printf("generating %zu studies (%zu patients, one series each) in %s, %zu records per segment, %u jobs\n",
              count, patients, root.c_str(), perSegment, jobs);

  const auto t0 = Clock::now();
  std::vector<Synthetic> studies(count);
  std::vector<std::string> seriesRecords(count);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < jobs; ++j)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < count;) {
        studies[i] = syntheticStudy(seed, i, patients);
        seriesRecords[i] = writeStudyFolders(root, studies[i].manifest);
      }
    });
  for (auto& w : workers) w.join();
  const double folders = since(t0);

  int editing = 0;
  std::vector<std::string> activity = activityRecords(seed, studies, &editing);
  const auto t1 = Clock::now();
  int segments = 0;
  for (const std::vector<std::string>* records : {&seriesRecords, &activity})
    for (std::size_t at = 0; at < records->size(); at += perSegment) {
      const auto end = records->begin() + std::ptrdiff_t(std::min(records->size(), at + perSegment));
      need(io::appendCatalogue(store, std::vector<std::string>(records->begin() + std::ptrdiff_t(at), end)),
           "append to the catalogue");
      ++segments;
    }
  const double catalogue = since(t1);
  if (days > 1) spreadOverDays(root, days);
  std::printf("studies: %zu manifests + folders written in %.1f s; catalogue: %zu series + %zu label/review/lease "
              "records (%d studies being edited) in %d segments through appendCatalogue in %.1f s\n",
              count, folders, seriesRecords.size(), activity.size(), editing, segments, catalogue);
  if (snapshot) compactTree(store, root.parent_path());
  printCatalogueSize(root);
  std::printf("generation: %.1f s in all\n", since(t0));
  return 0;
}

int saves(const fs::path& root, std::size_t count, std::size_t studies, std::uint64_t seed) {
  const io::ShareStore store = need(io::ShareStore::open(root.string()), "open the store");
  std::mt19937_64 rng(seed + 11);
  const auto t0 = Clock::now();
  for (std::size_t k = 0; k < count; ++k) {
    const std::string study = kStudyRoot + std::to_string(1 + rng() % studies);
    const std::string record = io::catalogueLabelsRecord(study, pick(kLabelSets, rng), 6 + int(k % 50),
                                                         pick(kAnnotators, rng), io::utcNowIso(), study + ".1");
    const std::string warning = io::appendCatalogueOrWarn(store, record);
    if (!warning.empty()) die(warning);
  }
  std::printf("saves: %zu label-set saves, one segment each, appended in %.1f s\n", count, since(t0));
  printCatalogueSize(root);
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring.

struct MeasureOptions {
  std::string writerRoot, label, indexDir;
  std::vector<std::string> parts{"listing", "search", "visibility", "walk"};
  int repeats = 20, visibilityRuns = 3, pollMs = 500;
  double visibilityTimeout = 60, walkSeconds = 120;
  std::vector<int> walkThreads{1};
  bool wants(const std::string& part) const { return std::find(parts.begin(), parts.end(), part) != parts.end(); }
};

void printRefresh(const io::CatalogueRefresh& r) {
  std::printf("snapshots %d, segments %d, records %d, days listed %d, studies updated %d", r.snapshotsRead,
              r.segmentsRead, r.recordsApplied, r.daysListed, r.studiesUpdated);
  if (!r.newProblems.empty()) std::printf(", %zu PROBLEMS (first: %s)", r.newProblems.size(), r.newProblems[0].c_str());
  if (!r.compactedInto.empty()) std::printf(", compacted into %s", r.compactedInto.c_str());
  if (!r.compactWarning.empty()) std::printf(", compaction warning: %s", r.compactWarning.c_str());
}

void removeIndex(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
}

void measureListing(const io::ShareStore& store, const std::string& indexPath) {
  removeIndex(indexPath);
  std::printf("\n-- first listing: a new client (fresh local index %s)\n", indexPath.c_str());
  {
    const auto t0 = Clock::now();
    auto index = need(io::StudyIndex::open(store, indexPath), "open the index");
    const double open = since(t0);
    const auto t1 = Clock::now();
    const io::CatalogueRefresh r = need(index.refresh(), "refresh");
    const double refresh = since(t1);
    const auto t2 = Clock::now();
    const std::vector<io::StudyRow> all = need(index.search({}), "search");
    const double search = since(t2);
    std::printf("first listing: %.2f s = open %.3f s + refresh %.2f s + every study read back %.3f s (%zu rows)\n",
                open + refresh + search, open, refresh, search, all.size());
    std::printf("  refresh read: ");
    printRefresh(r);
    std::error_code ec;
    const std::uintmax_t wal = fs::file_size(indexPath + "-wal", ec);
    std::printf("\n  index file: %.1f MB (+ %.1f MB write-ahead log); peak RSS so far %ld MB\n",
                double(fs::file_size(indexPath)) / 1e6, ec ? 0.0 : double(wal) / 1e6, maxRssMb());

    std::vector<double> warm;
    io::CatalogueRefresh last;
    for (int i = 0; i < 5; ++i) {
      const auto t = Clock::now();
      last = need(index.refresh(), "refresh");
      warm.push_back(since(t) * 1000);
    }
    std::printf("warm refresh (nothing new), 5 in a row: p50 %.1f ms, max %.1f ms (last: ", percentile(warm, 0.5),
                percentile(warm, 1.0));
    printRefresh(last);
    std::printf(")\n");
  }
  // The browser started again on this client: the index is there, the catalogue has nothing new.
  const auto t3 = Clock::now();
  auto again = need(io::StudyIndex::open(store, indexPath), "reopen the index");
  const io::CatalogueRefresh r2 = need(again.refresh(), "refresh");
  io::StudyQuery first200;
  first200.limit = 200;
  const std::size_t rows = need(again.search(first200), "search").size();
  std::printf("client restart (index kept): open + refresh + first %zu rows %.3f s (", rows, since(t3));
  printRefresh(r2);
  std::printf(")\n");
}

void measureSearch(const io::ShareStore& store, const std::string& indexPath, int repeats) {
  auto index = need(io::StudyIndex::open(store, indexPath), "open the index");
  if (need(index.studyCount(), "count") == 0) need(index.refresh(), "refresh");  // --parts search alone
  std::printf("\n-- search, warm (local index of %d studies), %d runs each\n", need(index.studyCount(), "count"),
              repeats);
  struct Named {
    const char* name;
    io::StudyQuery query;
  };
  std::vector<Named> queries;
  const auto add = [&](const char* name, auto setup) {
    io::StudyQuery q;
    setup(q);
    queries.push_back({name, q});
  };
  add("browser's first page: no filter, newest 200", [](io::StudyQuery& q) { q.limit = 200; });
  add("no filter, all rows", [](io::StudyQuery&) {});
  add("text \"schmi\" (patient/description/study), 200", [](io::StudyQuery& q) { q.text = "schmi"; q.limit = 200; });
  add("text \"schmi\", all rows", [](io::StudyQuery& q) { q.text = "schmi"; });
  add("patient ID \"P0012345\"", [](io::StudyQuery& q) { q.patient = "P0012345"; });
  add("modality MR, 200", [](io::StudyQuery& q) { q.modality = "MR"; q.limit = 200; });
  add("date 2020-01-01..2020-06-30, 200", [](io::StudyQuery& q) {
    q.dateFrom = "2020-01-01";
    q.dateTo = "2020-06-30";
    q.limit = 200;
  });
  add("status approved, 200", [](io::StudyQuery& q) { q.status = "approved"; q.limit = 200; });
  add("status editing", [](io::StudyQuery& q) { q.status = "editing"; });
  add("description \"knee\", 200", [](io::StudyQuery& q) { q.description = "knee"; q.limit = 200; });
  add("CT + 2019 + \"abdomen\" + has revisions", [](io::StudyQuery& q) {
    q.modality = "CT";
    q.dateFrom = "20190101";
    q.dateTo = "20191231";
    q.description = "abdomen";
    q.status = "revisions";
  });
  add("sorted by patient, 200", [](io::StudyQuery& q) { q.sortBy = "patient"; q.descending = false; q.limit = 200; });
  std::printf("%-48s %8s %9s %9s\n", "query", "rows", "p50 ms", "max ms");
  for (const Named& n : queries) {
    std::vector<double> ms;
    std::size_t rows = 0;
    for (int i = 0; i < repeats; ++i) {
      const auto t = Clock::now();
      rows = need(index.search(n.query), "search").size();
      ms.push_back(since(t) * 1000);
    }
    std::printf("%-48s %8zu %9.2f %9.2f\n", n.name, rows, percentile(ms, 0.5), percentile(ms, 1.0));
  }
}

void measureVisibility(const io::ShareStore& store, const std::string& indexPath, const MeasureOptions& o) {
  if (o.writerRoot.empty()) {
    std::printf("\n-- visibility: skipped (no --writer-root)\n");
    return;
  }
  const io::ShareStore writer = need(io::ShareStore::open(o.writerRoot), "open the writer's store");
  if (writer.id() != store.id()) die(o.writerRoot + " is not the same store as " + store.root());
  auto index = need(io::StudyIndex::open(store, indexPath), "open the index");
  need(index.refresh(), "refresh");
  std::printf("\n-- visibility: a study imported on the server side (%s) while this client refreshes every %d ms\n",
              o.writerRoot.c_str(), o.pollMs);
  std::mt19937_64 rng(std::random_device{}());
  std::vector<double> found;
  for (int run = 0; run < o.visibilityRuns; ++run) {
    Synthetic s = syntheticStudy(rng(), 0, 1000);
    io::SeriesManifest& m = s.manifest;
    m.study = std::string("1.2.826.0.1.3680043.10.999.") + std::to_string(std::time(nullptr)) + "." +
              std::to_string(::getpid()) + "." + std::to_string(run);
    m.series = m.study + ".1";
    m.studyInstanceUid = m.study;
    m.seriesInstanceUid = m.series;
    m.patientName = "VISIBILITY^TEST";
    m.time = io::utcNowIso();
    // The importer's order: the manifest (the series' files are already there), then its catalogue record.
    std::atomic<bool> published{false};
    Clock::time_point t0{};
    double appendSeconds = 0;
    std::string failure;
    std::thread importer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(700 + rng() % std::uint64_t(o.pollMs)));
      const std::string text = io::seriesManifestJson(m);
      const auto a = Clock::now();
      auto sha = writer.writeFile(m.path(), text.data(), text.size(), true);
      if (!sha) {
        failure = sha.error().describe();
      } else if (auto seg = io::appendCatalogue(writer, {io::catalogueSeriesRecord(m, *sha)}); !seg) {
        failure = seg.error().describe();
      }
      t0 = Clock::now();
      appendSeconds = seconds(a, t0);
      published = true;
    });
    std::vector<double> refreshMs;
    double seen = -1;
    const auto start = Clock::now();
    for (auto tick = start;; tick += std::chrono::milliseconds(o.pollMs)) {
      std::this_thread::sleep_until(tick);
      const auto r0 = Clock::now();
      need(index.refresh(), "refresh");
      const bool has = need(index.find(m.study), "find").has_value();
      const auto r1 = Clock::now();
      refreshMs.push_back(seconds(r0, r1) * 1000);
      if (has) {
        importer.join();  // t0 is set just after the record is published: wait for it
        seen = std::max(0.0, seconds(t0, r1));
        break;
      }
      if (since(start) > o.visibilityTimeout + 2 || (published && !failure.empty())) break;
    }
    if (importer.joinable()) importer.join();
    if (!failure.empty()) die("the writer failed: " + failure);
    if (seen < 0)
      std::printf("run %d: NOT visible after %.0f s (manifest + record published in %.0f ms)\n", run + 1,
                  o.visibilityTimeout, appendSeconds * 1000);
    else
      std::printf("run %d: visible %.2f s after its record was published (manifest + record written in %.0f ms; "
                  "%zu refreshes, p50 %.1f ms, max %.1f ms)\n",
                  run + 1, seen, appendSeconds * 1000, refreshMs.size(), percentile(refreshMs, 0.5),
                  percentile(refreshMs, 1.0));
    found.push_back(seen < 0 ? o.visibilityTimeout : seen);
  }
  std::printf("visibility: p50 %.2f s, max %.2f s over %d runs\n", percentile(found, 0.5), percentile(found, 1.0),
              o.visibilityRuns);
}

void measureWalk(const io::ShareStore& store, std::size_t catalogued, double limitSeconds, int threads) {
  std::printf("\n-- peer: a plain walk of studies/ (%d thread%s; list series/, read + parse each manifest), "
              "stopped after %.0f s\n", threads, threads == 1 ? "" : "s", limitSeconds);
  const fs::path studiesDir = fs::path(store.root()) / "studies";
  const auto t0 = Clock::now();
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(studiesDir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  const double listing = since(t0);
  std::printf("list studies/: %zu names in %.2f s\n", names.size(), listing);

  std::atomic<std::size_t> next{0}, walked{0}, manifests{0}, damaged{0};
  const auto t1 = Clock::now();
  const auto deadline = t1 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limitSeconds));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (std::size_t i; Clock::now() < deadline && (i = next.fetch_add(1)) < names.size();) {
        std::error_code ec;
        const fs::path seriesDir = studiesDir / names[i] / "series";
        for (fs::directory_iterator it(seriesDir, ec), end; !ec && it != end; it.increment(ec)) {
          const std::string name = it->path().filename().string();
          if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
          std::ifstream in(it->path(), std::ios::binary);
          std::stringstream text;
          text << in.rdbuf();
          if (io::parseSeriesManifest(text.str(), it->path().string())) ++manifests;
          else ++damaged;
        }
        if (ec) ++damaged;
        ++walked;
      }
    });
  for (auto& w : workers) w.join();
  const double walking = since(t1);
  const double perStudy = walked ? walking / double(walked) : 0;
  const std::size_t total = std::max(names.size(), catalogued);
  std::printf("walked %zu of %zu studies (%zu manifests parsed, %zu unreadable) in %.1f s: %.2f ms per study\n",
              walked.load(), names.size(), manifests.load(), damaged.load(), walking, perStudy * 1000);
  if (walked < names.size())
    std::printf("walk of all %zu studies: EXTRAPOLATED %.0f s (%.1f min) = listing %.1f s + %zu x %.2f ms\n", total,
                listing + perStudy * double(total), (listing + perStudy * double(total)) / 60, listing, total,
                perStudy * 1000);
  else
    std::printf("walk of all %zu studies: %.1f s measured (listing included)\n", names.size(), listing + walking);
}

int measure(const std::string& root, const MeasureOptions& o) {
  const io::ShareStore store = need(io::ShareStore::open(root), "open the store");
  const std::string indexDir = o.indexDir.empty() ? fs::temp_directory_path().string() : o.indexDir;
  fs::create_directories(indexDir);
  const std::string indexPath = indexDir + "/bench-catalogue-" + std::to_string(::getpid()) + ".sqlite";
  std::printf("== measure %s%s%s (index on local disk: %s)\n", root.c_str(), o.label.empty() ? "" : ": ",
              o.label.c_str(), indexDir.c_str());
  if (!o.writerRoot.empty()) printCatalogueSize(o.writerRoot);
  if (o.wants("listing")) measureListing(store, indexPath);
  if (o.wants("search")) measureSearch(store, indexPath, o.repeats);
  if (o.wants("visibility")) measureVisibility(store, indexPath, o);
  std::size_t catalogued = 0;
  if (fs::exists(indexPath)) {
    auto index = need(io::StudyIndex::open(store, indexPath), "open the index");
    catalogued = std::size_t(need(index.studyCount(), "count"));
  }
  removeIndex(indexPath);
  if (o.wants("walk"))
    for (int threads : o.walkThreads) measureWalk(store, catalogued, o.walkSeconds, threads);
  std::printf("\npeak RSS %ld MB\n", maxRssMb());
  return 0;
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: bench_catalogue generate|compact|saves|measure ROOT [options] (see bench/catalogue.cpp)");
  const std::string command = argv[1], root = argv[2];
  std::size_t studies = 0, perSegment = 500, count = 0;
  int days = 1;
  bool snapshot = false;
  std::uint64_t seed = 24;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  MeasureOptions o;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--count") count = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--studies") studies = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--segment-records") perSegment = std::max<std::size_t>(1, std::strtoull(value().c_str(), nullptr, 10));
    else if (a == "--days") days = std::max(1, std::atoi(value().c_str()));
    else if (a == "--snapshot") snapshot = true;
    else if (a == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--jobs") jobs = unsigned(std::max(1, std::atoi(value().c_str())));
    else if (a == "--writer-root") o.writerRoot = value();
    else if (a == "--parts") o.parts = splitList(value());
    else if (a == "--label") o.label = value();
    else if (a == "--index-dir") o.indexDir = value();
    else if (a == "--repeats") o.repeats = std::max(1, std::atoi(value().c_str()));
    else if (a == "--visibility-runs") o.visibilityRuns = std::max(1, std::atoi(value().c_str()));
    else if (a == "--poll-ms") o.pollMs = std::max(10, std::atoi(value().c_str()));
    else if (a == "--visibility-timeout") o.visibilityTimeout = std::atof(value().c_str());
    else if (a == "--walk-seconds") o.walkSeconds = std::atof(value().c_str());
    else if (a == "--walk-threads") {
      o.walkThreads.clear();
      for (const std::string& t : splitList(value())) o.walkThreads.push_back(std::max(1, std::atoi(t.c_str())));
    } else die("unknown argument " + a + " (see the comment at the top of bench/catalogue.cpp)");
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (command == "generate") {
    if (studies == 0) die("generate needs --studies N");
    return generate(fs::absolute(root), studies, perSegment, days, snapshot, seed, jobs);
  }
  if (command == "compact") {
    const io::ShareStore store = need(io::ShareStore::open(root), "open the store");
    compactTree(store, fs::absolute(root).parent_path());
    printCatalogueSize(root);
    return 0;
  }
  if (command == "saves") {
    if (studies == 0) die("saves needs --studies N (of the generated tree)");
    return saves(root, count, studies, seed);
  }
  if (command == "measure") return measure(root, o);
  die("unknown command " + command + " (generate, compact, saves, measure)");
}
