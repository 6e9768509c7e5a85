// TID 1500 measurement report reader (io/dicom/dicom_sr.h): a walk over the SR content tree with dcmdata.
#include <charconv>
#include <filesystem>
#include <new>
#include <string_view>
#include <functional>
#include <limits>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcsequen.h>

#include "io/dicom/dicom_internal.h"
#include "io/base/regular_file.h"
#include "io/dicom/dicom_sr.h"

namespace delineate::io {

using core::CodedConcept;
using core::ErrorCode;
using core::makeError;
using namespace dicom_detail;

namespace {

// Content trees deeper than this are refused rather than walked (a crafted file could nest without end; the
// pre-scan also bounds the nesting of sequences).
constexpr int kMaxContentDepth = 64;
constexpr std::uintmax_t kMaxSrBytes = std::uintmax_t(256) << 20;


// One content item as the walk sees it.
struct Item {
  DcmItem* item = nullptr;
  std::string valueType;  // CONTAINER, NUM, CODE, TEXT, UIDREF, IMAGE, ...
  CodedConcept name;      // Concept Name
  bool is(const char* scheme, const char* value) const { return name.value == value && name.scheme == scheme; }
};

Item itemOf(DcmItem* it) { return Item{it, textOf(it, DCM_ValueType), codeOf(it, DCM_ConceptNameCodeSequence)}; }

std::vector<DcmItem*> children(DcmItem* parent) {
  std::vector<DcmItem*> out;
  DcmSequenceOfItems* seq = nullptr;
  if (parent != nullptr && parent->findAndGetSequence(DCM_ContentSequence, seq).good() && seq != nullptr)
    for (unsigned long i = 0; i < seq->card(); ++i) out.push_back(seq->getItem(i));
  return out;
}

// SNOMED CT codes and their SNOMED-RT ("SRT") forms, which older reports (dcmqi's, 2015) still use.
bool isCode(const CodedConcept& c, const char* sct, const char* srt) {
  return (c.scheme == "SCT" && c.value == sct) || ((c.scheme == "SRT" || c.scheme == "SNM3") && c.value == srt);
}

SrMeasurement readMeasurement(DcmItem* num) {
  SrMeasurement m;
  m.quantity = codeOf(num, DCM_ConceptNameCodeSequence);
  DcmItem* measured = nullptr;
  if (num->findAndGetSequenceItem(DCM_MeasuredValueSequence, measured, 0).good() && measured != nullptr) {
    m.valueText = textOf(measured, DCM_NumericValue);
    m.units = codeOf(measured, DCM_MeasurementUnitsCodeSequence);
    // from_chars, not strtod: the window runs under the user's locale, where strtod may want a decimal comma.
    std::string_view digits = m.valueText;
    while (!digits.empty() && digits.front() == ' ') digits.remove_prefix(1);
    while (!digits.empty() && digits.back() == ' ') digits.remove_suffix(1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), m.value);
    if (digits.empty() || parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size())
      m.value = std::numeric_limits<double>::quiet_NaN();
  } else {
    m.value = std::numeric_limits<double>::quiet_NaN();  // a NUM without a value (with a Numeric Value Qualifier)
  }
  for (DcmItem* child : children(num)) {
    const Item c = itemOf(child);
    if (c.valueType != "CODE") continue;
    if (c.is("DCM", "121401")) m.derivation = codeOf(child, DCM_ConceptCodeSequence);
    else if (isCode(c.name, "370129005", "G-C036")) m.method = codeOf(child, DCM_ConceptCodeSequence);
  }
  return m;
}

SrMeasurementGroup readGroup(DcmItem* container) {
  SrMeasurementGroup g;
  CodedConcept groupMethod;
  for (DcmItem* child : children(container)) {
    const Item c = itemOf(child);
    if (c.is("DCM", "112039")) g.trackingIdentifier = textOf(child, DCM_TextValue);
    else if (c.is("DCM", "112040")) g.trackingUid = textOf(child, DCM_UID);
    else if (c.is("DCM", "121071") && c.valueType == "CODE") g.finding = codeOf(child, DCM_ConceptCodeSequence);
    else if (isCode(c.name, "276214006", "F-01B1D") && c.valueType == "CODE")
      g.findingCategory = codeOf(child, DCM_ConceptCodeSequence);
    else if (isCode(c.name, "363698007", "G-C0E3") && c.valueType == "CODE")
      g.findingSite = codeOf(child, DCM_ConceptCodeSequence);
    else if (c.is("DCM", "121232")) g.sourceSeriesUid = textOf(child, DCM_UID);
    else if (c.is("DCM", "121191") && c.valueType == "IMAGE") {
      DcmItem* ref = nullptr;
      if (child->findAndGetSequenceItem(DCM_ReferencedSOPSequence, ref, 0).good() && ref != nullptr) {
        g.segment.sopClassUid = textOf(ref, DCM_ReferencedSOPClassUID);
        g.segment.sopInstanceUid = textOf(ref, DCM_ReferencedSOPInstanceUID);
        Uint16 number = 0;
        if (ref->findAndGetUint16(DCM_ReferencedSegmentNumber, number).good()) g.segment.segmentNumber = number;
      }
    } else if (c.valueType == "NUM") {
      g.measurements.push_back(readMeasurement(child));
    } else if (isCode(c.name, "370129005", "G-C036") && c.valueType == "CODE") {
      groupMethod = codeOf(child, DCM_ConceptCodeSequence);
    } else {
      ++g.otherItems;
    }
  }
  // A group-level Measurement Method (TID 1411 row 13) applies to every measurement without its own.
  if (!groupMethod.empty())
    for (SrMeasurement& m : g.measurements)
      if (m.method.empty()) m.method = groupMethod;
  return g;
}

core::Result<DicomSrDocument> readSr(const std::string& path);

}  // namespace

