#include "core/label_map.h"

#include <atomic>

namespace delineate::core {

std::uint64_t nextLabelMapRevision() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace delineate::core
