// The share store's write path, measured beside what peers do with the same bytes in the same run.
//
// 1. A 512x512x300 label map saved as a new label-set revision: compress (gzip, in memory) / write (+ hashing) /
//    fsync / close / verify (read back + SHA-256) / publish (link or rename + folder fsync) / rest (claiming the
//    revision number: the metadata file, itself a verified write). Beside it the peer way: MONAI Label (through
//    ITK or nibabel) and ITK-SNAP write a zlib gzip stream straight over the old file (no fsync, no read-back, no
//    revision). And a load of the revision (read + hash + decode).
// 2. An N MB checkpoint (870 MB by default, the size of a VISTA-3D checkpoint) stored as a checkpoint revision
//    (streamed upload with hash, fsync, read back, publish) in MB/s, beside `cp` of the same file (coreutils, the
//    peer everyone uses: no fsync) and `cp` followed by an fsync of the copy (the same durability as ours).
//
// Every place (--place NAME=DIR, repeatable; default one local folder) runs the same steps; run it under
// tests/io/sshfs_share_suite.sh to add an sshfs mount (scripts/bench_share.sh does that). Figures are medians of
// --repeats runs. The page cache is warm (the label map and the checkpoint source were just written); what the
// figures show is the cost of each step, not a cold disk.
//
// Usage: bench_share_store [--place NAME=DIR]... [--repeats R] [--checkpoint-mb N] [--labels FILE] [--keep]
//   The checkpoint source is written into the first place's folder, so name a local one first.
//   --labels FILE  the label content, resampled nearest-neighbour to 512x512x300 (default: the shared
//                  TotalSegmentator example segmentation, else synthetic ellipsoids)

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
#include <random>
#include <string>
#include <vector>

#include <zlib.h>

#include "core/label_map.h"
#include "io/base/atomic_file.h"
#include "io/volume/image_file.h"
#include "io/volume/nifti.h"
#include "io/base/sha256.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"

extern char** environ;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace delineate;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "bench_share_store: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T need(core::Result<T> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.error().describe());
  return std::move(r).value();
}

struct Place {
  std::string name;
  std::string dir;
};

// 512x512x300 labels: a real multi-organ segmentation resampled (nearest neighbour), so compression sees real
// organ shapes; synthetic ellipsoids when no file is available.
core::LabelMap makeLabels(const std::string& source, std::string& described) {
  const core::Size3 dims{512, 512, 300};
  if (!source.empty() && fs::exists(source)) {
    const core::LabelMap in = need(io::readLabelFile(source), "reading the label source");
    const auto& g = in.geometry();
    const auto sd = g.dimensions();
    core::Vec3 spacing{};
    for (std::size_t a = 0; a < 3; ++a)
      spacing[a] = g.spacingMm()[a] * static_cast<double>(sd[a]) / static_cast<double>(dims[a]);
    auto vol = need(core::Volume<core::Label>::create(core::Geometry(dims, spacing, g.originLps(), g.direction())),
                    "allocating the label map");
    std::size_t i = 0;
    for (std::int64_t z = 0; z < dims[2]; ++z) {
      const std::int64_t sz = z * sd[2] / dims[2];
      for (std::int64_t y = 0; y < dims[1]; ++y) {
        const std::int64_t sy = y * sd[1] / dims[1];
        for (std::int64_t x = 0; x < dims[0]; ++x, ++i)
          vol.data()[i] = in.at(core::Index3{x * sd[0] / dims[0], sy, sz});
      }
    }
    described = source + " (" + std::to_string(sd[0]) + "x" + std::to_string(sd[1]) + "x" + std::to_string(sd[2]) +
                ") resampled nearest-neighbour";
    return core::LabelMap(std::move(vol));
  }
  auto vol = need(core::Volume<core::Label>::create(core::Geometry(dims, {0.8, 0.8, 1.5}, {0, 0, 0})),
                  "allocating the label map");
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int l = 1; l <= 40; ++l) {  // 40 overlapping ellipsoids, later ones on top
    const double cx = 60 + u(rng) * 392, cy = 60 + u(rng) * 392, cz = 30 + u(rng) * 240;
    const double rx = 10 + u(rng) * 50, ry = 10 + u(rng) * 50, rz = 8 + u(rng) * 40;
    for (std::int64_t z = std::max<std::int64_t>(0, std::int64_t(cz - rz));
         z < std::min<std::int64_t>(dims[2], std::int64_t(cz + rz) + 1); ++z)
      for (std::int64_t y = std::max<std::int64_t>(0, std::int64_t(cy - ry));
           y < std::min<std::int64_t>(dims[1], std::int64_t(cy + ry) + 1); ++y)
        for (std::int64_t x = std::max<std::int64_t>(0, std::int64_t(cx - rx));
             x < std::min<std::int64_t>(dims[0], std::int64_t(cx + rx) + 1); ++x) {
          const double dx = (static_cast<double>(x) - cx) / rx, dy = (static_cast<double>(y) - cy) / ry,
                       dz = (static_cast<double>(z) - cz) / rz;
          if (dx * dx + dy * dy + dz * dz <= 1) vol.data()[(z * dims[1] + y) * dims[0] + x] = core::Label(l);
        }
  }
  described = "40 synthetic ellipsoids (no label file found)";
  return core::LabelMap(std::move(vol));
}

