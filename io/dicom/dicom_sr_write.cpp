// TID 1500 measurement report writer (io/dicom/dicom_sr.h), built with DCMTK's dcmsr template classes.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <new>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcostrmb.h>
#include <dcmtk/dcmdata/dcsequen.h>
#include <dcmtk/dcmsr/cmr/tid1500.h>
#include <dcmtk/dcmsr/dsrdoc.h>

#include "io/base/atomic_file.h"
#include "io/base/regular_file.h"
#include "io/base/posix_util.h"
#include "io/dicom/dicom_internal.h"
#include "io/dicom/dicom_seg_write.h"
#include "io/dicom/dicom_sr.h"

namespace delineate::io {

using core::CodedConcept;
using core::ErrorCode;
using core::makeError;
using namespace dicom_detail;

namespace {


std::string dsValue(double v) { return decimalString(v, 10, 1e-30); }


DSRCodedEntryValue dsr(const CodedConcept& c) {
  // Long (SNOMED extension) code values go to Long Code Value; DCMTK picks the attribute from the length (CVT_auto).
  return DSRCodedEntryValue(c.value.c_str(), c.scheme.c_str(), truncateUtf8(c.meaning, 64).c_str());
}

struct SegSegment {
  CodedConcept type, region;
  std::string label;
};

// What the SR takes from the SEG it references.
struct SourceInstance {
  std::string seriesUid, sopClassUid, sopInstanceUid;
};

struct SegFacts {
  std::string sopClassUid, sopInstanceUid, seriesInstanceUid, studyInstanceUid;
  std::string sourceSeriesUid;  // the first referenced series: the one the segmentation was made on
  std::vector<SourceInstance> sourceInstances;
  std::map<int, SegSegment> segments;
};

core::Result<SegFacts> readSegFacts(const std::string& segPath, DcmFileFormat& ff) {
  auto pre = prescanDicomFile(segPath);
  if (!pre) return pre.error();
  ensureDcmtkReady();
  auto readable = ReadableFile::open(segPath, "DICOM SEG");  // a sealed cache file: its content
  if (!readable) return readable.error();
  const OFCondition c = ff.loadFileUntilTag(readable->path().c_str(), EXS_Unknown, EGL_noChange,
                                            readable->sealed() ? 0xFFFFFFFFu : maxReadLength(*pre),
                                            ERM_autoDetect, DCM_PixelData);
  if (c.bad()) return makeError(ErrorCode::ReadFailed, segPath, std::string("cannot read the SEG: ") + c.text());
  // The SR is UTF-8 and takes patient and study names from the SEG: a SEG in another character set is converted.
  if (const OFCondition u = ff.convertToUTF8(); u.bad())
    return makeError(ErrorCode::Unsupported, segPath, std::string("cannot convert the SEG's text to UTF-8: ") + u.text());
  DcmDataset* d = ff.getDataset();
  SegFacts f;
  f.sopClassUid = textOf(d, DCM_SOPClassUID);
  if (f.sopClassUid != kSegmentationStorage && f.sopClassUid != kLabelMapSegmentationStorage)
    return makeError(ErrorCode::Unsupported, segPath,
                     "not a DICOM SEG (SOP Class " + (f.sopClassUid.empty() ? std::string("missing") : f.sopClassUid) +
                         "): a measurement report references the segments of a SEG");
  f.sopInstanceUid = textOf(d, DCM_SOPInstanceUID);
  f.seriesInstanceUid = textOf(d, DCM_SeriesInstanceUID);
  f.studyInstanceUid = textOf(d, DCM_StudyInstanceUID);
  if (f.sopInstanceUid.empty() || f.studyInstanceUid.empty() || f.seriesInstanceUid.empty())
    return makeError(ErrorCode::Corrupt, segPath, "the SEG lacks its SOP Instance, Series or Study Instance UID");
  DcmSequenceOfItems* series = nullptr;
  if (d->findAndGetSequence(DCM_ReferencedSeriesSequence, series).good() && series != nullptr)
    for (unsigned long k = 0; k < series->card(); ++k) {
      DcmItem* item = series->getItem(k);
      const std::string seriesUid = textOf(item, DCM_SeriesInstanceUID);
      if (f.sourceSeriesUid.empty()) f.sourceSeriesUid = seriesUid;
      DcmSequenceOfItems* instances = nullptr;
      if (seriesUid.empty() || item->findAndGetSequence(DCM_ReferencedInstanceSequence, instances).bad() ||
          instances == nullptr)
        continue;
      for (unsigned long i = 0; i < instances->card(); ++i) {
        DcmItem* inst = instances->getItem(i);
        const std::string cls = textOf(inst, DCM_ReferencedSOPClassUID), uid = textOf(inst, DCM_ReferencedSOPInstanceUID);
        if (!cls.empty() && !uid.empty()) f.sourceInstances.push_back({seriesUid, cls, uid});
      }
    }
  // TID 1411 names the series a segmentation was made on; a SEG that references none cannot be reported on.
  if (f.sourceSeriesUid.empty())
    return makeError(ErrorCode::Corrupt, segPath, "the SEG references no source series (Referenced Series Sequence)");
  DcmSequenceOfItems* segs = nullptr;
  if (d->findAndGetSequence(DCM_SegmentSequence, segs).good() && segs != nullptr)
    for (unsigned long i = 0; i < segs->card(); ++i) {
      DcmItem* s = segs->getItem(i);
      Uint16 number = 0;
      if (s->findAndGetUint16(DCM_SegmentNumber, number).bad()) continue;
      SegSegment seg;
      seg.type = codeOf(s, DCM_SegmentedPropertyTypeCodeSequence);
      seg.region = codeOf(s, DCM_AnatomicRegionSequence);
      seg.label = textOf(s, DCM_SegmentLabel);
      f.segments[number] = seg;
    }
  if (f.segments.empty()) return makeError(ErrorCode::Corrupt, segPath, "the SEG has no segments");
  return f;
}

// Copies the attributes DSRDocument does not carry over (de-identification marks) from the SEG.
OFCondition copyFromSeg(DcmItem& seg, DcmItem& sr, const DcmTagKey& key) {
  DcmElement* e = nullptr;
  if (seg.findAndGetElement(key, e).bad() || e == nullptr) return EC_Normal;
  auto* copy = OFstatic_cast(DcmElement*, e->clone());
  if (copy == nullptr) return EC_MemoryExhausted;
  return sr.insert(copy, OFTrue);
}

// Sets the SOP class of every content item reference to the SEG `uid` (Referenced SOP Sequence items below the
// Content Sequence) to `sopClass`.
void relabelSegReferences(DcmItem& item, const std::string& uid, const std::string& sopClass, int depth = 0) {
  if (depth > 64) return;
  DcmSequenceOfItems* refs = nullptr;
  if (item.findAndGetSequence(DCM_ReferencedSOPSequence, refs).good() && refs != nullptr)
    for (unsigned long i = 0; i < refs->card(); ++i)
      if (textOf(refs->getItem(i), DCM_ReferencedSOPInstanceUID) == uid)
        refs->getItem(i)->putAndInsertString(DCM_ReferencedSOPClassUID, sopClass.c_str());
  DcmSequenceOfItems* content = nullptr;
  if (item.findAndGetSequence(DCM_ContentSequence, content).good() && content != nullptr)
    for (unsigned long i = 0; i < content->card(); ++i) relabelSegReferences(*content->getItem(i), uid, sopClass, depth + 1);
}

constexpr const char* kLocalScheme = kDelineateCodingScheme;

bool usesScheme(const std::vector<SrSegmentMeasurements>& segments, const SegFacts& seg, const std::string& scheme) {
  for (const SrSegmentMeasurements& s : segments) {
    const SegSegment& info = seg.segments.at(s.segmentNumber);
    if (info.type.scheme == scheme || info.region.scheme == scheme) return true;
    for (const SrMeasurement& m : s.measurements)
      if (m.quantity.scheme == scheme || m.units.scheme == scheme || m.derivation.scheme == scheme) return true;
  }
  return false;
}

// A private coding scheme must be declared (PS3.3 C.12.1.1.5): adds the local scheme to the Coding Scheme
// Identification Sequence unless the SEG's copy already has it.
OFCondition declareLocalScheme(DcmItem& dataset) {
  DcmSequenceOfItems* seq = nullptr;
  if (dataset.findAndGetSequence(DCM_CodingSchemeIdentificationSequence, seq).good() && seq != nullptr)
    for (unsigned long i = 0; i < seq->card(); ++i)
      if (textOf(seq->getItem(i), DCM_CodingSchemeDesignator) == kLocalScheme) return EC_Normal;
  DcmItem* item = nullptr;
  OFCondition c = dataset.findOrCreateSequenceItem(DCM_CodingSchemeIdentificationSequence, item, -2);
  if (c.good()) c = item->putAndInsertString(DCM_CodingSchemeDesignator, kLocalScheme);
  if (c.good()) c = item->putAndInsertString(DCM_CodingSchemeName, "Delineate local label codes");
  if (c.good()) c = item->putAndInsertString(DCM_CodingSchemeResponsibleOrganization, "Delineate");
  return c;
}

CodedConcept procedureFor(const std::string& modality) {
  if (modality == "CT") return {"LN", "25045-6", "CT unspecified body region"};
  if (modality == "MR") return {"LN", "25056-3", "MRI unspecified body region"};
  return {"SCT", "363679005", "Imaging procedure"};
}

}  // namespace

std::vector<SrMeasurement> srMeasurementsFor(const core::LabelStatistics& stats, const std::string& modality) {
  std::vector<SrMeasurement> out;
  auto add = [&](const CodedConcept& quantity, const CodedConcept& units, const CodedConcept& derivation, double v) {
    if (!std::isfinite(v)) return;
    SrMeasurement m;
    m.quantity = quantity;
    m.units = units;
    m.derivation = derivation;
    m.value = v;
    m.valueText = dsValue(v);
    out.push_back(std::move(m));
  };
  add({"SCT", "118565006", "Volume"}, {"UCUM", "cm3", "cubic centimeter"}, {}, stats.volumeMl);
  if (stats.voxelCount == 0) return out;
  CodedConcept quantity{kDelineateCodingScheme, "INTENSITY", "Image intensity"};
  CodedConcept units{"UCUM", "1", "no units"};
  if (modality == "CT") {
    quantity = {"DCM", "112031", "Attenuation Coefficient"};
    units = {"UCUM", "[hnsf'U]", "Hounsfield unit"};
  } else if (modality == "MR") {
    quantity = {"DCM", "110852", "MR signal intensity"};
  }
  add(quantity, units, {"SCT", "373098007", "Mean"}, stats.mean);
  add(quantity, units, {"SCT", "386136009", "Standard Deviation"}, stats.stddev);
  add(quantity, units, {"SCT", "255605001", "Minimum"}, stats.min);
  add(quantity, units, {"SCT", "56851009", "Maximum"}, stats.max);
  add(quantity, units, {"SCT", "373099004", "Median"}, stats.median);
  return out;
}

std::vector<SrSegmentMeasurements> srGroupsFor(const std::vector<std::pair<std::uint16_t, core::Label>>& segments,
                                               const std::vector<core::LabelStatistics>& stats,
                                               const std::string& modality) {
  std::map<core::Label, const core::LabelStatistics*> byLabel;
  for (const auto& s : stats) byLabel[s.label] = &s;
  std::vector<SrSegmentMeasurements> groups;
  for (const auto& [number, label] : segments)
    if (auto it = byLabel.find(label); it != byLabel.end()) groups.push_back({number, srMeasurementsFor(*it->second, modality)});
  return groups;
}

core::Status writeDicomSr(const std::string& path, const std::string& segPath,
                          const std::vector<SrSegmentMeasurements>& segments, const SrWriteOptions& options) {
  if (segments.empty())
    return makeError(ErrorCode::InvalidArgument, path, "no segment to report: a measurement report needs one group");
  if (options.seriesNumber < 0)
    return makeError(ErrorCode::InvalidArgument, path, "negative series number " + std::to_string(options.seriesNumber));
  try {
    DcmFileFormat segFile;
    auto seg = readSegFacts(segPath, segFile);
    if (!seg) return seg.error();
    for (const SrSegmentMeasurements& s : segments)
      if (s.measurements.empty())
        return makeError(ErrorCode::InvalidArgument, path,
                         "segment " + std::to_string(s.segmentNumber) + " has no measurement (TID 1411 needs one)");
    for (const SrSegmentMeasurements& s : segments)
      if (seg->segments.count(s.segmentNumber) == 0)
        return makeError(ErrorCode::InvalidArgument, segPath,
                         "the SEG has no segment " + std::to_string(s.segmentNumber) + " to report on");

    auto fail = [&](const char* what, const OFCondition& c) {
      return makeError(ErrorCode::WriteFailed, path, std::string("cannot build the report (") + what + "): " + c.text());
    };
    OFString removed;
    segFile.getDataset()->findAndGetOFString(DCM_PatientIdentityRemoved, removed);
    const bool segDeidentified = removed == "YES";
    if (segDeidentified && !options.observerName.empty())
      return makeError(ErrorCode::InvalidArgument, path,
                       "a report on a de-identified SEG cannot name its observer (\"" + options.observerName +
                           "\"): the confidentiality profile it claims removes person names; leave the observer out");
    OFCondition c;
    TID1500_MeasurementReport report(CMR_CID7021::ImagingMeasurementReport);
    c = report.setLanguage(CID5000_Languages(CID5000_Languages::English_US));
    if (c.bad()) return fail("language", c);
    if (!options.observerName.empty()) {
      c = report.getObservationContext().addPersonObserver(options.observerName.c_str());
    } else {
      // A fixed UID would name one installation; a fresh one per report names nothing.
      c = report.getObservationContext().addDeviceObserver(newUid().c_str(), "Delineate", "Delineate", "Delineate");
    }
    if (c.bad()) return fail("observer", c);
    c = report.addProcedureReported(CID100_QuantitativeDiagnosticImagingProcedures(dsr(procedureFor(options.modality))));
    if (c.bad()) return fail("procedure reported", c);
    // Image Library: the source instances the SEG references, as bare references (their descriptors would repeat
    // the identifying study attributes of each image; the SEG carries what the report needs).
    if (!seg->sourceInstances.empty()) {
      if (!report.getImageLibrary().isValid()) c = report.getImageLibrary().createNewImageLibrary();
      if (c.good()) c = report.getImageLibrary().addImageGroup();
      if (c.bad()) return fail("image library", c);
      for (const SourceInstance& source : seg->sourceInstances) {
        DcmItem image;
        image.putAndInsertString(DCM_SOPClassUID, source.sopClassUid.c_str());
        image.putAndInsertString(DCM_SOPInstanceUID, source.sopInstanceUid.c_str());
        c = report.getImageLibrary().addImageEntry(image, TID1600_ImageLibrary::withoutDescriptors);
        if (c.bad() && c != CMR_EC_NoImageLibraryEntryDescriptorsToBeAdded) return fail("image library entry", c);
      }
    }
    for (const SrSegmentMeasurements& s : segments) {
      const SegSegment& info = seg->segments.at(s.segmentNumber);
      c = report.addVolumetricROIMeasurements();
      if (c.bad()) return fail("measurement group", c);
      CMR_TID1411_in_TID1500& group = report.getVolumetricROIMeasurements();
      const std::string tracking = info.label.empty() ? "Segment " + std::to_string(s.segmentNumber) : info.label;
      c = group.setTrackingIdentifier(tracking.c_str());
      if (c.good()) c = group.setTrackingUniqueIdentifier(newUid().c_str());
      if (c.bad()) return fail("tracking identifier", c);
      // DCMTK 3.6.7's TID 1411 accepts only Segmentation Storage here; a Label Map SEG (a 2024 class) is referenced
      // as one and its class set in the encoded dataset (relabelSegReferences).
      DSRImageReferenceValue segRef(kSegmentationStorage, seg->sopInstanceUid.c_str(), OFFalse);
      segRef.getSegmentList().addItem(Uint16(s.segmentNumber));
      c = group.setReferencedSegment(segRef, OFFalse);
      if (c.bad()) return fail("referenced segment", c);
      c = group.setSourceSeriesForSegmentation(seg->sourceSeriesUid.c_str());
      if (c.bad()) return fail("source series", c);
      if (!info.type.empty()) {
        c = group.setFinding(dsr(info.type), OFFalse);
        if (c.bad()) return fail("finding", c);
      }
      if (!info.region.empty()) {
        c = group.addFindingSite(dsr(info.region), CID244e_Laterality(), DSRCodedEntryValue(), OFFalse);
        if (c.bad()) return fail("finding site", c);
      }
      for (const SrMeasurement& m : s.measurements) {
        const CMR_TID1411_in_TID1500::MeasurementValue value(m.valueText.empty() ? dsValue(m.value).c_str()
                                                                                 : m.valueText.c_str(),
                                                             CID7181_AbstractMultiDimensionalImageModelComponentUnits(dsr(m.units)));
        c = group.addMeasurement(CID7469_GenericIntensityAndSizeMeasurements(dsr(m.quantity)), value);
        if (c.good() && !m.derivation.empty())
          c = group.getMeasurement().setDerivation(CID7464_GeneralRegionOfInterestMeasurementModifiers(dsr(m.derivation)));
        if (c.bad()) return fail(m.quantity.meaning.c_str(), c);
      }
    }
    if (!report.isValid())
      return makeError(ErrorCode::WriteFailed, path, "the measurement report does not satisfy TID 1500");

    DSRDocument doc(DSRTypes::DT_EnhancedSR);
    c = doc.setTreeFromRootTemplate(report, OFTrue);
    if (c.bad()) return fail("content tree", c);
    DcmDataset* segData = segFile.getDataset();
    c = doc.readStudyData(*segData);  // patient and study as the SEG has them (de-identified or not)
    if (c.bad()) return fail("patient and study", c);
    c = doc.createNewSeriesInStudy(seg->studyInstanceUid.c_str());
    if (c.bad()) return fail("series", c);
    doc.setSpecificCharacterSetType(DSRTypes::CS_UTF8);
    doc.setSeriesDescription(truncateUtf8(options.seriesDescription, 64).c_str(), OFFalse);
    doc.setSeriesNumber(std::to_string(options.seriesNumber).c_str());
    doc.setInstanceNumber("1");
    doc.setManufacturer("Delineate");
    doc.setManufacturerModelName("Delineate");
    doc.setDeviceSerialNumber("1");
    doc.setSoftwareVersions("1");
    DSRSOPInstanceReferenceList& evidence = doc.getCurrentRequestedProcedureEvidence();
    c = evidence.addItem(seg->studyInstanceUid.c_str(), seg->seriesInstanceUid.c_str(), seg->sopClassUid.c_str(),
                         seg->sopInstanceUid.c_str());
    for (const SourceInstance& source : seg->sourceInstances)
      if (c.good())
        c = evidence.addItem(seg->studyInstanceUid.c_str(), source.seriesUid.c_str(), source.sopClassUid.c_str(),
                             source.sopInstanceUid.c_str());
    if (c.bad()) return fail("evidence", c);
    c = doc.completeDocument();
    if (c.bad()) return fail("completion flag", c);

    DcmFileFormat out;
    DcmDataset* d = out.getDataset();
    c = doc.write(*d);
    if (c.bad()) return fail("encoding", c);
    if (seg->sopClassUid != kSegmentationStorage) relabelSegReferences(*d, seg->sopInstanceUid, seg->sopClassUid);
    for (const DcmTagKey& key : {DCM_PatientIdentityRemoved, DCM_DeidentificationMethod,
                                 DCM_DeidentificationMethodCodeSequence, DCM_StudyID, DCM_AccessionNumber,
                                 DCM_CodingSchemeIdentificationSequence})
      if (c.good()) c = copyFromSeg(*segData, *d, key);
    if (c.bad()) return fail("attributes from the SEG", c);
    if (usesScheme(segments, *seg, kLocalScheme)) c = declareLocalScheme(*d);
    if (c.bad()) return fail("coding scheme identification", c);
    // On a de-identified SEG the report carries the SEG's claim (113100), so every row of PS3.15 Table E.1-1 is
    // applied to its header too; its content tree holds codes, numbers and fresh UIDs only (no observer name: refused
    // above) and is kept.
    if (segDeidentified)
      if (core::Status s = applyConfidentialityProfileToExport(
              d, {DCM_ContentSequence, DCM_SoftwareVersions, DCM_CurrentRequestedProcedureEvidenceSequence}, path);
          !s)
        return s;

    const E_TransferSyntax xfer = EXS_LittleEndianExplicit;
    c = out.validateMetaInfo(xfer);
    if (c.bad()) return fail("meta header", c);
    const Uint32 length = out.calcElementLength(xfer, EET_ExplicitLength);
    std::vector<char> bytes(std::size_t(length) + 1024);
    DcmOutputBufferStream stream(bytes.data(), offile_off_t(bytes.size()));
    out.transferInit();
    c = out.write(stream, xfer, EET_ExplicitLength, nullptr);
    out.transferEnd();
    if (c.bad()) return fail("encoding", c);
    void* buffer = nullptr;
    offile_off_t written = 0;
    stream.flushBuffer(buffer, written);
    auto writer = AtomicFileWriter::create(path);
    if (!writer) return writer.error();
    if (auto st = writer->write(buffer, std::size_t(written)); !st) return st;
    return writer->commit();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "out of memory while building the measurement report");
  }
}

