// RT structure set reader: io/dicom/dicom_rtstruct.h.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcelem.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcitem.h>
#include <dcmtk/dcmdata/dcsequen.h>

#include "io/dicom/dicom_internal.h"
#include "io/base/regular_file.h"
#include "io/dicom/dicom_rtstruct.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;
using dicom_detail::textOf;

namespace {

// The masks (one byte per voxel of each ROI's bounding box, plus one overlap counter per voxel of their union) are
// summed before anything is allocated.
constexpr std::int64_t kMaxMaskBytes = std::int64_t(4) << 30;


DcmSequenceOfItems* sequence(DcmItem* item, const DcmTagKey& key) {
  DcmSequenceOfItems* seq = nullptr;
  if (item == nullptr || item->findAndGetSequence(key, seq).bad()) return nullptr;
  return seq;
}

DcmItem* firstItem(DcmItem* item, const DcmTagKey& key) {
  DcmSequenceOfItems* seq = sequence(item, key);
  return seq != nullptr && seq->card() > 0 ? seq->getItem(0) : nullptr;
}

// The items of a sequence in order, without dcmdata's getItem(i), which walks the list from its start for each i.
std::vector<DcmItem*> itemsOf(DcmSequenceOfItems* seq) {
  std::vector<DcmItem*> out;
  if (seq == nullptr) return out;
  out.reserve(seq->card());
  for (DcmObject* o = seq->nextInContainer(nullptr); o != nullptr; o = seq->nextInContainer(o))
    out.push_back(static_cast<DcmItem*>(o));
  return out;
}

std::optional<int> integer(DcmItem* item, const DcmTagKey& key) {
  Sint32 v = 0;
  if (item == nullptr || item->findAndGetSint32(key, v).bad()) return std::nullopt;
  return int(v);
}

// Parses a DS value (backslash-separated decimals, spaces around each) into `out`. False, with `why`, on text that is
// not a number; non-finite numbers are reported by the caller.
bool parseDecimals(const char* p, std::size_t length, std::vector<double>& out, std::string& why) {
  const char* end = p + length;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\0')) ++p;
    if (p == end) break;
    if (*p == '+') ++p;
    double v = 0;
    const auto r = std::from_chars(p, end, v);
    if (r.ec != std::errc() || r.ptr == p) {
      why = "'" + std::string(p, std::min<std::size_t>(std::size_t(end - p), 16)) + "' is not a number";
      return false;
    }
    out.push_back(v);
    p = r.ptr;
    while (p < end && (*p == ' ' || *p == '\0')) ++p;
    if (p < end) {
      if (*p != '\\') {
        why = "unexpected '" + std::string(1, *p) + "' between numbers";
        return false;
      }
      ++p;
    }
  }
  return true;
}

std::string roiName(const RtRoiInfo* roi, int number) {
  if (roi == nullptr) return "ROI " + std::to_string(number);
  return "ROI " + std::to_string(number) + " '" + roi->name + "'";
}

// One placed contour: its slice and its points in pixel coordinates (x, y).
struct PlacedContour {
  std::int64_t slice = 0;
  std::vector<std::pair<double, double>> points;
};

}  // namespace

const RtRoiInfo* RtStructDocument::findRoi(int number) const {
  for (const auto& r : rois)
    if (r.number == number) return &r;
  return nullptr;
}

const RtRoiMask* RtStructDocument::findMask(int number) const {
  for (const auto& m : masks)
    if (m.number == number) return &m;
  return nullptr;
}

