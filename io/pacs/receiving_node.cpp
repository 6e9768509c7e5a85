#include "io/pacs/receiving_node.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <set>

#include "io/base/file_modes.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/pacs_types.h"
#include "io/share/share_store.h"
#include "io/studies/study_store.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;
using Clock = std::chrono::steady_clock;

constexpr const char* kIncoming = ".incoming";

// The instance files of a spooled series: "<SOP Instance UID>.dcm", nothing else.
std::vector<std::string> instanceFiles(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".dcm") == 0 && isDicomUid(name.substr(0, name.size() - 4)) &&
        it->is_regular_file(ec))
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool refusedAsImportedBefore(const StudyImportReport& report) {
  for (const auto& s : report.skipped)
    if (s.find("was imported before") != std::string::npos) return true;
  return false;
}

}  // namespace

std::string defaultSpoolFolder(const ShareStore& store) { return userCacheFolder() + "/pacs-spool/" + store.id(); }

core::Result<std::unique_ptr<ReceivingNode>> ReceivingNode::start(const ShareStore& store,
                                                                  ReceivingNodeSettings settings, Handlers handlers) {
  if (settings.idleSeconds < 1) return makeError(ErrorCode::InvalidArgument, "idle", "the idle time must be 1 s or more");
  std::unique_ptr<ReceivingNode> node(new ReceivingNode(store));
  node->m_spool = settings.spoolFolder.empty() ? defaultSpoolFolder(store) : settings.spoolFolder;
  const std::string& spool = node->m_spool;
  if (core::Status s = createFolders(spool, FileAccess::Private); !s) return s.error();

  // One node per spool: two would import each other's series half-way.
  const std::string lockPath = spool + "/.lock";
  node->m_lockFd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (node->m_lockFd < 0)
    return makeError(ErrorCode::WriteFailed, lockPath, std::string("cannot open the spool's lock: ") + std::strerror(errno));
  if (::flock(node->m_lockFd, LOCK_EX | LOCK_NB) != 0)
    return makeError(ErrorCode::InvalidArgument, spool, "another listener is using this spool folder");

  // Datasets that were arriving when a previous run died are partial: they go (they were never answered).
  std::error_code ec;
  fs::remove_all(fs::path(spool) / kIncoming, ec);

  // Resume: every series folder with instances counts as received now.
  const auto now = Clock::now();
  for (fs::directory_iterator study(spool, ec), end; !ec && study != end; study.increment(ec)) {
    const std::string studyUid = study->path().filename().string();
    if (!isDicomUid(studyUid) || !study->is_directory()) continue;
    std::error_code ec2;
    for (fs::directory_iterator series(study->path(), ec2); !ec2 && series != end; series.increment(ec2)) {
      const std::string seriesUid = series->path().filename().string();
      if (!isDicomUid(seriesUid) || !series->is_directory()) continue;
      if (instanceFiles(series->path()).empty()) {
        std::error_code ignored;
        fs::remove(series->path(), ignored);  // an empty folder of an imported series (only if empty)
        continue;
      }
      auto folder = InstanceFolder::open(series->path().string(), FileAccess::Sealed);
      if (!folder) return folder.error();
      Series& s = node->m_series[{studyUid, seriesUid}];
      s.folder = std::make_unique<InstanceFolder>(std::move(*folder));
      s.last = now;
      ++node->m_resumed;
    }
    std::error_code ignored;
    fs::remove(study->path(), ignored);  // only if empty
  }

  node->m_settings = std::move(settings);
  node->m_handlers = std::move(handlers);
  StorageScpSettings scpSettings = node->m_settings.scp;
  scpSettings.receiveFolder = (fs::path(spool) / kIncoming).string();
  StorageScp::Handlers h;
  ReceivingNode* self = node.get();
  h.route = [self](const std::string&, const std::string& study, const std::string& series) {
    return self->route(study, series);
  };
  h.received = [self](const ReceivedInstance& r) { self->answered(r, true); };
  h.refused = [self](const ReceivedInstance& r, std::uint16_t status, const std::string& reason) {
    self->answered(r, !r.path.empty());
    if (self->m_handlers.refused) self->m_handlers.refused(r, status, reason);
  };
  h.association = [self](const AssociationEvent& e) {
    if (self->m_handlers.association) self->m_handlers.association(e);
  };
  auto scp = StorageScp::start(scpSettings, std::move(h));
  if (!scp) return scp.error();
  node->m_scp = std::move(*scp);
  return node;
}

ReceivingNode::~ReceivingNode() {
  stop();
  if (m_lockFd >= 0) ::close(m_lockFd);  // releases the spool's lock
}

void ReceivingNode::stop() {
  if (m_scp) m_scp->stop();
}

int ReceivingNode::port() const { return m_scp ? m_scp->port() : 0; }

int ReceivingNode::spooledSeries() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return static_cast<int>(m_series.size());
}

InstanceFolder* ReceivingNode::route(const std::string& study, const std::string& series) {
  // The SCP checked both UIDs already; checked again because they name folders.
  if (!isDicomUid(study) || !isDicomUid(series)) return nullptr;
  std::lock_guard<std::mutex> lock(m_mutex);
  Series& s = m_series[{study, series}];
  if (!s.folder) {
    auto folder = InstanceFolder::open((fs::path(m_spool) / study / series).string(), FileAccess::Sealed);
    if (!folder) {
      m_series.erase({study, series});
      return nullptr;  // the SCP answers 0xA700 (out of resources)
    }
    s.folder = std::make_unique<InstanceFolder>(std::move(*folder));
  }
  ++s.inFlight;
  s.last = Clock::now();
  return s.folder.get();
}

