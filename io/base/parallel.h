#pragma once
// Parallel loops for I/O-bound work (DICOM headers and pixels, study imports and fetches on network shares).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace delineate::io {

// Runs work(i, worker) for i in [0, count) on up to `threads` threads (worker in [0, threads), for per-worker
// scratch buffers); work returns false to stop everyone early. An exception in a worker (bad_alloc on a crafted
// file) stops everyone and is returned as its what() text instead of terminating the process; empty when none.
inline std::string parallelFor(std::size_t count, int threads, const std::function<bool(std::size_t, int)>& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex failureMutex;
  std::string failure;
  auto worker = [&](int id) {
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        if (!work(i, id)) stop.store(true);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (failure.empty()) failure = e.what()[0] ? e.what() : "exception";
        stop.store(true);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (failure.empty()) failure = "unknown exception";
        stop.store(true);
      }
    }
  };
  const std::size_t n = std::min<std::size_t>(count, std::size_t(std::max(1, threads)));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(worker, int(t));
  worker(0);
  for (auto& t : pool) t.join();
  return failure;
}

// 0 -> 4 x cores, at least 8, at most 32: I/O bound work on network shares wants more threads than cores.
inline int resolveThreads(int requested) {
  if (requested > 0) return requested;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::min(32, std::max(8, 4 * cores));
}

}  // namespace delineate::io
