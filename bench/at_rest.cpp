// Encryption at rest (issue 47, item 2): a series loaded from the local cache and a label map saved to the autosave
// journal, sealed (AES-256-GCM, io/base/sealed_file.h) beside the same with sealing off ($DELINEATE_AT_REST=plain),
// each a whole process of its own, the two kinds alternating. Goal: sealing costs under 10 %.
//
//   bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N]
// The series (scripts/bench_at_rest.sh makes a 512-slice CT) is imported into a share under DIR once; each mode
// then fetches it into a cache folder of its own. Measured per run, in a fresh process:
//   load: fetchSeries from the cache (every read audited, the files there reused) + readFetchedSeries, i.e. what
//         the window and batch do to open a study that is cached;
//   save: a label map on the series' grid (bone, soft tissue and air by threshold) written as an autosave snapshot.
// Printed: the medians of the phase timed inside the process, of the whole process (wall) and its peak RSS.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "core/label_map.h"
#include "io/autosave/autosave_journal.h"
#include "io/base/sealed_file.h"
#include "io/share/share_store.h"
#include "io/studies/study_import.h"
#include "io/studies/study_store.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_at_rest: %s\n", what.c_str());
  std::exit(1);
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Child: imports the series, prints "study series".
int childImport(const std::string& share, const std::string& series) {
  fs::create_directories(share);
  auto store = io::ShareStore::initialize(share);
  if (!store) die(store.error().describe());
  auto report = io::importStudies(*store, {series});
  if (!report) die(report.error().describe());
  if (report->series.size() != 1) die("the folder holds " + std::to_string(report->series.size()) + " series, not one");
  std::printf("%s %s\n", report->series[0].study.c_str(), report->series[0].series.c_str());
  return 0;
}

core::Result<core::ScalarImage> load(const io::ShareStore& store, const std::string& study, const std::string& series,
                                     const std::string& cache) {
  auto fetched = io::fetchSeries(store, study, series, cache);
  if (!fetched) return fetched.error();
  return io::readFetchedSeries(*fetched);
}

// Child: loads from the cache; prints "phase=<seconds> voxels=<n>".
int childLoad(const std::string& share, const std::string& study, const std::string& series, const std::string& cache) {
  auto store = io::ShareStore::open(share);
  if (!store) die(store.error().describe());
  const auto start = std::chrono::steady_clock::now();
  auto image = load(*store, study, series, cache);
  if (!image) die(image.error().describe());
  std::printf("phase=%.4f voxels=%zu\n", seconds(start), image->size());
  return 0;
}

// Child: loads, makes the label map (not timed), saves it as an autosave snapshot (timed); prints "phase=... bytes=...".
int childSave(const std::string& share, const std::string& study, const std::string& series, const std::string& cache,
              const std::string& journalRoot) {
  auto store = io::ShareStore::open(share);
  if (!store) die(store.error().describe());
  auto image = load(*store, study, series, cache);
  if (!image) die(image.error().describe());
  auto voxels = core::Volume<core::Label>::create(image->geometry(), 0, "labels");
  if (!voxels) die(voxels.error().describe());
  core::Label* out = voxels->data();
  for (std::size_t i = 0; i < image->size(); ++i) {
    const double hu = image->value(i);
    out[i] = hu > 200 ? 1 : hu > -300 ? 2 : 0;
  }
  const core::LabelMap labels(std::move(voxels).value());
  io::AutosaveContext context;
  context.imagePath = cache;
  context.description = "bench";
  auto journal = io::AutosaveJournal::create(journalRoot, context);
  if (!journal) die(journal.error().describe());
  const auto start = std::chrono::steady_clock::now();
  if (core::Status s = journal->snapshot(labels); !s) die(s.error().describe());
  const double phase = seconds(start);
  std::printf("phase=%.4f bytes=%llu\n", phase, static_cast<unsigned long long>(journal->lastSnapshot()->bytes));
  (void)journal->close();
  return 0;
}

double field(const fs::path& log, const std::string& name) {
  std::ifstream in(log);
  std::string word;
  while (in >> word)
    if (word.rfind(name + "=", 0) == 0) return std::atof(word.c_str() + name.size() + 1);
  die("no " + name + " in " + log.string());
}

