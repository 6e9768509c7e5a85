#pragma once
// Splits [0, count) into one contiguous range per core and runs fn(begin, end) on each, the first on the calling
// thread; ranges must write disjoint memory. Small counts run inline. After every range has finished, the exception
// of the lowest-numbered range that threw (if any) is rethrown.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace delineate::inference::classic {

template <class Fn>
void parallelRanges(std::int64_t count, std::int64_t minPerRange, Fn&& fn) {
  const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t ranges =
      std::clamp<std::int64_t>(count / std::max<std::int64_t>(1, minPerRange), 1, std::min<std::int64_t>(cores, 16));
  if (ranges <= 1) {
    fn(std::int64_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranges));
  auto run = [&](std::int64_t r) {
    try {
      fn(count * r / ranges, count * (r + 1) / ranges);
    } catch (...) {
      errors[static_cast<std::size_t>(r)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(ranges - 1));
  try {
    for (std::int64_t r = 1; r < ranges; ++r) threads.emplace_back(run, r);
  } catch (...) {
    // No thread to spare: what did not start runs here.
    for (auto r = static_cast<std::int64_t>(threads.size()) + 1; r < ranges; ++r) run(r);
  }
  run(0);
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace delineate::inference::classic
