// checkShareRecords: every signed record of a store, checked against its roster (io/share/share_trust.h).
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "io/base/parallel.h"
#include "io/share/share_datasets.h"
#include "io/share/share_reviews.h"
#include "io/share/share_trust.h"
#include "io/share/share_trust_internal.h"

namespace delineate::io {
namespace fs = std::filesystem;

namespace {
// The names of the sub-folders of `folder` that are valid share names, sorted (missing folder: none).
std::vector<std::string> subfolders(const std::string& folder) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (isValidShareName(name) && it->is_directory(ec)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Job {
  std::string kind;  // "labelset", "dataset", "checkpoint"
  std::string a, b;  // study + label set, or the dataset's or model's name
};

// The folder's revisions checked; their listing is returned for the review steps (nothing when unreadable).
std::optional<RevisionList> checkFolder(const RevisionFolder& folder, const std::string& kind,
                                        std::vector<CheckedRecord>& out, std::vector<std::string>& problems) {
  auto list = folder.list();
  if (!list) {
    problems.push_back(list.error().describe());
    return std::nullopt;
  }
  for (const auto& d : list->damaged) problems.push_back(d.reason);
  for (const auto& r : list->revisions) {
    char stem[16];
    std::snprintf(stem, sizeof stem, "r%06d.json", r.number);
    out.push_back({folder.folder() + "/" + stem, kind, r.author, r.trust, true, {}});
  }
  return std::move(*list);
}
}  // namespace

std::size_t ShareRecordsReport::count(TrustState state) const {
  return static_cast<std::size_t>(
      std::count_if(records.begin(), records.end(), [state](const CheckedRecord& r) { return r.trust.state == state; }));
}

core::Result<ShareRecordsReport> checkShareRecords(const ShareStore& store, int threads) {
  if (core::Status s = store.checkMounted(); !s) return s.error();
  (void)shareTrust(store);  // read the roster once, before the workers share it
  std::vector<Job> jobs;
  for (const auto& study : subfolders(store.root() + "/studies"))
    for (const auto& set : subfolders(store.root() + "/studies/" + study + "/labelsets"))
      jobs.push_back({"labelset", study, set});
  for (const auto& name : subfolders(store.root() + "/datasets")) jobs.push_back({"dataset", name, {}});
  for (const auto& name : subfolders(store.root() + "/checkpoints")) jobs.push_back({"checkpoint", name, {}});

  std::vector<std::vector<CheckedRecord>> results(jobs.size());
  std::vector<std::vector<std::string>> problems(jobs.size());
  const int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string failure = parallelFor(jobs.size(), n, [&](std::size_t i, int) {
    const Job& job = jobs[i];
    if (job.kind == "labelset") {
      auto set = LabelSetRevisions::open(store, job.a, job.b);
      if (!set) {
        problems[i].push_back(set.error().describe());
        return true;
      }
      const auto listed = checkFolder(*set, "labels", results[i], problems[i]);
      if (!listed) return true;
      auto reviews = LabelSetReviews(*set).all(&*listed);
      if (!reviews) {
        problems[i].push_back(reviews.error().describe());
        return true;
      }
      for (const auto& rv : *reviews)
        for (const auto& h : rv.history) {
          char name[32];
          std::snprintf(name, sizeof name, "r%06d-%04d.json", h.revision, h.sequence);
          results[i].push_back({set->folder() + "/reviews/" + name, "review", h.user, h.trust, h.counted, h.notCounted});
        }
    } else if (job.kind == "dataset") {
      auto ds = DatasetRevisions::open(store, job.a);
      if (!ds) problems[i].push_back(ds.error().describe());
      else checkFolder(*ds, "dataset", results[i], problems[i]);
    } else {
      auto cp = ModelCheckpoints::open(store, job.a);
      if (!cp) problems[i].push_back(cp.error().describe());
      else checkFolder(*cp, "checkpoint", results[i], problems[i]);
    }
    return true;
  });
  if (!failure.empty()) return core::makeError(core::ErrorCode::ReadFailed, store.root(), failure);
  ShareRecordsReport report;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    for (auto& r : results[i]) report.records.push_back(std::move(r));
    for (auto& p : problems[i]) report.problems.push_back(std::move(p));
  }
  return report;
}

}  // namespace delineate::io
