#pragma once
// DIMSE as a service user (SCU), on DCMTK's DcmSCU (with DcmTLSSCU for TLS): C-ECHO, C-FIND, C-GET, C-MOVE, C-STORE,
// C-CANCEL. Every call opens its own association(s) and closes them; a failure is an Error whose subject is the
// peer (DimseNode::describe()) and whose detail names the step (connect, association, C-FIND, ...) and what the peer
// answered (the status in words, dimseStatusText).

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io {

class InstanceFolder;

// "0xA700 Refused: Out of Resources", "0xC000 Failed: Unable to process", ... (PS3.4 Annexes C and GG, PS3.7 C).
std::string dimseStatusText(std::uint16_t status);

// Who we are when we call.
struct DimseCaller {
  std::string aeTitle = "DELINEATE";
};

core::Status dimseEcho(const DimseNode& peer, const DimseCaller& caller);

// C-FIND (Study Root; Patient Root for the PATIENT level). Matches in the order the peer sent them; with keys.limit
// the rest is cancelled by C-CANCEL once the limit is reached.
core::Result<std::vector<QueryMatch>> dimseFind(const DimseNode& peer, const DimseCaller& caller, QueryLevel level,
                                                const QueryKeys& keys, core::ProgressSink* progress = nullptr);

// C-GET into `folder` (InstanceFolder: "<uid>.dcm", owner-only). Instances already in the folder are not asked for
// again (the instance list is queried first), so a rerun after a failure resumes. Cancel (progress) sends C-CANCEL.
core::Result<RetrieveResult> dimseGet(const DimseNode& peer, const DimseCaller& caller, const RetrieveRequest& request,
                                      const std::string& folder, const RetrieveOptions& options = {},
                                      core::ProgressSink* progress = nullptr);

// C-MOVE to `destinationAe`: our own storage SCP (storage_scp.h), which must be running, must write into `folder`
// (the same InstanceFolder object, shared), and which the peer must know under that AE title. Instances already in
// the folder are not asked for again. The result counts what arrived in the folder during the move.
core::Result<RetrieveResult> dimseMove(const DimseNode& peer, const DimseCaller& caller, const RetrieveRequest& request,
                                       const std::string& destinationAe, InstanceFolder& folder,
                                       const RetrieveOptions& options = {}, core::ProgressSink* progress = nullptr);

// C-STORE of DICOM files (our SEG and SR, or any instance), each on a presentation context for its SOP class and
// transfer syntax. Every file that the peer refuses fails the call, naming the file and the status.
core::Result<StoreResult> dimseStore(const DimseNode& peer, const DimseCaller& caller,
                                     const std::vector<std::string>& files, core::ProgressSink* progress = nullptr);

}  // namespace delineate::io
