#pragma once
// What io/pacs's clients share: who the peer is, what is asked of it, what comes back. DIMSE (dimse_client.h) and
// DICOMweb (dicomweb_client.h) take the same query keys and give the same matches, so the CLI and the window show
// one table whichever protocol found it.

#include <cstdint>
#include <string>
#include <vector>

#include "io/base/file_modes.h"

namespace delineate::io {

// TLS for a DIMSE association or an HTTPS connection (BCP 195 profile: TLS 1.2 or later with its cipher suites).
struct TlsSettings {
  bool enabled = false;
  // PEM file of the certificate authorities the peer's certificate must chain to (empty: the system's store for
  // HTTPS; DIMSE needs one). The peer is always verified: there is no switch to turn verification off.
  std::string caFile;
  // Our own certificate and key (PEM), when the peer asks for client certificates (and always for a TLS listener).
  std::string certificateFile, privateKeyFile;
};

// A DIMSE peer: a PACS or modality we call.
struct DimseNode {
  std::string aeTitle;  // the called AE title, 1..16 characters, no backslash or control characters
  std::string host;
  int port = 104;
  TlsSettings tls;
  int connectTimeoutSeconds = 10;  // TCP connect
  int acseTimeoutSeconds = 30;     // association request/release answers
  int dimseTimeoutSeconds = 60;    // each DIMSE message (a C-FIND answer, a stored instance)
  // "ORTHANC@127.0.0.1:4242" (with " (TLS)"): how errors name the peer.
  std::string describe() const;
};

// A DICOMweb service: the root its studies are under (".../dicom-web").
struct DicomWebService {
  std::string baseUrl;
  // HTTP authentication: basic (user + password) or a bearer token; both empty for none.
  std::string user, password, bearerToken;
  TlsSettings tls;  // for https:// (caFile empty: the system's certificate authorities)
  int connectTimeoutSeconds = 10;
  int requestTimeoutSeconds = 300;  // a whole request, answer included
  std::string describe() const;     // the base URL without credentials
};

enum class QueryLevel { Patient, Study, Series, Instance };
const char* queryLevelName(QueryLevel level);  // "PATIENT", "STUDY", "SERIES", "IMAGE"

// Matching keys, as in PS3.4 C.2.2.2: empty = no constraint. Text keys take the wildcards * and ?; dates are
// YYYYMMDD or a range "YYYYMMDD-YYYYMMDD" (either end open). Values are UTF-8; the client encodes them.
struct QueryKeys {
  std::string patientId, patientName, patientBirthDate;
  std::string studyDate, modality, studyDescription, accessionNumber;
  std::string studyInstanceUid, seriesInstanceUid;
  std::string seriesDescription;
  int limit = 0;  // at most this many matches (0: all); the rest are cancelled (DIMSE) or not asked for (QIDO)
};

// One answer of a query at any level (fields above its level are filled where the peer returns them). Text is
// UTF-8, converted from the answer's own character set (characterSet keeps what the peer declared).
struct QueryMatch {
  QueryLevel level = QueryLevel::Study;
  std::string patientId, patientName, patientBirthDate, patientSex;
  std::string studyInstanceUid, studyDate, studyTime, studyDescription, accessionNumber, modalitiesInStudy;
  std::string seriesInstanceUid, seriesNumber, seriesDescription, modality;
  std::string sopInstanceUid, sopClassUid, instanceNumber;
  int studySeries = -1, instances = -1;  // related series / instances, -1 where not returned
  std::string characterSet;
};

// What a retrieve (C-GET, C-MOVE, WADO-RS) did: the files are in `folder`, one per SOP Instance UID, named
// "<SOP Instance UID>.dcm", owner-only.
struct RetrieveResult {
  std::string folder;
  int received = 0;     // instances written by this retrieve
  int alreadyHere = 0;  // instances that were in the folder already (a resumed retrieve) and not asked for again
  int failed = 0;       // instances the peer reported as failed (named in warnings)
  std::uint64_t bytes = 0;
  std::vector<std::string> warnings;
};

// What to retrieve: a study, a series, or instances of a series.
struct RetrieveRequest {
  std::string studyInstanceUid;
  std::string seriesInstanceUid;             // empty: the whole study
  std::vector<std::string> sopInstanceUids;  // empty: the whole series
};

struct RetrieveOptions {
  // Associations (DIMSE) or HTTP requests (DICOMweb) in flight: the instances are listed first (C-FIND at IMAGE
  // level, QIDO-RS instances) and split between them. 1: one study- or series-level request.
  int inFlight = 4;
  // Who may read the instances written (io/base/file_modes.h): Private for a folder the user chose (`pacs get
  // FOLDER`), Sealed for Delineate's own cache (the window's PACS cache: encrypted at rest, io/base/sealed_file.h).
  FileAccess access = FileAccess::Private;
};

struct StoreResult {
  int stored = 0;
  int warnings = 0;  // stored with a warning status (named in messages)
  std::vector<std::string> messages;
};

// Whether `uid` is a DICOM UID (PS3.5 9.1: 1..64 characters, digits and dots, components without leading zeros).
// Everything that names a file or a URL path after a UID checks this first: a UID from a peer that is not one
// ("../x", "a/b") is refused by name, never used as a path.
bool isDicomUid(const std::string& uid);
// Whether `ae` can be an AE title (1..16 characters of the default repertoire, no backslash or control characters,
// not all spaces).
bool isAeTitle(const std::string& ae);

}  // namespace delineate::io
