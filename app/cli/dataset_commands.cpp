// dataset create | add | show | list: versioned lists of label revisions with a split (io/share/share_datasets.h).
#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/base/process_info.h"
#include "io/share/share_datasets.h"
#include "io/share/share_store.h"
#include "io/studies/dataset_fetch.h"

namespace delineate::app::cli {
namespace {

using io::Dataset;
using io::DatasetEntry;

nlohmann::json entriesJson(const Dataset& d) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& e : d.entries)
    a.push_back({{"study", e.study}, {"labelSet", e.labelSet}, {"revision", e.revision}, {"sha256", e.sha256},
                 {"split", e.split}});
  return a;
}

// "70:15:15" -> fractions; nothing when it is not three non-negative whole numbers summing to 100.
std::optional<std::array<double, 3>> parseSplit(const std::string& text) {
  int a = -1, b = -1, c = -1;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d:%d:%d%c", &a, &b, &c, &tail) != 3 || a < 0 || b < 0 || c < 0 || a + b + c != 100)
    return std::nullopt;
  return std::array<double, 3>{a / 100.0, b / 100.0, c / 100.0};
}

// A new dataset version edited from `base` (the newest), by --author or this user, with --message.
io::SaveRequest saveRequest(const DatasetOptions& o, int base) {
  io::SaveRequest request;
  request.author = o.author.empty() ? io::authorName() : o.author;
  request.baseRevision = base;
  request.message = o.message;
  return request;
}

