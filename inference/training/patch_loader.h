#pragma once
// Training patches made on worker threads ahead of the device (torch-free): a case, a centre (on a class's voxel with
// probability `foregroundRatio`, the class drawn uniformly among the case's classes when class-balanced, else any
// voxel), then augmentation: a small affine (rotation, scale; image linear, labels nearest), intensity scale and
// shift, gamma and Gaussian noise, and when asked flips and 90-degree rotations in planes whose patch sides are equal.
//
// Batch k is a function of (seed, k) alone (sample j of it of (seed, k, j)), so a run is repeatable whatever the number of workers, and a resumed run
// continues with the batches it would have had.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "inference/training/case_cache.h"

namespace delineate::inference::training {

struct AugmentSettings {
  double affineProbability = 0.2;
  double rotateDegrees = 15;  // each axis uniform in +-this
  double scaleRange = 0.1;    // uniform in 1 +- this
  // Flips and 90-degree turns are off by default: they swap left and right, and atlases label hemispheres (and bodies
  // the left kidney) by side; the VISTA-3D bundle's recipe has neither. Turn them on for data without sides.
  double flipProbability = 0;  // per axis
  double rotate90Probability = 0;
  double intensityScaleProbability = 0.5, intensityScale = 0.1;
  double intensityShiftProbability = 0.5, intensityShift = 0.1;
  double gammaProbability = 0.3, gammaMin = 0.7, gammaMax = 1.5;
  double noiseProbability = 0.15, noiseStd = 0.1;
  bool enabled = true;
};

struct PatchSettings {
  std::array<std::int64_t, 3> patch{96, 96, 96};
  int batch = 1;
  double foregroundRatio = 0.67;
  bool classBalanced = true;
  AugmentSettings augment;
  int workers = 2;
  int queueDepth = 4;  // batches made ahead
  std::uint64_t seed = 0;
  int sampleOffset = 0;  // data parallel: this rank's first sample in the global batch (rank * batch)
};

struct Batch {
  std::int64_t index = 0;
  int count = 0;
  std::array<std::int64_t, 3> size{0, 0, 0};
  std::vector<float> images;          // [count, X, Y, Z]
  std::vector<std::uint16_t> labels;  // the same
  std::vector<std::size_t> cases;
};

// A 64-bit generator for a stream (seed, stream): splitmix64 of both, so nearby streams do not correlate.
std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t stream);

class PatchLoader {
 public:
  PatchLoader(const CaseCache& cache, std::vector<std::size_t> cases, PatchSettings settings);
  ~PatchLoader();
  PatchLoader(const PatchLoader&) = delete;
  PatchLoader& operator=(const PatchLoader&) = delete;

  // Starts the workers at batch `first` (a resumed run's next batch).
  void start(std::int64_t first = 0);
  void stop();
  // The next batch in order, waiting for it if the workers are behind (that wait is counted).
  core::Result<Batch> next();
  double waitedSeconds() const { return m_waited; }

  // Batch `index` made on the calling thread (what the workers run).
  static core::Result<Batch> make(const CaseCache& cache, const std::vector<std::size_t>& cases, const PatchSettings& settings,
                                  std::int64_t index);

 private:
  void work();
  const CaseCache& m_cache;
  std::vector<std::size_t> m_cases;
  PatchSettings m_settings;
  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::condition_variable m_ready, m_space;
  std::map<std::int64_t, core::Result<Batch>> m_done;
  std::int64_t m_nextToMake = 0, m_nextToGive = 0;
  bool m_stopping = false;
  double m_waited = 0;
};

}  // namespace delineate::inference::training
