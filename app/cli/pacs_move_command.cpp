// pacs move: C-MOVE to our own storage SCP, started for the transfer (io/pacs/dimse_client.h, storage_scp.h).
#include <algorithm>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/pacs_output.h"
#include "io/pacs/dimse_client.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/storage_scp.h"

namespace delineate::app::cli {

int runPacsMove(const PacsOptions& o) {
  io::DimseNode node;
  if (int rc = dimseNodeFrom(o, "pacs move", node)) return rc;
  const std::string ourAe = o.moveAe.empty() ? o.callingAe : o.moveAe;
  if (!io::isAeTitle(ourAe)) return usageError("pacs move", "--move-aet: '" + ourAe + "' is not an AE title");
  auto folder = io::InstanceFolder::open(o.output);
  if (!folder) return fileError(folder.error());
  // Our storage SCP for the transfer: the PACS connects back to it, so it must know this AE title, host and port.
  io::StorageScpSettings settings;
  settings.aeTitle = ourAe;
  settings.port = o.movePort == 0 ? 11112 : o.movePort;
  settings.acseTimeoutSeconds = std::min(o.timeout, 30);
  settings.dimseTimeoutSeconds = o.timeout;
  io::StorageScp::Handlers handlers;
  io::InstanceFolder* target = &*folder;
  handlers.route = [target](const std::string&, const std::string&, const std::string&) { return target; };
  auto scp = io::StorageScp::start(settings, handlers);
  if (!scp) return fileError(scp.error());
  io::RetrieveOptions options;
  options.inFlight = o.inFlight;
  PacsProgress progress;
  auto result = io::dimseMove(node, {o.callingAe}, io::RetrieveRequest{o.study, o.series, o.instances}, ourAe, *folder, options, &progress);
  (*scp)->stop();
  if (!result) {
    fileError(result.error());
    return progress.cancelled() ? progress.exitCode() : 1;
  }
  return finishRetrieve(o, "pacs move", node.describe(), *result);
}

}  // namespace delineate::app::cli
