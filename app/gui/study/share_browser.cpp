#include "app/gui/study/share_browser.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "io/share/share_store.h"
#include "io/share/share_trust.h"

namespace delineate::app::gui {

std::string ShareRevisionEntry::describe() const {
  std::string s = study + " / " + labelSet + "  r" + std::to_string(info.number) + "  (" + info.author + ", " + info.time + ")";
  if (!info.message.empty()) s += "  " + info.message;
  if (info.conflict) s += "  [conflict]";
  if (info.trust.state == io::TrustState::Signed)
    s += "  [" + io::describeTrust(info.trust) + "]";
  else if (info.trust.state != io::TrustState::Unsigned || signedStore)
    s += "  [NOT TRUSTED: " + io::describeTrust(info.trust) + "]";
  return s;
}

core::Result<std::vector<ShareRevisionEntry>> listShareRevisions(const std::string& root) {
  auto store = io::ShareStore::open(root);
  if (!store) return store.error();
  std::vector<ShareRevisionEntry> out;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path studies = fs::path(store->root()) / "studies";
  if (!fs::exists(studies, ec)) return out;
  std::vector<fs::path> studyDirs;
  for (fs::directory_iterator it(studies, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) studyDirs.push_back(it->path());
  if (ec) return core::makeError(core::ErrorCode::ReadFailed, studies.string(), "cannot list: " + ec.message());
  std::sort(studyDirs.begin(), studyDirs.end());
  for (const fs::path& study : studyDirs) {
    const fs::path sets = study / "labelsets";
    std::vector<fs::path> setDirs;
    for (fs::directory_iterator it(sets, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec)) setDirs.push_back(it->path());
    ec.clear();
    std::sort(setDirs.begin(), setDirs.end());
    for (const fs::path& set : setDirs) {
      auto folder = io::LabelSetRevisions::open(*store, study.filename().string(), set.filename().string());
      if (!folder) continue;  // not a name the store would have written
      auto list = folder->list();
      if (!list) return list.error();
      for (auto it = list->revisions.rbegin(); it != list->revisions.rend(); ++it)
        out.push_back({study.filename().string(), set.filename().string(), *it, io::storeIsSigned(*store)});
    }
  }
  return out;
}

}  // namespace delineate::app::gui
