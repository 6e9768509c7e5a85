// batch: which studies a run covers (a dataset, a catalogue search, a folder, a list file, names), and whether one is
// done already, decided from the share.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "app/cli/batch.h"
#include "app/cli/commands.h"
#include "io/share/share_datasets.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/study_import.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli::batch {
namespace {

namespace fs = std::filesystem;

int fromDataset(const BatchOptions& o, const io::ShareStore& store, std::vector<std::string>& out) {
  std::string name = o.dataset;
  int revision = 0;
  if (const auto at = name.find('@'); at != std::string::npos) {
    const std::string rev = name.substr(at + 1);
    name = name.substr(0, at);
    if (rev.empty() || rev.find_first_not_of("0123456789") != std::string::npos)
      return usageError("batch", "--dataset " + o.dataset + ": the revision after '@' is not a number");
    revision = std::stoi(rev);
  }
  auto set = io::DatasetRevisions::open(store, name);
  if (!set) return fileError(set.error());
  if (revision == 0) {
    auto list = set->list();
    if (!list) return fileError(list.error());
    revision = list->latest();
    if (revision == 0)
      return fileError(core::makeError(core::ErrorCode::NotFound, "dataset " + name, "has no version on the share"));
  }
  auto dataset = set->loadDataset(revision);
  if (!dataset) return fileError(dataset.error());
  for (const auto& e : dataset->entries) out.push_back(e.study);
  return 0;
}

int fromCatalogue(const BatchOptions& o, const io::ShareStore& store, std::vector<std::string>& out) {
  auto index = io::StudyIndex::open(store);
  if (!index) return fileError(index.error());
  auto refreshed = index->refresh();
  if (!refreshed) return fileError(refreshed.error());
  for (const auto& p : refreshed->newProblems) std::fprintf(stderr, "warning: catalogue: skipped: %s\n", p.c_str());
  auto rows = index->search(catalogueQuery(o));
  if (!rows) return fileError(rows.error());
  for (const auto& r : *rows) out.push_back(r.study);
  return 0;
}

}  // namespace

int readStudyList(const std::string& file, std::vector<std::string>& out) {
  std::ifstream in(file);
  if (!in) return fileError(core::makeError(core::ErrorCode::NotFound, file, "cannot be read"));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line = line.substr(start);
    // A study name is a folder name on the share: a line that could be a path is refused, not followed.
    if (!io::isValidShareName(line))
      return fileError(core::makeError(core::ErrorCode::ParseError, file,
                                       "'" + line + "' is not a study name (letters, digits, '-', '_', '.')", number));
    out.push_back(line);
  }
  return 0;
}

namespace {

// A folder of studies: each volume file becomes a study named by its stem (made a share name), each folder of DICOM
// files a study named by its UIDs; both through the verified import (a rerun copies nothing again).
int fromFolder(const BatchOptions& o, std::vector<std::string>& out) {
  std::error_code ec;
  if (!fs::is_directory(o.folder, ec))
    return fileError(core::makeError(core::ErrorCode::NotFound, o.folder, "is not a folder"));
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(o.folder, ec)) entries.push_back(e.path());
  if (ec) return fileError(core::makeError(core::ErrorCode::ReadFailed, o.folder, ec.message()));
  std::sort(entries.begin(), entries.end());
  std::map<std::string, fs::path> named;  // study name -> the file it came from (collisions after sanitising)
  for (const auto& path : entries) {
    const std::string name = path.filename().string();
    if (name.empty() || name[0] == '.') continue;
    StudyOptions import;
    import.root = o.root;
    import.inputs = {path.string()};
    if (fs::is_directory(path, ec)) {
      // DICOM: the study is named by its StudyInstanceUID.
    } else if (io::imageFileFormatFromPath(path.string()) != io::ImageFileFormat::Unknown) {
      std::string stem = name;
      for (const std::string& suffix : io::readableImageExtensionList())  // longest first (".nii.gz" before ".nii")
        if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), std::string::npos, suffix) == 0) {
          stem.resize(stem.size() - suffix.size());
          break;
        }
      import.study = io::shareNameFrom(stem);
      if (auto [it, fresh] = named.emplace(import.study, path); !fresh)
        return fileError(core::makeError(core::ErrorCode::InvalidArgument, path.string(),
                                         "would be study '" + import.study + "', as " + it->second.string() +
                                             " is: rename one of them"));
    } else {
      // The data files of a header format (MetaImage .raw, Analyze .img) come in with their header.
      const std::string ext = path.extension().string();
      if (ext == ".raw" || ext == ".zraw" || ext == ".img" || ext == ".gz") continue;
      std::fprintf(stderr, "warning: %s: not a volume file nor a folder: left out\n", path.string().c_str());
      continue;
    }
    io::StudyImportReport report;
    if (int code = importIntoShare(import, "batch", report); code != 0) {
      std::fprintf(stderr, "warning: %s: not imported: left out of the batch\n", path.string().c_str());
      continue;
    }
    for (const auto& s : report.series) out.push_back(s.study);
  }
  return 0;
}

}  // namespace

io::StudyQuery catalogueQuery(const BatchOptions& o) {
  io::StudyQuery q;
  q.text = o.text;
  q.patient = o.patient;
  q.modality = o.modality;
  q.dateFrom = o.dateFrom;
  q.dateTo = o.dateTo;
  q.sortBy = "study";  // a stable order: the same slices on every node
  q.descending = false;
  return q;
}

int resolveStudies(const BatchOptions& o, io::ShareStore& store, std::vector<std::string>& studies) {
  std::vector<std::string> found;
  int code = 0;
  if (!o.dataset.empty()) code = fromDataset(o, store, found);
  else if (!o.listFile.empty()) code = readStudyList(o.listFile, found);
  else if (!o.folder.empty()) code = fromFolder(o, found);
  else if (!o.studies.empty()) {
    for (const auto& s : o.studies) {
      if (!io::isValidShareName(s)) return usageError("batch", "--studies: '" + s + "' is not a study name");
      found.push_back(s);
    }
  } else {
    code = fromCatalogue(o, store, found);
  }
  if (code != 0) return code;
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  studies = std::move(found);
  return 0;
}

const io::RevisionInfo* batchRevision(const io::RevisionList& list, const std::string& key, const std::string& series) {
  for (auto it = list.revisions.rbegin(); it != list.revisions.rend(); ++it) {
    const auto extra = nlohmann::json::parse(it->extraJson, nullptr, false);
    if (!extra.is_object() || !extra.contains("batch") || !extra["batch"].is_object()) continue;
    if (extra["batch"].value("key", std::string()) != key) continue;
    std::string boundStudy, boundSeries;
    if (!io::parseLabelBinding(it->extraJson, &boundStudy, &boundSeries)) continue;
    if (series.empty() || boundSeries == series) return &*it;
  }
  return nullptr;
}

int doneRevision(const io::ShareStore& store, const std::string& study, const std::string& labelSet,
                 const std::string& key) {
  auto set = io::LabelSetRevisions::open(store, study, labelSet);
  if (!set) return 0;
  auto list = set->list();
  if (!list) return 0;
  const io::RevisionInfo* done = batchRevision(*list, key, {});
  return done ? done->number : 0;
}

}  // namespace delineate::app::cli::batch
