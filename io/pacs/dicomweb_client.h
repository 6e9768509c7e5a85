#pragma once
// DICOMweb as a client, over libcurl (http_internal.h): QIDO-RS (find), WADO-RS (retrieve into an InstanceFolder) and
// STOW-RS (store). Every failure is an Error whose subject is the URL without credentials and whose detail says what
// happened: the HTTP status with its phrase ("401: the user name or password was refused"), curl's words, a TLS
// verification failure named as such. TLS is always verified (tls.caFile, else the system's certificate
// authorities); basic or bearer authentication comes from the service. Nothing here needs a GUI: a program (a
// benchmark) can call these and time them.

#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io {

// QIDO-RS at study, series and instance level: keys become query parameters (URL-encoded; wildcards and date ranges
// as given), includefield asks for every field QueryMatch has, and the answer is paged (offset/limit) so a server
// that caps its answers still gives all of them. QIDO has no patient resource: the PATIENT level queries studies and
// answers one match per patient (Patient ID and name), its counts summed over the studies found.
core::Result<std::vector<QueryMatch>> dicomWebFind(const DicomWebService& service, QueryLevel level,
                                                   const QueryKeys& keys, core::ProgressSink* progress = nullptr);

// WADO-RS into `folder` (InstanceFolder: "<uid>.dcm", owner-only). The instances are listed first (QIDO-RS), those
// already in the folder are not asked for again (a rerun after a failure resumes), and the rest is fetched with
// `options.inFlight` requests at once: whole series where whole series are missing and there are enough of them,
// else one request per instance. Answers are multipart/related; type="application/dicom", parsed as they stream in:
// each part is written as soon as it is complete, its SOP Instance UID read from its own bytes (a part without one,
// or whose UID is not a UID, is refused by name). Cancel through `progress` (stage "retrieve").
core::Result<RetrieveResult> dicomWebRetrieve(const DicomWebService& service, const RetrieveRequest& request,
                                              const std::string& folder, const RetrieveOptions& options = {},
                                              core::ProgressSink* progress = nullptr);

// STOW-RS (POST {base}/studies, multipart/related; type="application/dicom") of DICOM files. Each file is read
// first: one that is not DICOM is refused by name before anything is sent. Files the server refuses
// (FailedSOPSequence) fail the call, each named with its reason in words; warnings are counted and named.
core::Result<StoreResult> dicomWebStore(const DicomWebService& service, const std::vector<std::string>& files,
                                        core::ProgressSink* progress = nullptr);

}  // namespace delineate::io
