// pacs echo | find | get | move | store over DIMSE (io/pacs/dimse_client.h); with --url, find, get and store go to
// pacs_web_commands.cpp.
#include "app/cli/commands.h"

namespace delineate::app::cli {

int runPacsEcho(const PacsOptions&) { return usageError("pacs echo", "DIMSE is not built yet"); }
int runPacsFind(const PacsOptions& o) { return o.url.empty() ? usageError("pacs find", "DIMSE is not built yet") : runWebFind(o); }
int runPacsGet(const PacsOptions& o) { return o.url.empty() ? usageError("pacs get", "DIMSE is not built yet") : runWebGet(o); }
int runPacsMove(const PacsOptions&) { return usageError("pacs move", "DIMSE is not built yet"); }
int runPacsStore(const PacsOptions& o) { return o.url.empty() ? usageError("pacs store", "DIMSE is not built yet") : runWebStore(o); }

}  // namespace delineate::app::cli