// The peer's save, as ITK's NIfTI writer (niftilib's znzlib) and nibabel do it: one zlib gzip stream at level 6
// written straight over the old file (gzopen "wb", no fsync, no read-back). The 352 header bytes are zeros here;
// their cost is nil beside the voxels.
void peerSave(const std::string& path, const core::LabelMap& labels) {
  gzFile f = gzopen(path.c_str(), "wb6");
  if (!f) die("cannot open " + path);
  const std::vector<char> header(352, 0);
  bool ok = gzwrite(f, header.data(), unsigned(header.size())) == int(header.size());
  const char* p = reinterpret_cast<const char*>(labels.data());
  std::size_t left = labels.size() * sizeof(core::Label);
  while (ok && left > 0) {
    const unsigned n = unsigned(std::min<std::size_t>(left, std::size_t(1) << 30));
    ok = gzwrite(f, p, n) == int(n);
    p += n;
    left -= n;
  }
  if (gzclose(f) != Z_OK || !ok) die("cannot write " + path);
}

void fsyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) die("cannot fsync " + path + ": " + std::strerror(errno));
  ::close(fd);
}

// Runs `cp SRC DST` (coreutils from PATH).
void runCp(const std::string& src, const std::string& dst) {
  const char* argv[] = {"cp", src.c_str(), dst.c_str(), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "cp", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0)
    die("cannot start cp");
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("cp " + src + " " + dst + " failed");
}

// A checkpoint-like file: incompressible pseudo-random bytes (trained float weights do not compress either).
void makeCheckpoint(const std::string& path, std::uint64_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) die("cannot create " + path);
  std::vector<std::uint64_t> block(1 << 17);  // 1 MiB
  std::mt19937_64 rng(42);
  for (std::uint64_t done = 0; done < bytes;) {
    for (auto& v : block) v = rng();
    const std::uint64_t n = std::min<std::uint64_t>(bytes - done, block.size() * 8);
    out.write(reinterpret_cast<const char*>(block.data()), std::streamsize(n));
    done += n;
  }
  out.close();
  if (!out) die("cannot write " + path);
}

struct LabelSaveFigures {
  std::vector<double> compress, write, fsync, close, verify, publish, rest, total, peer, load;
  std::uint64_t compressedBytes = 0;
};

struct CheckpointFigures {
  std::vector<double> ours, cp, cpFsync, write, fsync, verify, publish;
};

// MB/s of SHA-256 over `data` with one engine.
double hashRate(const std::vector<std::uint8_t>& data, io::Sha256::Engine engine) {
  const auto t0 = Clock::now();
  io::Sha256 h(engine);
  h.update(data.data(), data.size());
  volatile std::uint8_t sink = h.finish()[0];
  (void)sink;
  return static_cast<double>(data.size()) / 1e6 / seconds(t0, Clock::now());
}

