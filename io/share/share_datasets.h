#pragma once
// Datasets (issue 24, item 5): a named, versioned list of (study, label set, revision) with a split, what training and
// batch runs read. Each version is a revision of ROOT/datasets/<name>/ (io/share/share_revisions.h: never
// overwritten, conflicts kept), its content r<NNNNNN>.dataset.json:
//   {"format": 1, "name": ..., "source": "how it was built", "entries": [{"study", "labelSet", "revision",
//    "sha256", "split"}]}
// Frozen by the hashes it names: every entry records its label revision's SHA-256, and verify() says which label
// revisions no longer match (replaced or damaged on the share) before anything trains on them.
//
// Built by hand (one entry at a time) or by query: the newest approved revision (io/share/share_reviews.h) of a label
// set in every study that has one. Splits are drawn per study from a keyed hash of the study's name, so they do not
// depend on listing order, and a study added later does not move the others.

#include <string>
#include <vector>

#include "core/error.h"
#include "io/share/share_revisions.h"

namespace delineate::io {

inline constexpr const char* kSplits[] = {"train", "validation", "test"};
bool isValidSplit(const std::string& split);

struct DatasetEntry {
  std::string study;
  std::string labelSet;
  int revision = 0;
  std::string sha256;  // of the label revision's content, as it was when the entry was made
  std::string split;   // train | validation | test
  bool operator==(const DatasetEntry& o) const {
    return study == o.study && labelSet == o.labelSet && revision == o.revision && sha256 == o.sha256 && split == o.split;
  }
};

struct Dataset {
  std::string name;
  std::string source;  // how it was built ("newest approved revisions of label set atlas", "by hand")
  std::vector<DatasetEntry> entries;  // sorted by study, then label set
};

std::string datasetJson(const Dataset& dataset);
core::Result<Dataset> parseDataset(const std::string& text, const std::string& path);

// The dataset folder ROOT/datasets/<name>/ (names as for studies: letters, digits, '-', '_', '.').
class DatasetRevisions : public RevisionFolder {
 public:
  static core::Result<DatasetRevisions> open(const ShareStore& store, const std::string& name);
  // Saves `dataset` as the next revision (request.baseRevision: the revision it was edited from).
  core::Result<RevisionInfo> saveDataset(const Dataset& dataset, const SaveRequest& request) const;
  core::Result<Dataset> loadDataset(int revision) const;
  const std::string& name() const { return m_name; }

 private:
  DatasetRevisions(const ShareStore& store, std::string name)
      : RevisionFolder(store, "datasets/" + name, ".dataset.json"), m_name(std::move(name)) {
    setSignerRole("trainer");
  }
  std::string m_name;
};

// The names of the datasets in the store, sorted.
core::Result<std::vector<std::string>> listDatasets(const ShareStore& store);

// The newest approved revision of `labelSet` in every study that has one, sorted by study; `skipped` gets one line per
// study holding the label set without an approved revision (or whose review records cannot be read).
core::Result<std::vector<DatasetEntry>> newestApprovedRevisions(const ShareStore& store, const std::string& labelSet,
                                                                std::vector<std::string>* skipped = nullptr);

// The chosen studies' revisions of `labelSet` (a dataset built from a selection, e.g. in the study browser): in each
// study its newest approved revision (`approvedOnly`), or its newest revision whatever its review; sorted by study.
// `skipped` gets one line per study without one ("<study>: no approved revision of <set>", "... has no label set ...").
core::Result<std::vector<DatasetEntry>> revisionsOfStudies(const ShareStore& store, const std::string& labelSet,
                                                           const std::vector<std::string>& studies, bool approvedOnly,
                                                           std::vector<std::string>* skipped = nullptr);

// Assigns each entry's split from `fractions` (train, validation, test; summing to 1) and `seed`: the study's name and
// the seed, hashed, place it in [0, 1). A validation share asked for (fractions[1] > 0) that draws no study while two
// or more train gets one: the training study whose hash lies nearest the validation range (the highest), so that a
// small dataset (3 studies at 20%) still validates its model instead of training it blind. Returns whether a study
// was moved so (callers say it).
bool assignSplits(std::vector<DatasetEntry>& entries, const double (&fractions)[3], const std::string& seed);

// The entries whose label revision is missing or no longer has the SHA-256 the dataset names, one line each.
core::Result<std::vector<std::string>> verifyDataset(const ShareStore& store, const Dataset& dataset);

}  // namespace delineate::io