core::Result<RtStructDocument> readRtStruct(const std::string& path, const core::Geometry& grid,
                                            const RtStructReadOptions& options) {
  dicom_detail::ensureDcmtkReady();
  if (core::Status s = grid.validate(path + " (reference grid)"); !s) return s.error();
  auto pre = dicom_detail::prescanDicomFile(path);
  if (!pre) return pre.error();
  auto readable = ReadableFile::open(path, "RT structure set");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  // Everything is loaded at once (the pre-scan held every length to the file's size): contour data read lazily
  // would reopen the file for each contour.
  const OFCondition cond = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange, 0xFFFFFFFFu, ERM_autoDetect);
  if (cond.bad()) return makeError(ErrorCode::ParseError, path, std::string("DCMTK cannot parse the file: ") + cond.text());
  DcmDataset* ds = ff.getDataset();
  // Names in UTF-8 whatever the file's character set (ISO_IR 100 and friends, through iconv); a set that cannot be
  // converted keeps its bytes, which the callers print as they are.
  OFString charset;
  if (ds->findAndGetOFStringArray(DCM_SpecificCharacterSet, charset).good() && !charset.empty() &&
      charset != "ISO_IR 192" && charset != "ISO_IR 6")
    ds->convertToUTF8();

  RtStructDocument doc;
  doc.grid = grid;
  const std::string sopClass = textOf(ds, DCM_SOPClassUID), modality = textOf(ds, DCM_Modality);
  if (sopClass != kRtStructureSetStorage)
    return makeError(ErrorCode::Unsupported, path,
                     "not an RT Structure Set (SOP class " + (sopClass.empty() ? std::string("missing") : sopClass) +
                         ", modality " + (modality.empty() ? std::string("missing") : modality) + ")");
  doc.sopInstanceUid = textOf(ds, DCM_SOPInstanceUID);
  doc.studyInstanceUid = textOf(ds, DCM_StudyInstanceUID);
  doc.seriesInstanceUid = textOf(ds, DCM_SeriesInstanceUID);
  doc.structureSetLabel = textOf(ds, DCM_StructureSetLabel);
  doc.structureSetName = textOf(ds, DCM_StructureSetName);

  // References: the frame of reference the contours are in, and the series they were drawn on.
  DcmSequenceOfItems* frames = sequence(ds, DCM_ReferencedFrameOfReferenceSequence);
  if (frames == nullptr || frames->card() == 0)
    return makeError(ErrorCode::Corrupt, path,
                     "no Referenced Frame of Reference Sequence (3006,0010): the contours' coordinate system is unknown");
  std::set<std::string> frameUids;
  const std::vector<DcmItem*> frameItems = itemsOf(frames);
  for (std::size_t i = 0; i < frameItems.size(); ++i) {
    DcmItem* f = frameItems[i];
    const std::string uid = textOf(f, DCM_FrameOfReferenceUID);
    if (uid.empty())
      return makeError(ErrorCode::Corrupt, path,
                       "Referenced Frame of Reference item " + std::to_string(i + 1) + " has no Frame of Reference UID");
    frameUids.insert(uid);
    if (doc.frameOfReferenceUid.empty()) doc.frameOfReferenceUid = uid;
    if (doc.referencedSeriesUid.empty())
      doc.referencedSeriesUid =
          textOf(firstItem(firstItem(f, DCM_RTReferencedStudySequence), DCM_RTReferencedSeriesSequence), DCM_SeriesInstanceUID);
  }
  const std::string& reference = options.referenceFrameOfReferenceUid;
  if (!reference.empty() && !frameUids.count(reference))
    return makeError(ErrorCode::GeometryMismatch, path,
                     "the structure set is on frame of reference " + doc.frameOfReferenceUid + ", the series on " + reference);
  if (!options.referenceSeriesUid.empty() && !doc.referencedSeriesUid.empty() &&
      doc.referencedSeriesUid != options.referenceSeriesUid)
    doc.warnings.push_back("the structure set was drawn on series " + doc.referencedSeriesUid +
                           " (same frame of reference), not on " + options.referenceSeriesUid);

  // ROIs.
  DcmSequenceOfItems* roiSeq = sequence(ds, DCM_StructureSetROISequence);
  if (roiSeq == nullptr) return makeError(ErrorCode::Corrupt, path, "no Structure Set ROI Sequence (3006,0020)");
  std::map<int, std::size_t> roiIndex;
  const std::vector<DcmItem*> roiItems = itemsOf(roiSeq);
  for (std::size_t i = 0; i < roiItems.size(); ++i) {
    DcmItem* it = roiItems[i];
    RtRoiInfo roi;
    const auto number = integer(it, DCM_ROINumber);
    if (!number) return makeError(ErrorCode::Corrupt, path, "Structure Set ROI item " + std::to_string(i + 1) + " has no ROI Number");
    roi.number = *number;
    if (roiIndex.count(roi.number))
      return makeError(ErrorCode::Corrupt, path, "ROI Number " + std::to_string(roi.number) + " is declared twice");
    roi.name = textOf(it, DCM_ROIName);
    roi.generationAlgorithm = textOf(it, DCM_ROIGenerationAlgorithm);
    roi.frameOfReferenceUid = textOf(it, DCM_ReferencedFrameOfReferenceUID);
    if (!roi.frameOfReferenceUid.empty() && !frameUids.count(roi.frameOfReferenceUid))
      return makeError(ErrorCode::Corrupt, path,
                       roiName(&roi, roi.number) + " refers to frame of reference " + roi.frameOfReferenceUid +
                           ", which the structure set does not reference");
    if (!reference.empty() && !roi.frameOfReferenceUid.empty() && roi.frameOfReferenceUid != reference)
      return makeError(ErrorCode::GeometryMismatch, path,
                       roiName(&roi, roi.number) + " is on frame of reference " + roi.frameOfReferenceUid +
                           ", the series on " + reference);
    roiIndex[roi.number] = doc.rois.size();
    doc.rois.push_back(std::move(roi));
  }
  for (DcmItem* it : itemsOf(sequence(ds, DCM_RTROIObservationsSequence))) {
    const auto number = integer(it, DCM_ReferencedROINumber);
    if (!number || !roiIndex.count(*number)) continue;  // an observation of nothing: nothing to attach it to
    RtRoiInfo& roi = doc.rois[roiIndex[*number]];
    roi.interpretedType = textOf(it, DCM_RTROIInterpretedType);
    roi.interpreter = textOf(it, DCM_ROIInterpreter);
    roi.code = dicom_detail::codeOf(it, DCM_RTROIIdentificationCodeSequence);
  }

  // Contours, placed on the grid's slices before any mask is allocated.
  const auto& dims = grid.dimensions();
  const std::int64_t nx = dims[0], ny = dims[1], nz = dims[2];
  std::map<int, std::vector<PlacedContour>> placed;
  std::map<int, core::IndexBox> boxes;
  std::int64_t totalPoints = 0;
  std::vector<double> values;
  const std::vector<DcmItem*> roiContours = itemsOf(sequence(ds, DCM_ROIContourSequence));
  for (std::size_t r = 0; r < roiContours.size(); ++r) {
    DcmItem* rc = roiContours[r];
    const auto number = integer(rc, DCM_ReferencedROINumber);
    if (!number)
      return makeError(ErrorCode::Corrupt, path, "ROI Contour item " + std::to_string(r + 1) + " has no Referenced ROI Number");
    const auto found = roiIndex.find(*number);
    if (found == roiIndex.end())
      return makeError(ErrorCode::Corrupt, path,
                       "ROI Contour item " + std::to_string(r + 1) + " refers to ROI " + std::to_string(*number) +
                           ", which the Structure Set ROI Sequence does not declare");
    RtRoiInfo& roi = doc.rois[found->second];
    {
      OFString colour;
      Sint32 c[3] = {0, 0, 0};
      bool ok = rc->findAndGetOFStringArray(DCM_ROIDisplayColor, colour).good();
      for (unsigned long k = 0; ok && k < 3; ++k) ok = rc->findAndGetSint32(DCM_ROIDisplayColor, c[k], k).good();
      if (ok) {
        core::Rgba rgba;
        rgba.r = std::uint8_t(std::clamp<Sint32>(c[0], 0, 255));
        rgba.g = std::uint8_t(std::clamp<Sint32>(c[1], 0, 255));
        rgba.b = std::uint8_t(std::clamp<Sint32>(c[2], 0, 255));
        roi.displayColor = rgba;
      }
    }
    const std::vector<DcmItem*> contours = itemsOf(sequence(rc, DCM_ContourSequence));
    std::map<std::string, std::size_t> skippedTypes;
    std::size_t offPlane = 0, outside = 0;
    std::string firstOff;
    for (std::size_t c = 0; c < contours.size(); ++c) {
      DcmItem* it = contours[c];
      const std::string what = roiName(&roi, roi.number) + ", contour " + std::to_string(c + 1);
      const std::string type = textOf(it, DCM_ContourGeometricType);
      if (type != "CLOSED_PLANAR") {
        ++skippedTypes[type.empty() ? std::string("(no type)") : type];
        ++roi.skippedContours;
        continue;
      }
      const auto declared = integer(it, DCM_NumberOfContourPoints);
      DcmElement* data = nullptr;
      if (it->findAndGetElement(DCM_ContourData, data).bad() || data == nullptr)
        return makeError(ErrorCode::Corrupt, path, what + " has no Contour Data");
      char* text = nullptr;
      Uint32 length = 0;
      if (data->getString(text, length).bad() || (text == nullptr && length > 0))
        return makeError(ErrorCode::Corrupt, path, what + ": Contour Data cannot be read");
      // Checked from the value's length before parsing: each number takes at least 2 bytes with its separator.
      if (std::int64_t(length) / 6 > kRtMaxContourPoints)
        return makeError(ErrorCode::SizeLimit, path,
                         what + " has more than " + std::to_string(kRtMaxContourPoints) + " points (" +
                             std::to_string(length) + " bytes of Contour Data)");
      values.clear();
      std::string why;
      if (!parseDecimals(text, length, values, why)) return makeError(ErrorCode::Corrupt, path, what + ": Contour Data: " + why);
      if (values.size() % 3 != 0)
        return makeError(ErrorCode::Corrupt, path,
                         what + ": Contour Data holds " + std::to_string(values.size()) + " numbers, not x, y, z triplets");
      const std::int64_t points = std::int64_t(values.size() / 3);
      if (declared && *declared != points)
        return makeError(ErrorCode::Corrupt, path,
                         what + ": Number of Contour Points is " + std::to_string(*declared) + " but Contour Data holds " +
                             std::to_string(points));
      if (points < 3)
        return makeError(ErrorCode::Corrupt, path,
                         what + " is a CLOSED_PLANAR contour of " + std::to_string(points) + " point" +
                             (points == 1 ? "" : "s") + " (a closed contour needs 3)");
      if (points > kRtMaxContourPoints)
        return makeError(ErrorCode::SizeLimit, path,
                         what + " has " + std::to_string(points) + " points, more than " + std::to_string(kRtMaxContourPoints));
      totalPoints += points;
      if (totalPoints > kRtMaxPoints)
        return makeError(ErrorCode::SizeLimit, path,
                         "the structure set has more than " + std::to_string(kRtMaxPoints) + " contour points (at " + what + ")");
      PlacedContour pc;
      pc.points.reserve(std::size_t(points));
      double kMin = std::numeric_limits<double>::infinity(), kMax = -kMin;
      for (std::int64_t p = 0; p < points; ++p) {
        const core::Vec3 lps{values[std::size_t(3 * p)], values[std::size_t(3 * p + 1)], values[std::size_t(3 * p + 2)]};
        if (!std::isfinite(lps[0]) || !std::isfinite(lps[1]) || !std::isfinite(lps[2]))
          return makeError(ErrorCode::Corrupt, path, what + ": point " + std::to_string(p + 1) + " is not a finite number");
        // Patient coordinates are millimetres: beyond 10 km is no patient (and would overflow the arithmetic below).
        if (std::fabs(lps[0]) > kRtMaxCoordinateMm || std::fabs(lps[1]) > kRtMaxCoordinateMm ||
            std::fabs(lps[2]) > kRtMaxCoordinateMm)
          return makeError(ErrorCode::Corrupt, path,
                           what + ": point " + std::to_string(p + 1) + " lies more than 10 km from the origin");
        const core::Vec3 ijk = grid.lpsToIndex(lps);
        pc.points.emplace_back(ijk[0], ijk[1]);
        kMin = std::min(kMin, ijk[2]);
        kMax = std::max(kMax, ijk[2]);
      }
      const double k = std::round((kMin + kMax) / 2);
      if (kMax - k > kRtPlaneTolerance || k - kMin > kRtPlaneTolerance) {
        ++offPlane;
        ++roi.skippedContours;
        if (firstOff.empty())
          firstOff = "contour " + std::to_string(c + 1) + " at slice index " + dicom_detail::decimalString(kMin, 4) +
                     (kMax - kMin > kRtPlaneTolerance ? " to " + dicom_detail::decimalString(kMax, 4) : std::string());
        continue;
      }
      if (!(k >= 0 && k < double(nz))) {
        ++outside;
        ++roi.skippedContours;
        continue;
      }
      pc.slice = std::int64_t(k);
      // The pixels this contour can reach (centres within its extent), clipped to the grid.
      double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
      for (const auto& [x, y] : pc.points) {
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
      }
      const double fi0 = std::max(std::ceil(x0), 0.0), fi1 = std::min(std::floor(x1), double(nx - 1));
      const double fj0 = std::max(std::ceil(y0), 0.0), fj1 = std::min(std::floor(y1), double(ny - 1));
      ++roi.closedContours;
      roi.points += points;
      if (fi0 > fi1 || fj0 > fj1) continue;  // holds no pixel centre of the grid (compared before any conversion)
      const std::int64_t i0 = std::int64_t(fi0), i1 = std::int64_t(fi1), j0 = std::int64_t(fj0), j1 = std::int64_t(fj1);
      boxes[roi.number].include(core::Index3{i0, j0, pc.slice});
      boxes[roi.number].include(core::Index3{i1, j1, pc.slice});
      placed[roi.number].push_back(std::move(pc));
    }
    for (const auto& [type, count] : skippedTypes)
      doc.warnings.push_back(roiName(&roi, roi.number) + ": " + std::to_string(count) + " " + type + " contour" +
                             (count == 1 ? "" : "s") + " skipped (only CLOSED_PLANAR contours enclose voxels)");
    if (offPlane)
      doc.warnings.push_back(roiName(&roi, roi.number) + ": " + std::to_string(offPlane) + " contour" +
                             (offPlane == 1 ? "" : "s") + " off the series' slice planes skipped (first: " + firstOff +
                             "; tolerance " + dicom_detail::decimalString(kRtPlaneTolerance, 3) + " slice)");
    if (outside)
      doc.warnings.push_back(roiName(&roi, roi.number) + ": " + std::to_string(outside) + " contour" +
                             (outside == 1 ? "" : "s") + " beyond the series' first or last slice skipped");
  }

  // Memory, before allocating: each ROI's box, and one overlap counter over their union.
  std::int64_t bytes = 0;
  core::IndexBox all;
  for (const auto& [number, box] : boxes) {
    bytes += box.voxelCount();
    all.include(box);
  }
  if (!all.empty()) bytes += all.voxelCount();
  if (bytes > kMaxMaskBytes)
    return makeError(ErrorCode::SizeLimit, path,
                     "the ROIs' masks would take " + std::to_string(bytes >> 20) + " MB, more than " +
                         std::to_string(kMaxMaskBytes >> 20) + " MB");

  try {
    std::vector<std::uint8_t> overlap;
    if (!all.empty()) overlap.assign(std::size_t(all.voxelCount()), 0);
    for (auto& [number, contours] : placed) {
      const core::IndexBox& box = boxes[number];
      RtRoiMask mask;
      mask.number = number;
      mask.box = box;
      const std::int64_t bw = box.max[0] - box.min[0] + 1, bh = box.max[1] - box.min[1] + 1;
      mask.voxels.assign(std::size_t(box.voxelCount()), 0);
      std::stable_sort(contours.begin(), contours.end(),
                       [](const PlacedContour& a, const PlacedContour& b) { return a.slice < b.slice; });
      std::vector<std::vector<std::pair<double, double>>> polygons;
      for (std::size_t a = 0; a < contours.size();) {
        std::size_t b = a;
        polygons.clear();
        while (b < contours.size() && contours[b].slice == contours[a].slice) {
          auto poly = std::move(contours[b].points);
          for (auto& [x, y] : poly) {
            x -= double(box.min[0]);
            y -= double(box.min[1]);
          }
          polygons.push_back(std::move(poly));
          ++b;
        }
        const std::int64_t z = contours[a].slice - box.min[2];
        if (rowCrossings(polygons, int(bh)) > kRtMaxRowCrossings)
          return makeError(ErrorCode::SizeLimit, path,
                           roiName(doc.findRoi(number), number) + ": its contours on slice " +
                               std::to_string(contours[a].slice + 1) + " cross the rows of pixel centres more than " +
                               std::to_string(kRtMaxRowCrossings) + " times");
        rasterizeEvenOdd(polygons, int(bw), int(bh), mask.voxels.data() + std::size_t(z * bw * bh));
        a = b;
      }
      // Overlap: one saturating counter per voxel of the union box.
      const std::int64_t aw = all.max[0] - all.min[0] + 1, ah = all.max[1] - all.min[1] + 1;
      std::size_t v = 0;
      for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
        for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
          for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x, ++v)
            if (mask.voxels[v]) {
              std::uint8_t& c = overlap[std::size_t(((z - all.min[2]) * ah + (y - all.min[1])) * aw + (x - all.min[0]))];
              if (c == 1) ++doc.overlappingVoxels;
              if (c < 2) ++c;
            }
      if (mask.count() > 0) doc.masks.push_back(std::move(mask));
    }
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "out of memory for the ROIs' masks");
  }
  return doc;
}

