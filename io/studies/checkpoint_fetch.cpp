#include "io/studies/checkpoint_fetch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "io/base/atomic_file.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"

namespace delineate::io {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

std::optional<CheckpointReference> parseCheckpointReference(const std::string& text) {
  const std::string prefix = "share:";
  if (text.rfind(prefix, 0) != 0) return std::nullopt;
  const auto hash = text.rfind('#');
  if (hash == std::string::npos || hash <= prefix.size()) return std::nullopt;
  CheckpointReference r;
  r.root = text.substr(prefix.size(), hash - prefix.size());
  r.model = text.substr(hash + 1);
  if (const auto at = r.model.rfind('@'); at != std::string::npos) {
    const std::string number = r.model.substr(at + 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 9) return std::nullopt;
    r.revision = std::stoi(number);
    r.model.resize(at);
  }
  if (r.model.empty()) return std::nullopt;
  return r;
}

std::string formatCheckpointReference(const CheckpointReference& r) {
  return "share:" + r.root + "#" + r.model + (r.revision > 0 ? "@" + std::to_string(r.revision) : std::string());
}

core::Result<std::string> fetchCheckpoint(const ShareStore& store, const std::string& model, int revision,
                                          const std::string& cacheFolder) {
  auto checkpoints = ModelCheckpoints::open(store, model);
  if (!checkpoints) return checkpoints.error();
  auto list = checkpoints->list();
  if (!list) return list.error();
  const int number = revision > 0 ? revision : list->latest();
  const RevisionInfo* info = list->find(number);
  if (!info)
    return makeError(ErrorCode::NotFound, store.root() + "/" + checkpoints->folder(),
                     number == 0 ? "model '" + model + "' has no checkpoint" : "no checkpoint revision " + std::to_string(number));
  if (info->sha256.size() != 64 || info->sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return makeError(ErrorCode::Corrupt, store.root() + "/" + checkpoints->folder(),
                     "revision " + std::to_string(number) + " has no valid SHA-256 in its metadata");
  const fs::path folder = cacheFolder.empty() ? fs::path(userCacheFolder()) / "checkpoints" : fs::path(cacheFolder);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return makeError(ErrorCode::WriteFailed, folder.string(), ec.message());
  // Under its hash (a revision never changes), named for people: CACHE/<sha256>/<model>-r<N>.pt.
  const fs::path weights =
      folder / info->sha256 / (model + "-r" + std::to_string(number) + fs::path(info->content).extension().string());
  fs::create_directories(weights.parent_path(), ec);
  if (ec) return makeError(ErrorCode::WriteFailed, weights.parent_path().string(), ec.message());
  const fs::path sidecar = fs::path(weights).replace_extension(".json");
  // The sidecar is written after the weights, so a copy with its sidecar is complete (both are atomic renames).
  if (!(fs::exists(weights, ec) && fs::exists(sidecar, ec) && fs::file_size(weights, ec) == info->bytes)) {
    auto copied = checkpoints->copyOut(number, weights.string());
    if (!copied) return copied.error();
    auto writer = AtomicFileWriter::create(sidecar.string());
    if (!writer) return writer.error();
    const std::string text = info->extraJson.empty() ? std::string("{}") : info->extraJson;
    if (core::Status s = writer->write(text.data(), text.size()); !s) return s.error();
    if (core::Status s = writer->commit(); !s) return s.error();
  }
  return weights.string();
}

core::Result<std::vector<CheckpointModelSummary>> listCheckpointModels(const ShareStore& store) {
  std::vector<CheckpointModelSummary> out;
  const fs::path folder = fs::path(store.root()) / "checkpoints";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  std::vector<std::string> names;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) names.push_back(it->path().filename().string());
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), ec.message());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    auto checkpoints = ModelCheckpoints::open(store, name);
    if (!checkpoints) continue;
    auto list = checkpoints->list();
    std::string trainingBy;
    if (auto lease = ShareLease::prepare(store, checkpoints->folder(), {}); lease)
      if (auto holder = lease->current(); holder && *holder && !(*holder)->expired)
        trainingBy = (*holder)->user + " on " + (*holder)->host;
    if (!list || (list->revisions.empty() && trainingBy.empty())) continue;
    CheckpointModelSummary m;
    m.model = name;
    m.trainingBy = trainingBy;
    if (list->revisions.empty()) {  // a first run still going: listed, nothing to choose yet
      out.push_back(std::move(m));
      continue;
    }
    const RevisionInfo& latest = list->revisions.back();
    m.revision = latest.number;
    m.author = latest.author;
    m.time = latest.time;
    const nlohmann::json extra = nlohmann::json::parse(latest.extraJson.empty() ? "{}" : latest.extraJson, nullptr, false);
    if (extra.is_object()) {  // what it says, where it says it in the expected types (any other note is skipped)
      const auto architecture = extra.find("architecture");
      if (architecture != extra.end() && architecture->is_object()) {
        const auto named = architecture->find("name");
        if (named != architecture->end() && named->is_string()) m.architecture = named->get<std::string>();
      }
      const auto labels = extra.find("labels");
      if (labels != extra.end() && labels->is_array()) m.classes = static_cast<int>(labels->size());
      const auto dice = extra.find("bestDice");
      if (dice != extra.end() && dice->is_number()) m.bestDice = dice->get<double>();
    }
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

// The cached copies of MODEL rREV (with their sidecars) in `folder`.
std::vector<fs::path> cachedCopies(const fs::path& folder, const std::string& model, int revision) {
  std::vector<fs::path> out;
  const std::string stem = model + "-r" + std::to_string(revision);
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code inner;
    for (fs::directory_iterator f(it->path(), inner), fend; !inner && f != fend; f.increment(inner)) {
      const fs::path p = f->path();
      if (p.stem().string() == stem && p.extension() != ".json" && fs::exists(fs::path(p).replace_extension(".json"), inner))
        out.push_back(p);
    }
  }
  return out;
}

}  // namespace

core::Result<std::string> resolveCheckpoint(const std::string& referenceOrPath, const std::string& cacheFolder, std::string* note) {
  const auto reference = parseCheckpointReference(referenceOrPath);
  if (!reference) return referenceOrPath;
  core::Result<std::string> fetched = makeError(ErrorCode::NotFound, reference->root, "not opened");
  auto store = ShareStore::open(reference->root);
  if (store) fetched = fetchCheckpoint(*store, reference->model, reference->revision, cacheFolder);
  else fetched = store.error();
  // The share unreachable (not its answer that the model or revision does not exist): a pinned copy in the cache.
  if (fetched || reference->revision <= 0 || fetched.error().code == ErrorCode::Corrupt ||
      (store && fetched.error().code == ErrorCode::NotFound))
    return fetched;
  const fs::path folder = cacheFolder.empty() ? fs::path(userCacheFolder()) / "checkpoints" : fs::path(cacheFolder);
  const auto copies = cachedCopies(folder, reference->model, reference->revision);
  if (copies.size() != 1) return fetched;
  if (note)
    *note = "the share " + reference->root + " cannot be reached (" + fetched.error().describe() + "): using the copy of " +
            reference->model + " r" + std::to_string(reference->revision) + " cached at " + copies.front().string();
  return copies.front().string();
}

}  // namespace delineate::io
