#pragma once
// Data-parallel training over processes (inside inference/training only; torch types): LibTorch's own c10d process
// group (Gloo, which Debian's LibTorch has; a CUDA LibTorch with its Gloo headers too), a TCP store for the
// rendezvous. Each step every rank all-reduces its gradients, averaged, in one flat buffer that also carries what the
// ranks must agree on: stop after this step, a fp16 overflow or a non-finite loss anywhere, and rank 0's iteration
// count (a time budget fits it on rank 0 alone).

#include <memory>
#include <string>
#include <vector>

#include <ATen/Tensor.h>

#include "core/error.h"

namespace delineate::inference::training {

struct DataParallelSettings;

struct StepAgreement {
  bool stop = false;        // some rank asked to stop after this step
  bool overflow = false;    // some rank's fp16 gradients overflowed: every rank skips the step
  bool nonFinite = false;   // some rank's loss was NaN or infinite
  int iterations = 0;       // rank 0's
  double seconds = 0;       // the all-reduce's wall time
};

class GradientAllReduce {
 public:
  static core::Result<std::unique_ptr<GradientAllReduce>> join(const DataParallelSettings& settings);
  ~GradientAllReduce();
  int rank() const;
  int worldSize() const;
  // Rank 0's tensors copied into every rank's (the weights and buffers at the start, so all ranks begin equal).
  core::Status broadcastFromRankZero(const std::vector<at::Tensor>& tensors);
  // Sums `grads` over the ranks and divides by the world size, in place; the flags are summed alongside.
  core::Result<StepAgreement> allReduce(const std::vector<at::Tensor>& grads, bool stop, bool overflow, bool nonFinite,
                                        int iterations);

 private:
  struct State;
  explicit GradientAllReduce(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

// Whether this LibTorch build has a process group we can use (Gloo).
bool dataParallelAvailable();

}  // namespace delineate::inference::training
