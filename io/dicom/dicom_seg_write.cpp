#include "io/dicom/dicom_seg_write.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <new>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcitem.h>
#include <dcmtk/dcmdata/dcostrma.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcsequen.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmdata/dcvrat.h>

#include "io/base/atomic_file.h"
#include "io/dicom/dicom_internal.h"
#include "io/dicom/dicom_write_support.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;
using namespace dicom_detail;

namespace {

std::string ds(double v) { return decimalString(v); }

std::string ds3(const core::Vec3& v) { return ds(v[0]) + "\\" + ds(v[1]) + "\\" + ds(v[2]); }


// Everything both encodings need, validated before the header is read or any frame is allocated.
struct SegPlan {
  std::string algorithmType, algorithmName;
  std::int64_t nx = 0, ny = 0, nz = 0;
  std::size_t sliceSize = 0;
  std::vector<SourceRef> refs;                        // the instance (and frame) each slice k came from
  std::map<core::Label, std::vector<char>> presence;  // label -> slices holding it; never holds 0
};

core::Result<SegPlan> planSeg(const std::string& path, const core::LabelMap& labels, const DicomSeries& source,
                              const SegWriteOptions& options) {
  SegPlan plan;
  plan.algorithmType = options.algorithmType;
  plan.algorithmName = options.algorithmName;
  if (plan.algorithmType.empty() || plan.algorithmName.empty()) plan.algorithmType = "MANUAL";
  if (plan.algorithmType != "MANUAL" && plan.algorithmType != "SEMIAUTOMATIC" && plan.algorithmType != "AUTOMATIC")
    return makeError(ErrorCode::InvalidArgument, path,
                     "Segment Algorithm Type \"" + options.algorithmType + "\" is not MANUAL, SEMIAUTOMATIC or AUTOMATIC");
  if (plan.algorithmType == "MANUAL") plan.algorithmName.clear();
  if (options.seriesNumber < 0)
    return makeError(ErrorCode::InvalidArgument, path, "negative series number " + std::to_string(options.seriesNumber));
  if (options.encoding != SegEncoding::Binary && options.encoding != SegEncoding::Labelmap)
    return makeError(ErrorCode::InvalidArgument, path, "unknown SEG encoding " + std::to_string(int(options.encoding)));
  auto refs = sliceReferences(path, labels.geometry(), source);
  if (!refs) return refs.error();
  plan.refs = std::move(refs).value();
  const core::Geometry& grid = labels.geometry();
  plan.nx = grid.dimensions()[0];
  plan.ny = grid.dimensions()[1];
  plan.nz = grid.dimensions()[2];
  const std::int64_t nz = plan.nz;
  if (plan.nx > 65535 || plan.ny > 65535)
    return makeError(ErrorCode::SizeLimit, path, "slices wider than 65535 pixels cannot be DICOM frames");
  plan.sliceSize = std::size_t(plan.nx * plan.ny);
  std::vector<char> seen(std::size_t(std::numeric_limits<core::Label>::max()) + 1, 0);
  std::vector<core::Label> touched;
  for (std::int64_t k = 0; k < nz; ++k) {
    const core::Label* p = labels.data() + std::size_t(k) * plan.sliceSize;
    for (std::size_t i = 0; i < plan.sliceSize; ++i)
      if (p[i] != 0 && !seen[p[i]]) {
        seen[p[i]] = 1;
        touched.push_back(p[i]);
      }
    for (core::Label l : touched) {
      auto& v = plan.presence[l];
      if (v.empty()) v.assign(std::size_t(nz), 0);
      v[std::size_t(k)] = 1;
      seen[l] = 0;
    }
    touched.clear();
  }
  if (plan.presence.empty())
    return makeError(ErrorCode::InvalidArgument, path, "the label map has no labelled voxel to write");
  return plan;
}

// The attributes both encodings share, apart from segments, dimensions and frames.
struct SegHeader {
  const DicomSeries* source = nullptr;
  const SegWriteOptions* options = nullptr;
  const SegPlan* plan = nullptr;
  SourceHeader patient;
  UidMap uid;
  std::string date, time, sopClassUid, sopInstanceUid, seriesInstanceUid, segmentationType;
  std::int64_t frames = 0;
  Uint16 bitsAllocated = 1;
};

void putHeader(Builder& b, DcmDataset* d, SegHeader& h) {
  const SegWriteOptions& options = *h.options;
  const DicomSeries& source = *h.source;
  b.put(d, DCM_SpecificCharacterSet, "ISO_IR 192");
  b.put(d, DCM_ImageType, "DERIVED\\PRIMARY");
  b.put(d, DCM_InstanceCreationDate, h.date);
  b.put(d, DCM_InstanceCreationTime, h.time);
  b.put(d, DCM_SOPClassUID, h.sopClassUid);
  b.put(d, DCM_SOPInstanceUID, h.sopInstanceUid);
  putPatientAndStudy(b, d, options.deidentify, h.patient);
  b.put(d, DCM_ContentDate, h.date);
  b.put(d, DCM_ContentTime, h.time);
  b.put(d, DCM_Modality, "SEG");
  b.put(d, DCM_Manufacturer, "Delineate");
  b.put(d, DCM_ManufacturerModelName, "Delineate");
  b.put(d, DCM_DeviceSerialNumber, "1");
  b.put(d, DCM_SoftwareVersions, "1");
  b.put(d, DCM_SeriesDescription, truncateUtf8(options.seriesDescription, 64));
  // Coding Scheme Identification: the local scheme of labels without codes.
  if (DcmItem* cs = b.item(d, DCM_CodingSchemeIdentificationSequence)) {
    b.put(cs, DCM_CodingSchemeDesignator, kDelineateCodingScheme);
    b.put(cs, DCM_CodingSchemeName, "Delineate local label codes");
    b.put(cs, DCM_CodingSchemeResponsibleOrganization, "Delineate");
  }
  // Common Instance Reference: every source instance referenced by a frame.
  if (DcmItem* series = b.item(d, DCM_ReferencedSeriesSequence)) {
    std::vector<std::string> seen;
    for (const SourceRef& r : h.plan->refs) {
      if (std::find(seen.begin(), seen.end(), r.sopInstanceUid) != seen.end()) continue;
      seen.push_back(r.sopInstanceUid);
      DcmItem* inst = b.item(series, DCM_ReferencedInstanceSequence);
      if (inst == nullptr) break;
      b.put(inst, DCM_ReferencedSOPClassUID, source.sopClassUid);
      b.put(inst, DCM_ReferencedSOPInstanceUID, h.uid(r.sopInstanceUid));
    }
    b.put(series, DCM_SeriesInstanceUID, h.uid(source.seriesInstanceUid));
  }
  b.put(d, DCM_StudyInstanceUID, h.uid(source.studyInstanceUid));
  b.put(d, DCM_SeriesInstanceUID, h.seriesInstanceUid);
  b.put(d, DCM_SeriesNumber, std::to_string(options.seriesNumber));
  b.put(d, DCM_InstanceNumber, "1");
  b.put(d, DCM_FrameOfReferenceUID, h.uid(source.frameOfReferenceUid.empty() ? newUid() : source.frameOfReferenceUid));
  b.put(d, DCM_PositionReferenceIndicator, "");
  // Image Pixel
  b.putU16(d, DCM_SamplesPerPixel, 1);
  b.put(d, DCM_PhotometricInterpretation, "MONOCHROME2");
  b.put(d, DCM_NumberOfFrames, std::to_string(h.frames));
  b.putU16(d, DCM_Rows, Uint16(h.plan->ny));
  b.putU16(d, DCM_Columns, Uint16(h.plan->nx));
  b.putU16(d, DCM_BitsAllocated, h.bitsAllocated);
  b.putU16(d, DCM_BitsStored, h.bitsAllocated);
  b.putU16(d, DCM_HighBit, Uint16(h.bitsAllocated - 1));
  b.putU16(d, DCM_PixelRepresentation, 0);
  b.put(d, DCM_LossyImageCompression, "00");
  // Segmentation Image
  b.put(d, DCM_ContentLabel, "SEGMENTATION");
  b.put(d, DCM_ContentDescription, truncateUtf8(options.seriesDescription, 64));
  // A person name: its component separator '=' and '\\' (a second value) cannot come from what was typed.
  const std::string creator = options.deidentify ? std::string() : personName(options.contentCreator);
  b.put(d, DCM_ContentCreatorName, creator);
  b.put(d, DCM_SegmentationType, h.segmentationType);
}

// One Segment Sequence item: the label's name, colour and codes (local ones where the table has none).
void putSegment(Builder& b, DcmDataset* d, const SegPlan& plan, const core::LabelTable& table, Uint16 number,
                core::Label label) {
  DcmItem* seg = b.item(d, DCM_SegmentSequence);
  if (seg == nullptr) return;
  const core::LabelEntry* e = table.find(label);
  const std::string name = e != nullptr && !e->name.empty() ? e->name : "Label " + std::to_string(label);
  const core::Rgba color = e != nullptr ? e->color : core::LabelTable::defaultColor(label);
  core::Terminology t = e != nullptr ? e->terminology : core::Terminology{};
  if (t.category.empty()) t.category = core::CodedConcept{kDelineateCodingScheme, "LABEL", "Label"};
  if (t.type.empty())
    t.type = core::CodedConcept{kDelineateCodingScheme, "L" + std::to_string(label), truncateUtf8(name, 64)};
  b.putU16(seg, DCM_SegmentNumber, number);
  b.put(seg, DCM_SegmentLabel, truncateUtf8(name, 64));
  b.put(seg, DCM_SegmentAlgorithmType, plan.algorithmType);
  if (!plan.algorithmName.empty()) b.put(seg, DCM_SegmentAlgorithmName, truncateUtf8(plan.algorithmName, 64));
  std::uint16_t lab[3];
  rgbToCielab(color, lab);
  // Multi-valued binary attributes are set from their string form ("a\\b\\c"), which dcmdata parses per VR.
  b.put(seg, DCM_RecommendedDisplayCIELabValue,
        std::to_string(lab[0]) + "\\" + std::to_string(lab[1]) + "\\" + std::to_string(lab[2]));
  b.code(seg, DCM_SegmentedPropertyCategoryCodeSequence, t.category);
  b.code(seg, DCM_SegmentedPropertyTypeCodeSequence, t.type);
  if (!t.typeModifier.empty()) {
    DcmItem* typeItem = nullptr;
    if (b.status.good()) b.status = seg->findAndGetSequenceItem(DCM_SegmentedPropertyTypeCodeSequence, typeItem, 0);
    if (typeItem != nullptr) b.code(typeItem, DCM_SegmentedPropertyTypeModifierCodeSequence, t.typeModifier);
  }
  if (!t.region.empty()) {
    b.code(seg, DCM_AnatomicRegionSequence, t.region);
    if (!t.regionModifier.empty()) {
      DcmItem* regionItem = nullptr;
      if (b.status.good()) b.status = seg->findAndGetSequenceItem(DCM_AnatomicRegionSequence, regionItem, 0);
      if (regionItem != nullptr) b.code(regionItem, DCM_AnatomicRegionModifierSequence, t.regionModifier);
    }
  }
}

// Multi-frame Dimension: (segment number, when given,) then plane position.
void putDimensions(Builder& b, DcmDataset* d, bool bySegment) {
  const std::string dimensionUid = newUid();
  if (DcmItem* org = b.item(d, DCM_DimensionOrganizationSequence)) b.put(org, DCM_DimensionOrganizationUID, dimensionUid);
  if (bySegment)
    if (DcmItem* dim = b.item(d, DCM_DimensionIndexSequence)) {
      b.putTag(dim, DCM_DimensionIndexPointer, DCM_ReferencedSegmentNumber);
      b.putTag(dim, DCM_FunctionalGroupPointer, DCM_SegmentIdentificationSequence);
      b.put(dim, DCM_DimensionOrganizationUID, dimensionUid);
      b.put(dim, DCM_DimensionDescriptionLabel, "ReferencedSegmentNumber");
    }
  if (DcmItem* dim = b.item(d, DCM_DimensionIndexSequence)) {
    b.putTag(dim, DCM_DimensionIndexPointer, DCM_ImagePositionPatient);
    b.putTag(dim, DCM_FunctionalGroupPointer, DCM_PlanePositionSequence);
    b.put(dim, DCM_DimensionOrganizationUID, dimensionUid);
    b.put(dim, DCM_DimensionDescriptionLabel, "ImagePositionPatient");
  }
}

// Shared functional groups: orientation and pixel measures of the grid.
void putSharedGroups(Builder& b, DcmDataset* d, const core::Geometry& grid) {
  const core::Mat3& dir = grid.direction();
  const core::Vec3 rowDir{dir(0, 0), dir(1, 0), dir(2, 0)}, colDir{dir(0, 1), dir(1, 1), dir(2, 1)};
  const core::Vec3& sp = grid.spacingMm();
  if (DcmItem* shared = b.item(d, DCM_SharedFunctionalGroupsSequence)) {
    if (DcmItem* o = b.item(shared, DCM_PlaneOrientationSequence))
      b.put(o, DCM_ImageOrientationPatient, ds3(rowDir) + "\\" + ds3(colDir));
    if (DcmItem* m = b.item(shared, DCM_PixelMeasuresSequence)) {
      b.put(m, DCM_PixelSpacing, ds(sp[1]) + "\\" + ds(sp[0]));
      b.put(m, DCM_SliceThickness, ds(sp[2]));
      b.put(m, DCM_SpacingBetweenSlices, ds(sp[2]));
    }
  }
}

// The empty Per-frame Functional Groups Sequence, inserted into the dataset; nullptr after a failure.
DcmSequenceOfItems* putPerFrameSequence(Builder& b, DcmDataset* d) {
  if (b.status.bad()) return nullptr;
  auto* perFrame = new DcmSequenceOfItems(DCM_PerFrameFunctionalGroupsSequence);
  b.status = d->insert(perFrame, true);
  b.note(DCM_PerFrameFunctionalGroupsSequence);
  if (b.status.bad()) {
    delete perFrame;
    return nullptr;
  }
  return perFrame;
}

// Appends the functional groups of the frame of slice k both encodings share (Derivation Image with the Source
// Image, Frame Content, Plane Position) and returns the item; nullptr after a failure.
DcmItem* putFrame(Builder& b, DcmSequenceOfItems* perFrame, SegHeader& h, const core::Geometry& grid, std::int64_t k,
                  const std::string& dimensionIndexValues) {
  if (b.status.bad() || perFrame == nullptr) return nullptr;
  auto* fg = new DcmItem();
  b.status = perFrame->append(fg);
  if (b.status.bad()) {
    delete fg;
    return nullptr;
  }
  const SourceRef& ref = h.plan->refs[std::size_t(k)];
  if (DcmItem* der = b.item(fg, DCM_DerivationImageSequence)) {
    b.code(der, DCM_DerivationCodeSequence, core::CodedConcept{"DCM", "113076", "Segmentation"});
    if (DcmItem* src = b.item(der, DCM_SourceImageSequence)) {
      b.put(src, DCM_ReferencedSOPClassUID, h.source->sopClassUid);
      b.put(src, DCM_ReferencedSOPInstanceUID, h.uid(ref.sopInstanceUid));
      if (ref.frame > 0) b.put(src, DCM_ReferencedFrameNumber, std::to_string(ref.frame));
      b.code(src, DCM_PurposeOfReferenceCodeSequence,
             core::CodedConcept{"DCM", "121322", "Source image for image processing operation"});
    }
  }
  if (DcmItem* content = b.item(fg, DCM_FrameContentSequence))
    b.put(content, DCM_DimensionIndexValues, dimensionIndexValues);
  if (DcmItem* pos = b.item(fg, DCM_PlanePositionSequence))
    b.put(pos, DCM_ImagePositionPatient, ds3(grid.indexToLps(core::Index3{0, 0, k})));
  return b.status.good() ? fg : nullptr;
}

}  // namespace

