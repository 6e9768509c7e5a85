// Loading one DICOM series into memory, side by side in one run: our indexer + loader (default threads and
// sequential), ITK's standard series reader (GDCMSeriesFileNames + ImageSeriesReader<Image<float,3>> with
// GDCMImageIO, as in ITK's DicomSeriesReadImageWrite2 example) and the dcm2niix executable converting the same
// folder. Every tool runs R times, round robin; before every run the page cache is dropped where the kernel lets us
// (else all runs see a warm cache, said in the output). Then our volume is checked against ITK's: size, origin,
// spacing, direction and every voxel.
//
// Usage: bench_dicom_load SERIES_DIR [--label TEXT] [--repeats R] [--threads N] [--warm] [--no-itk]
//                         [--no-dcm2niix] [--dcm2niix-out DIR]
//   SERIES_DIR       a folder holding one series; a local folder or a network mount (the same binary serves both,
//                    --label names the place in the output, e.g. "local disk" or "sshfs loopback")
//   --threads N      threads for "ours" (default 0: the library default); "ours sequential" always uses 1
//   --warm           do not drop the page cache (measure warm reads)
//   --dcm2niix-out   where dcm2niix writes its NIfTI (default: a fresh folder in /dev/shm, else /tmp); deleted after
//                    every run, outside the timing

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <itkGDCMImageIO.h>
#include <itkGDCMSeriesFileNames.h>
#include <itkImage.h>
#include <itkImageSeriesReader.h>

#include "io/dicom/dicom.h"

extern char** environ;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using ItkImage = itk::Image<float, 3>;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Sample {
  double index = 0;  // folder scan / header pass (0 where the tool does not separate it)
  double load = 0;
  double total = 0;
};

struct Tool {
  std::string name;
  bool enabled = true;
  bool split = true;  // reports index and load separately
  std::vector<Sample> samples;
  std::string error;  // first failure; the tool is not run again
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double minimum(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

template <class F>
std::vector<double> column(const std::vector<Sample>& s, F f) {
  std::vector<double> out;
  for (const Sample& x : s) out.push_back(f(x));
  return out;
}

// Drops clean page-cache pages (both the client side and, on a loopback mount, the server side). Needs root and a
// writable /proc/sys; containers often refuse.
bool dropPageCache(std::string& why) {
  ::sync();
  const int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY);
  if (fd < 0) {
    why = std::string("open /proc/sys/vm/drop_caches: ") + std::strerror(errno);
    return false;
  }
  const bool ok = ::write(fd, "3\n", 2) == 2;
  if (!ok) why = std::string("write /proc/sys/vm/drop_caches: ") + std::strerror(errno);
  ::close(fd);
  return ok;
}

// Reads every file once, so that with a warm cache the first tool does not pay for everyone.
std::uint64_t readAllFiles(const std::string& dir) {
  std::uint64_t bytes = 0;
  std::vector<char> buf(1 << 20);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) bytes += std::uint64_t(in.gcount());
  }
  return bytes;
}

struct FolderStats {
  std::int64_t files = 0;
  std::uint64_t bytes = 0;
};

FolderStats folderStats(const std::string& dir) {
  FolderStats s;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ++s.files;
    s.bytes += it->file_size(ec);
  }
  return s;
}

// Other processes on the machine skew every figure; the output says how busy it was.
std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

const delineate::io::DicomSeries* largestSeries(const delineate::io::DicomIndex& index) {
  const delineate::io::DicomSeries* best = nullptr;
  for (const delineate::io::DicomSeries* s : index.allSeries())
    if (s->isImage && (!best || s->slices.size() > best->slices.size())) best = s;
  return best;
}

