#pragma once
// Long work off the GUI thread: a progress sink the worker writes and the window polls (fraction, stage, cancel),
// so the window stays responsive and Cancel reaches the worker.

#include <QString>

#include <atomic>
#include <mutex>
#include <string>

#include "core/progress.h"

namespace delineate::app::gui {

class JobProgress final : public core::ProgressSink {
 public:
  void report(double fraction, const std::string& stage) override {
    m_fraction.store(fraction, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stage = stage;
  }
  bool cancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }
  void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
  double fraction() const { return m_fraction.load(std::memory_order_relaxed); }
  std::string stage() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stage;
  }

 private:
  std::atomic<double> m_fraction{0};
  std::atomic<bool> m_cancelled{false};
  mutable std::mutex m_mutex;
  std::string m_stage;
};

}  // namespace delineate::app::gui