void ReceivingNode::answered(const ReceivedInstance& r, bool routed) {
  if (!routed) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_series.find({r.studyInstanceUid, r.seriesInstanceUid});
  if (it == m_series.end()) return;
  it->second.inFlight = std::max(0, it->second.inFlight - 1);
  it->second.last = Clock::now();
  it->second.held = false;  // a new instance: a refused series gets another try
}

int ReceivingNode::importComplete(core::ProgressSink* progress) {
  std::vector<Key> due;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto now = Clock::now();
    for (const auto& [key, s] : m_series)
      if (!s.held && s.inFlight == 0 && now - s.last >= std::chrono::seconds(m_settings.idleSeconds)) due.push_back(key);
  }
  int imported = 0;
  for (const Key& key : due) {
    if (progress && progress->cancelled()) break;
    SpooledSeriesImport result = importSeries(key, progress);
    if (result.instances == 0) continue;  // nothing left in it (removed)
    imported += result.imported ? 1 : 0;
    if (m_handlers.series) m_handlers.series(result);
  }
  return imported;
}

// Whether every file is, byte for byte, in the series the share holds for these UIDs (the names importStudies gives a
// series that is not de-identified).
bool ReceivingNode::allOnShare(const Key& key, const std::vector<std::string>& files) const {
  auto manifest = readSeriesManifest(m_store, shareNameFromUid(key.first), shareNameFromUid(key.second));
  if (!manifest) return false;
  std::set<std::string> stored;
  for (const auto& f : manifest->files) stored.insert(f.sha256);
  for (const auto& f : files) {
    auto hash = contentSha256(f);  // a spooled instance is sealed at rest: its content's hash
    if (!hash || !stored.count(*hash)) return false;
  }
  return true;
}

SpooledSeriesImport ReceivingNode::importSeries(const Key& key, core::ProgressSink* progress) {
  SpooledSeriesImport result;
  result.studyInstanceUid = key.first;
  result.seriesInstanceUid = key.second;
  const fs::path folder = fs::path(m_spool) / key.first / key.second;
  const auto started = Clock::now();
  // Exactly these files are imported: instances arriving meanwhile are new files, left for the next import.
  const std::vector<std::string> files = instanceFiles(folder);
  result.instances = static_cast<int>(files.size());

  const auto finishEmpty = [&]() {
    // Forget the series when nothing new came in during the import and nothing is being written to it; the folder
    // goes too (under the lock, so route() cannot be handing it out meanwhile).
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_series.find(key);
    if (it == m_series.end()) return;
    Series& s = it->second;
    if (s.inFlight == 0 && s.last <= started && instanceFiles(folder).empty()) {
      std::error_code ec;
      fs::remove(folder, ec);
      fs::remove(folder.parent_path(), ec);  // the study's folder, when it was its last series
      m_series.erase(it);
      return;
    }
    // Instances came meanwhile: the folder object forgets the imported ones (they were removed), the series waits.
    auto fresh = InstanceFolder::open(folder.string(), FileAccess::Sealed);
    if (fresh) {
      m_retired.push_back(std::move(s.folder));
      s.folder = std::make_unique<InstanceFolder>(std::move(*fresh));
    }
  };
  if (files.empty()) {
    finishEmpty();
    return result;
  }

  StudyImportOptions options;
  options.deidentify = m_settings.deidentify;
  options.jobs = m_settings.importJobs;
  options.progress = progress;
  auto report = importStudies(m_store, files, options);
  // Refused for what the files are (imported before with other files, an instance the de-identification profile
  // refuses): the same files would be refused again. Anything else (the share not mounted, a write that failed, a
  // cancel) may pass next time.
  bool refusedByShare = false, importedBefore = false;
  if (report && !report->skipped.empty()) {
    refusedByShare = true;
    importedBefore = refusedAsImportedBefore(*report);
    result.error = report->skipped.front();
  } else if (!report) {
    result.error = report.error().describe();
    refusedByShare = report.error().code == ErrorCode::InvalidArgument;
    importedBefore = report.error().detail.find("was imported before") != std::string::npos;
  }
  if (importedBefore && !m_settings.deidentify && allOnShare(key, files)) {
    result.error.clear();
    result.alreadyOnShare = true;
    result.report.reset();
    for (const auto& f : files) {
      std::error_code ec;
      fs::remove(f, ec);
    }
    finishEmpty();
    return result;
  }
  if (!result.error.empty()) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_series.find(key);
    if (it != m_series.end()) {
      // Refused by the share: trying again changes nothing until something new arrives. Else (a share that was not
      // writable, a cancelled import): again after another idle period.
      if (refusedByShare) it->second.held = true;
      else it->second.last = Clock::now();
    }
    result.willRetry = !refusedByShare;
    if (report) result.report = std::move(*report);
    return result;
  }
  result.imported = true;
  result.report = std::move(*report);
  for (const auto& f : files) {
    std::error_code ec;
    fs::remove(f, ec);  // on the share now, verified
  }
  finishEmpty();
  return result;
}

}  // namespace delineate::io
