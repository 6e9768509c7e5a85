#pragma once
// Our storage SCP (C-STORE service provider, with C-ECHO): what C-MOVE sends to and what a PACS pushes to. It listens
// on a port in a thread of its own and serves each association in a thread of its own (up to 16 at once: a PACS
// answering a C-MOVE with several associations is not kept waiting); every received instance goes to the folder that
// route() chooses (an InstanceFolder), written atomically, so an association that dies half-way leaves only whole
// instances. Each dataset is stored bit-preserving: the bytes received, in the transfer syntax they came in
// (compressed ones as they are), behind a Part 10 meta header that DCMTK writes from the C-STORE request.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io {

class InstanceFolder;

struct StorageScpSettings {
  std::string aeTitle = "DELINEATE";
  int port = 11112;  // 0: any free port (port() tells which)
  std::string bindAddress = "0.0.0.0";
  TlsSettings tls;   // enabled: certificate and key required; caFile: client certificates are required and verified
  // Calling AE titles accepted; empty: any. An association from another is rejected (and logged).
  std::vector<std::string> acceptedCallingAeTitles;
  int acseTimeoutSeconds = 30, dimseTimeoutSeconds = 60;
  // Where datasets wait while they arrive (a private folder is made in it, removed at stop); empty: the system's
  // temporary folder. A receiving node puts it beside its spool, so a killed process leaves nothing elsewhere.
  std::string receiveFolder;
};

// One received instance, as the SCP saw it.
struct ReceivedInstance {
  std::string callingAeTitle, peerHost;
  std::string sopClassUid, sopInstanceUid, studyInstanceUid, seriesInstanceUid;
  std::string path;  // where it was written (refused: where it was to go, when route() chose a folder; else empty)
  std::uint64_t bytes = 0;
  bool duplicate = false;  // the same bytes were there already
};

// An association's start and end, for the log and the audit trail.
struct AssociationEvent {
  std::string callingAeTitle, calledAeTitle, peerHost;
  bool accepted = false;
  bool ended = false;  // false: the answer to the request (accepted or rejected); true: the end of an accepted one
  std::string reason;  // why it was rejected, or how it ended ("released", "aborted", a timeout)
  int instances = 0;   // received on it (at the end)
};

class StorageScp {
 public:
  struct Handlers {
    // The folder an instance goes to (e.g. one per series). Called from the SCP's thread. Returning nullptr refuses
    // the instance (status 0xA700, out of resources).
    std::function<InstanceFolder*(const std::string& callingAe, const std::string& studyUid,
                                  const std::string& seriesUid)>
        route;
    std::function<void(const ReceivedInstance&)> received;         // after the file is written
    std::function<void(const AssociationEvent&)> association;     // at the start (accepted or not) and the end
    // An instance refused with a failure status (its UIDs missing or not UIDs, no folder, a write that failed): what
    // was known of it (path empty), the status sent and why.
    std::function<void(const ReceivedInstance&, std::uint16_t status, const std::string& reason)> refused;
  };
  // The handlers are called from the SCP's threads, one call at a time (the SCP serialises them), so a handler needs
  // no lock of its own against another handler call.

  // Binds the port and starts listening (a port in use is an error naming it).
  static core::Result<std::unique_ptr<StorageScp>> start(const StorageScpSettings& settings, Handlers handlers);
  ~StorageScp();  // stops
  StorageScp(const StorageScp&) = delete;
  StorageScp& operator=(const StorageScp&) = delete;

  // Stops listening (within about a second); an association in progress is aborted after the instance it is receiving
  // (that one is finished or, past the DIMSE timeout, dropped: never written half).
  void stop();
  int port() const;
  const std::string& aeTitle() const;

 private:
  StorageScp() = default;
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace delineate::io
