#pragma once
// Checkpoints written by a background thread, so training waits only for the copy of its weights (torch-free):
// <folder>/it<N>.pt (the state_dict, torch.save format), it<N>.optim.pt (AdamW's moments and step) and it<N>.json
// (the sidecar: the run's description plus iteration, validations and files), each written under a temporary name
// and renamed, the sidecar last, so a killed save leaves nothing that looks complete. The best checkpoint and the
// last `keepLast` stay; older ones are removed. A publish hook (the share) runs after each save on the same thread;
// a failed publish is reported and tried again with the next save, and training goes on.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "inference/training/trainer.h"

namespace delineate::inference::training {

struct SavedCheckpoint {
  int iteration = 0;
  bool best = false, final = false;
  std::string weights, optimizer, sidecar;  // paths
  double writeSeconds = 0;
};

using PublishFn = std::function<core::Status(const SavedCheckpoint&)>;

// A validation as the sidecar holds it (and the training program's progress lines): a JSON object's text with
// iteration, meanDice, perClass (class id -> Dice), seconds, elapsedSeconds.
std::string validationJsonText(const Validation& v);

class CheckpointSaver final : public CheckpointSink {
 public:
  // `sidecarBase`: a JSON object (the run's architecture, settings, labels, data) every sidecar starts from.
  CheckpointSaver(std::string folder, std::string sidecarBase, int keepLast, PublishFn publish = {});
  ~CheckpointSaver() override;
  CheckpointSaver(const CheckpointSaver&) = delete;
  CheckpointSaver& operator=(const CheckpointSaver&) = delete;

  void save(CheckpointState state) override;  // waits only while an earlier save is still queued
  std::string lastSaved() const override;
  // Waits for every queued save (and its publish) to finish.
  void flush();
  // Write and publish failures since the last call, in order.
  std::vector<std::string> takeWarnings();
  std::vector<SavedCheckpoint> saved() const;
  // Checkpoints of an earlier process in the same folder (a resumed run), so that keeping the best and the last
  // `keepLast` goes on counting them.
  void adopt(std::vector<SavedCheckpoint> earlier);
  // The failed publishes still waiting for a retry.
  std::size_t pendingPublishes() const;

 private:
  void run();
  core::Result<SavedCheckpoint> write(const CheckpointState& state);
  void prune();
  std::string m_folder, m_sidecarBase;
  int m_keepLast;
  PublishFn m_publish;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<CheckpointState> m_queue;
  bool m_busy = false, m_stopping = false;
  std::vector<SavedCheckpoint> m_saved;
  std::vector<SavedCheckpoint> m_unpublished;
  std::vector<std::string> m_warnings;
  std::thread m_thread;
};

// The complete checkpoints in `folder` (sidecar, weights and optimizer files all there), newest first, for resuming:
// a caller tries the next when one fails to load (a damaged file is caught by its CRCs). A sidecar that cannot be
// read is passed over; when none can, the newest one's error (a sealed run whose key is lost is not started over).
struct FoundCheckpoint {
  SavedCheckpoint files;
  ResumePoint resume;
  std::string sidecarJson;
};
core::Result<std::vector<FoundCheckpoint>> findCheckpoints(const std::string& folder);

}  // namespace delineate::inference::training
