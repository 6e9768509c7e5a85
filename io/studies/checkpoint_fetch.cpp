#include "io/studies/checkpoint_fetch.h"

#include "io/models/model_store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "io/base/atomic_file.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
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
  // The checkpoint cache is one user's local copy: owner-only (io/base/file_modes.h).
  if (core::Status s = createFolders(folder.string(), FileAccess::Private); !s) return s.error();
  // Under its hash (a revision never changes), named for people: CACHE/<sha256>/<model>-r<N>.pt.
  const fs::path weights =
      folder / info->sha256 / (model + "-r" + std::to_string(number) + fs::path(info->content).extension().string());
  if (core::Status s = createFolders(weights.parent_path().string(), FileAccess::Private); !s) return s.error();
  std::error_code ec;
  const fs::path sidecar = fs::path(weights).replace_extension(".json");
  // The sidecar is written after the weights, so a copy with its sidecar is complete (both are atomic renames). A
  // copy is used only while its content still hashes to the revision's SHA-256 (a cache is a local disk anyone may
  // write to, and disks fail); a copy that does not is replaced by a verified one. Both are sealed at rest (weights
  // learnt from patient data; engines read them through io's file source, core/file_source.h); a plain copy an
  // earlier version left is used as it is.
  bool cached = fs::exists(weights, ec) && fs::exists(sidecar, ec);
  if (cached) {
    auto size = contentFileSize(weights.string());
    cached = size && *size == info->bytes;
  }
  if (cached) {
    auto hash = contentSha256(weights.string());
    cached = hash && *hash == info->sha256;
  }
  if (!cached) {
    auto copied = checkpoints->copyOut(number, weights.string(), FileAccess::Sealed);
    if (!copied) return copied.error();
    AtomicWriteOptions options;
    options.access = FileAccess::Sealed;
    auto writer = AtomicFileWriter::create(sidecar.string(), options);
    if (!writer) return writer.error();
    const std::string text = info->extraJson.empty() ? std::string("{}") : info->extraJson;
    if (core::Status s = writer->write(text.data(), text.size()); !s) return s.error();
    if (core::Status s = writer->commit(); !s) return s.error();
  }
  return weights.string();
}