// ours: index the folder, pick the largest image series, load it.
bool runOurs(const std::string& dir, int threads, Sample& sample, std::string& error,
             std::optional<delineate::io::LoadedDicomSeries>* keep) {
  namespace io = delineate::io;
  const auto t0 = Clock::now();
  io::DicomScanOptions scan;
  scan.threads = threads;
  auto index = io::indexDicomFolder(dir, scan);
  if (!index) {
    error = index.error().describe();
    return false;
  }
  const io::DicomSeries* series = largestSeries(*index);
  if (!series) {
    error = dir + ": no image series";
    return false;
  }
  const auto t1 = Clock::now();
  io::DicomLoadOptions load;
  load.threads = threads;
  auto loaded = io::loadDicomSeries(*series, load);
  const auto t2 = Clock::now();
  if (!loaded) {
    error = loaded.error().describe();
    return false;
  }
  sample = {seconds(t0, t1), seconds(t1, t2), seconds(t0, t2)};
  if (keep && !*keep) keep->emplace(std::move(*loaded));
  return true;
}

// ITK: the standard series read.
bool runItk(const std::string& dir, Sample& sample, std::string& error, ItkImage::Pointer* keep) {
  try {
    const auto t0 = Clock::now();
    auto names = itk::GDCMSeriesFileNames::New();
    names->SetUseSeriesDetails(true);
    names->AddSeriesRestriction("0008|0021");
    names->SetGlobalWarningDisplay(false);
    names->SetDirectory(dir);
    std::vector<std::string> files;
    for (const std::string& uid : names->GetSeriesUIDs()) {
      const auto& f = names->GetFileNames(uid);
      if (f.size() > files.size()) files = f;
    }
    if (files.empty()) {
      error = dir + ": ITK found no series";
      return false;
    }
    const auto t1 = Clock::now();
    auto reader = itk::ImageSeriesReader<ItkImage>::New();
    reader->SetImageIO(itk::GDCMImageIO::New());
    reader->SetFileNames(files);
    reader->ForceOrthogonalDirectionOff();
    reader->Update();
    const auto t2 = Clock::now();
    sample = {seconds(t0, t1), seconds(t1, t2), seconds(t0, t2)};
    if (keep && !*keep) *keep = reader->GetOutput();
    return true;
  } catch (const itk::ExceptionObject& e) {
    error = std::string("ITK: ") + e.GetDescription();
    return false;
  }
}

// dcm2niix: the executable, output to `outDir`, stdout/stderr discarded; wall clock from spawn to exit.
bool runDcm2niix(const std::string& dir, const std::string& outDir, std::uint64_t pixelBytes, Sample& sample,
                 std::string& error) {
  std::vector<std::string> args = {"dcm2niix", "-z", "n", "-b", "n", "-o", outDir, "-f", "out", dir};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = posix_spawnp(&pid, "dcm2niix", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = std::string("cannot run dcm2niix: ") + std::strerror(rc);
    return false;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const auto t1 = Clock::now();
  std::uint64_t written = 0;
  std::error_code ec;
  for (fs::directory_iterator it(outDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".nii") written += it->file_size(ec);
    fs::remove_all(it->path(), ec);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = "dcm2niix exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return false;
  }
  if (written < pixelBytes) {
    error = "dcm2niix wrote " + std::to_string(written) + " bytes of NIfTI, expected at least " +
            std::to_string(pixelBytes);
    return false;
  }
  sample = {0, 0, seconds(t0, t1)};
  return true;
}

std::string vec3(double a, double b, double c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "(%.4f, %.4f, %.4f)", a, b, c);
  return buf;
}

