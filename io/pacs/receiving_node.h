#pragma once
// A receiving node (`delineate-cli pacs listen`, and later the window): our storage SCP spooling what a PACS sends,
// one folder per series, and importing a series into the share's catalogue once it is complete (no new instance
// for it within the idle time), through the verified import path (io/studies/study_import.h).
//
// - Spool: <spool>/<Study Instance UID>/<Series Instance UID>/<SOP Instance UID>.dcm (InstanceFolder: owner-only,
//   each file written atomically and sealed at rest under this user's key, UIDs checked). Datasets being received
//   wait in <spool>/.incoming (DCMTK writes them there in the clear; each is removed once stored, and the folder is
//   emptied at start). One node per spool at a time (a lock file, <spool>/.lock).
// - Complete: `idleSeconds` after the series' last instance arrived. Only then is it imported, with exactly the
//   files that were in its folder at that moment (instances arriving during the import stay for the next one).
// - After a successful import those files are removed from the spool, and the series' folder once it is empty.
//   A failed import keeps them: a share that could not be written is tried again after another idle period, a series
//   whose files are refused (imported before with other files: a series on the share never changes; an instance the
//   de-identification profile refuses) waits for a new instance or the next start. Instances that are all in the series on the share already (a partial resend) are
//   removed from the spool as done (checked by SHA-256 against its manifest; not when de-identifying, where the
//   stored bytes are the de-identified ones: such a resend stays in the spool, refused, and is said).
// - Restart: the series found in the spool are taken as received, their idle clock starting at the start.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/dicom/dicom_deidentify.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/storage_scp.h"
#include "io/studies/study_import.h"

namespace delineate::io {

class ShareStore;

struct ReceivingNodeSettings {
  StorageScpSettings scp;
  std::string spoolFolder;  // empty: defaultSpoolFolder(store)
  int idleSeconds = 30;     // a series is complete after this long without a new instance
  std::optional<DeidentifyKey> deidentify;  // de-identified on the way into the share (as study import)
  int importJobs = 0;                       // parallel copies of an import (0: the import's default)
};

// What became of a complete series.
struct SpooledSeriesImport {
  std::string studyInstanceUid, seriesInstanceUid;  // as received (the spool's folder names)
  int instances = 0;  // the files the import was given
  bool imported = false;
  // Not imported because every one of its instances is on the share already, byte for byte, in the series imported
  // before (a PACS sending part of a series again): removed from the spool, nothing to do.
  bool alreadyOnShare = false;
  std::optional<StudyImportReport> report;  // when imported: the share's study and series names, files copied
  std::string error;  // when not: why (the files stay in the spool)
  bool willRetry = false;  // not imported: tried again after another idle period (else: after a new instance)
};

class ReceivingNode {
 public:
  struct Handlers {
    std::function<void(const AssociationEvent&)> association;
    std::function<void(const ReceivedInstance&, std::uint16_t status, const std::string& reason)> refused;
    std::function<void(const SpooledSeriesImport&)> series;
  };

  // Locks and tidies the spool, takes the series in it as received now, starts the SCP. `store` must outlive the node.
  static core::Result<std::unique_ptr<ReceivingNode>> start(const ShareStore& store, ReceivingNodeSettings settings,
                                                            Handlers handlers);
  ~ReceivingNode();
  ReceivingNode(const ReceivingNode&) = delete;
  ReceivingNode& operator=(const ReceivingNode&) = delete;

  // Imports every complete series, one after the other, in the caller's thread (call it a few times a second).
  // `progress` cancels an import between files (its series stays spooled, whole). Returns the series imported.
  int importComplete(core::ProgressSink* progress = nullptr);
  // Stops the SCP (an association in progress is aborted after the instance it is receiving); what is spooled stays.
  void stop();

  int port() const;
  const std::string& spoolFolder() const { return m_spool; }
  int resumedSeries() const { return m_resumed; }  // series found in the spool at start
  int spooledSeries() const;                       // series waiting now

 private:
  struct Series {
    std::unique_ptr<InstanceFolder> folder;
    std::chrono::steady_clock::time_point last;  // the last instance's arrival (or the start, for a resumed one)
    int inFlight = 0;       // instances routed to `folder` and not yet answered
    bool held = false;      // refused by the share: waits for a new instance
  };
  using Key = std::pair<std::string, std::string>;  // study, series UIDs

  ReceivingNode(const ShareStore& store) : m_store(store) {}
  InstanceFolder* route(const std::string& study, const std::string& series);
  void answered(const ReceivedInstance& r, bool routed);
  SpooledSeriesImport importSeries(const Key& key, core::ProgressSink* progress);
  bool allOnShare(const Key& key, const std::vector<std::string>& files) const;

  const ShareStore& m_store;
  ReceivingNodeSettings m_settings;
  Handlers m_handlers;
  std::string m_spool;
  int m_lockFd = -1;
  int m_resumed = 0;
  mutable std::mutex m_mutex;
  std::map<Key, Series> m_series;
  std::vector<std::unique_ptr<InstanceFolder>> m_retired;  // replaced while an SCP thread may still hold them
  std::unique_ptr<StorageScp> m_scp;
};

// <user cache>/pacs-spool/<store id>: one spool per share, so two listeners for two shares never mix their series.
std::string defaultSpoolFolder(const ShareStore& store);

}  // namespace delineate::io
