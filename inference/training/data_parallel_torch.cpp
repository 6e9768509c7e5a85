#include "inference/training/data_parallel_torch.h"

#include <chrono>
#include <exception>

#include <torch/torch.h>

// Debian's LibTorch has c10d with Gloo, but its header guards it behind the macro its own build defined.
#if __has_include(<gloo/algorithm.h>) && __has_include(<torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>)
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#define DELINEATE_HAVE_GLOO 1
#endif

#include "inference/training/trainable.h"

namespace delineate::inference::training {

#ifdef DELINEATE_HAVE_GLOO

struct GradientAllReduce::State {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  int rank = 0, world = 1;
  std::string peer;  // for errors: "rank R of W (MASTER:PORT)"
};

GradientAllReduce::GradientAllReduce(std::unique_ptr<State> state) : m_state(std::move(state)) {}
GradientAllReduce::~GradientAllReduce() = default;
int GradientAllReduce::rank() const { return m_state->rank; }
int GradientAllReduce::worldSize() const { return m_state->world; }
bool dataParallelAvailable() { return true; }

core::Result<std::unique_ptr<GradientAllReduce>> GradientAllReduce::join(const DataParallelSettings& s) {
  const std::string where = s.masterAddress + ":" + std::to_string(s.masterPort);
  if (s.worldSize < 2 || s.rank < 0 || s.rank >= s.worldSize)
    return core::makeError(core::ErrorCode::InvalidArgument, "data-parallel training",
                           "rank " + std::to_string(s.rank) + " of " + std::to_string(s.worldSize) + " is not a rank");
  if (s.masterAddress.empty() || s.masterPort <= 0 || s.masterPort > 65535)
    return core::makeError(core::ErrorCode::InvalidArgument, "data-parallel training",
                           "no rendezvous: MASTER_ADDR and MASTER_PORT (or a Slurm job) are needed");
  auto state = std::make_unique<State>();
  state->rank = s.rank;
  state->world = s.worldSize;
  state->peer = "rank " + std::to_string(s.rank) + " of " + std::to_string(s.worldSize) + " (rendezvous " + where + ")";
  try {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(s.masterPort);
    o.isServer = s.rank == 0;
    o.numWorkers = s.worldSize;
    o.waitWorkers = true;
    o.timeout = std::chrono::seconds(s.timeoutSeconds);
    state->store = c10::make_intrusive<c10d::TCPStore>(s.masterAddress, o);
    auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(s.timeoutSeconds));
    // The address the other ranks reach us on: the interface asked for, loopback for a one-machine rendezvous, else
    // this host's name.
    if (!s.interfaceName.empty())
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(s.interfaceName));
    else if (s.masterAddress == "127.0.0.1" || s.masterAddress == "localhost")
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    options->threads = 2;
    state->group = c10::make_intrusive<c10d::ProcessGroupGloo>(state->store, s.rank, s.worldSize, options);
  } catch (const std::exception& e) {
    return core::makeError(core::ErrorCode::ReadFailed, "data-parallel training",
                           state->peer + ": the ranks did not meet: " + std::string(e.what()).substr(0, 400));
  }
  return std::unique_ptr<GradientAllReduce>(new GradientAllReduce(std::move(state)));
}

core::Status GradientAllReduce::broadcastFromRankZero(const std::vector<at::Tensor>& tensors) {
  try {
    torch::NoGradGuard noGrad;
    std::vector<at::Tensor> flat;
    for (const auto& t : tensors) flat.push_back(t.detach().to(torch::kCPU, torch::kFloat64).reshape({-1}));
    std::vector<at::Tensor> buffer{torch::cat(flat)};
    m_state->group->broadcast(buffer)->wait();
    std::int64_t offset = 0;
    for (const auto& t : tensors) {
      const std::int64_t n = t.numel();
      t.copy_(buffer[0].slice(0, offset, offset + n).view(t.sizes()).to(t.options()));
      offset += n;
    }
  } catch (const std::exception& e) {
    return core::makeError(core::ErrorCode::ReadFailed, "data-parallel training",
                           m_state->peer + ": the start weights could not be shared: " +
                               std::string(e.what()).substr(0, 400));
  }
  return core::Status::success();
}

core::Result<StepAgreement> GradientAllReduce::allReduce(const std::vector<at::Tensor>& grads, bool stop, bool overflow,
                                                         bool nonFinite, int iterations) {
  const auto t0 = std::chrono::steady_clock::now();
  StepAgreement a;
  try {
    torch::NoGradGuard noGrad;
    const auto device = grads.empty() ? torch::Device(torch::kCPU) : grads.front().device();
    std::vector<at::Tensor> parts;
    parts.reserve(grads.size() + 1);
    for (const auto& g : grads) parts.push_back(g.to(torch::kFloat32).reshape({-1}));
    const float flags[4] = {stop ? 1.f : 0.f, overflow ? 1.f : 0.f, nonFinite ? 1.f : 0.f,
                            m_state->rank == 0 ? static_cast<float>(iterations) : 0.f};
    parts.push_back(torch::from_blob(const_cast<float*>(flags), {4}, torch::kFloat32).to(device));
    std::vector<at::Tensor> buffer{torch::cat(parts)};
    m_state->group->allreduce(buffer)->wait();
    const auto& b = buffer[0];
    const std::int64_t total = b.numel();
    const auto tail = b.slice(0, total - 4, total).to(torch::kCPU);
    const float* f = tail.data_ptr<float>();
    a.stop = f[0] > 0.5f;
    a.overflow = f[1] > 0.5f;
    a.nonFinite = f[2] > 0.5f;
    a.iterations = static_cast<int>(f[3] + 0.5f);
    const auto averaged = b.slice(0, 0, total - 4).div_(static_cast<double>(m_state->world));
    std::int64_t offset = 0;
    for (const auto& g : grads) {
      const std::int64_t n = g.numel();
      g.copy_(averaged.slice(0, offset, offset + n).view(g.sizes()));
      offset += n;
    }
  } catch (const std::exception& e) {
    // A rank that died (killed, out of memory) closes its connections: the others learn it here.
    return core::makeError(core::ErrorCode::ReadFailed, "data-parallel training",
                           m_state->peer + ": the gradient all-reduce failed (another rank stopped or cannot be "
                                           "reached): " + std::string(e.what()).substr(0, 400));
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return a;
}

#else  // no Gloo headers in this LibTorch

struct GradientAllReduce::State {};
GradientAllReduce::GradientAllReduce(std::unique_ptr<State> state) : m_state(std::move(state)) {}
GradientAllReduce::~GradientAllReduce() = default;
int GradientAllReduce::rank() const { return 0; }
int GradientAllReduce::worldSize() const { return 1; }
bool dataParallelAvailable() { return false; }
core::Result<std::unique_ptr<GradientAllReduce>> GradientAllReduce::join(const DataParallelSettings&) {
  return core::makeError(core::ErrorCode::Unsupported, "data-parallel training",
                         "this LibTorch has no Gloo process group headers (Debian: libgloo-dev)");
}
core::Status GradientAllReduce::broadcastFromRankZero(const std::vector<at::Tensor>&) {
  return core::makeError(core::ErrorCode::Unsupported, "data-parallel training", "no process group");
}
core::Result<StepAgreement> GradientAllReduce::allReduce(const std::vector<at::Tensor>&, bool, bool, bool, int) {
  return core::makeError(core::ErrorCode::Unsupported, "data-parallel training", "no process group");
}

#endif

}  // namespace delineate::inference::training