int saved(const io::ShareStore& store, const io::DatasetRevisions& set, const Dataset& d, const io::RevisionInfo& info,
          const std::string& what, bool json) {
  audit(store, "dataset", {}, {}, info.number, set.name() + ": " + what);
  std::size_t counts[3] = {0, 0, 0};
  for (const auto& e : d.entries)
    for (std::size_t k = 0; k < 3; ++k)
      if (e.split == io::kSplits[k]) ++counts[k];
  if (json) {
    std::printf("%s\n", nlohmann::json{{"dataset", set.name()}, {"revision", info.number}, {"entries", entriesJson(d)},
                                       {"conflict", info.conflict}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("saved dataset %s revision %d: %zu entries (train %zu, validation %zu, test %zu)\n", set.name().c_str(),
                info.number, d.entries.size(), counts[0], counts[1], counts[2]);
  }
  if (info.conflict)
    std::fprintf(stderr, "warning: revision %d of dataset %s is a CONFLICT: r%d was saved meanwhile\n", info.number,
                 set.name().c_str(), info.latestAtSave);
  return 0;
}

}  // namespace

int runDatasetCreate(const DatasetOptions& o) {
  const auto fractions = parseSplit(o.split);
  if (!fractions) return usageError("dataset create", "--split takes three whole percentages summing to 100, e.g. 70:15:15");
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto set = io::DatasetRevisions::open(*store, o.name);
  if (!set) return fileError(set.error());
  std::vector<std::string> skipped;
  auto entries = io::newestApprovedRevisions(*store, o.fromApproved, &skipped);
  if (!entries) return fileError(entries.error());
  for (const auto& s : skipped) std::fprintf(stderr, "note: skipped %s\n", s.c_str());
  if (entries->empty())
    return fileError(core::makeError(core::ErrorCode::NotFound, o.root,
                                     "no study has an approved revision of label set '" + o.fromApproved + "'"));
  const double f[3] = {(*fractions)[0], (*fractions)[1], (*fractions)[2]};
  if (io::assignSplits(*entries, f, o.seed.empty() ? o.name : o.seed))
    std::fprintf(stderr, "note: the validation share of %zu studies drew none: one study validates (the training study "
                         "nearest the validation range)\n",
                 entries->size());
  Dataset d;
  d.source = "newest approved revisions of label set " + o.fromApproved + ", split " + o.split + " keyed by '" +
             (o.seed.empty() ? o.name : o.seed) + "'";
  d.entries = std::move(entries).value();
  auto list = set->list();
  if (!list) return fileError(list.error());
  auto info = set->saveDataset(d, saveRequest(o, list->latest()));
  if (!info) return fileError(info.error());
  warnSignedAuthor(o.author, info->author);
  return saved(*store, *set, d, *info, "created from " + o.fromApproved, o.json);
}

int runDatasetAdd(const DatasetOptions& o) {
  if (!io::isValidSplit(o.entrySplit)) return usageError("dataset add", "--split is train, validation or test");
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto set = io::DatasetRevisions::open(*store, o.name);
  if (!set) return fileError(set.error());
  auto labels = io::LabelSetRevisions::open(*store, o.study, o.labelSet);
  if (!labels) return fileError(labels.error());
  auto info = labels->verify(o.revision);  // exists, and its content is what its record says
  if (!info) return fileError(info.error());
  auto list = set->list();
  if (!list) return fileError(list.error());
  Dataset d;
  if (list->latest() > 0) {
    auto latest = set->loadDataset(list->latest());
    if (!latest) return fileError(latest.error());
    d = std::move(latest).value();
  } else {
    d.source = "by hand";
  }
  const DatasetEntry entry{o.study, o.labelSet, o.revision, info->sha256, o.entrySplit};
  bool replaced = false;
  for (auto& e : d.entries)
    if (e.study == o.study && e.labelSet == o.labelSet) {
      e = entry;
      replaced = true;
    }
  if (!replaced) d.entries.push_back(entry);
  auto savedInfo = set->saveDataset(d, saveRequest(o, list->latest()));
  if (!savedInfo) return fileError(savedInfo.error());
  warnSignedAuthor(o.author, savedInfo->author);
  return saved(*store, *set, d, *savedInfo,
               std::string(replaced ? "replaced " : "added ") + o.study + "/" + o.labelSet + " r" +
                   std::to_string(o.revision) + " (" + o.entrySplit + ")",
               o.json);
}

int runDatasetShow(const DatasetOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto set = io::DatasetRevisions::open(*store, o.name);
  if (!set) return fileError(set.error());
  auto list = set->list();
  if (!list) return fileError(list.error());
  const int revision = o.revision > 0 ? o.revision : list->latest();
  if (revision == 0)
    return fileError(core::makeError(core::ErrorCode::NotFound, set->folder(), "the dataset has no version yet"));
  auto d = set->loadDataset(revision);
  if (!d) return fileError(d.error());
  auto problems = io::verifyDataset(*store, *d);
  if (!problems) return fileError(problems.error());
  if (o.json) {
    std::printf("%s\n", nlohmann::json{{"dataset", set->name()}, {"revision", revision}, {"source", d->source},
                                       {"entries", entriesJson(*d)}, {"problems", *problems}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("dataset %s revision %d: %s\n", set->name().c_str(), revision, d->source.c_str());
    for (const auto& e : d->entries)
      std::printf("  %-10s %s / %s r%d  %s\n", e.split.c_str(), e.study.c_str(), e.labelSet.c_str(), e.revision,
                  e.sha256.substr(0, 12).c_str());
    for (const auto& p : *problems) std::printf("  CHANGED: %s\n", p.c_str());
  }
  // A dataset whose label revisions changed is not what it names: said, and a non-zero exit for scripts.
  return problems->empty() ? 0 : 1;
}

int runDatasetFetch(const DatasetOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto fetched = io::fetchDataset(*store, o.name, o.revision, o.folder, o.stopOnBadCase);
  if (!fetched) return fileError(fetched.error());
  for (const auto& s : fetched->skipped) std::fprintf(stderr, "warning: skipped: %s\n", s.c_str());
  if (o.json) {
    std::printf("%s", io::fetchedCasesJson(*fetched).c_str());
  } else {
    std::printf("dataset %s revision %d: %zu cases in %s (%zu skipped)\n", fetched->name.c_str(), fetched->revision,
                fetched->cases.size(), fetched->casesJson.c_str(), fetched->skipped.size());
  }
  return 0;
}

int runDatasetList(const DatasetOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto names = io::listDatasets(*store);
  if (!names) return fileError(names.error());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : *names) {
    auto set = io::DatasetRevisions::open(*store, name);
    if (!set) return fileError(set.error());
    auto list = set->list();
    if (!list) return fileError(list.error());
    std::size_t entries = 0;
    if (list->latest() > 0)
      if (auto d = set->loadDataset(list->latest())) entries = d->entries.size();
    out.push_back({{"dataset", name}, {"revisions", list->revisions.size()}, {"latest", list->latest()},
                   {"entries", entries}});
    if (!o.json)
      std::printf("%-24s %zu version(s), newest r%d with %zu entries\n", name.c_str(), list->revisions.size(),
                  list->latest(), entries);
  }
  if (o.json) std::printf("%s\n", out.dump(2).c_str());
  else if (names->empty()) std::printf("no datasets\n");
  return 0;
}

}  // namespace delineate::app::cli
