#include "app/train/rank.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "app/train/train_data.h"
#include "inference/checkpoint_engine.h"
#include "inference/model_fit.h"
#include "io/share/share_datasets.h"
#include "io/share/share_reviews.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/studies/study_store.h"

namespace delineate::app::train {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Candidate {
  std::string study, series, labels;  // labels: "none", or the label set's newest revision that is not approved
  inference::StudyFitInput fit;       // the series' grid and modality, checked against the model before it runs
};

struct Scored {
  Candidate candidate;
  inference::training::UncertaintyStats stats;
  double seconds = 0;
};

json caseJson(const Scored& s) {
  const auto& u = s.stats;
  return {{"study", s.candidate.study},
          {"series", s.candidate.series},
          {"labels", s.candidate.labels},
          {"score", u.score()},
          {"meanEntropy", u.meanEntropy()},
          {"foregroundFraction", u.voxels ? static_cast<double>(u.foregroundVoxels) / static_cast<double>(u.voxels) : 0.0},
          {"consideredVoxels", u.consideredVoxels},
          {"seconds", s.seconds}};
}

// The studies to rank: those with an image series and no approved revision of `labelSet` (no label set at all
// when it is empty); `only` narrows them to those named (a named study that is no candidate is an error naming why).
core::Result<std::vector<Candidate>> candidates(const io::ShareStore& store, const std::string& labelSet,
                                                const std::vector<std::string>& only, std::vector<std::string>& skipped) {
  std::set<std::string> approved;
  if (!labelSet.empty()) {
    auto entries = io::newestApprovedRevisions(store, labelSet, nullptr);
    if (!entries) return entries.error();
    for (const auto& e : *entries) approved.insert(e.study);
  }
  std::vector<std::string> names;
  if (only.empty()) {
    auto all = io::listStudyNames(store);
    if (!all) return all.error();
    names = *all;
  } else {
    names = only;
  }
  std::vector<Candidate> out;
  for (const auto& study : names) {
    auto listing = io::listStudy(store, study);
    if (!listing) {
      if (!only.empty()) return listing.error();
      skipped.push_back(study + ": " + listing.error().describe());
      continue;
    }
    // The image series with the most voxels (a CT rather than its scout), the first by name of equals: not the
    // manifests' order.
    const io::SeriesManifest* image = nullptr;
    auto voxels = [](const io::SeriesManifest& s) { return s.geometry->voxelCount(); };
    for (const auto& s : listing->series)
      if (s.geometry && (!image || voxels(s) > voxels(*image) || (voxels(s) == voxels(*image) && s.series < image->series))) image = &s;
    const std::string why = approved.count(study)        ? "has an approved revision of label set '" + labelSet + "'"
                            : !image                     ? "holds no image series"
                            : labelSet.empty() && !listing->labelSets.empty() ? "has label sets"
                                                                              : std::string();
    if (!why.empty()) {
      if (!only.empty()) return core::makeError(core::ErrorCode::InvalidArgument, store.root() + "/studies/" + study, why);
      continue;
    }
    Candidate c{study, image->series, "none", {*image->geometry, image->modality, std::nullopt}};
    for (const auto& set : listing->labelSets)
      if (set.name == labelSet && set.latestRevision > 0) c.labels = "r" + std::to_string(set.latestRevision) + " not approved";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

int runRanking(const RankOptions& options, const std::atomic<bool>& cancel) {
  const auto start = Clock::now();
  auto store = io::ShareStore::open(options.share);
  if (!store) return failRun(store.error(), options.jsonLines);
  std::string note;
  auto path = io::resolveCheckpoint(options.model, {}, &note);
  if (!path) return failRun(path.error(), options.jsonLines);
  if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
  auto model = inference::readCheckpointModel(*path);
  if (!model) return failRun(model.error(), options.jsonLines);
  if (!*model || (*model)->kind != inference::CheckpointModel::Kind::SegResNetDS)
    return failRun(core::makeError(core::ErrorCode::Unsupported, options.model,
                                "ranking by uncertainty takes an atlas network (SegResNetDS); this checkpoint is VISTA-3D"),
                options.jsonLines);
  inference::Vista3dEngineOptions engineOptions;
  engineOptions.device = options.device.empty() ? "auto" : options.device;
  engineOptions.cpuThreads = options.threads;
  auto engine = inference::createAtlasEngine(*path, **model, engineOptions);
  if (!engine) return failRun(engine.error(), options.jsonLines);

  std::string labelSet = options.labelSet;
  if (labelSet.empty() && !options.dataset.empty()) {  // the dataset's label set: what its entries are revisions of
    auto datasets = io::DatasetRevisions::open(*store, options.dataset);
    if (!datasets) return failRun(datasets.error(), options.jsonLines);
    auto versions = datasets->list();
    if (!versions) return failRun(versions.error(), options.jsonLines);
    if (versions->latest() == 0)
      return failRun(core::makeError(core::ErrorCode::NotFound, store->root() + "/" + datasets->folder(), "the dataset has no version yet"), options.jsonLines);
    auto dataset = datasets->loadDataset(versions->latest());
    if (!dataset) return failRun(dataset.error(), options.jsonLines);
    std::map<std::string, int> sets;
    for (const auto& e : dataset->entries) ++sets[e.labelSet];
    for (const auto& [name, count] : sets)
      if (labelSet.empty() || count > sets[labelSet]) labelSet = name;
    if (labelSet.empty())
      return failRun(core::makeError(core::ErrorCode::InvalidArgument, store->root() + "/" + datasets->folder(), "the dataset has no entry"), options.jsonLines);
  }
  std::vector<std::string> skipped;
  auto list = candidates(*store, labelSet, options.studies, skipped);
  if (!list) return failRun(list.error(), options.jsonLines);
  // Only studies the model fits are ranked (issue 41: a mouse model ranked a human CT, both label sets being
  // "labels"): the others are named with why, before anything is fetched. A model whose sidecar records no training
  // data profile (older checkpoints) ranks everything, with a warning.
  auto fitProfile = inference::readModelFitProfile(*path);
  if (!fitProfile) return failRun(fitProfile.error(), options.jsonLines);
  const inference::ModelFitProfile profile = fitProfile->value_or(inference::ModelFitProfile{});
  std::vector<std::pair<std::string, std::string>> unfit;  // study, why
  bool unknownFit = false;
  for (auto it = list->begin(); it != list->end();) {
    const inference::ModelFit fit = inference::checkModelFit(profile, it->fit);
    if (fit.verdict == inference::ModelFit::Verdict::Unknown) unknownFit = true;
    if (fit.verdict != inference::ModelFit::Verdict::Mismatch) {
      ++it;
      continue;
    }
    const std::string why = "does not fit the model: " + inference::describeModelFit(fit, it->fit);
    if (!options.studies.empty())  // a study asked for by name: an error naming why, as for one that is no candidate
      return failRun(core::makeError(core::ErrorCode::InvalidArgument, store->root() + "/studies/" + it->study, why), options.jsonLines);
    unfit.emplace_back(it->study, why);
    skipped.push_back(it->study + ": " + why);
    it = list->erase(it);
  }
  if (options.jsonLines) {
    std::printf("%s\n", json{{"event", "start"}, {"model", options.model}, {"device", (*engine)->info().device},
                             {"labelSet", labelSet}, {"candidates", list->size()}}
                            .dump()
                            .c_str());
  } else {
    std::printf("%zu stud%s without an approved '%s' revision, ranked by %s on %s\n", list->size(), list->size() == 1 ? "y" : "ies",
                labelSet.c_str(), options.model.c_str(), (*engine)->info().device.c_str());
  }
  const std::string unknownWhy =
      "the model's sidecar records no training data profile (a checkpoint from before it was recorded): whether it fits "
      "these studies is unknown";
  if (unknownFit) {
    if (options.jsonLines) std::printf("%s\n", json{{"event", "warning"}, {"reason", unknownWhy}}.dump().c_str());
    else std::fprintf(stderr, "warning: %s\n", unknownWhy.c_str());
  }
  for (const auto& [study, why] : unfit) {
    if (options.jsonLines) std::printf("%s\n", json{{"event", "skipped"}, {"study", study}, {"reason", why}}.dump().c_str());
    else std::fprintf(stderr, "skipped %s: %s\n", study.c_str(), why.c_str());
  }
  std::fflush(stdout);

  struct Cancel final : core::ProgressSink {
    const std::atomic<bool>& flag;
    explicit Cancel(const std::atomic<bool>& f) : flag(f) {}
    void report(double, const std::string&) override {}
    bool cancelled() const override { return flag.load(); }
  } progress(cancel);
  std::vector<Scored> scored;
  int index = 0;
  for (const auto& c : *list) {
    ++index;
    if (cancel.load()) break;
    const auto t0 = Clock::now();
    auto fetched = io::fetchSeries(*store, c.study, c.series, io::defaultSeriesCacheFolder(*store, c.study, c.series), &progress);
    core::Result<inference::training::UncertaintyStats> stats = core::makeError(core::ErrorCode::Cancelled, c.study, "cancelled");
    if (!fetched) {
      stats = fetched.error();
    } else {
      auto image = readImage(fetched->openPath);
      if (!image) stats = image.error();
      else stats = inference::measureUncertainty(**engine, *image, &progress);
    }
    if (stats && stats->nonFiniteVoxels > 0)
      stats = core::makeError(core::ErrorCode::InvalidArgument, c.study,
                              "the network gave non-finite values on " + std::to_string(stats->nonFiniteVoxels) + " voxels");
    if (!stats) {
      if (stats.error().code == core::ErrorCode::Cancelled) break;
      const std::string why = c.study + ": " + stats.error().describe();
      skipped.push_back(why);
      if (options.jsonLines)
        std::printf("%s\n", json{{"event", "skipped"}, {"study", c.study}, {"reason", stats.error().describe()}}.dump().c_str());
      else
        std::fprintf(stderr, "skipped %s\n", why.c_str());
      std::fflush(stdout);
      continue;
    }
    Scored s{c, *stats, std::chrono::duration<double>(Clock::now() - t0).count()};
    if (options.jsonLines) {
      json line = caseJson(s);
      line["event"] = "case";
      line["index"] = index;
      line["of"] = list->size();
      std::printf("%s\n", line.dump().c_str());
    } else {
      std::printf("[%d/%zu] %s: uncertainty %.4f (%.1f s)\n", index, list->size(), c.study.c_str(), s.stats.score(), s.seconds);
    }
    std::fflush(stdout);
    scored.push_back(std::move(s));
  }
  if (cancel.load()) {
    if (options.jsonLines) std::printf("%s\n", json{{"event", "cancelled"}, {"scored", scored.size()}}.dump().c_str());
    else std::printf("cancelled after %zu stud%s\n", scored.size(), scored.size() == 1 ? "y" : "ies");
    return 0;
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.stats.score() != b.stats.score()) return a.stats.score() > b.stats.score();
    return a.candidate.study < b.candidate.study;
  });
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (options.jsonLines) {
    json ranking = json::array();
    for (const auto& s : scored) ranking.push_back(caseJson(s));
    std::printf("%s\n", json{{"event", "ranking"}, {"cases", ranking}, {"skipped", skipped}, {"seconds", seconds}}.dump().c_str());
  } else {
    std::printf("rank  uncertainty  study (labels)\n");
    int rank = 0;
    for (const auto& s : scored)
      std::printf("%4d  %11.4f  %s (%s)\n", ++rank, s.stats.score(), s.candidate.study.c_str(), s.candidate.labels.c_str());
    for (const auto& why : skipped) std::printf("not ranked: %s\n", why.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace delineate::app::train
