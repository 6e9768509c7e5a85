#pragma once
// De-identifying received DICOM instances (issue 24: optional on import into a research share; issue 40: to the
// letter), following PS3.15 Annex E's Basic Application Level Confidentiality Profile with the Retain Longitudinal
// Temporal Information with Modified Dates Option:
// - Every row of Table E.1-1 (io/dicom/confidentiality_profile.h: generated from the published table, the edition
//   recorded) is applied by tag, whatever the VR the file stored the element with (an element of a known tag stored
//   as UN is read with its dictionary VR; one of an unknown tag is judged by its bytes), in the dataset and inside
//   sequences at any depth. How the table's alternatives (X/Z, X/D, Z/D, X/Z/D, X/Z/U*) resolve is written there.
// - Patient ID and Patient's Name become "ANON-" and 12 hex digits of HMAC-SHA-256(key, patient key): the same patient
//   gets the same pseudonym in every import with the same key, and nobody without the key can link it back (the key
//   is a file the site keeps off the share; the importer refuses a key inside the share). The patient key is the
//   Patient ID; a file without one is a patient of its own study (patientKeyOf), never merged with other patients
//   without an ID; a file with neither is refused.
// - Every UID that is not a DICOM-defined one (1.2.840.10008.*: classes, transfer syntaxes) becomes "2.25." and the
//   decimal value of 128 bits of HMAC(key, UID), in the dataset, its sequences and the file meta header, so
//   references between instances (a SEG to its CT, a series to its frame of reference) still hold. The study,
//   series and instance UIDs are mapped as the file stores them (DCMTK's input correction would drop spaces inside).
// - Dates (every value of a DA, the date part of a DT) move back by a keyed number of days per patient (1..365):
//   intervals between a patient's studies stay, the calendar dates do not (the Modified Dates option; times are
//   kept). A date that is not a plain date (a range, a damaged value) is emptied.
// - Beyond the table: every private attribute and every person name other than the patient's goes, inside
//   sequences the patient's and accession identifiers go, public attributes of a VR nobody knows (UN of a tag not in
//   the dictionary) go, and a few the table keeps but that identify in practice (kBeyondTable in the source: issuers,
//   software versions, procedure codes, free SR text, alternative-calendar dates). The file meta header loses the
//   sending and receiving AE titles and private data. Added: Patient Identity Removed YES, the method and its codes
//   (113100, 113107), Longitudinal Temporal Information Modified MODIFIED.
// - An instance that says its pixels carry burned-in annotation (0028,0301 YES), and a secondary capture or an
//   encapsulated document that does not say NO, is refused (Unsupported; the importer leaves its series out): the
//   profile cannot clean pixels, and such an image must not reach a research share by this path.
// - The output is the same bytes for the same input and key with the same DCMTK (its implementation UID goes into
//   the meta header), so resumed and racing imports meet the files already stored.
// Pixel data are copied as they are (the same transfer syntax, encapsulated frames untouched).

#include <string>

#include "core/error.h"

namespace delineate::io {

struct DeidentifyKey {
  std::string secret;  // at least kMinKeyBytes bytes
};
inline constexpr std::size_t kMinDeidentifyKeyBytes = 16;

// The key from a local file (its whole content): InvalidArgument naming the file when it is shorter than the minimum.
core::Result<DeidentifyKey> readDeidentifyKey(const std::string& path);

// Whose pseudonym and date shift a file gets: its Patient ID; a file without one is a patient of its own study (nothing
// else tells two such patients apart, and one pseudonym for all of them would show one patient's studies as another's).
// Empty when the file has neither: such a file is not de-identified (deidentifyDicomFile refuses it).
std::string patientKeyOf(const std::string& patientId, const std::string& studyInstanceUid);

// The pseudonym and UID of the profile, for callers that name studies and series before the files are rewritten.
// `patientKey` is patientKeyOf's (for a file with a Patient ID, the ID itself).
std::string pseudonymFor(const DeidentifyKey& key, const std::string& patientKey);
std::string pseudonymUid(const DeidentifyKey& key, const std::string& uid);
// A patient's date (YYYYMMDD) as the profile writes it; empty when `date` is not a date.
std::string shiftedDate(const DeidentifyKey& key, const std::string& patientKey, const std::string& date);

// Rewrites `inputPath` de-identified to `outputPath` (written atomically). Errors name the input file.
core::Status deidentifyDicomFile(const std::string& inputPath, const std::string& outputPath, const DeidentifyKey& key);

}  // namespace delineate::io
