#pragma once
// The two helpers both halves of the SR code read DICOM with (io/dicom_sr_read.cpp, io/dicom_sr_write.cpp).
#include <string>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcitem.h>

#include "core/label_table.h"

namespace delineate::io::sr_detail {

inline std::string text(DcmItem* item, const DcmTagKey& key) {
  OFString v;
  if (item != nullptr && item->findAndGetOFStringArray(key, v).good()) return v.c_str();
  return {};
}

// The first item of a code sequence (Code Value, else Long or URN Code Value); empty when there is none.
inline core::CodedConcept codeIn(DcmItem* parent, const DcmTagKey& sequence) {
  DcmItem* it = nullptr;
  if (parent == nullptr || parent->findAndGetSequenceItem(sequence, it, 0).bad() || it == nullptr) return {};
  core::CodedConcept c;
  c.value = text(it, DCM_CodeValue);
  if (c.value.empty()) c.value = text(it, DCM_LongCodeValue);
  if (c.value.empty()) c.value = text(it, DCM_URNCodeValue);
  c.scheme = text(it, DCM_CodingSchemeDesignator);
  c.meaning = text(it, DCM_CodeMeaning);
  return c;
}

}  // namespace delineate::io::sr_detail
