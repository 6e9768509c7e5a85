// RT structure set writer: io/dicom/dicom_rtstruct.h.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <array>
#include <atomic>
#include <map>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcitem.h>
#include <dcmtk/dcmdata/dcsequen.h>
#include <dcmtk/dcmdata/dcuid.h>

#include "io/dicom/dicom_internal.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/dicom/dicom_write_support.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;
using namespace dicom_detail;

namespace {

// Study Component Management SOP class: what RT Referenced Study items conventionally name as their class.
constexpr const char* kStudyComponentManagement = "1.2.840.10008.3.1.2.3.2";

// A contour point's coordinate: fixed with 4 decimals (0.1 micrometre), trailing zeros dropped; at most 16 characters
// for any coordinate within +-1e10 mm.
void appendCoordinate(std::string& out, double v) {
  char buf[40];
  if (std::fabs(v) < 5e-5) v = 0;
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 4);
  char* end = r.ptr;
  while (end > buf && end[-1] == '0') --end;
  if (end > buf && end[-1] == '.') --end;
  out.append(buf, end);
}

struct SliceContour {
  std::int64_t slice = 0;
  std::int64_t points = 0;
  std::string data;  // Contour Data
};

}  // namespace

core::Status writeRtStruct(const std::string& path, const core::LabelMap& labels, const core::LabelTable& table,
                           const DicomSeries& source, const RtStructWriteOptions& options, RtStructWriteInfo* info) {
  if (!(options.simplifyPixels >= 0 && options.simplifyPixels < 0.35))
    return makeError(ErrorCode::InvalidArgument, path,
                     "the simplification tolerance must be at least 0 and below 0.35 pixel (farther, contours could "
                     "cross voxel centres)");
  const std::string& algorithm = options.generationAlgorithm;
  if (algorithm != "AUTOMATIC" && algorithm != "SEMIAUTOMATIC" && algorithm != "MANUAL")
    return makeError(ErrorCode::InvalidArgument, path,
                     "ROI Generation Algorithm \"" + algorithm + "\" is not AUTOMATIC, SEMIAUTOMATIC or MANUAL");
  // RT ROI Interpreted Type is a code string: upper-case letters, digits, space and underscore, 16 at most.
  auto codeString = [](const std::string& v) {
    return v.size() <= 16 && std::all_of(v.begin(), v.end(), [](char c) {
             return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_';
           });
  };
  if (!codeString(options.interpretedType))
    return makeError(ErrorCode::InvalidArgument, path, "RT ROI Interpreted Type \"" + options.interpretedType +
                                                           "\" is not a code string (A-Z, 0-9, _, 16 at most)");
  for (const auto& [l, type] : options.interpretedTypes)
    if (!codeString(type))
      return makeError(ErrorCode::InvalidArgument, path, "RT ROI Interpreted Type \"" + type + "\" of label " +
                                                             std::to_string(l) + " is not a code string (A-Z, 0-9, _, 16 at most)");
  if (options.seriesNumber < 0)
    return makeError(ErrorCode::InvalidArgument, path, "negative series number " + std::to_string(options.seriesNumber));
  auto refs = sliceReferences(path, labels.geometry(), source);
  if (!refs) return refs.error();
  const core::Geometry& grid = labels.geometry();
  const auto& dims = grid.dimensions();
  const std::int64_t nx = dims[0], ny = dims[1], nz = dims[2];
  const std::size_t sliceSize = std::size_t(nx * ny);

  // --- contours, slice by slice on every core -----------------------------------------------------------------------
  std::vector<std::map<core::Label, std::vector<SliceContour>>> perSlice(static_cast<std::size_t>(nz));
  // What a reader takes (kRtMaxPoints) is what is written: a noise map's millions of one-voxel contours stop here.
  std::atomic<std::int64_t> totalPoints{0};
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const std::string failure = parallelFor(std::size_t(nz), threads, [&](std::size_t k, int) {
    const core::Label* p = labels.data() + k * sliceSize;
    // Each label's box on this slice.
    std::map<core::Label, std::array<std::int64_t, 4>> boxes;  // x0, y0, x1, y1
    for (std::int64_t y = 0; y < ny; ++y) {
      const core::Label* row = p + std::size_t(y * nx);
      for (std::int64_t x = 0; x < nx;) {
        const core::Label l = row[x];
        if (l == 0) {
          ++x;
          continue;
        }
        std::int64_t end = x + 1;
        while (end < nx && row[end] == l) ++end;
        auto [it, fresh] = boxes.try_emplace(l, std::array<std::int64_t, 4>{x, y, end - 1, y});
        if (!fresh) {
          auto& b = it->second;
          b[0] = std::min(b[0], x);
          b[2] = std::max(b[2], end - 1);
          b[3] = y;
        }
        x = end;
      }
    }
    std::vector<std::uint8_t> mask;
    for (const auto& [l, b] : boxes) {
      const std::int64_t w = b[2] - b[0] + 1, h = b[3] - b[1] + 1;
      mask.assign(std::size_t(w * h), 0);
      for (std::int64_t y = 0; y < h; ++y) {
        const core::Label* row = p + std::size_t((b[1] + y) * nx + b[0]);
        for (std::int64_t x = 0; x < w; ++x) mask[std::size_t(y * w + x)] = row[x] == l;
      }
      auto loops = traceSliceContours(mask.data(), int(w), int(h), options.simplifyPixels);
      auto& out = perSlice[k][l];
      for (const auto& loop : loops) {
        SliceContour c;
        c.slice = std::int64_t(k);
        c.points = std::int64_t(loop.size());
        if (totalPoints.fetch_add(c.points) + c.points > kRtMaxPoints) return false;
        c.data.reserve(loop.size() * 30);
        for (const auto& [x, y] : loop) {
          const core::Vec3 lps = grid.indexToLps(core::Vec3{x + double(b[0]), y + double(b[1]), double(k)});
          for (int a = 0; a < 3; ++a) {
            if (!c.data.empty()) c.data += '\\';
            appendCoordinate(c.data, lps[std::size_t(a)]);
          }
        }
        out.push_back(std::move(c));
      }
    }
    return true;
  });
  if (!failure.empty()) return makeError(ErrorCode::OutOfMemory, path, "tracing the contours: " + failure);
  if (totalPoints.load() > kRtMaxPoints)
    return makeError(ErrorCode::SizeLimit, path,
                     "the labels' contours have more than " + std::to_string(kRtMaxPoints) +
                         " points (a structure set readers would refuse; is this a label map?)");
  std::map<core::Label, std::vector<SliceContour>> contours;
  for (auto& slice : perSlice)
    for (auto& [l, list] : slice)
      for (auto& c : list) contours[l].push_back(std::move(c));
  perSlice.clear();
  if (contours.empty()) return makeError(ErrorCode::InvalidArgument, path, "the label map has no labelled voxel to write");

  // --- header -------------------------------------------------------------------------------------------------------
  auto patient = readSourceHeader(source.slices.front().path);
  if (!patient) return patient.error();
  ensureDcmtkReady();
  DcmFileFormat ff;
  DcmDataset* d = ff.getDataset();
  Builder b;
  UidMap uid;
  uid.replace = options.deidentify;
  std::string date, time;
  nowDicom(date, time);
  const std::string sopInstanceUid = newUid(), seriesInstanceUid = newUid();
  const std::string frameUid = uid(source.frameOfReferenceUid.empty() ? newUid() : source.frameOfReferenceUid);
  const std::string author = options.deidentify ? std::string() : personName(options.author);
  b.put(d, DCM_SpecificCharacterSet, "ISO_IR 192");
  b.put(d, DCM_InstanceCreationDate, date);
  b.put(d, DCM_InstanceCreationTime, time);
  b.put(d, DCM_SOPClassUID, kRtStructureSetStorage);
  b.put(d, DCM_SOPInstanceUID, sopInstanceUid);
  putPatientAndStudy(b, d, options.deidentify, *patient);
  b.put(d, DCM_StudyInstanceUID, uid(source.studyInstanceUid));
  // RT Series
  b.put(d, DCM_Modality, "RTSTRUCT");
  b.put(d, DCM_SeriesInstanceUID, seriesInstanceUid);
  b.put(d, DCM_SeriesNumber, std::to_string(options.seriesNumber));
  b.put(d, DCM_SeriesDate, date);
  b.put(d, DCM_SeriesTime, time);
  b.put(d, DCM_SeriesDescription, singleValue(options.seriesDescription, 64));
  b.put(d, DCM_OperatorsName, author);
  // General Equipment
  b.put(d, DCM_Manufacturer, "Delineate");
  b.put(d, DCM_ManufacturerModelName, "Delineate");
  b.put(d, DCM_SoftwareVersions, "1");
  // Frame of Reference
  b.put(d, DCM_FrameOfReferenceUID, frameUid);
  b.put(d, DCM_PositionReferenceIndicator, "");
  // Structure Set
  const std::string label = singleValue(options.structureSetLabel, 16);
  b.put(d, DCM_StructureSetLabel, label.empty() ? std::string("Delineate") : label);
  b.put(d, DCM_StructureSetName, label.empty() ? std::string("Delineate") : label);
  b.put(d, DCM_StructureSetDate, date);
  b.put(d, DCM_StructureSetTime, time);
  b.put(d, DCM_InstanceNumber, "1");
  if (DcmItem* frame = b.item(d, DCM_ReferencedFrameOfReferenceSequence)) {
    b.put(frame, DCM_FrameOfReferenceUID, frameUid);
    if (DcmItem* study = b.item(frame, DCM_RTReferencedStudySequence)) {
      b.put(study, DCM_ReferencedSOPClassUID, kStudyComponentManagement);
      b.put(study, DCM_ReferencedSOPInstanceUID, uid(source.studyInstanceUid));
      if (DcmItem* series = b.item(study, DCM_RTReferencedSeriesSequence)) {
        b.put(series, DCM_SeriesInstanceUID, uid(source.seriesInstanceUid));
        std::set<std::string> seen;
        for (const SourceRef& r : *refs) {
          if (!seen.insert(r.sopInstanceUid).second) continue;
          DcmItem* image = b.item(series, DCM_ContourImageSequence);
          if (image == nullptr) break;
          b.put(image, DCM_ReferencedSOPClassUID, source.sopClassUid);
          b.put(image, DCM_ReferencedSOPInstanceUID, uid(r.sopInstanceUid));
        }
      }
    }
  }
  std::size_t contourCount = 0;
  std::int64_t pointCount = 0;
  for (const auto& [l, list] : contours) {
    const core::LabelEntry* entry = table.find(l);
    const std::string name = entry != nullptr && !entry->name.empty() ? entry->name : "Label " + std::to_string(l);
    const core::Rgba colour = entry != nullptr ? entry->color : core::LabelTable::defaultColor(l);
    if (DcmItem* roi = b.item(d, DCM_StructureSetROISequence)) {
      b.put(roi, DCM_ROINumber, std::to_string(l));
      b.put(roi, DCM_ReferencedFrameOfReferenceUID, frameUid);
      b.put(roi, DCM_ROIName, singleValue(name, 64));
      b.put(roi, DCM_ROIGenerationAlgorithm, algorithm);
    }
    if (DcmItem* rc = b.item(d, DCM_ROIContourSequence)) {
      b.put(rc, DCM_ROIDisplayColor,
            std::to_string(colour.r) + "\\" + std::to_string(colour.g) + "\\" + std::to_string(colour.b));
      int number = 0;
      for (const SliceContour& c : list) {
        DcmItem* item = b.item(rc, DCM_ContourSequence);
        if (item == nullptr) break;
        if (DcmItem* image = b.item(item, DCM_ContourImageSequence)) {
          const SourceRef& r = (*refs)[std::size_t(c.slice)];
          b.put(image, DCM_ReferencedSOPClassUID, source.sopClassUid);
          b.put(image, DCM_ReferencedSOPInstanceUID, uid(r.sopInstanceUid));
          if (r.frame > 0) b.put(image, DCM_ReferencedFrameNumber, std::to_string(r.frame));
        }
        b.put(item, DCM_ContourNumber, std::to_string(++number));
        b.put(item, DCM_ContourGeometricType, "CLOSED_PLANAR");
        b.put(item, DCM_NumberOfContourPoints, std::to_string(c.points));
        b.put(item, DCM_ContourData, c.data);
        ++contourCount;
        pointCount += c.points;
      }
      b.put(rc, DCM_ReferencedROINumber, std::to_string(l));
    }
    if (DcmItem* obs = b.item(d, DCM_RTROIObservationsSequence)) {
      b.put(obs, DCM_ObservationNumber, std::to_string(l));
      b.put(obs, DCM_ReferencedROINumber, std::to_string(l));
      const auto typed = options.interpretedTypes.find(l);
      b.put(obs, DCM_RTROIInterpretedType, typed != options.interpretedTypes.end() ? typed->second : options.interpretedType);
      b.put(obs, DCM_ROIInterpreter, author);
      if (entry != nullptr && !entry->terminology.type.empty())
        b.code(obs, DCM_RTROIIdentificationCodeSequence, entry->terminology.type);
    }
  }
  if (b.status.bad())
    return makeError(ErrorCode::WriteFailed, path,
                     std::string("cannot build the structure set: ") + b.status.text() + " at (" +
                         b.failedAt.toString().c_str() + ")");
  if (options.deidentify)
    if (core::Status s = applyConfidentialityProfileToExport(d, {DCM_SoftwareVersions}, path); !s) return s;
  if (core::Status s = encodeAtomically(ff, path, "the structure set", true); !s) return s;
  if (info != nullptr) {
    info->sopInstanceUid = sopInstanceUid;
    info->seriesInstanceUid = seriesInstanceUid;
    info->rois = contours.size();
    info->contours = contourCount;
    info->points = pointCount;
  }
  return core::Status::success();
}

}  // namespace delineate::io
