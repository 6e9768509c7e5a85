#pragma once
// One call per PACS operation whatever the server speaks (app/gui/pacs/pacs_servers.h): DIMSE (C-FIND, C-GET or a
// C-MOVE to our own storage SCP started for the transfer, C-STORE) or DICOMweb (QIDO-RS, WADO-RS, STOW-RS). These
// block: call them on a worker. The secret (a DICOMweb password or token) is read from the keyring on the GUI thread
// first (readPacsSecret) and passed in.

#include <QString>

#include <string>
#include <vector>

#include "app/gui/pacs/pacs_servers.h"
#include "core/error.h"
#include "core/progress.h"
#include "io/pacs/pacs_types.h"

namespace delineate::app::gui {

// The cheapest question that proves the address, the AE titles, the credentials and TLS right: C-ECHO, or a
// QIDO-RS study query for one match; with short timeouts (a Test button, not a transfer).
core::Status pacsEcho(const PacsServer& server, const QString& secret);
core::Result<std::vector<io::QueryMatch>> pacsFind(const PacsServer& server, const QString& secret,
                                                   io::QueryLevel level, const io::QueryKeys& keys,
                                                   core::ProgressSink* progress = nullptr);
// Into `folder` (io::InstanceFolder: one owner-only file per SOP Instance UID, sealed at rest: the window's PACS cache;
// what is there is not asked for again).
core::Result<io::RetrieveResult> pacsRetrieve(const PacsServer& server, const QString& secret,
                                              const io::RetrieveRequest& request, const std::string& folder,
                                              core::ProgressSink* progress = nullptr);
core::Result<io::StoreResult> pacsStore(const PacsServer& server, const QString& secret,
                                        const std::vector<std::string>& files, core::ProgressSink* progress = nullptr);

// "Name (ORTHANC@host:4242)": how the server lists show a server.
inline QString serverLabel(const PacsServer& server) {
  return QStringLiteral("%1 (%2)").arg(server.name, server.address());
}

// The secret a server needs, read from the keyring on the GUI thread: empty `error` when none is needed or it was
// found; else why not, naming the server and where to set it.
struct ServerSecret {
  QString secret, error;
};
ServerSecret secretFor(const PacsServer& server);

// A share-safe local folder for a series looked at from the PACS without importing it:
// <user cache>/pacs/<study UID>/<series UID>, owner-only. Empty, with `error` naming the UID, when either is not a
// DICOM UID (a PACS's answer is never used as a path unchecked).
QString pacsCacheFolder(const std::string& studyUid, const std::string& seriesUid, QString* error);

}  // namespace delineate::app::gui