std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "--child-import") return childImport(args[1], args[2]);
  if (args.size() == 5 && args[0] == "--child-load") return childLoad(args[1], args[2], args[3], args[4]);
  if (args.size() == 6 && args[0] == "--child-save") return childSave(args[1], args[2], args[3], args[4], args[5]);
  std::string seriesFolder, outFolder = "/tmp/delineate-bench-at-rest";
  int repeats = 5;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--series" && i + 1 < args.size()) seriesFolder = args[++i];
    else if (args[i] == "--out" && i + 1 < args.size()) outFolder = args[++i];
    else if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::atoi(args[++i].c_str()));
    else die("usage: bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N]");
  }
  if (seriesFolder.empty()) die("usage: bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N]");
  const fs::path out = fs::absolute(outFolder);
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string self = fs::canonical("/proc/self/exe").string();
  const std::string share = (out / "share").string();
  // The key, the cache's audit fallback and the journals stay inside the work folder.
  const std::string env = "env DELINEATE_AT_REST_KEY_FILE=" + q((out / "key" / "at-rest.key").string()) +
                          " XDG_CACHE_HOME=" + q((out / "xdg-cache").string()) + " ";
  auto imported = bench::runProcess(env + q(self) + " --child-import " + q(share) + " " + q(seriesFolder),
                                    (out / "import.log").string());
  if (imported.status != 0) die("the import failed: see " + (out / "import.log").string());
  std::ifstream ids(out / "import.log");
  std::string study, series;
  ids >> study >> series;

  struct Figures {
    std::vector<double> phase, wall, rss;
  };
  std::map<std::string, Figures> loads, saves;
  const std::vector<std::string> modes = {"plain", "sealed"};
  // The first fetch of each mode copies the series into its cache (not measured).
  for (const std::string& mode : modes) {
    const std::string cache = (out / ("cache-" + mode)).string();
    auto first = bench::runProcess(env + "DELINEATE_AT_REST=" + mode + " " + q(self) + " --child-load " + q(share) + " " +
                                       q(study) + " " + q(series) + " " + q(cache),
                                   (out / ("first-" + mode + ".log")).string());
    if (first.status != 0) die("the first load (" + mode + ") failed: see " + (out / ("first-" + mode + ".log")).string());
  }
  std::uint64_t sealedBytes = 0, plainBytes = 0;
  for (const auto& e : fs::directory_iterator(out / "cache-sealed")) sealedBytes += e.file_size();
  for (const auto& e : fs::directory_iterator(out / "cache-plain")) plainBytes += e.file_size();
  for (int r = 0; r < repeats; ++r)
    for (const std::string& mode : (r % 2 ? std::vector<std::string>{"sealed", "plain"} : modes)) {
      const std::string cache = (out / ("cache-" + mode)).string();
      const std::string base = env + "DELINEATE_AT_REST=" + mode + " " + q(self);
      const fs::path loadLog = out / ("load-" + mode + ".log"), saveLog = out / ("save-" + mode + ".log");
      auto l = bench::runProcess(base + " --child-load " + q(share) + " " + q(study) + " " + q(series) + " " + q(cache),
                                 loadLog.string());
      if (l.status != 0) die("a load (" + mode + ") failed: see " + loadLog.string());
      loads[mode].phase.push_back(field(loadLog, "phase"));
      loads[mode].wall.push_back(l.seconds);
      loads[mode].rss.push_back(double(l.peakMb));
      auto s = bench::runProcess(base + " --child-save " + q(share) + " " + q(study) + " " + q(series) + " " + q(cache) +
                                     " " + q((out / ("journals-" + mode)).string()),
                                 saveLog.string());
      if (s.status != 0) die("a save (" + mode + ") failed: see " + saveLog.string());
      saves[mode].phase.push_back(field(saveLog, "phase"));
      saves[mode].wall.push_back(s.seconds);
      saves[mode].rss.push_back(double(s.peakMb));
    }
  std::printf("Encryption at rest: %s, %d runs per mode (medians), cache %.1f MB plain / %.1f MB sealed\n",
              seriesFolder.c_str(), repeats, double(plainBytes) / 1e6, double(sealedBytes) / 1e6);
  std::printf("%-44s %10s %10s %9s\n", "", "plain", "sealed", "overhead");
  const auto row = [](const char* what, double plain, double sealed, const char* unit) {
    std::printf("%-44s %9.3f%s %9.3f%s %8.1f%%\n", what, plain, unit, sealed, unit, 100.0 * (sealed - plain) / plain);
  };
  row("load from the cache (in the process)", median(loads["plain"].phase), median(loads["sealed"].phase), "s");
  row("load from the cache (whole process)", median(loads["plain"].wall), median(loads["sealed"].wall), "s");
  row("  peak RSS", median(loads["plain"].rss), median(loads["sealed"].rss), "M");
  row("label map saved as a snapshot (in the process)", median(saves["plain"].phase), median(saves["sealed"].phase), "s");
  row("load + label map + save (whole process)", median(saves["plain"].wall), median(saves["sealed"].wall), "s");
  row("  peak RSS", median(saves["plain"].rss), median(saves["sealed"].rss), "M");
  return 0;
}
