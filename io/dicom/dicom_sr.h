#pragma once
// DICOM SR measurement reports (TID 1500, Imaging Measurement Report): the volume and intensity statistics of the
// segments of a DICOM SEG, written so PACS, OHIF, Slicer (QuantitativeReporting) and dcmqi's tid1500reader read
// them, and read back from what those tools write.
//
// Writing (DCMTK's dcmsr with its TID 1500 template classes, cmr):
// - Enhanced SR (TID 1500 needs no spatial coordinates here), one Measurement Group per segment (TID 1411
//   Volumetric ROI Measurements): Tracking Identifier (the Segment Label) and a fresh Tracking Unique Identifier,
//   Referenced Segment (an IMAGE reference to the SEG with its Segment Number), Source series for segmentation,
//   Finding = the segment's Segmented Property Type, Finding Site = its Anatomic Region where the SEG has one, then
//   the measurements (srMeasurementsFor).
// - The SR is built from the SEG file itself, not from the label map: the SEG is the evidence it references, so
//   patient, study and (de-identified or not) UIDs are whatever the SEG carries, and an SR made later for a SEG
//   from another tool works the same way. The Image Library lists the SEG's referenced source instances;
//   Current Requested Procedure Evidence lists the SEG and those instances.
// - Observer: a person (SrWriteOptions::observerName) or, without one, the device "Delineate" with a UID derived
//   from nothing identifying. Procedure reported: LOINC "CT unspecified body region" / "MRI unspecified body
//   region" by modality, else SNOMED "Imaging procedure".
// - Written atomically (an existing file is untouched by a failed write); errors name the SR path, or the SEG's
//   when the SEG is the problem (not a SEG, a segment number it does not have).
//
// Reading (dcmdata, walking the content tree): the report's title, observer, procedure and every Measurement Group
// under Imaging Measurements (TID 1411 volumetric, TID 1410 planar and TID 1501 groups alike): tracking
// identifiers, finding, finding category and site, referenced segment and source series, and each numeric
// measurement with its units, derivation and method modifiers. Content that is not a measurement (spatial
// coordinates, qualitative evaluations) is counted, not kept. Items that reference other items by position are
// not followed.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/label_table.h"
#include "core/statistics.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_seg_write.h"

namespace delineate::io {

struct SrMeasurement {
  core::CodedConcept quantity;    // concept name, e.g. (118565006, SCT, "Volume")
  core::CodedConcept units;       // UCUM, e.g. (cm3, UCUM, "cubic centimeter")
  core::CodedConcept derivation;  // e.g. (373098007, SCT, "Mean"); empty when none
  core::CodedConcept method;      // Measurement Method modifier; empty when none
  std::string valueText;          // the DS string as stored
  double value = 0;
};

struct SrSegmentReference {
  std::string sopClassUid, sopInstanceUid;
  int segmentNumber = 0;  // 0 when the group references no segment
};

struct SrMeasurementGroup {
  std::string trackingIdentifier;
  std::string trackingUid;
  core::CodedConcept findingCategory;
  core::CodedConcept finding;
  core::CodedConcept findingSite;
  SrSegmentReference segment;
  std::string sourceSeriesUid;  // "Source series for image segmentation"
  std::vector<SrMeasurement> measurements;
  std::size_t otherItems = 0;  // content items of the group that are none of the above (SCOORD, qualitative, ...)

  const SrMeasurement* find(const std::string& quantityValue, const std::string& derivationValue = {}) const;
};

struct DicomSrDocument {
  std::string sopClassUid, sopInstanceUid, seriesInstanceUid, studyInstanceUid;
  std::string patientName, patientId;
  std::string completionFlag, verificationFlag;
  core::CodedConcept title;  // (126000, DCM, "Imaging Measurement Report") for TID 1500
  std::string templateId;    // Content Template Sequence's Template Identifier, "1500" for TID 1500; may be empty
  std::string observerType;  // "Person" / "Device" (the last Observer Type given), empty when none
  std::string observerName;  // Person Observer Name or Device Observer Name
  std::vector<core::CodedConcept> proceduresReported;
  std::size_t imageLibraryEntries = 0;  // IMAGE items in the Image Library
  std::vector<std::string> evidenceInstanceUids;  // Current Requested Procedure Evidence
  std::vector<SrMeasurementGroup> groups;
};

core::Result<DicomSrDocument> readDicomSr(const std::string& path);

// The measurements Delineate reports for one label: Volume (cm3, i.e. mL) and, where the statistics have
// intensities, mean, standard deviation, minimum, maximum and median of the image under the segment as
// (112031, DCM, "Attenuation Coefficient") in Hounsfield units for CT, (110852, DCM, "MR signal intensity") without
// units for MR and the local (99DELINEATE, "INTENSITY", "Image intensity") without units otherwise; non-finite
// values are left out.
std::vector<SrMeasurement> srMeasurementsFor(const core::LabelStatistics& stats, const std::string& modality);

struct SrSegmentMeasurements {
  int segmentNumber = 0;
  std::vector<SrMeasurement> measurements;
};

// One group per written segment that has statistics, in segment order: `segments` are the (segment number, label id)
// pairs writeDicomSeg reports (SegWriteInfo::segments), `stats` the labels' statistics on the SEG's source image.
std::vector<SrSegmentMeasurements> srGroupsFor(const std::vector<std::pair<std::uint16_t, core::Label>>& segments,
                                               const std::vector<core::LabelStatistics>& stats,
                                               const std::string& modality);

struct SrWriteOptions {
  std::string seriesDescription = "Delineate measurements";
  int seriesNumber = 301;
  std::string modality;      // of the measured image ("CT", "MR", ...): chooses the procedure code
  std::string observerName;  // a person observer ("Family^Given"); empty: the device observer "Delineate"
};

core::Status writeDicomSr(const std::string& path, const std::string& segPath,
                          const std::vector<SrSegmentMeasurements>& segments, const SrWriteOptions& options = {});

// A SEG of `labels` on `source` and the measurement report that references it, as one save: both are written under
// temporary names beside their targets and renamed into place only when both succeeded (the SEG first), so a
// failure leaves the previous SEG and SR as they were, still a pair. `stats`: the labels' statistics on the source
// image (computeLabelStatistics); a label without statistics gets no measurement group. With an empty srPath only
// the SEG is written. Returns the SEG's info (segment numbers and labels); SrWriteOptions::modality defaults to the
// series'.
core::Result<SegWriteInfo> writeDicomSegAndSr(const std::string& segPath, const std::string& srPath,
                                              const core::LabelMap& labels, const core::LabelTable& table,
                                              const DicomSeries& source,
                                              const std::vector<core::LabelStatistics>& stats,
                                              const SegWriteOptions& segOptions, SrWriteOptions srOptions);

}  // namespace delineate::io
