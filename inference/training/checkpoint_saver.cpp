#include "inference/training/checkpoint_saver.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/file_source.h"
#include "inference/training/checkpoint_file.h"

namespace delineate::inference::training {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string stem(int iteration) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "it%07d", iteration);
  return buf;
}

json validationJson(const Validation& v) {
  json perClass = json::object();
  for (const auto& [c, d] : v.perClass) perClass[std::to_string(c)] = d;
  return {{"iteration", v.iteration}, {"meanDice", v.meanDice}, {"perClass", perClass}, {"seconds", v.seconds}, {"elapsedSeconds", v.elapsedSeconds}};
}

}  // namespace

std::string validationJsonText(const Validation& v) { return validationJson(v).dump(); }

namespace {

Validation validationFrom(const json& j) {  // throws json::exception on a malformed entry (the caller skips the sidecar)
  Validation v;
  v.iteration = j.value("iteration", 0);
  v.meanDice = j.value("meanDice", 0.0);
  v.seconds = j.value("seconds", 0.0);
  v.elapsedSeconds = j.value("elapsedSeconds", 0.0);
  if (j.contains("perClass"))
    for (const auto& [k, d] : j.at("perClass").items()) v.perClass.emplace_back(std::stoll(k), d.get<double>());
  return v;
}

core::Status writeText(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    auto out = createTrainingFile(temporary);
    if (!out) return out.error();
    core::Status s = (*out)->write(text.data(), text.size());
    if (s) s = (*out)->finish();
    if (!s) {
      out->reset();
      std::error_code ec;
      fs::remove(temporary, ec);
      return s;
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) return core::makeError(core::ErrorCode::WriteFailed, path, ec.message());
  return core::Status::success();
}

core::Status writeTensors(const std::string& path, const std::vector<NamedTensor>& tensors) {
  const std::string temporary = path + ".partial";
  if (core::Status s = writeTorchStateDict(temporary, tensors); !s) {
    std::error_code ec;
    fs::remove(temporary, ec);
    return s;
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) return core::makeError(core::ErrorCode::WriteFailed, path, ec.message());
  return core::Status::success();
}

// The size of a file's content as readers see it (a sealed checkpoint's plaintext, not its sealed size); 0 when it
// cannot be read.
std::uint64_t contentBytes(const std::string& path) {
  auto in = core::openInputFile(path);
  if (!in) return 0;
  (*in)->seekg(0, std::ios::end);
  const auto size = (*in)->tellg();
  return **in && size > 0 ? static_cast<std::uint64_t>(size) : 0;
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

CheckpointSaver::CheckpointSaver(std::string folder, std::string sidecarBase, int keepLast, PublishFn publish)
    : m_folder(std::move(folder)), m_sidecarBase(std::move(sidecarBase)), m_keepLast(std::max(1, keepLast)),
      m_publish(std::move(publish)), m_thread([this] { run(); }) {}

CheckpointSaver::~CheckpointSaver() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void CheckpointSaver::save(CheckpointState state) {
  std::unique_lock<std::mutex> lock(m_mutex);
  // One save may wait behind the one being written; a third waits here (the stall the trainer reports).
  m_changed.wait(lock, [&] { return m_queue.empty(); });
  m_queue.push_back(std::move(state));
  lock.unlock();
  m_changed.notify_all();
}

void CheckpointSaver::flush() {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [&] { return m_queue.empty() && !m_busy; });
}

std::string CheckpointSaver::lastSaved() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_saved.empty() ? std::string() : m_saved.back().weights;
}

void CheckpointSaver::adopt(std::vector<SavedCheckpoint> earlier) {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::sort(earlier.begin(), earlier.end(), [](const SavedCheckpoint& a, const SavedCheckpoint& b) { return a.iteration < b.iteration; });
  m_saved.insert(m_saved.begin(), earlier.begin(), earlier.end());
}

std::vector<SavedCheckpoint> CheckpointSaver::saved() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_saved;
}

std::size_t CheckpointSaver::pendingPublishes() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_unpublished.size();
}

std::vector<std::string> CheckpointSaver::takeWarnings() {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::vector<std::string> out;
  out.swap(m_warnings);
  return out;
}

void CheckpointSaver::run() {
  for (;;) {
    CheckpointState state;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_changed.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
      if (m_queue.empty()) return;  // stopping with nothing left
      state = std::move(m_queue.front());
      m_queue.pop_front();
      m_busy = true;
    }
    m_changed.notify_all();
    auto written = write(state);
    std::vector<SavedCheckpoint> toPublish;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (!written) {
        m_warnings.push_back("checkpoint at iteration " + std::to_string(state.iteration) + " not saved: " + written.error().describe());
      } else {
        // A second save of the same iteration (a cancel right after a save) replaces the first.
        m_saved.erase(std::remove_if(m_saved.begin(), m_saved.end(), [&](const SavedCheckpoint& c) { return c.iteration == written->iteration; }),
                      m_saved.end());
        m_saved.push_back(*written);
        if (m_publish) m_unpublished.push_back(*written);
        toPublish = m_unpublished;
      }
    }
    if (written) prune();
    // Publish what is waiting, oldest first; a failure keeps it (and the later ones) for the next save.
    std::size_t published = 0;
    for (const auto& c : toPublish) {
      if (!fs::exists(c.sidecar)) {  // pruned meanwhile: nothing to publish
        ++published;
        continue;
      }
      const core::Status s = m_publish(c);
      if (!s) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_warnings.push_back("checkpoint at iteration " + std::to_string(c.iteration) + " not published (tried again with the next save): " +
                             s.error().describe());
        break;
      }
      ++published;
    }
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_unpublished.erase(m_unpublished.begin(), m_unpublished.begin() + static_cast<std::ptrdiff_t>(std::min(published, m_unpublished.size())));
      m_busy = false;
    }
    m_changed.notify_all();
  }
}