// Our volume against ITK's; returns true when they agree (geometry within 1e-3 mm / 1e-5, voxels exactly).
bool compareWithItk(const delineate::core::ImageVolume& ours, const ItkImage& itkImage) {
  const auto& g = ours.geometry();
  const auto size = itkImage.GetLargestPossibleRegion().GetSize();
  const auto& o = itkImage.GetOrigin();
  const auto& sp = itkImage.GetSpacing();
  const auto& d = itkImage.GetDirection();
  bool ok = true;
  std::printf("  size       ours %lldx%lldx%lld, ITK %lux%lux%lu\n", (long long)g.dimensions()[0],
              (long long)g.dimensions()[1], (long long)g.dimensions()[2], (unsigned long)size[0],
              (unsigned long)size[1], (unsigned long)size[2]);
  for (int a = 0; a < 3; ++a)
    if (std::int64_t(size[a]) != g.dimensions()[a]) ok = false;
  double dOrigin = 0, dSpacing = 0, dDirection = 0;
  for (int a = 0; a < 3; ++a) {
    dOrigin = std::max(dOrigin, std::abs(o[a] - g.originLps()[a]));
    dSpacing = std::max(dSpacing, std::abs(sp[a] - g.spacingMm()[a]));
    for (int c = 0; c < 3; ++c) dDirection = std::max(dDirection, std::abs(d(a, c) - g.direction()(a, c)));
  }
  std::printf("  origin mm  ours %s, ITK %s, max |diff| %.6g\n",
              vec3(g.originLps()[0], g.originLps()[1], g.originLps()[2]).c_str(), vec3(o[0], o[1], o[2]).c_str(),
              dOrigin);
  std::printf("  spacing mm ours %s, ITK %s, max |diff| %.6g\n",
              vec3(g.spacingMm()[0], g.spacingMm()[1], g.spacingMm()[2]).c_str(), vec3(sp[0], sp[1], sp[2]).c_str(),
              dSpacing);
  std::printf("  direction  max |diff| %.6g (ours k axis %s, ITK k axis %s)\n", dDirection,
              vec3(g.direction()(0, 2), g.direction()(1, 2), g.direction()(2, 2)).c_str(),
              vec3(d(0, 2), d(1, 2), d(2, 2)).c_str());
  if (dOrigin > 1e-3 || dSpacing > 1e-5 * std::max(1.0, g.spacingMm()[2]) || dDirection > 1e-5) ok = false;
  if (!ok) {
    std::printf("  voxels     not compared (grids differ)\n");
    return false;
  }
  const std::size_t n = ours.size();
  const float* a = ours.data();
  const float* b = itkImage.GetBufferPointer();
  double maxDiff = 0;
  std::size_t differing = 0, firstDiff = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double diff = std::abs(double(a[i]) - double(b[i]));
    if (diff > 0) {
      if (firstDiff == n) firstDiff = i;
      ++differing;
      maxDiff = std::max(maxDiff, diff);
    }
  }
  std::printf("  voxels     max |diff| %g, differing %zu of %zu\n", maxDiff, differing, n);
  if (differing) {
    const auto nx = std::size_t(g.dimensions()[0]), ny = std::size_t(g.dimensions()[1]);
    std::printf("             first at (i,j,k) = (%zu,%zu,%zu): ours %g, ITK %g\n", firstDiff % nx,
                (firstDiff / nx) % ny, firstDiff / (nx * ny), double(a[firstDiff]), double(b[firstDiff]));
  }
  return differing == 0;
}

