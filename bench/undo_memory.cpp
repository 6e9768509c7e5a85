// Undo history memory and speed for brush strokes on a 512x512x300 label map, side by side with the two simpler
// designs an undo stack can use: a full label-volume snapshot per step, and an uncompressed copy of each stroke's
// bounding box (before and after). Both peers are computed from the same strokes in the same run.
//
// Usage: bench_undo_memory [strokes=100] [seed=1]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/edit_transaction.h"
#include "core/undo_history.h"

using namespace delineate::core;
using Clock = std::chrono::steady_clock;

static double mib(double bytes) { return bytes / (1024.0 * 1024.0); }
static double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int main(int argc, char** argv) {
  const int strokes = argc > 1 ? std::atoi(argv[1]) : 100;
  const unsigned seed = argc > 2 ? unsigned(std::atoi(argv[2])) : 1u;
  const Geometry g({512, 512, 300}, {0.8, 0.8, 1.0}, {-204.8, -204.8, -150});
  LabelMap map = LabelMap::create(g).value();
  UndoHistory history(std::size_t(4) << 30);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);

  double boxCopyBytes = 0;
  std::size_t changed = 0;
  Clock::duration editTime{};
  // A stroke: 20 dabs of a 5 mm brush dragged over ~40 mm in one slice plane, as a user paints an organ outline.
  for (int s = 0; s < strokes; ++s) {
    const Label label = static_cast<Label>(1 + s % 5);
    Vec3 p = g.indexToLps(Vec3{100 + u(rng) * 300, 100 + u(rng) * 300, 20 + u(rng) * 260});
    const double dx = (u(rng) - 0.5) * 4, dy = (u(rng) - 0.5) * 4;
    const auto t0 = Clock::now();
    EditTransaction tx(map, "Paint");
    for (int d = 0; d < 20; ++d) {
      tx.paintSphere(p, 5.0, label);
      p[0] += dx;
      p[1] += dy;
    }
    auto step = tx.commit();
    editTime += Clock::now() - t0;
    if (!step) continue;
    changed += step->changedVoxels();
    boxCopyBytes += 2.0 * double(step->box().voxelCount()) * sizeof(Label);
    history.push(std::move(*step));
  }
  const std::size_t steps = history.undoCount();
  const double fullSnapshotBytes = double(history.undoCount()) * double(map.size()) * sizeof(Label);

  const auto u0 = Clock::now();
  while (history.canUndo()) history.undo(map);
  const auto u1 = Clock::now();
  while (history.canRedo()) history.redo(map);
  const auto u2 = Clock::now();

  std::printf("undo history for %d brush strokes (20 dabs, 5 mm) on a 512x512x300 uint16 label map (%.0f MiB)\n",
              strokes, mib(double(map.size() * sizeof(Label))));
  std::printf("  voxels changed in total: %zu, steps recorded: %zu\n", changed, steps);
  std::printf("%-44s %12s %10s\n", "design", "memory MiB", "ratio");
  const double ours = double(history.memoryBytes());
  std::printf("%-44s %12.3f %10s\n", "Delineate: RLE XOR delta of touched box", mib(ours), "1.0x");
  std::printf("%-44s %12.3f %9.0fx\n", "peer: uncompressed box copy (before+after)", mib(boxCopyBytes),
              boxCopyBytes / ours);
  std::printf("%-44s %12.3f %9.0fx\n", "peer: full label-volume snapshot per step", mib(fullSnapshotBytes),
              fullSnapshotBytes / ours);
  std::printf("  bytes per changed voxel (ours): %.3f\n", ours / double(changed));
  std::printf("  edit+commit: %.2f ms/stroke; undo all: %.2f ms (%.3f ms/step); redo all: %.2f ms\n",
              ms(editTime) / strokes, ms(u1 - u0), ms(u1 - u0) / double(steps), ms(u2 - u1));
  return 0;
}
