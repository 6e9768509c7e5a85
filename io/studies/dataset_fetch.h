#pragma once
// A dataset's cases on local disk (issue 25's input, and anyone's: a dataset taken to another tool): for every entry
// of a dataset version, its label revision copied out verified against the hash the dataset names, and the image
// series it is bound to fetched verified (io/studies/study_store.h), then listed in `cases.json`:
//   {"format": 1, "dataset": NAME, "revision": N, "cases": [{"study", "labelSet", "revision", "split",
//    "image": path, "labels": path, "modality"?}], "skipped": ["<study> / <set> rN: <reason>"]}
// A case is skipped, named with its reason, when its label revision changed since the dataset was made (the hash
// differs), is not bound to an image (written before studies held images), or is on another grid than its image
// (the manifest's geometry); `stopOnBadCase` makes the first such case an error instead.

#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct FetchedCase {
  std::string study, labelSet, split;
  int revision = 0;
  std::string image;   // a DICOM folder or a volume file
  std::string labels;  // the revision's .nii.gz
  std::string modality;  // the series manifest's ("CT", "MR"; empty when it names none)
};

struct FetchedDataset {
  std::string name;
  int revision = 0;
  std::vector<FetchedCase> cases;
  std::vector<std::string> skipped;
  std::string casesJson;  // the path of cases.json
};

// cases.json's content for `fetched` (what fetchDataset writes; the CLI's --json prints the same).
std::string fetchedCasesJson(const FetchedDataset& fetched);

// `revision` 0: the newest. `folder` is created; cases go to <folder>/<study>/images (the series) and
// <folder>/<study>/<set>.r<N>.nii.gz. Files already there from an earlier fetch are kept when their hash matches.
core::Result<FetchedDataset> fetchDataset(const ShareStore& store, const std::string& name, int revision,
                                          const std::string& folder, bool stopOnBadCase = false,
                                          core::ProgressSink* progress = nullptr);

}  // namespace delineate::io