core::Result<std::pair<core::LabelMap, core::LabelTable>> rtStructToLabelMap(const RtStructDocument& doc,
                                                                            RtFlattenReport* report) {
  core::LabelTable table;
  for (const RtRoiInfo& roi : doc.rois) {
    if (roi.number < 1 || roi.number > 65535)
      return makeError(ErrorCode::InvalidArgument, roiName(&roi, roi.number),
                       "ROI Number " + std::to_string(roi.number) + " cannot be a label id (1..65535)");
    core::LabelEntry e;
    e.id = core::Label(roi.number);
    e.name = roi.name.empty() ? "ROI " + std::to_string(roi.number) : roi.name;
    e.color = roi.displayColor ? *roi.displayColor : core::LabelTable::defaultColor(e.id);
    e.terminology.type = roi.code;
    table.set(std::move(e));
  }
  auto volume = core::Volume<core::Label>::create(doc.grid, 0, doc.sopInstanceUid);
  if (!volume) return volume.error();
  // Largest first, so smaller ROIs overwrite: each voxel ends with the smallest ROI holding it (ties: lower number).
  std::vector<std::pair<std::int64_t, const RtRoiMask*>> order;
  for (const RtRoiMask& m : doc.masks) order.emplace_back(m.count(), &m);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->number > b.second->number;
  });
  RtFlattenReport local;
  local.overlappingVoxels = doc.overlappingVoxels;
  const auto& dims = doc.grid.dimensions();
  core::Label* out = volume->data();
  for (const auto& [count, m] : order) {
    const core::Label id = core::Label(m->number);
    std::size_t v = 0;
    for (std::int64_t z = m->box.min[2]; z <= m->box.max[2]; ++z)
      for (std::int64_t y = m->box.min[1]; y <= m->box.max[1]; ++y) {
        core::Label* row = out + std::size_t((z * dims[1] + y) * dims[0]);
        for (std::int64_t x = m->box.min[0]; x <= m->box.max[0]; ++x, ++v)
          if (m->voxels[v]) {
            if (row[x] != 0) ++local.reassigned[int(row[x])];
            row[x] = id;
          }
      }
  }
  if (report) *report = std::move(local);
  return std::make_pair(core::LabelMap(std::move(volume).value()), std::move(table));
}

}  // namespace delineate::io