core::Result<SavedCheckpoint> CheckpointSaver::write(const CheckpointState& state) {
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  // A folder made here is never open to others (the rule of io/base/file_modes.h, which inference does not reach):
  // its checkpoints were learnt from patient data.
  if (fs::create_directories(m_folder, ec) && !ec)
    fs::permissions(m_folder, fs::perms::others_all, fs::perm_options::remove, ec);
  if (ec) return core::makeError(core::ErrorCode::WriteFailed, m_folder, ec.message());
  SavedCheckpoint saved;
  saved.iteration = state.iteration;
  saved.best = state.best;
  saved.final = state.final;
  const std::string base = (fs::path(m_folder) / stem(state.iteration)).string();
  saved.weights = base + ".pt";
  saved.optimizer = base + ".optim.pt";
  saved.sidecar = base + ".json";
  if (core::Status s = writeTensors(saved.weights, state.model); !s) return s.error();
  if (core::Status s = writeTensors(saved.optimizer, state.optimizer); !s) return s.error();
  json sidecar = m_sidecarBase.empty() ? json::object() : json::parse(m_sidecarBase, nullptr, false);
  if (sidecar.is_discarded() || !sidecar.is_object()) sidecar = json::object();
  sidecar["iteration"] = state.iteration;
  sidecar["best"] = state.best;
  sidecar["final"] = state.final;
  sidecar["bestDice"] = state.bestDice;
  sidecar["validationsWithoutGain"] = state.validationsWithoutGain;
  json validations = json::array();
  for (const auto& v : state.validations) validations.push_back(validationJson(v));
  sidecar["validations"] = validations;
  // Which iteration's weights the newest validation measured: these weights' own ("validatedIteration" equal to
  // "iteration"), or earlier ones (then these weights have no Dice of their own: a save between validations).
  const bool own = !state.validations.empty() && state.validations.back().iteration == state.iteration;
  sidecar["validatedIteration"] = own ? json(state.iteration) : json(nullptr);
  sidecar["lastValidationIteration"] = state.validations.empty() ? json(nullptr) : json(state.validations.back().iteration);
  sidecar["weights"] = {{"file", fs::path(saved.weights).filename().string()}, {"bytes", contentBytes(saved.weights)}};
  sidecar["optimizerState"] = {{"file", fs::path(saved.optimizer).filename().string()}, {"bytes", contentBytes(saved.optimizer)}};
  sidecar["savedAt"] = utcNow();
  if (core::Status s = writeText(saved.sidecar, sidecar.dump(2) + "\n"); !s) return s.error();
  saved.writeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return saved;
}

void CheckpointSaver::prune() {
  std::vector<SavedCheckpoint> keep, drop;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    int bestIteration = -1;
    for (const auto& c : m_saved)
      if (c.best) bestIteration = c.iteration;
    const std::size_t n = m_saved.size();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& c = m_saved[i];
      const bool recent = i + static_cast<std::size_t>(m_keepLast) >= n;
      if (recent || c.iteration == bestIteration) keep.push_back(c);
      else drop.push_back(c);
    }
    m_saved = keep;
  }
  for (const auto& c : drop) {
    std::error_code ec;
    fs::remove(c.sidecar, ec);  // the sidecar first: what remains no longer looks complete
    fs::remove(c.weights, ec);
    fs::remove(c.optimizer, ec);
  }
}

core::Result<std::vector<FoundCheckpoint>> findCheckpoints(const std::string& folder) {
  std::vector<FoundCheckpoint> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  std::vector<std::pair<int, fs::path>> sidecars;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 14 && name.compare(0, 2, "it") == 0 && e.path().extension() == ".json")
      sidecars.emplace_back(std::atoi(name.substr(2, 7).c_str()), e.path());
  }
  std::sort(sidecars.rbegin(), sidecars.rend());
  std::optional<core::Error> unreadable;  // the newest sidecar that could not be read
  for (const auto& [iteration, path] : sidecars) {
    auto text = core::readInputFile(path.string());
    if (!text) {  // damaged, or sealed under a key this user does not hold: not one to resume from
      if (!unreadable) unreadable = text.error();
      continue;
    }
    const json j = json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    FoundCheckpoint found;
    found.sidecarJson = *text;
    found.files.iteration = iteration;
    found.files.sidecar = path.string();
    found.files.best = j.value("best", false);
    found.files.final = j.value("final", false);
    found.files.weights = (fs::path(folder) / stem(iteration)).string() + ".pt";
    found.files.optimizer = (fs::path(folder) / stem(iteration)).string() + ".optim.pt";
    if (!fs::exists(found.files.weights, ec) || !fs::exists(found.files.optimizer, ec)) continue;
    try {
      found.resume.iteration = iteration;
      found.resume.bestDice = j.value("bestDice", -1.0);
      found.resume.validationsWithoutGain = j.value("validationsWithoutGain", 0);
      if (j.contains("validations"))
        for (const auto& v : j.at("validations")) found.resume.validations.push_back(validationFrom(v));
    } catch (const std::exception&) {
      continue;  // a sidecar of another shape: not one to resume from
    }
    out.push_back(std::move(found));
  }
  // Checkpoints there but none readable (a sealed run whose key is lost): an error naming why, rather than a run
  // that starts over at iteration 0 and writes over them.
  if (out.empty() && unreadable) return *unreadable;
  return out;
}

}  // namespace delineate::inference::training