namespace {

// The model folders under checkpoints/, sorted.
core::Result<std::vector<std::string>> modelNames(const ShareStore& store) {
  std::vector<std::string> names;
  const fs::path folder = fs::path(store.root()) / "checkpoints";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return names;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) names.push_back(it->path().filename().string());
  if (ec) return makeError(ErrorCode::ReadFailed, folder.string(), ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

void fromRevision(const RevisionInfo& info, const std::string& model, CheckpointRevisionSummary& m) {
  m.model = model;
  m.revision = info.number;
  m.author = info.author;
  m.time = info.time;
  m.message = info.message;
  readCheckpointSidecarSummary(info.extraJson, m);
}

}  // namespace

void readCheckpointSidecarSummary(const std::string& extraJson, CheckpointRevisionSummary& m) {
  using nlohmann::json;
  const json extra = json::parse(extraJson.empty() ? "{}" : extraJson, nullptr, false);
  if (!extra.is_object()) return;
  // What it says, where it says it in the expected types.
  auto object = [](const json& j, const char* key) -> const json* {
    const auto it = j.find(key);
    return it != j.end() && it->is_object() ? &*it : nullptr;
  };
  auto text = [](const json* j, const char* key, std::string& out) {
    if (!j) return;
    const auto it = j->find(key);
    if (it != j->end() && it->is_string()) out = it->get<std::string>();
  };
  auto integer = [](const json* j, const char* key, int& out) {
    if (!j) return;
    const auto it = j->find(key);
    if (it != j->end() && it->is_number_integer()) out = it->get<int>();
  };
  text(object(extra, "architecture"), "name", m.architecture);
  const bool vista = m.architecture == "VISTA3D";
  // The network's classes (SegResNetDS: its output channel; VISTA-3D: its id) -> the user's id and name.
  std::map<long long, std::pair<int, std::string>> byNetwork;
  if (const auto labels = extra.find("labels"); labels != extra.end() && labels->is_array()) {
    m.classes = static_cast<int>(labels->size());
    for (const auto& l : *labels) {
      if (!l.is_object()) continue;
      const auto id = l.find("id"), network = l.find(vista ? "vista3d" : "class"), name = l.find("name");
      if (id == l.end() || !id->is_number_integer() || network == l.end() || !network->is_number_integer()) continue;
      byNetwork[network->get<long long>()] = {id->get<int>(), name != l.end() && name->is_string() ? name->get<std::string>() : std::string()};
    }
  }
  if (const auto dice = extra.find("bestDice"); dice != extra.end() && dice->is_number()) m.bestDice = dice->get<double>();
  integer(&extra, "iteration", m.iteration);
  const json* training = object(extra, "training");
  integer(training, "iterations", m.iterations);
  text(training, "device", m.device);
  text(training, "precision", m.precision);
  if (const json* data = object(extra, "data")) {
    text(data, "dataset", m.dataset);
    integer(data, "datasetRevision", m.datasetRevision);
    if (const auto cases = data->find("cases"); cases != data->end() && cases->is_array())
      for (const auto& c : *cases)
        if (c.is_object()) {
          const auto split = c.find("split");
          if (split == c.end() || !split->is_string()) continue;
          if (*split == "train") ++m.trainCases;
          else if (*split == "validation") ++m.validationCases;
        }
  }
  // The validation of these weights: the one at their iteration (a final checkpoint's last validation); weights
  // saved between validations have none (never an earlier validation's Dice: those were other weights). A sidecar
  // without an iteration (stored by hand) is shown with its best (the highest mean Dice; the earliest of equals).
  // Its Dice per structure by the user's ids.
  const json* best = nullptr;
  const json* own = nullptr;
  if (const auto validations = extra.find("validations"); validations != extra.end() && validations->is_array())
    for (const auto& v : *validations) {
      if (!v.is_object()) continue;
      const auto mean = v.find("meanDice");
      if (mean == v.end() || !mean->is_number()) continue;
      if (!best || mean->get<double>() > best->at("meanDice").get<double>()) best = &v;
      const auto at = v.find("iteration");
      if (at == v.end() || !at->is_number_integer()) continue;
      if (m.iteration > 0 && at->get<int>() == m.iteration) own = &v;
      else if (m.iteration > 0 && at->get<int>() < m.iteration)
        m.lastValidationIteration = std::max(m.lastValidationIteration, at->get<int>());
    }
  if (m.iteration > 0) best = own;
  if (best) {
    m.dice = best->at("meanDice").get<double>();
    m.lastValidationIteration = 0;
    if (const auto at = best->find("iteration"); at != best->end() && at->is_number_integer()) m.validatedIteration = at->get<int>();
  }
  if (const json* perClass = best ? object(*best, "perClass") : nullptr)
    for (const auto& [key, dice] : perClass->items()) {
      if (!dice.is_number()) continue;
      char* end = nullptr;
      const long long network = std::strtoll(key.c_str(), &end, 10);
      if (end == key.c_str() || *end != 0) continue;
      const auto known = byNetwork.find(network);
      CheckpointClassDice d;
      d.id = known != byNetwork.end() ? known->second.first : static_cast<int>(network);
      d.name = known != byNetwork.end() ? known->second.second : std::string();
      d.dice = dice.get<double>();
      m.perClass.push_back(std::move(d));
    }
  std::sort(m.perClass.begin(), m.perClass.end(), [](const CheckpointClassDice& a, const CheckpointClassDice& b) { return a.id < b.id; });
}

core::Result<std::vector<CheckpointRevisionSummary>> listCheckpointRevisions(const ShareStore& store, const std::string& model) {
  std::vector<std::string> names;
  if (model.empty()) {
    auto all = modelNames(store);
    if (!all) return all.error();
    names = std::move(*all);
  } else {
    names.push_back(model);
  }
  std::vector<CheckpointRevisionSummary> out;
  for (const auto& name : names) {
    auto checkpoints = ModelCheckpoints::open(store, name);
    if (!checkpoints) {
      if (!model.empty()) return checkpoints.error();
      continue;
    }
    auto list = checkpoints->list();
    if (!list) {
      if (!model.empty()) return list.error();
      continue;
    }
    for (const auto& info : list->revisions) {
      CheckpointRevisionSummary m;
      fromRevision(info, name, m);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::string checkpointTrainingBy(const ShareStore& store, const std::string& model) {
  auto checkpoints = ModelCheckpoints::open(store, model);
  if (!checkpoints) return {};
  if (auto lease = ShareLease::prepare(store, checkpoints->folder(), {}); lease)
    if (auto holder = lease->current(); holder && *holder && !(*holder)->expired) return (*holder)->user + " on " + (*holder)->host;
  return {};
}

core::Result<std::vector<CheckpointModelSummary>> listCheckpointModels(const ShareStore& store) {
  std::vector<CheckpointModelSummary> out;
  auto names = modelNames(store);
  if (!names) return names.error();
  for (const auto& name : *names) {
    auto checkpoints = ModelCheckpoints::open(store, name);
    if (!checkpoints) continue;
    auto list = checkpoints->list();
    const std::string trainingBy = checkpointTrainingBy(store, name);
    if (!list || (list->revisions.empty() && trainingBy.empty())) continue;
    CheckpointModelSummary m;
    m.model = name;
    m.trainingBy = trainingBy;
    if (!list->revisions.empty()) fromRevision(list->revisions.back(), name, m);  // else a first run still going: listed, nothing to choose yet
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
  // A model downloaded or registered on this machine (io/models): its recorded file, checked for size.
  if (referenceOrPath.rfind("model:", 0) == 0) return resolveModelReference(referenceOrPath);
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
  // The cached copy lies in a folder named by the revision's SHA-256 (fetchCheckpoint's, from the revision record):
  // it is used only when its content hashes to that name, else it is an error naming it (and it is not used).
  const std::string expected = copies.front().parent_path().filename().string();
  auto hash = contentSha256(copies.front().string());
  if (!hash) return hash.error();
  if (*hash != expected)
    return makeError(ErrorCode::Corrupt, copies.front().string(),
                     "the cached copy of " + reference->model + " r" + std::to_string(reference->revision) +
                         " does not match the revision's SHA-256 (" + expected + ", the copy hashes to " + *hash +
                         "): not used; the share " + reference->root + " cannot be reached to fetch it again (" +
                         fetched.error().describe() + ")");
  if (note)
    *note = "the share " + reference->root + " cannot be reached (" + fetched.error().describe() + "): using the copy of " +
            reference->model + " r" + std::to_string(reference->revision) + " cached at " + copies.front().string();
  return copies.front().string();
}

}  // namespace delineate::io
