// Encryption at rest (issue 47, item 2): a series loaded from the local cache and a label map saved to the autosave
// journal, sealed (AES-256-GCM, io/base/sealed_file.h) beside the same with sealing off ($DELINEATE_AT_REST=plain),
// each a whole process of its own, the two kinds alternating. Goal: sealing costs under 10 %.
//
//   bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N]
// The series (scripts/bench_at_rest.sh makes a 512-slice CT) is imported into a share under DIR once; each mode
// then fetches it into a cache folder of its own. Measured per run, in a fresh process:
//   load: fetchSeries from the cache (every read audited, the files there reused) + readFetchedSeries, i.e. what
//         the window and batch do to open a study that is cached;
//   save: a label map on the series' grid (bone, soft tissue and air by threshold) written as an autosave snapshot;
//   cold load (--cold, root only): the load again after the kernel's page cache was dropped (sync, then 3 into
//         /proc/sys/vm/drop_caches), as a study fetched days ago opens;
//   checkpoint: a torch.save state_dict of --checkpoint-mb MB (VISTA-3D's is 830 MB) read whole by the engines'
//         reader (inference's readStateDict) through io's file source (core/file_source.h), as an engine built from
//         the checkpoint cache or the window's sealed run reads it.
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
#include "core/file_source.h"
#include "core/label_map.h"
#include "inference/training/checkpoint_file.h"
#include "io/autosave/autosave_journal.h"
#include "io/base/atomic_file.h"
#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
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

// Child: reads the checkpoint's tensors through io's file source; prints "phase=... values=...".
int childCheckpoint(const std::string& path) {
  core::setFileSource(io::atRestFileSource());
  const auto start = std::chrono::steady_clock::now();
  auto tensors = inference::training::readStateDict(path);
  if (!tensors) die(tensors.error().describe());
  std::size_t values = 0;
  for (const auto& t : *tensors) values += t.values.size();
  std::printf("phase=%.4f values=%zu\n", seconds(start), values);
  return 0;
}

