// pacs listen: our storage SCP, importing what it receives into the share (io/pacs/storage_scp.h).
#include "app/cli/commands.h"

namespace delineate::app::cli {

// Placeholder until the storage SCP lands (issue 42, this session).
int runPacsListen(const PacsOptions&) { return usageError("pacs listen", "the listener is not built yet"); }
int runPacsMove(const PacsOptions&) { return usageError("pacs move", "C-MOVE needs the storage SCP, not built yet"); }

}  // namespace delineate::app::cli