void printRow(const char* what, const std::vector<double>& v, double totalMedian) {
  const double m = median(v);
  std::printf("    %-44s %9.1f ms", what, m * 1e3);
  if (totalMedian > 0) std::printf("  %5.1f %%", 100.0 * m / totalMedian);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Place> places;
  int repeats = 3;
  std::uint64_t checkpointMb = 870;
  bool keep = false;
  std::string labelSource;
#ifdef DELINEATE_SHARED_DIR
  labelSource = std::string(DELINEATE_SHARED_DIR) + "/data/ct/totalseg-example/example_seg.nii.gz";
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--place") {
      const std::string v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) die("--place takes NAME=DIR");
      places.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else if (a == "--repeats") {
      repeats = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--checkpoint-mb") {
      checkpointMb = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--labels") {
      labelSource = value();
    } else if (a == "--keep") {
      keep = true;
    } else {
      die("unknown argument " + a + " (see the comment at the top of bench/share_store.cpp)");
    }
  }
  if (places.empty()) places.push_back({"local disk", fs::temp_directory_path().string()});

  std::string described;
  const core::LabelMap labels = makeLabels(labelSource, described);
  std::printf("label map: 512x512x300 uint16 (%.0f MB in memory), %s\n", static_cast<double>(labels.size()) * 2 / 1e6,
              described.c_str());
  std::printf("repeats: %d (medians shown); page cache warm\n", repeats);
  {
    std::vector<std::uint8_t> block(std::size_t(256) << 20);
    std::mt19937 rng(1);
    for (auto& b : block) b = std::uint8_t(rng());
    const double portable = hashRate(block, io::Sha256::Engine::Portable);
    if (io::Sha256::hardwareAccelerated()) {
      const double fast = hashRate(block, io::Sha256::Engine::Auto);
      std::printf("SHA-256: %.0f MB/s with the CPU's SHA instructions, %.0f MB/s portable (%.1fx)\n\n", fast,
                  portable, fast / portable);
    } else {
      std::printf("SHA-256: %.0f MB/s portable (this CPU has no SHA instructions)\n\n", portable);
    }
  }

  // The checkpoint source lies in the first place's folder (put a local one first: a training job writes its
  // checkpoint to local disk, then stores it on the share).
  std::string checkpointSource;
  if (checkpointMb > 0) {
    checkpointSource =
        (fs::path(places.front().dir) / ("bench-share-ckpt-" + std::to_string(::getpid()) + ".pt")).string();
    makeCheckpoint(checkpointSource, checkpointMb << 20);
  }

  for (const Place& place : places) {
    const fs::path work = fs::path(place.dir) / ("bench-share-" + std::to_string(::getpid()));
    fs::create_directories(work / "store");
    fs::create_directories(work / "peer");
    io::ShareStore store = need(io::ShareStore::initialize((work / "store").string()), "initializing the store");
    io::WritePhaseTimes times;
    store.recordWriteTimes(&times);
    const auto set = need(io::LabelSetRevisions::open(store, "bench-study", "organs"), "opening the label set");

    LabelSaveFigures f;
    for (int r = 0; r < repeats; ++r) {
      times = {};
      const auto t0 = Clock::now();
      const auto bytes = need(io::encodeNiftiLabelsGz(labels, "labels"), "compressing");
      const auto t1 = Clock::now();
      const auto saved = need(set.save(bytes.data(), bytes.size(), io::SaveRequest{"bench", r, "bench", {}}), "saving");
      const auto t2 = Clock::now();
      f.compressedBytes = bytes.size();
      const double phases = times.write + times.fsync + times.close + times.verify + times.publish;
      f.compress.push_back(seconds(t0, t1));
      f.write.push_back(times.write);
      f.fsync.push_back(times.fsync);
      f.close.push_back(times.close);
      f.verify.push_back(times.verify);
      f.publish.push_back(times.publish);
      f.rest.push_back(seconds(t1, t2) - phases);
      f.total.push_back(seconds(t0, t2));

      // The peer: zlib stream over the old file.
      const auto p0 = Clock::now();
      peerSave((work / "peer" / "labels.nii.gz").string(), labels);
      f.peer.push_back(seconds(p0, Clock::now()));

      const auto l0 = Clock::now();
      const auto back = need(set.loadLabels(saved.number), "loading");
      f.load.push_back(seconds(l0, Clock::now()));
      if (!std::equal(back.data(), back.data() + back.size(), labels.data())) die("the loaded revision differs");
    }
    const double total = median(f.total);
    std::printf("== %s (%s)\n", place.name.c_str(), place.dir.c_str());
    std::printf("  label map as a new revision (%.2f MB compressed):\n", static_cast<double>(f.compressedBytes) / 1e6);
    printRow("compress (gzip level 6, in memory)", f.compress, total);
    printRow("write (+ SHA-256 while writing)", f.write, total);
    printRow("fsync", f.fsync, total);
    printRow("close", f.close, total);
    printRow("verify (read back + SHA-256)", f.verify, total);
    printRow("publish (link + folder fsync)", f.publish, total);
    printRow("rest (claim the number: metadata write)", f.rest, total);
    printRow("total, ours", f.total, total);
    printRow("peer: zlib level 6 stream over the old file", f.peer, 0);
    std::printf("    peer / ours: %.2fx (ours also: never overwrites, fsync, read-back hash, revision history)\n",
                median(f.peer) / std::max(1e-9, total));
    printRow("load revision (read + SHA-256 + decode)", f.load, 0);

    if (checkpointMb > 0) {
      const auto ckpts = need(io::ModelCheckpoints::open(store, "bench-model"), "opening the checkpoints");
      CheckpointFigures c;
      const double mb = static_cast<double>(checkpointMb << 20) / 1e6;
      for (int r = 0; r < repeats; ++r) {
        times = {};
        const auto t0 = Clock::now();
        const auto saved = need(ckpts.saveFile(checkpointSource, io::SaveRequest{"bench", r, "bench", {}}, ".pt"),
                                "storing the checkpoint");
        c.ours.push_back(seconds(t0, Clock::now()));
        c.write.push_back(times.write);
        c.fsync.push_back(times.fsync);
        c.verify.push_back(times.verify);
        c.publish.push_back(times.publish);
        fs::remove(work / "store" / "checkpoints" / "bench-model" / saved.content);  // keep the disk use bounded

        const std::string copy = (work / "peer" / "copy.pt").string();
        const auto c0 = Clock::now();
        runCp(checkpointSource, copy);
        c.cp.push_back(seconds(c0, Clock::now()));
        fs::remove(copy);
        const auto c1 = Clock::now();
        runCp(checkpointSource, copy);
        fsyncFile(copy);
        c.cpFsync.push_back(seconds(c1, Clock::now()));
        fs::remove(copy);
      }
      const double ours = median(c.ours), cp = median(c.cp), cpf = median(c.cpFsync);
      std::printf("  %.0f MB checkpoint:\n", mb);
      std::printf("    %-44s %9.1f MB/s  (%.2f s)\n", "ours (stream + hash, fsync, read back, link)", mb / ours, ours);
      std::printf("      of which: read source + SHA-256 + write %.2f s, fsync %.2f s, verify %.2f s, publish %.2f s\n",
                  median(c.write), median(c.fsync), median(c.verify), median(c.publish));
      std::printf("    %-44s %9.1f MB/s  (%.2f s)\n", "cp", mb / cp, cp);
      std::printf("    %-44s %9.1f MB/s  (%.2f s)\n", "cp + fsync of the copy", mb / cpf, cpf);
      std::printf("    ours / cp: %.2fx the time; ours / (cp + fsync): %.2fx\n", ours / cp, ours / cpf);
    }
    std::printf("\n");
    if (!keep) fs::remove_all(work);
  }
  if (!checkpointSource.empty()) fs::remove(checkpointSource);
  return 0;
}