int usage(const char* msg) {
  if (msg) std::fprintf(stderr, "error: %s\n", msg);
  std::fprintf(stderr,
               "usage: bench_dicom_load SERIES_DIR [--label TEXT] [--repeats R] [--threads N] [--warm] [--no-itk]\n"
               "                        [--no-dcm2niix] [--dcm2niix-out DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, label, dcmOut;
  int repeats = 3, threads = 0;
  bool warm = false, useItk = true, useDcm2niix = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--label") {
      const char* v = next();
      if (!v) return usage("--label needs a text");
      label = v;
    } else if (a == "--repeats") {
      const char* v = next();
      if (!v || (repeats = std::atoi(v)) < 1) return usage("--repeats needs a number >= 1");
    } else if (a == "--threads") {
      const char* v = next();
      if (!v || (threads = std::atoi(v)) < 0) return usage("--threads needs a number >= 0");
    } else if (a == "--dcm2niix-out") {
      const char* v = next();
      if (!v) return usage("--dcm2niix-out needs a folder");
      dcmOut = v;
    } else if (a == "--warm") {
      warm = true;
    } else if (a == "--no-itk") {
      useItk = false;
    } else if (a == "--no-dcm2niix") {
      useDcm2niix = false;
    } else if (a == "-h" || a == "--help") {
      usage(nullptr);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else if (dir.empty()) {
      dir = a;
    } else {
      return usage("more than one SERIES_DIR");
    }
  }
  if (dir.empty()) return usage("SERIES_DIR missing");
  if (!fs::is_directory(dir)) {
    std::fprintf(stderr, "error: %s: not a folder\n", dir.c_str());
    return 1;
  }

  // What is in the folder (one untimed index with our reader).
  const FolderStats stats = folderStats(dir);
  auto probe = delineate::io::indexDicomFolder(dir);
  if (!probe) {
    std::fprintf(stderr, "error: %s\n", probe.error().describe().c_str());
    return 1;
  }
  const delineate::io::DicomSeries* series = largestSeries(*probe);
  if (!series) {
    std::fprintf(stderr, "error: %s: no image series\n", dir.c_str());
    return 1;
  }
  const std::uint64_t slices = series->slices.size();
  const std::uint64_t pixelBytes = std::uint64_t(series->format.rows) * std::uint64_t(series->format.columns) *
                                   std::uint64_t(std::max(1, series->format.bitsAllocated / 8)) * slices;

  std::string dropWhy;
  const bool cold = !warm && dropPageCache(dropWhy);
  std::string tmpOut;
  if (useDcm2niix) {
    if (dcmOut.empty()) {
      const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
      std::string templ = (base / "bench_dicom_load.XXXXXX").string();
      if (!::mkdtemp(templ.data())) {
        std::fprintf(stderr, "error: %s: %s\n", templ.c_str(), std::strerror(errno));
        return 1;
      }
      tmpOut = dcmOut = templ;
    } else {
      std::error_code ec;
      fs::create_directories(dcmOut, ec);
    }
  }

  std::printf("== DICOM series load: %s%s%s%s\n", dir.c_str(), label.empty() ? "" : " (", label.c_str(),
              label.empty() ? "" : ")");
  std::printf("  folder: %lld files, %.1f MB; series %s: %llu slices %dx%d, %d bit, %s; %zu series in folder\n",
              (long long)stats.files, double(stats.bytes) / 1e6, series->seriesInstanceUid.c_str(),
              (unsigned long long)slices, series->format.columns, series->format.rows, series->format.bitsAllocated,
              series->format.transferSyntaxName.c_str(), probe->allSeries().size());
  std::printf("  pixel bytes %llu x %d x %d x %d = %.1f MB (MB/s below = these bytes / median total)\n",
              (unsigned long long)slices, series->format.columns, series->format.rows,
              std::max(1, series->format.bitsAllocated / 8), double(pixelBytes) / 1e6);
  if (cold)
    std::printf("  cache: cold (sync + drop_caches before every run)\n");
  else
    std::printf("  cache: WARM (%s; every file read once before timing)\n",
                warm ? "--warm given" : ("page cache cannot be dropped: " + dropWhy).c_str());
  std::printf("  ours: threads=%d%s, hardware threads %u; repeats %d, round robin; dcm2niix writes to %s\n", threads,
              threads == 0 ? " (library default)" : "", std::thread::hardware_concurrency(), repeats,
              useDcm2niix ? dcmOut.c_str() : "-");
  std::printf("  load average before: %s\n", loadAverage().c_str());
  probe = delineate::io::DicomIndex{};  // release before timing
  if (!cold) readAllFiles(dir);

  std::vector<Tool> tools(4);
  tools[0].name = "Delineate (threads " + std::string(threads ? std::to_string(threads) : "default") + ")";
  tools[1].name = "Delineate sequential (1 thread)";
  tools[2].name = "ITK 5.2 GDCM series reader";
  tools[2].enabled = useItk;
  tools[3].name = useDcm2niix ? "dcm2niix (.nii to " +
                                    std::string(dcmOut.rfind("/dev/shm", 0) == 0 ? "tmpfs" : "disk") + ")"
                              : "dcm2niix";
  tools[3].enabled = useDcm2niix;
  tools[3].split = false;

  std::optional<delineate::io::LoadedDicomSeries> oursKept, oursSeqKept;
  ItkImage::Pointer itkKept;
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t t = 0; t < tools.size(); ++t) {
      Tool& tool = tools[t];
      if (!tool.enabled || !tool.error.empty()) continue;
      if (cold) dropPageCache(dropWhy);
      Sample s;
      bool ok = false;
      switch (t) {
        case 0: ok = runOurs(dir, threads, s, tool.error, &oursKept); break;
        case 1: ok = runOurs(dir, 1, s, tool.error, &oursSeqKept); break;
        case 2: ok = runItk(dir, s, tool.error, &itkKept); break;
        case 3: ok = runDcm2niix(dir, dcmOut, pixelBytes, s, tool.error); break;
      }
      if (ok) tool.samples.push_back(s);
      std::fflush(stdout);
    }
  }
  if (!tmpOut.empty()) {
    std::error_code ec;
    fs::remove_all(tmpOut, ec);
  }

  std::printf("  load average after:  %s\n", loadAverage().c_str());

  const double oursMedian = median(column(tools[0].samples, [](const Sample& s) { return s.total; }));
  std::printf("\n%-34s %9s %9s %10s %9s %9s %10s\n", "tool", "index s", "load s", "median s", "min s", "MB/s",
              "time/ours");
  for (const Tool& tool : tools) {
    if (!tool.enabled) {
      std::printf("%-34s (skipped)\n", tool.name.c_str());
      continue;
    }
    if (!tool.error.empty()) {
      std::printf("%-34s FAILED: %s\n", tool.name.c_str(), tool.error.c_str());
      continue;
    }
    const double med = median(column(tool.samples, [](const Sample& s) { return s.total; }));
    const double mn = minimum(column(tool.samples, [](const Sample& s) { return s.total; }));
    char idx[32] = "-", ld[32] = "-";
    if (tool.split) {
      std::snprintf(idx, sizeof idx, "%.3f", median(column(tool.samples, [](const Sample& s) { return s.index; })));
      std::snprintf(ld, sizeof ld, "%.3f", median(column(tool.samples, [](const Sample& s) { return s.load; })));
    }
    std::printf("%-34s %9s %9s %10.3f %9.3f %9.1f %9.2fx\n", tool.name.c_str(), idx, ld, med, mn,
                med > 0 ? double(pixelBytes) / 1e6 / med : 0.0, oursMedian > 0 ? med / oursMedian : 0.0);
  }
  std::printf("  (index s / load s: medians of the two phases; for ITK index = GDCMSeriesFileNames, load = "
              "ImageSeriesReader)\n");

  auto goal = [&](const Tool& peer, const char* what, double target) {
    if (!peer.enabled || !peer.error.empty() || peer.samples.empty() || oursMedian <= 0) return;
    const double ratio = median(column(peer.samples, [](const Sample& s) { return s.total; })) / oursMedian;
    std::printf("  %-38s %6.2fx (goal %s %.0fx) %s\n", what, ratio, target > 1 ? ">=" : ">", target,
                (target > 1 ? ratio >= target : ratio > target) ? "met" : "NOT met");
  };
  if (tools[0].error.empty() && !tools[0].samples.empty()) {
    std::printf("goals (informational):\n");
    goal(tools[2], "ours faster than ITK by", 2);
    goal(tools[3], "ours faster than dcm2niix by", 1);
    goal(tools[1], "parallel faster than sequential by", 3);
    std::printf("  (the parallel-vs-sequential goal applies to the network mount)\n");
  }

  bool match = true;
  if (oursKept && itkKept) {
    std::printf("ours vs ITK (volumes of the first repetition):\n");
    match = compareWithItk(oursKept->image, *itkKept);
    std::printf("  => %s\n", match ? "MATCH" : "MISMATCH");
  }
  if (oursKept && oursSeqKept) {
    const bool same = oursKept->image.geometry() == oursSeqKept->image.geometry() &&
                      std::equal(oursKept->image.buffer().begin(), oursKept->image.buffer().end(),
                                 oursSeqKept->image.buffer().begin(), oursSeqKept->image.buffer().end());
    std::printf("ours parallel vs ours sequential: %s\n", same ? "identical" : "DIFFERENT");
    match = match && same;
  }
  std::fflush(stdout);
  for (const Tool& tool : tools)
    if (tool.enabled && !tool.error.empty()) return 1;
  return match ? 0 : 1;
}
