#pragma once
// What long work (load, segment, save, train) reports to, so core and engines never call upward into app/.

#include <atomic>
#include <string>

namespace delineate::core {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // fraction in [0, 1]; stage is a short machine-readable step name ("read", "infer", "stitch").
  virtual void report(double fraction, const std::string& stage) = 0;
  virtual bool cancelled() const = 0;
};

// A sink that ignores progress and is cancelled by request (from any thread).
class CancelFlag final : public ProgressSink {
 public:
  void report(double, const std::string&) override {}
  bool cancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }
  void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }

 private:
  std::atomic<bool> m_cancelled{false};
};

}  // namespace delineate::core
