// How long training waits for a checkpoint save (issue 25), at the official VISTA-3D's size (width 48: 259 tensors,
// 217,965,054 values, 872 MB): delineate-train's save (the weights copied to the host, then written and fsynced by a
// background thread) beside a plain blocking save of ours (copy, write, fsync) and, when python3-torch is here,
// Python's torch.save of the same tensors (the peer; fsynced too), all in one run on one disk.
// Usage: bench_checkpoint_stall [FOLDER] [WIDTH]   (FOLDER: where the files go, default /tmp; WIDTH default 48)
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "inference/training/checkpoint_file.h"
#include "inference/training/checkpoint_saver.h"
#include "inference/training/trainable.h"
#include "inference/vista3d/architecture.h"
#include "inference/vista3d/checkpoint_reader.h"

using namespace delineate::inference;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

int main(int argc, char** argv) {
  const fs::path folder = fs::path(argc > 1 ? argv[1] : "/tmp") / "delineate-bench-checkpoint";
  const int width = argc > 2 ? std::atoi(argv[2]) : 48;
  fs::remove_all(folder);
  fs::create_directories(folder);
  // The network's tensors with random values (the size is what matters), written once as the base checkpoint.
  std::vector<training::NamedTensor> tensors;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::size_t values = 0;
  for (const auto& p : vista3d::vista3dLayout(width)) {
    training::NamedTensor t;
    t.name = p.name;
    t.shape = p.shape;
    std::int64_t n = 1;
    for (const auto d : p.shape) n *= d;
    t.values.resize(static_cast<std::size_t>(n));
    for (auto& v : t.values) v = normal(rng);
    values += t.values.size();
    tensors.push_back(std::move(t));
  }
  const std::string base = (folder / "base.pt").string();
  if (auto s = training::writeTorchStateDict(base, tensors); !s) {
    std::fprintf(stderr, "error: %s\n", s.error().describe().c_str());
    return 1;
  }
  tensors.clear();
  auto checkpoint = vista3d::readCheckpoint(base);
  if (!checkpoint) return std::fprintf(stderr, "error: %s\n", checkpoint.error().describe().c_str()), 1;
  auto model = training::TrainableModel::vista3d(*checkpoint);
  if (!model) return std::fprintf(stderr, "error: %s\n", model.error().describe().c_str()), 1;
  const double megabytes = static_cast<double>(fs::file_size(base)) / 1e6;
  std::printf("VISTA-3D width %d: %zu values, checkpoint %.0f MB, folder %s\n", width, values, megabytes, folder.c_str());

  // delineate-train's save: what the training thread waits for, and what the background thread then takes.
  std::vector<double> stalls;
  {
    training::CheckpointSaver saver((folder / "saver").string(), "{}", 1);
    for (int round = 1; round <= 3; ++round) {
      const auto t0 = Clock::now();
      training::CheckpointState state;
      state.iteration = round;
      state.model = (*model)->stateDict();
      saver.save(std::move(state));
      stalls.push_back(since(t0));
      saver.flush();  // the next save starts with the queue empty, as when saves are minutes apart
    }
    double write = 0;
    for (const auto& c : saver.saved()) write = std::max(write, c.writeSeconds);
    std::printf("  delineate-train save: training waits %.2f / %.2f / %.2f s (copy of the weights); the background "
                "thread then writes and fsyncs in %.2f s (the last kept)\n",
                stalls[0], stalls[1], stalls[2], write);
  }
  // A plain blocking save of ours.
  {
    const auto t0 = Clock::now();
    const auto state = (*model)->stateDict();
    const std::string path = (folder / "blocking.pt").string();
    if (auto s = training::writeTorchStateDict(path, state); !s) return std::fprintf(stderr, "error: %s\n", s.error().describe().c_str()), 1;
    std::printf("  blocking save (copy, write, fsync): training waits %.2f s\n", since(t0));
  }
  // The peer: torch.save of the same state_dict from Python (loaded first; only the save and fsync are timed).
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0) {
    const std::string command =
        "/usr/bin/python3 -c \"import os, time, torch\n"
        "sd = torch.load('" + base + "')\n"
        "t = time.time()\n"
        "with open('" + (folder / "python.pt").string() + "', 'wb') as f:\n"
        "    torch.save(sd, f); f.flush(); os.fsync(f.fileno())\n"
        "print('  peer, Python torch.save (write, fsync): training waits %.2f s' % (time.time() - t))\" 2>/dev/null";
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) std::printf("  peer: torch.save failed\n");
  } else {
    std::printf("  peer: no python3-torch here\n");
  }
  std::printf("  (the seed paper reports a 2.9 s stall for an 830 MB checkpoint)\n");
  fs::remove_all(folder);
  return 0;
}