core::Result<SegWriteInfo> writeDicomSegAndSr(const std::string& segPath, const std::string& srPath,
                                              const core::LabelMap& labels, const core::LabelTable& table,
                                              const DicomSeries& source,
                                              const std::vector<core::LabelStatistics>& stats,
                                              const SegWriteOptions& segOptions, SrWriteOptions srOptions) {
  if (srOptions.modality.empty()) srOptions.modality = source.modality;
  if (srPath.empty()) {
    SegWriteInfo info;
    if (core::Status s = writeDicomSeg(segPath, labels, table, source, segOptions, &info); !s) return s.error();
    return info;
  }
  if (std::filesystem::weakly_canonical(segPath) == std::filesystem::weakly_canonical(srPath))
    return makeError(ErrorCode::InvalidArgument, srPath, "the SEG and its measurement report must be two files");
  // Both under temporary names beside their targets first; the targets are replaced only when both were written.
  const std::string tag = ".pair-" + detail::randomHex(6);
  const std::string segTemp = segPath + tag, srTemp = srPath + tag;
  auto cleanUp = [&] {
    std::remove(segTemp.c_str());
    std::remove(srTemp.c_str());
  };
  // Errors about the temporary files name the targets the user chose.
  auto named = [&](core::Error e) {
    if (e.subject == segTemp) e.subject = segPath;
    if (e.subject == srTemp) e.subject = srPath;
    return e;
  };
  SegWriteInfo info;
  if (core::Status s = writeDicomSeg(segTemp, labels, table, source, segOptions, &info); !s) {
    cleanUp();
    return named(s.error());
  }
  const std::vector<SrSegmentMeasurements> groups = srGroupsFor(info.segments, stats, srOptions.modality);
  if (core::Status s = writeDicomSr(srTemp, segTemp, groups, srOptions); !s) {
    cleanUp();
    return named(s.error());
  }
  // Same folder, so rename is atomic; the SEG first, so an SR is never in place without the SEG it references.
  if (std::rename(segTemp.c_str(), segPath.c_str()) != 0) {
    const int e = errno;
    cleanUp();
    return makeError(ErrorCode::WriteFailed, segPath, "cannot put the SEG in place: " + detail::errnoText(e));
  }
  if (std::rename(srTemp.c_str(), srPath.c_str()) != 0) {
    const int e = errno;
    cleanUp();
    return makeError(ErrorCode::WriteFailed, srPath,
                     "the SEG was written to " + segPath + " but its report could not be put in place: " +
                         detail::errnoText(e));
  }
  detail::syncFolder(std::filesystem::path(segPath).parent_path().string());
  detail::syncFolder(std::filesystem::path(srPath).parent_path().string());
  return info;
}

}  // namespace delineate::io