// A state_dict of about `mb` MB in tensors of VISTA-3D's sizes (convolution kernels up to 4.7 MB), plain at `plain`
// and the same content sealed under the bench's key at `sealed`.
void makeCheckpoints(int mb, const fs::path& plain, const fs::path& sealed) {
  std::vector<inference::training::NamedTensor> tensors;
  std::size_t total = 0;
  std::uint32_t x = 12345;
  for (int k = 0; total < std::size_t(mb) << 20; ++k) {
    inference::training::NamedTensor t;
    t.name = "layer" + std::to_string(k) + ".weight";
    const std::int64_t out = 64 << (k % 5);
    t.shape = {out, 64, 3, 3, 3};
    t.values.resize(std::size_t(out) * 64 * 27);
    for (float& v : t.values) {
      x = x * 1664525u + 1013904223u;
      v = float(x >> 8) / float(1 << 24) - 0.5f;
    }
    total += t.values.size() * 4;
    tensors.push_back(std::move(t));
  }
  if (core::Status s = inference::training::writeTorchStateDict(plain.string(), tensors); !s) die(s.error().describe());
  io::AtomicWriteOptions options;
  options.access = io::FileAccess::Sealed;
  auto writer = io::AtomicFileWriter::create(sealed.string(), options);
  if (!writer) die(writer.error().describe());
  std::ifstream in(plain, std::ios::binary);
  std::vector<char> block(8 << 20);
  while (in) {
    in.read(block.data(), std::streamsize(block.size()));
    if (in.gcount() > 0)
      if (core::Status s = writer->write(block.data(), std::size_t(in.gcount())); !s) die(s.error().describe());
  }
  if (core::Status s = writer->commit(); !s) die(s.error().describe());
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
  if (args.size() == 2 && args[0] == "--child-checkpoint") return childCheckpoint(args[1]);
  std::string seriesFolder, outFolder = "/tmp/delineate-bench-at-rest";
  int repeats = 5, checkpointMb = 400;
  bool cold = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--series" && i + 1 < args.size()) seriesFolder = args[++i];
    else if (args[i] == "--out" && i + 1 < args.size()) outFolder = args[++i];
    else if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::atoi(args[++i].c_str()));
    else if (args[i] == "--checkpoint-mb" && i + 1 < args.size()) checkpointMb = std::max(1, std::atoi(args[++i].c_str()));
    else if (args[i] == "--cold") cold = true;
    else die("usage: bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N] [--checkpoint-mb MB] [--cold]");
  }
  if (seriesFolder.empty()) die("usage: bench_at_rest --series DICOM_FOLDER [--out DIR] [--repeats N] [--checkpoint-mb MB] [--cold]");
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
  std::map<std::string, Figures> loads, saves, checkpoints, coldLoads;
  // The checkpoints, under the key the children use.
  ::setenv("DELINEATE_AT_REST_KEY_FILE", (out / "key" / "at-rest.key").c_str(), 1);
  ::setenv("DELINEATE_AT_REST", "sealed", 1);
  const std::map<std::string, fs::path> checkpointFiles = {{"plain", out / "checkpoint-plain.pt"},
                                                           {"sealed", out / "checkpoint-sealed.pt"}};
  makeCheckpoints(checkpointMb, checkpointFiles.at("plain"), checkpointFiles.at("sealed"));
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
  // One child run of `mode`, its figures added to `into`; a failed run ends the bench naming its log.
  const auto measure = [&](const std::string& mode, const std::string& what, const std::string& arguments, Figures& into) {
    const fs::path log = out / (what + "-" + mode + ".log");
    auto run = bench::runProcess(env + "DELINEATE_AT_REST=" + mode + " " + q(self) + " " + arguments, log.string());
    if (run.status != 0) die("a " + what + " run (" + mode + ") failed: see " + log.string());
    into.phase.push_back(field(log, "phase"));
    into.wall.push_back(run.seconds);
    into.rss.push_back(double(run.peakMb));
  };
  const auto loadArguments = [&](const std::string& mode) {
    return "--child-load " + q(share) + " " + q(study) + " " + q(series) + " " + q((out / ("cache-" + mode)).string());
  };
  for (int r = 0; r < repeats; ++r)
    for (const std::string& mode : (r % 2 ? std::vector<std::string>{"sealed", "plain"} : modes)) {
      measure(mode, "load", loadArguments(mode), loads[mode]);
      measure(mode, "save", "--child-save " + q(share) + " " + q(study) + " " + q(series) + " " +
                                q((out / ("cache-" + mode)).string()) + " " + q((out / ("journals-" + mode)).string()),
              saves[mode]);
      measure(mode, "checkpoint", "--child-checkpoint " + q(checkpointFiles.at(mode).string()), checkpoints[mode]);
    }
  // Cold loads after every warm one: dropping the page cache evicts both modes' files.
  for (int r = 0; cold && r < repeats; ++r)
    for (const std::string& mode : (r % 2 ? std::vector<std::string>{"sealed", "plain"} : modes)) {
      if (std::system("sync && echo 3 > /proc/sys/vm/drop_caches") != 0) die("cannot drop the page cache (--cold needs root)");
      measure(mode, "cold", loadArguments(mode), coldLoads[mode]);
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
  if (cold) {
    row("load from a cold page cache (in the process)", median(coldLoads["plain"].phase), median(coldLoads["sealed"].phase), "s");
    row("load from a cold page cache (whole process)", median(coldLoads["plain"].wall), median(coldLoads["sealed"].wall), "s");
  }
  row("label map saved as a snapshot (in the process)", median(saves["plain"].phase), median(saves["sealed"].phase), "s");
  row("load + label map + save (whole process)", median(saves["plain"].wall), median(saves["sealed"].wall), "s");
  row("  peak RSS", median(saves["plain"].rss), median(saves["sealed"].rss), "M");
  const std::string what = "checkpoint of " + std::to_string(checkpointMb) + " MB read (in the process)";
  row(what.c_str(), median(checkpoints["plain"].phase), median(checkpoints["sealed"].phase), "s");
  row("checkpoint read (whole process)", median(checkpoints["plain"].wall), median(checkpoints["sealed"].wall), "s");
  row("  peak RSS", median(checkpoints["plain"].rss), median(checkpoints["sealed"].rss), "M");
  return 0;
}
