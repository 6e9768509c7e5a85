#include "app/gui/pacs/pacs_peer.h"

#include <QCoreApplication>

#include "io/pacs/dicomweb_client.h"
#include "io/pacs/dimse_client.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/storage_scp.h"
#include "io/studies/study_store.h"

namespace delineate::app::gui {

namespace {

io::DimseCaller callerOf(const PacsServer& server) {
  io::DimseCaller caller;
  if (!server.callingAe.isEmpty()) caller.aeTitle = server.callingAe.toStdString();
  return caller;
}

// C-MOVE: the PACS sends to our storage SCP, started here for the transfer on the server's C-MOVE port.
core::Result<io::RetrieveResult> moveToOurselves(const PacsServer& server, const io::RetrieveRequest& request,
                                                 const std::string& folderPath, core::ProgressSink* progress) {
  const io::DimseNode node = server.dimseNode();
  const std::string ourAe = (server.moveAe.isEmpty() ? server.callingAe : server.moveAe).toStdString();
  auto folder = io::InstanceFolder::open(folderPath, io::FileAccess::Sealed);  // the window's PACS cache
  if (!folder) return folder.error();
  io::StorageScpSettings settings;
  settings.aeTitle = ourAe;
  settings.port = server.movePort;
  settings.acseTimeoutSeconds = node.acseTimeoutSeconds;
  settings.dimseTimeoutSeconds = node.dimseTimeoutSeconds;
  io::StorageScp::Handlers handlers;
  io::InstanceFolder* target = &*folder;
  handlers.route = [target](const std::string&, const std::string&, const std::string&) { return target; };
  auto scp = io::StorageScp::start(settings, handlers);
  if (!scp) return scp.error();
  io::RetrieveOptions options;
  options.inFlight = server.inFlight;
  auto result = io::dimseMove(node, callerOf(server), request, ourAe, *folder, options, progress);
  (*scp)->stop();
  return result;
}

}  // namespace

core::Status pacsEcho(const PacsServer& server, const QString& secret) {
  if (server.protocol == PacsServer::Protocol::DicomWeb) {
    io::DicomWebService service = server.webService(secret);
    service.requestTimeoutSeconds = 30;
    io::QueryKeys keys;
    keys.limit = 1;
    const auto found = io::dicomWebFind(service, io::QueryLevel::Study, keys);
    return found ? core::Status::success() : core::Status(found.error());
  }
  io::DimseNode node = server.dimseNode();
  node.acseTimeoutSeconds = 15;
  node.dimseTimeoutSeconds = 15;
  return io::dimseEcho(node, callerOf(server));
}

core::Result<std::vector<io::QueryMatch>> pacsFind(const PacsServer& server, const QString& secret,
                                                   io::QueryLevel level, const io::QueryKeys& keys,
                                                   core::ProgressSink* progress) {
  if (server.protocol == PacsServer::Protocol::DicomWeb)
    return io::dicomWebFind(server.webService(secret), level, keys, progress);
  return io::dimseFind(server.dimseNode(), callerOf(server), level, keys, progress);
}

core::Result<io::RetrieveResult> pacsRetrieve(const PacsServer& server, const QString& secret,
                                              const io::RetrieveRequest& request, const std::string& folder,
                                              core::ProgressSink* progress) {
  io::RetrieveOptions options;
  options.inFlight = server.inFlight;
  options.access = io::FileAccess::Sealed;  // the window's PACS cache (pacsCacheFolder): encrypted at rest
  if (server.protocol == PacsServer::Protocol::DicomWeb)
    return io::dicomWebRetrieve(server.webService(secret), request, folder, options, progress);
  if (server.retrieval == PacsServer::Retrieval::Move) return moveToOurselves(server, request, folder, progress);
  return io::dimseGet(server.dimseNode(), callerOf(server), request, folder, options, progress);
}

core::Result<io::StoreResult> pacsStore(const PacsServer& server, const QString& secret,
                                        const std::vector<std::string>& files, core::ProgressSink* progress) {
  if (server.protocol == PacsServer::Protocol::DicomWeb)
    return io::dicomWebStore(server.webService(secret), files, progress);
  return io::dimseStore(server.dimseNode(), callerOf(server), files, progress);
}

ServerSecret secretFor(const PacsServer& server) {
  if (!server.needsSecret()) return {};
  const SecretOutcome read = readPacsSecret(server.name);
  if (read.ok) return {read.secret, {}};
  const QString what = server.auth == PacsServer::Auth::Bearer ? QCoreApplication::translate("delineate::app::gui::PacsPeer", "token")
                                                               : QCoreApplication::translate("delineate::app::gui::PacsPeer", "password");
  QString error = QCoreApplication::translate("delineate::app::gui::PacsPeer",
                                              "%1: no %2 is stored for this server (set it in Preferences, PACS Servers)")
                      .arg(server.name, what);
  if (!read.error.isEmpty()) error += QStringLiteral(": ") + read.error;
  return {{}, error};
}

QString pacsCacheFolder(const std::string& studyUid, const std::string& seriesUid, QString* error) {
  for (const std::string* uid : {&studyUid, &seriesUid})
    if (!io::isDicomUid(*uid)) {
      if (error)
        *error = QCoreApplication::translate("delineate::app::gui::PacsPeer",
                                             "The PACS answered '%1' as a UID, which is not one: not used as a folder name")
                     .arg(QString::fromStdString(*uid));
      return {};
    }
  return QString::fromStdString(io::userCacheFolder() + "/pacs/" + studyUid + "/" + seriesUid);
}

}  // namespace delineate::app::gui
