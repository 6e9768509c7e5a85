// pacs find | get | store over DICOMweb (--url): QIDO-RS, WADO-RS, STOW-RS (io/pacs/dicomweb_client.h).
#include "app/cli/commands.h"

namespace delineate::app::cli {

// Placeholder until the DICOMweb client lands (issue 42, this session).
int runWebFind(const PacsOptions&) { return usageError("pacs find", "DICOMweb is not built yet"); }
int runWebGet(const PacsOptions&) { return usageError("pacs get", "DICOMweb is not built yet"); }
int runWebStore(const PacsOptions&) { return usageError("pacs store", "DICOMweb is not built yet"); }

}  // namespace delineate::app::cli