const SrMeasurement* SrMeasurementGroup::find(const std::string& quantityValue, const std::string& derivationValue) const {
  for (const SrMeasurement& m : measurements)
    if (m.quantity.value == quantityValue && m.derivation.value == derivationValue) return &m;
  return nullptr;
}

core::Result<DicomSrDocument> readDicomSr(const std::string& path) {
  try {
    return readSr(path);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "out of memory while reading the SR");
  }
}

namespace {

core::Result<DicomSrDocument> readSr(const std::string& path) {
  // Reports are kilobytes to a few megabytes; the whole file is parsed into memory, so a size cap comes first.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxSrBytes)
    return makeError(ErrorCode::SizeLimit, path,
                     std::to_string(size) + " bytes: more than a structured report may have here (256 MiB)");
  auto pre = prescanDicomFile(path);
  if (!pre) return pre.error();
  ensureDcmtkReady();
  auto readable = ReadableFile::open(path, "DICOM SR");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  const OFCondition cond = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange,
                                       readable->sealed() ? 0xFFFFFFFFu : maxReadLength(*pre));
  if (cond.bad()) return makeError(ErrorCode::ReadFailed, path, std::string("cannot read the SR: ") + cond.text());
  DcmDataset* d = ff.getDataset();
  DicomSrDocument doc;
  doc.sopClassUid = textOf(d, DCM_SOPClassUID);
  if (textOf(d, DCM_Modality) != "SR" && doc.sopClassUid.rfind("1.2.840.10008.5.1.4.1.1.88.", 0) != 0)
    return makeError(ErrorCode::Unsupported, path,
                     "not a DICOM structured report (SOP Class " +
                         (doc.sopClassUid.empty() ? std::string("missing") : doc.sopClassUid) + ")");
  doc.sopInstanceUid = textOf(d, DCM_SOPInstanceUID);
  doc.seriesInstanceUid = textOf(d, DCM_SeriesInstanceUID);
  doc.studyInstanceUid = textOf(d, DCM_StudyInstanceUID);
  doc.patientName = textOf(d, DCM_PatientName);
  doc.patientId = textOf(d, DCM_PatientID);
  doc.completionFlag = textOf(d, DCM_CompletionFlag);
  doc.verificationFlag = textOf(d, DCM_VerificationFlag);
  const Item root = itemOf(d);
  if (root.valueType != "CONTAINER")
    return makeError(ErrorCode::Corrupt, path, "the SR's root content item is not a CONTAINER");
  doc.title = root.name;
  DcmItem* tmpl = nullptr;
  if (d->findAndGetSequenceItem(DCM_ContentTemplateSequence, tmpl, 0).good()) doc.templateId = textOf(tmpl, DCM_TemplateIdentifier);
  // Evidence
  DcmSequenceOfItems* studies = nullptr;
  if (d->findAndGetSequence(DCM_CurrentRequestedProcedureEvidenceSequence, studies).good() && studies != nullptr)
    for (unsigned long s = 0; s < studies->card(); ++s) {
      DcmSequenceOfItems* series = nullptr;
      if (studies->getItem(s)->findAndGetSequence(DCM_ReferencedSeriesSequence, series).bad() || series == nullptr) continue;
      for (unsigned long r = 0; r < series->card(); ++r) {
        DcmSequenceOfItems* sops = nullptr;
        if (series->getItem(r)->findAndGetSequence(DCM_ReferencedSOPSequence, sops).bad() || sops == nullptr) continue;
        for (unsigned long i = 0; i < sops->card(); ++i)
          doc.evidenceInstanceUids.push_back(textOf(sops->getItem(i), DCM_ReferencedSOPInstanceUID));
      }
    }

  // The walk: observer and procedure at the top level, the image library's IMAGE items, and every Measurement Group
  // container wherever it sits below Imaging Measurements (or, in non-conforming reports, anywhere).
  std::string error;
  std::function<void(DcmItem*, int, bool)> walk = [&](DcmItem* parent, int depth, bool inLibrary) {
    if (!error.empty()) return;
    if (depth > kMaxContentDepth) {
      error = "content items nested deeper than " + std::to_string(kMaxContentDepth) + " levels";
      return;
    }
    for (DcmItem* child : children(parent)) {
      const Item c = itemOf(child);
      if (c.is("DCM", "121005")) doc.observerType = codeOf(child, DCM_ConceptCodeSequence).meaning;
      else if (c.is("DCM", "121008") || c.is("DCM", "121013")) doc.observerName = textOf(child, c.valueType == "PNAME" ? DCM_PersonName : DCM_TextValue);
      else if (c.is("DCM", "121058")) doc.proceduresReported.push_back(codeOf(child, DCM_ConceptCodeSequence));
      else if (inLibrary && c.valueType == "IMAGE") ++doc.imageLibraryEntries;
      if (c.valueType != "CONTAINER") continue;
      if (c.is("DCM", "125007")) {
        doc.groups.push_back(readGroup(child));
        continue;
      }
      walk(child, depth + 1, inLibrary || c.is("DCM", "111028"));
    }
  };
  walk(d, 0, false);
  if (!error.empty()) return makeError(ErrorCode::Corrupt, path, error);
  return doc;
}

}  // namespace

}  // namespace delineate::io
