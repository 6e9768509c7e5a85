#include "io/share/share_datasets.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/base/sha256.h"
#include "io/share/share_reviews.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

bool entryLess(const DatasetEntry& a, const DatasetEntry& b) {
  return a.study != b.study ? a.study < b.study : a.labelSet < b.labelSet;
}

}  // namespace

bool isValidSplit(const std::string& split) {
  return std::any_of(std::begin(kSplits), std::end(kSplits), [&](const char* s) { return split == s; });
}

std::string datasetJson(const Dataset& dataset) {
  nlohmann::json j{{"format", 1}, {"name", dataset.name}, {"source", dataset.source}, {"entries", nlohmann::json::array()}};
  std::vector<DatasetEntry> sorted = dataset.entries;
  std::sort(sorted.begin(), sorted.end(), entryLess);
  for (const auto& e : sorted)
    j["entries"].push_back({{"study", e.study}, {"labelSet", e.labelSet}, {"revision", e.revision},
                            {"sha256", e.sha256}, {"split", e.split}});
  return j.dump(2) + "\n";
}

core::Result<Dataset> parseDataset(const std::string& text, const std::string& path) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) { return makeError(ErrorCode::Corrupt, path, "not a dataset: " + why); };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (j.value("format", 0) != 1) return bad("unknown format (1 expected)");
  if (!j.contains("entries") || !j["entries"].is_array()) return bad("no entries");
  Dataset d;
  d.name = j.value("name", "");
  d.source = j.value("source", "");
  for (const auto& e : j["entries"]) {
    if (!e.is_object()) return bad("an entry is not an object");
    DatasetEntry entry;
    entry.study = e.value("study", "");
    entry.labelSet = e.value("labelSet", "");
    entry.revision = e.value("revision", 0);
    entry.sha256 = e.value("sha256", "");
    entry.split = e.value("split", "");
    if (!isValidShareName(entry.study) || !isValidShareName(entry.labelSet) || entry.revision <= 0 ||
        entry.sha256.size() != 64 || !isValidSplit(entry.split))
      return bad("entry " + std::to_string(d.entries.size() + 1) + " is incomplete or invalid");
    d.entries.push_back(std::move(entry));
  }
  return d;
}

core::Result<DatasetRevisions> DatasetRevisions::open(const ShareStore& store, const std::string& name) {
  if (!isValidShareName(name)) return makeError(ErrorCode::InvalidArgument, name, "not a valid dataset name");
  return DatasetRevisions(store, name);
}

core::Result<RevisionInfo> DatasetRevisions::saveDataset(const Dataset& dataset, const SaveRequest& request) const {
  for (const auto& e : dataset.entries)
    if (!isValidSplit(e.split))
      return makeError(ErrorCode::InvalidArgument, folder(), "'" + e.split + "' is not a split (train, validation, test)");
  Dataset named = dataset;
  named.name = m_name;
  const std::string text = datasetJson(named);
  return save(text.data(), text.size(), request);
}

core::Result<Dataset> DatasetRevisions::loadDataset(int revision) const {
  auto bytes = load(revision);
  if (!bytes) return bytes.error();
  const std::string path = folder() + "/r" + std::to_string(revision);
  return parseDataset(std::string(bytes->begin(), bytes->end()), path);
}

