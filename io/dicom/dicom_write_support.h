#pragma once
// Internal to io/dicom/: what the writers of derived objects (SEG, RTSTRUCT) share: a builder that collects the first
// dcmdata failure, the UID map of de-identified exports, the patient and study attributes copied from the source
// series, and the atomic encoder.

#include <map>
#include <string>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcitem.h>
#include <dcmtk/dcmdata/dcsequen.h>

#include "core/error.h"
#include "core/geometry.h"
#include "core/label_table.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_internal.h"

namespace delineate::io::dicom_detail {

// Collects the first failure of a chain of dcmdata calls (they only fail on memory or a wrong VR, i.e. a bug).
struct Builder {
  OFCondition status = EC_Normal;
  DcmTagKey failedAt;  // the attribute whose insertion failed first
  bool failed = false;
  void note(const DcmTagKey& key) {
    if (status.bad() && !failed) {
      failed = true;
      failedAt = key;
    }
  }
  void put(DcmItem* item, const DcmTagKey& key, const std::string& value) {
    if (status.good()) status = item->putAndInsertString(key, value.c_str());
    note(key);
  }
  void putU16(DcmItem* item, const DcmTagKey& key, Uint16 value) {
    if (status.good()) status = item->putAndInsertUint16(key, value);
    note(key);
  }
  void putTag(DcmItem* item, const DcmTagKey& key, const DcmTagKey& value) {
    if (status.good()) status = item->putAndInsertTagKey(key, value);
    note(key);
  }
  // Appends a new item to the sequence `seq` of `parent` (creating it) and returns it; nullptr after a failure.
  // O(1) per item: dcmdata's findOrCreateSequenceItem(.., -2) walks the whole sequence for every item it appends
  // (minutes for an RT structure set's tens of thousands of contours, or a SEG's frames).
  DcmItem* item(DcmItem* parent, const DcmTagKey& seq) {
    if (status.bad()) return nullptr;
    DcmSequenceOfItems* sequence = nullptr;
    if (parent->findAndGetSequence(seq, sequence).bad() || sequence == nullptr) {
      sequence = new DcmSequenceOfItems(seq);
      status = parent->insert(sequence, true);
      if (status.bad()) {
        delete sequence;  // dcmdata owns it only once inserted
        note(seq);
        return nullptr;
      }
    }
    auto* out = new DcmItem();
    status = sequence->append(out);
    note(seq);
    if (status.good()) return out;
    delete out;
    return nullptr;
  }
  void code(DcmItem* parent, const DcmTagKey& seq, const core::CodedConcept& c) {
    DcmItem* it = item(parent, seq);
    if (it == nullptr) return;
    // Code Value is SH (16 characters); longer ones (SNOMED extension ids) go to Long Code Value (PS3.3 8.8).
    put(it, c.value.size() > 16 ? DCM_LongCodeValue : DCM_CodeValue, c.value);
    put(it, DCM_CodingSchemeDesignator, c.scheme);
    put(it, DCM_CodeMeaning, truncateUtf8(c.meaning, 64));
  }
};

// Maps each original UID to one fresh UID (deidentify), or leaves UIDs as they are.
struct UidMap {
  bool replace = false;
  std::map<std::string, std::string> fresh;
  std::string operator()(const std::string& uid) {
    if (!replace || uid.empty()) return uid;
    auto it = fresh.find(uid);
    if (it == fresh.end()) it = fresh.emplace(uid, newUid()).first;
    return it->second;
  }
};

// Patient and study attributes of the series' first instance (read up to the pixel data after io's pre-scan).
struct SourceHeader {
  std::string patientName, patientId, birthDate, sex, studyDate, studyTime, referringPhysician, studyId,
      accessionNumber, studyDescription;
};
core::Result<SourceHeader> readSourceHeader(const std::string& file);

// The Patient and General Study attributes: copied from the source, or (deidentify) the PS3.15 basic profile's
// replacements: a dummy name and a random "ANON..." ID, dates, accession number, referring physician and study ID
// emptied, Patient Identity Removed YES with the method and its code.
void putPatientAndStudy(Builder& b, DcmItem* d, bool deidentify, const SourceHeader& patient);

// The source instance (and frame) of one slice of a series' grid.
struct SourceRef {
  std::string sopInstanceUid;
  int frame = 0;  // 1-based frame number; 0 for single-frame instances
};

// For a label map on `grid` drawn on `source`: the instance each slice k came from. Errors naming `path`: a source
// that is not a regular image grid or lacks the instance of a slice (Unsupported), `grid` not the series' grid
// (GeometryMismatch).
core::Result<std::vector<SourceRef>> sliceReferences(const std::string& path, const core::Geometry& grid,
                                                      const DicomSeries& source);

// Text typed by a person, as one value of a string attribute: no '\\' (it would start a second value) and no control
// characters; at most `n` bytes, never splitting a character.
std::string singleValue(const std::string& typed, std::size_t n);
// A person's name (PN) as typed: as singleValue (64 bytes), and no '=' (PN's component-group separator).
std::string personName(const std::string& typed);

// Today's date and time (UTC) as DICOM DA and TM.
void nowDicom(std::string& date, std::string& time);

// Encodes the dataset (explicit VR little endian, or `implicitVr`) straight into the temporary file of an atomic write
// at `path`; `what` names the object in errors ("the SEG"). Implicit VR carries 32-bit lengths for every element:
// an RT structure set's Contour Data (DS) passes 64 KB from about 2,200 points, which explicit VR's 16-bit length for
// DS cannot hold (dcmdata would write it as UN).
core::Status encodeAtomically(DcmFileFormat& ff, const std::string& path, const std::string& what,
                              bool implicitVr = false);

}  // namespace delineate::io::dicom_detail