void rgbToCielab(const core::Rgba& rgb, std::uint16_t lab[3]) {
  auto lin = [](std::uint8_t v) {
    const double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  const double r = lin(rgb.r), g = lin(rgb.g), b = lin(rgb.b);
  const double X = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double Y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  const double Z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
  const double L = 116 * f(Y) - 16, A = 500 * (f(X) - f(Y)), B = 200 * (f(Y) - f(Z));
  auto scaled = [](double v, double lo, double hi) {
    const double s = (std::clamp(v, lo, hi) - lo) / (hi - lo) * 65535.0;
    return std::uint16_t(std::lround(s));
  };
  lab[0] = scaled(L, 0, 100);
  lab[1] = scaled(A, -128, 127);
  lab[2] = scaled(B, -128, 127);
}

core::Status writeDicomSeg(const std::string& path, const core::LabelMap& labels, const core::LabelTable& table,
                           const DicomSeries& source, const SegWriteOptions& options, SegWriteInfo* info) {
  auto planned = planSeg(path, labels, source, options);
  if (!planned) return planned.error();
  const SegPlan& plan = *planned;
  const core::Geometry& grid = labels.geometry();
  const std::int64_t nz = plan.nz;
  const bool labelmap = options.encoding == SegEncoding::Labelmap;

  // --- frames and their size ----------------------------------------------------------------------------------------
  // BINARY: one frame per segment per slice holding it. LABELMAP: one frame per slice holding any label.
  std::vector<char> labelledSlice(std::size_t(nz), 0);
  std::int64_t frames = 0;
  for (const auto& [label, slices] : plan.presence) {
    frames += std::count(slices.begin(), slices.end(), 1);
    for (std::int64_t k = 0; k < nz; ++k) labelledSlice[std::size_t(k)] |= slices[std::size_t(k)];
  }
  if (labelmap) frames = std::count(labelledSlice.begin(), labelledSlice.end(), 1);
  // LABELMAP: 8 bits while every id fits, else 16 (Supplement 243 allows no more).
  const Uint16 bitsAllocated = Uint16(!labelmap ? 1 : plan.presence.rbegin()->first <= 255 ? 8 : 16);
  const std::uint64_t bits = std::uint64_t(frames) * plan.sliceSize * bitsAllocated;
  const std::uint64_t pixelBytes = ((bits + 7) / 8 + 1) & ~std::uint64_t(1);
  if (frames > 2147483647 || pixelBytes > 0xFFFFFFF0ull - (std::uint64_t(64) << 20))
    return makeError(ErrorCode::SizeLimit, path,
                     std::to_string(frames) + " frames of " + std::to_string(plan.nx) + " x " +
                         std::to_string(plan.ny) + " x " + std::to_string(bitsAllocated) +
                         " bits exceed what one DICOM object can hold");

  // --- header ------------------------------------------------------------------------------------------------------
  auto patient = readSourceHeader(source.slices.front().path);
  if (!patient) return patient.error();
  SegHeader h;
  h.source = &source;
  h.options = &options;
  h.plan = &plan;
  h.patient = *patient;
  h.uid.replace = options.deidentify;
  nowDicom(h.date, h.time);
  h.sopClassUid = labelmap ? kLabelMapSegmentationStorage : kSegmentationStorage;
  h.segmentationType = labelmap ? "LABELMAP" : "BINARY";
  h.frames = frames;
  h.bitsAllocated = bitsAllocated;

  try {
    ensureDcmtkReady();
    h.sopInstanceUid = newUid();
    h.seriesInstanceUid = newUid();
    DcmFileFormat ff;
    DcmDataset* d = ff.getDataset();
    Builder b;
    putHeader(b, d, h);
    if (labelmap) {
      // Background is the padding value (no segment describes it), and one value per pixel cannot overlap.
      b.putU16(d, DCM_PixelPaddingValue, 0);
      b.put(d, DCM_SegmentsOverlap, "NO");
    }
    putDimensions(b, d, !labelmap);
    // Segments, by increasing label id: BINARY numbers them 1..n, LABELMAP by the label id (its pixel value).
    std::vector<std::pair<std::uint16_t, core::Label>> segments;
    for (const auto& entry : plan.presence) {
      const Uint16 number = labelmap ? entry.first : Uint16(segments.size() + 1);
      segments.emplace_back(number, entry.first);
      putSegment(b, d, plan, table, number, entry.first);
    }
    putSharedGroups(b, d, grid);

    // Per-frame groups, and each frame's number (or -1) per segment (BINARY; one row for LABELMAP) and slice.
    std::vector<std::vector<std::int64_t>> frameOf;  // [segment index][k]
    std::int64_t frame = 0;
    DcmSequenceOfItems* perFrame = putPerFrameSequence(b, d);
    if (labelmap) {
      frameOf.emplace_back(std::size_t(nz), -1);
      for (std::int64_t k = 0; k < nz && b.status.good(); ++k) {
        if (!labelledSlice[std::size_t(k)]) continue;
        frameOf.back()[std::size_t(k)] = frame++;
        putFrame(b, perFrame, h, grid, k, std::to_string(k + 1));
      }
    } else {
      for (std::size_t s = 0; s < segments.size() && b.status.good(); ++s) {
        const Uint16 number = segments[s].first;
        const std::vector<char>& slices = plan.presence.at(segments[s].second);
        frameOf.emplace_back(std::size_t(nz), -1);
        for (std::int64_t k = 0; k < nz && b.status.good(); ++k) {
          if (!slices[std::size_t(k)]) continue;
          frameOf.back()[std::size_t(k)] = frame++;
          DcmItem* fg = putFrame(b, perFrame, h, grid, k, std::to_string(number) + "\\" + std::to_string(k + 1));
          if (fg == nullptr) break;
          if (DcmItem* ident = b.item(fg, DCM_SegmentIdentificationSequence))
            b.putU16(ident, DCM_ReferencedSegmentNumber, number);
        }
      }
    }

    // A de-identified SEG claims the basic profile (113100): every row of PS3.15 Table E.1-1 is applied to what was
    // built (the creation dates become dummies, the series description goes), not only to the patient's attributes.
    // The Software Versions are Delineate's own and Type 1 here.
    if (b.status.good() && options.deidentify)
      if (core::Status s = applyConfidentialityProfileToExport(d, {DCM_SoftwareVersions}, path); !s) return s;

    // The frames, filled in place in the Pixel Data element in one pass over the label map.
    Uint8* bytes = nullptr;
    Uint16* words = nullptr;
    if (b.status.good()) {
      auto* px = new DcmPixelData(DCM_PixelData);
      px->setVR(bitsAllocated == 16 ? EVR_OW : EVR_OB);
      b.status = d->insert(px, true);
      if (b.status.bad()) delete px;
      if (b.status.good()) {
        // dcmdata keeps 16-bit words in host order and writes them little endian for this transfer syntax.
        if (bitsAllocated == 16) b.status = px->createUint16Array(Uint32(pixelBytes / 2), words);
        else b.status = px->createUint8Array(Uint32(pixelBytes), bytes);
      }
      b.note(DCM_PixelData);
      if (b.status.good())
        std::memset(words != nullptr ? static_cast<void*>(words) : bytes, 0, std::size_t(pixelBytes));
    }
    if (b.status.bad())
      return makeError(ErrorCode::WriteFailed, path, std::string("cannot build the SEG dataset: ") + b.status.text() +
                                                         " at (" + b.failedAt.toString().c_str() + ")");
    const std::size_t sliceSize = plan.sliceSize;
    if (labelmap) {
      // Label ids are the pixel values: each slice's voxels copied as they are (background 0 = padding).
      for (std::int64_t k = 0; k < nz; ++k) {
        const std::int64_t f = frameOf.front()[std::size_t(k)];
        if (f < 0) continue;
        const core::Label* p = labels.data() + std::size_t(k) * sliceSize;
        const std::size_t at = std::size_t(f) * sliceSize;
        if (words != nullptr) std::copy(p, p + sliceSize, words + at);
        else
          for (std::size_t i = 0; i < sliceSize; ++i) bytes[at + i] = Uint8(p[i]);
      }
    } else {
      // Each voxel's bit set in the frame of its label's segment on its slice.
      std::vector<std::int32_t> segmentIndex(std::size_t(std::numeric_limits<core::Label>::max()) + 1, -1);
      for (std::size_t s = 0; s < segments.size(); ++s) segmentIndex[segments[s].second] = std::int32_t(s);
      for (std::int64_t k = 0; k < nz; ++k) {
        const core::Label* p = labels.data() + std::size_t(k) * sliceSize;
        for (std::size_t i = 0; i < sliceSize; ++i) {
          if (p[i] == 0) continue;
          const std::uint64_t bit = std::uint64_t(frameOf[std::size_t(segmentIndex[p[i]])][std::size_t(k)]) * sliceSize + i;
          bytes[bit >> 3] |= Uint8(1u << (bit & 7));
        }
      }
    }

    core::Status committed = encodeAtomically(ff, path, "the SEG");
    if (committed.ok() && info != nullptr) {
      info->sopClassUid = h.sopClassUid;
      info->sopInstanceUid = h.sopInstanceUid;
      info->seriesInstanceUid = h.seriesInstanceUid;
      info->segments = std::move(segments);
    }
    return committed;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "out of memory while building the SEG");
  }
}

}  // namespace delineate::io
