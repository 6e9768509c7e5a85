#include "io/studies/dataset_fetch.h"
#include "io/base/sealed_file.h"

#include "io/share/audit_log.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/sha256.h"
#include "io/share/share_datasets.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

}  // namespace

std::string fetchedCasesJson(const FetchedDataset& fetched) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : fetched.cases) {
    cases.push_back({{"study", c.study}, {"labelSet", c.labelSet}, {"revision", c.revision}, {"split", c.split},
                     {"image", c.image}, {"labels", c.labels}});
    if (!c.modality.empty()) cases.back()["modality"] = c.modality;
  }
  return nlohmann::json{{"format", 1}, {"dataset", fetched.name}, {"revision", fetched.revision}, {"cases", cases},
                        {"skipped", fetched.skipped}}
             .dump(2) +
         "\n";
}

core::Result<FetchedDataset> fetchDataset(const ShareStore& store, const std::string& name, int revision,
                                          const std::string& folderGiven, bool stopOnBadCase, core::ProgressSink* progress) {
  // cases.json names its files by absolute paths: readers resolve relative ones against cases.json's own folder, where a
  // relative `folder` (taken against the working directory) would be doubled.
  std::error_code absoluteError;
  const fs::path absolute = fs::absolute(folderGiven, absoluteError);
  const std::string folder = absoluteError ? folderGiven : absolute.lexically_normal().string();
  auto set = DatasetRevisions::open(store, name);
  if (!set) return set.error();
  auto list = set->list();
  if (!list) return list.error();
  const int number = revision > 0 ? revision : list->latest();
  if (number == 0) return makeError(ErrorCode::NotFound, set->folder(), "the dataset has no version yet");
  auto dataset = set->loadDataset(number);
  if (!dataset) return dataset.error();
  // The fetch as a whole is audited here; each case's label revision and series audit their own reads.
  AuditRecord record;
  record.action = "read";
  record.labelSet = name;
  record.revision = number;
  record.detail = "dataset " + name + " r" + std::to_string(number) + " (" + std::to_string(dataset->entries.size()) +
                  " cases) to " + folder;
  if (core::Status s = appendReadAudit(store.root(), store.id(), record); !s)
    return makeError(ErrorCode::WriteFailed, set->folder(),
                     "the dataset was not read: every read is audited, and the audit record could not be written (" +
                         s.error().describe() + ")");
  // The fetched cases are one user's local copy of patient data: owner-only (io/base/file_modes.h).
  if (core::Status s = createFolders(folder, FileAccess::Private); !s) return s.error();

  FetchedDataset out;
  out.name = name;
  out.revision = number;
  for (std::size_t i = 0; i < dataset->entries.size(); ++i) {
    if (progress && progress->cancelled()) return makeError(ErrorCode::Cancelled, folder, "the fetch was cancelled");
    const DatasetEntry& e = dataset->entries[i];
    const std::string what = e.study + " / " + e.labelSet + " r" + std::to_string(e.revision);
    const auto bad = [&](const std::string& reason) -> core::Status {
      if (stopOnBadCase) return makeError(ErrorCode::InvalidArgument, what, reason);
      out.skipped.push_back(what + ": " + reason);
      return core::Status::success();
    };
    auto labels = LabelSetRevisions::open(store, e.study, e.labelSet);
    if (!labels) return labels.error();
    auto revisions = labels->list();
    if (!revisions) return revisions.error();
    const RevisionInfo* info = revisions->find(e.revision);
    core::Status verdict = core::Status::success();
    std::string boundStudy, boundSeries;
    if (!info) verdict = bad("the label revision is not on the share (or incomplete)");
    else if (info->sha256 != e.sha256)
      verdict = bad("the label revision's SHA-256 is " + info->sha256 + ", the dataset names " + e.sha256);
    else if (!parseLabelBinding(info->extraJson, &boundStudy, &boundSeries))
      verdict = bad("the label revision is bound to no image series (saved before studies held images)");
    if (!verdict) return verdict.error();
    if (!info || info->sha256 != e.sha256 || boundSeries.empty()) continue;
    auto manifest = readSeriesManifest(store, boundStudy, boundSeries);
    if (!manifest) {
      if (core::Status s = bad(manifest.error().describe()); !s) return s.error();
      continue;
    }
    // The revision copied out once, verified against its hash, and its grid read from that local copy.
    const fs::path caseFolder = fs::path(folder) / e.study;
    if (core::Status s = createFolders(caseFolder.string(), FileAccess::Private); !s) return s.error();
    const fs::path labelPath = caseFolder / (e.labelSet + ".r" + std::to_string(e.revision) + ".nii.gz");
    // Patient data kept on this machine: sealed at rest (io/base/sealed_file.h); a copy sealed otherwise (or plain,
    // when sealing was off) is kept only while sealing agrees.
    const bool sealedHere = isSealedFile(labelPath.string());
    auto here = contentSha256(labelPath.string());
    if (!here || *here != e.sha256 || sealedHere != atRestSealingOn()) {
      auto copied = labels->copyOut(e.revision, labelPath.string(), FileAccess::Sealed);
      if (!copied) return copied.error();
    }
    auto map = readLabelFile(labelPath.string());
    if (!map) return map.error();
    if (!manifest->geometry || !manifest->geometry->isCloseTo(map->geometry())) {
      if (core::Status s = bad("the labels' grid differs from series " + boundSeries + "'s image grid"); !s)
        return s.error();
      continue;
    }
    auto image = fetchSeries(store, boundStudy, boundSeries, (caseFolder / ("images-" + boundSeries)).string());
    if (!image) return image.error();
    out.cases.push_back({e.study, e.labelSet, e.split, e.revision, image->openPath, labelPath.string(), manifest->modality});
    if (progress) progress->report(double(i + 1) / double(dataset->entries.size()), "fetch");
  }
  out.casesJson = (fs::path(folder) / "cases.json").string();
  const std::string text = fetchedCasesJson(out);
  AtomicWriteOptions options;
  options.access = FileAccess::Sealed;  // it names the patients' studies
  if (core::Status s = writeFileAtomically(out.casesJson, text.data(), text.size(), options); !s) return s.error();
  return out;
}

}  // namespace delineate::io