core::Result<std::vector<std::string>> listDatasets(const ShareStore& store) {
  auto dir = store.resolve("datasets");
  if (!dir) return dir.error();
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::exists(*dir, ec)) return names;
  for (fs::directory_iterator it(*dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && isValidShareName(name) && name[0] != '.') names.push_back(name);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, *dir, "cannot list the datasets: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

core::Result<std::vector<DatasetEntry>> newestApprovedRevisions(const ShareStore& store, const std::string& labelSet,
                                                                std::vector<std::string>* skipped) {
  if (!isValidShareName(labelSet)) return makeError(ErrorCode::InvalidArgument, labelSet, "not a valid label-set name");
  auto studies = store.resolve("studies");
  if (!studies) return studies.error();
  std::vector<std::string> names;
  std::error_code ec;
  if (fs::exists(*studies, ec))
    for (fs::directory_iterator it(*studies, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string study = it->path().filename().string();
      if (isValidShareName(study) && study[0] != '.' && fs::is_directory(it->path() / "labelsets" / labelSet, ec))
        names.push_back(study);
    }
  if (ec) return makeError(ErrorCode::ReadFailed, *studies, "cannot list the studies: " + ec.message());
  // Every study holding the set has it: the selection's path, approved revisions only.
  return revisionsOfStudies(store, labelSet, names, true, skipped);
}

core::Result<std::vector<DatasetEntry>> revisionsOfStudies(const ShareStore& store, const std::string& labelSet,
                                                           const std::vector<std::string>& studies, bool approvedOnly,
                                                           std::vector<std::string>* skipped) {
  if (!isValidShareName(labelSet)) return makeError(ErrorCode::InvalidArgument, labelSet, "not a valid label-set name");
  std::vector<std::string> names = studies;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<DatasetEntry> out;
  for (const std::string& study : names) {
    auto folder = store.resolve("studies/" + study + "/labelsets/" + labelSet);
    std::error_code ec;
    if (!folder || !fs::is_directory(*folder, ec)) {
      if (skipped) skipped->push_back(study + ": has no label set " + labelSet);
      continue;
    }
    auto set = LabelSetRevisions::open(store, study, labelSet);
    if (!set) return set.error();
    auto list = set->list();
    if (!list) {
      if (skipped) skipped->push_back(study + ": " + list.error().describe());
      continue;
    }
    const RevisionInfo* chosen = nullptr;
    if (approvedOnly) {
      auto reviews = LabelSetReviews(*set).all();
      if (!reviews) {
        if (skipped) skipped->push_back(study + ": " + reviews.error().describe());
        continue;
      }
      for (const auto& r : *reviews)
        if (r.state == ReviewState::Approved)
          if (const RevisionInfo* info = list->find(r.revision); info && (!chosen || info->number > chosen->number)) chosen = info;
    } else if (!list->revisions.empty()) {
      chosen = &list->revisions.back();
    }
    if (!chosen) {
      if (skipped) skipped->push_back(study + (approvedOnly ? ": no approved revision of " : ": no revision of ") + labelSet);
      continue;
    }
    out.push_back({study, labelSet, chosen->number, chosen->sha256, "train"});
  }
  return out;
}

bool assignSplits(std::vector<DatasetEntry>& entries, const double (&fractions)[3], const std::string& seed) {
  std::vector<double> at(entries.size());
  int train = 0, validation = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    DatasetEntry& e = entries[i];
    const std::string key = seed + "\n" + e.study;
    const std::string hex = sha256Hex(key.data(), key.size());
    // The first 13 hex digits (52 bits) as a fraction in [0, 1).
    const double u = static_cast<double>(std::stoull(hex.substr(0, 13), nullptr, 16)) / static_cast<double>(1ULL << 52);
    at[i] = u;
    e.split = u < fractions[0] ? kSplits[0] : u < fractions[0] + fractions[1] ? kSplits[1] : kSplits[2];
    train += e.split == kSplits[0];
    validation += e.split == kSplits[1];
  }
  if (fractions[1] <= 0 || validation > 0 || train < 2) return false;
  // The training study nearest the validation range: the highest hash below it (ties, in 52 bits, by name).
  std::size_t chosen = entries.size();
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].split == kSplits[0] &&
        (chosen == entries.size() || at[i] > at[chosen] || (at[i] == at[chosen] && entries[i].study > entries[chosen].study)))
      chosen = i;
  entries[chosen].split = kSplits[1];
  return true;
}

core::Result<std::vector<std::string>> verifyDataset(const ShareStore& store, const Dataset& dataset) {
  std::vector<std::string> problems;
  for (const auto& e : dataset.entries) {
    const std::string where = e.study + "/" + e.labelSet + " r" + std::to_string(e.revision);
    auto set = LabelSetRevisions::open(store, e.study, e.labelSet);
    if (!set) return set.error();
    auto info = set->verify(e.revision);
    if (!info) {
      problems.push_back(where + ": " + info.error().describe());
      continue;
    }
    if (info->sha256 != e.sha256)
      problems.push_back(where + ": its content is " + info->sha256.substr(0, 12) + ", the dataset names " +
                         e.sha256.substr(0, 12) + " (the revision was replaced)");
  }
  return problems;
}

}  // namespace delineate::io
