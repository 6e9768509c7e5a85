#pragma once
// Importing images into the share as studies (issue 24, item 2): DICOM folders and files, and volume files.
//
// - Inputs: folders (walked; DICOM found by content, volume files by suffix: .nii, .nii.gz, .nrrd, .mha) and files.
//   DICOM instances are grouped by StudyInstanceUID and SeriesInstanceUID (all the pieces a series splits into stay
//   one series: what was received is kept). Files that look like DICOM but cannot be read are reported, not imported.
// - Verified copies: every file goes through the store's write path (hashed while written, read back and compared,
//   then published under its SHA-256), in parallel (`jobs`; network shares want several requests in flight).
// - Resumable: a file already on the share under its hash is not copied again; a series' manifest is published only
//   after all its files are, so a killed import leaves no half series listed, and running it again finishes it.
// - Racing importers of the same study: the files' names are their hashes and the manifest is created exclusively,
//   so both end with one study; the second finds the manifest written and checks it names the same files.
// - After its manifest, each series gets a catalogue record (io/share/share_catalogue.h); records are batched (one
//   segment per second at most) so a bulk import of thousands of studies does not write thousands of segments.

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/dicom/dicom_deidentify.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct StudyImportOptions {
  std::string study;     // the study to import into; empty: a DICOM series' StudyInstanceUID, a volume file's name
  std::string modality;  // for volume files, which carry none ("CT", "MR")
  std::string description;  // for volume files: the study description
  std::string patientId;    // for volume files
  std::string author;       // who imports (the records' importedBy); empty: io::authorName()
  int jobs = 0;             // parallel copies; 0: as for DICOM reading on shares (4 x cores, 8..32)
  // De-identify DICOM instances before they reach the share (io/dicom/dicom_deidentify.h): studies and series are
  // named by their pseudonym UIDs, manifests hold the pseudonyms and shifted dates, no descriptions or file names.
  // Volume files are imported then only with `study` given (a file name may carry a name).
  std::optional<DeidentifyKey> deidentify;
  core::ProgressSink* progress = nullptr;  // stages "scan", "copy"; cancel stops between files
};

struct ImportedSeries {
  std::string study, series, kind;
  int files = 0;
  int copied = 0;       // files written now
  int alreadyThere = 0; // files found on the share (an earlier or a concurrent import)
  int duplicates = 0;   // identical files in the input, stored once
  std::uint64_t bytes = 0;
  bool manifestExisted = false;  // imported before (by this or another importer): the same files
};

struct StudyImportReport {
  std::vector<ImportedSeries> series;
  std::vector<std::string> skipped;   // inputs not imported, with the reason (file named)
  std::vector<std::string> warnings;  // catalogue records that could not be written
};

// Errors: nothing importable in the inputs, the share not mounted, a copy that failed (the series it belonged to is
// left without a manifest: run again), a series already imported with other files, Cancelled.
core::Result<StudyImportReport> importStudies(const ShareStore& store, const std::vector<std::string>& inputs,
                                              const StudyImportOptions& options = {});

// The de-identification key for imports into `store`: read from `keyFile` (io::readDeidentifyKey) and refused when
// the file lies inside the share (the key links pseudonyms back to patients: share users must not read it).
core::Result<DeidentifyKey> readImportKey(const ShareStore& store, const std::string& keyFile);

// A name usable as a study or series name from any text: characters outside [A-Za-z0-9._-] become '-', cut to 128.
std::string shareNameFrom(const std::string& text);
// A study or series name from a UID. A plain UID (a digit, then digits and dots, at most 64) is its own name, as shares
// have always stored it; any other text (a damaged or hostile UID: spaces, slashes, too long) becomes shareNameFrom's
// form cut to 111 characters, '-' and 16 hex digits of the SHA-256 of the whole text. Two UIDs never get one name: a
// plain UID has no '-', and two suffixed names that are equal have equal hashes of their texts.
std::string shareNameFromUid(const std::string& uid);

}  // namespace delineate::io
