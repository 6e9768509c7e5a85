#include "io/dicom/dicom_seg.h"
#include "io/base/regular_file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <new>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcitem.h>
#include <dcmtk/dcmdata/dcsequen.h>
#include <dcmtk/dcmdata/dcxfer.h>

#include "io/dicom/dicom_internal.h"

namespace delineate::io {

using core::ErrorCode;
using core::makeError;

using dicom_detail::codeOf;
using dicom_detail::kLabelMapSegmentationStorage;
using dicom_detail::kSegmentationStorage;

namespace {

// A grid derived from a SEG's own plane positions is sized by header values (positions, spacing) that a damaged
// or crafted file can set freely; masks are allocated over boxes of it, so it is capped well below kMaxVoxels
// (1 Gi voxels: 1024 x 1024 x 1024). Reference grids come from loaded images and are not capped here.
constexpr std::int64_t kMaxDerivedVoxels = std::int64_t(1) << 30;

// The masks (one byte per voxel of each segment's bounding box, plus one overlap counter per voxel of their union)
// are summed before anything is allocated: a few scattered pixels per segment must not claim a grid each.
constexpr std::int64_t kMaxMaskBytes = std::int64_t(4) << 30;

std::string str(DcmItem* item, const DcmTagKey& key) {
  OFString v;
  if (item != nullptr && item->findAndGetOFString(key, v).good()) return v.c_str();
  return {};
}

DcmItem* firstItem(DcmItem* item, const DcmTagKey& seq) {
  DcmItem* out = nullptr;
  if (item != nullptr && item->findAndGetSequenceItem(seq, out, 0).good()) return out;
  return nullptr;
}

bool doubles(DcmItem* item, const DcmTagKey& key, double* out, unsigned long n) {
  if (item == nullptr) return false;
  for (unsigned long i = 0; i < n; ++i) {
    Float64 v = 0;
    if (item->findAndGetFloat64(key, v, i).bad() || !std::isfinite(v)) return false;
    out[i] = v;
  }
  return true;
}

// One functional-group attribute: from the frame's own item, else from the shared item.
DcmItem* groupItem(DcmItem* perFrame, DcmItem* shared, const DcmTagKey& seq) {
  if (DcmItem* it = firstItem(perFrame, seq)) return it;
  return firstItem(shared, seq);
}

struct FramePlane {
  core::Vec3 position{0, 0, 0};
  core::Vec3 rowDir{1, 0, 0}, colDir{0, 1, 0};  // IOP[0..2] (column index increases), IOP[3..5] (row index)
  double rowSpacing = 1, colSpacing = 1;        // PixelSpacing[0], [1]
  std::vector<int> segments;                    // referenced segment numbers (binary/fractional)
};

core::Vec3 add(const core::Vec3& a, const core::Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
core::Vec3 sub(const core::Vec3& a, const core::Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
core::Vec3 scale(const core::Vec3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double dot(const core::Vec3& a, const core::Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
core::Vec3 cross(const core::Vec3& a, const core::Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
core::Vec3 normalized(const core::Vec3& a) {
  const double n = std::sqrt(dot(a, a));
  return n > 0 ? scale(a, 1 / n) : a;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// Where a frame lands on the grid: pixel (c, r) -> origin + c * colStep + r * rowStep.
struct Placement {
  core::Index3 origin{0, 0, 0};
  core::Index3 colStep{1, 0, 0};
  core::Index3 rowStep{0, 1, 0};
};

bool nearInteger(const core::Vec3& v, core::Index3& out) {
  for (int a = 0; a < 3; ++a) {
    const double r = std::round(v[size_t(a)]);
    if (std::abs(v[size_t(a)] - r) > kSegPlacementTolerance) return false;
    out[size_t(a)] = std::int64_t(r);
  }
  return true;
}

bool isUnitAxis(const core::Index3& v) {
  return std::abs(v[0]) + std::abs(v[1]) + std::abs(v[2]) == 1;
}

core::Result<Placement> place(const std::string& path, std::size_t frame, const FramePlane& p, const core::Geometry& g,
                              int rows, int columns) {
  const core::Vec3 o = g.lpsToIndex(p.position);
  const core::Vec3 lastCol = g.lpsToIndex(add(p.position, scale(p.rowDir, p.colSpacing * (columns - 1))));
  const core::Vec3 lastRow = g.lpsToIndex(add(p.position, scale(p.colDir, p.rowSpacing * (rows - 1))));
  Placement pl;
  core::Index3 c{}, r{};
  if (!nearInteger(o, pl.origin) || !nearInteger(lastCol, c) || !nearInteger(lastRow, r))
    return makeError(ErrorCode::GeometryMismatch, path,
                     "frame " + std::to_string(frame + 1) + " at (" + fmt(p.position[0]) + ", " + fmt(p.position[1]) +
                         ", " + fmt(p.position[2]) + ") mm does not fall on the reference grid's voxels (index " +
                         fmt(o[0]) + ", " + fmt(o[1]) + ", " + fmt(o[2]) + ")");
  for (int a = 0; a < 3; ++a) {
    const std::int64_t dc = c[size_t(a)] - pl.origin[size_t(a)], dr = r[size_t(a)] - pl.origin[size_t(a)];
    if (columns > 1 && dc % (columns - 1) != 0) return makeError(ErrorCode::GeometryMismatch, path, "frame " + std::to_string(frame + 1) + ": its columns do not step along one axis of the reference grid (spacing or orientation differ)");
    if (rows > 1 && dr % (rows - 1) != 0) return makeError(ErrorCode::GeometryMismatch, path, "frame " + std::to_string(frame + 1) + ": its rows do not step along one axis of the reference grid (spacing or orientation differ)");
    pl.colStep[size_t(a)] = columns > 1 ? dc / (columns - 1) : 0;
    pl.rowStep[size_t(a)] = rows > 1 ? dr / (rows - 1) : 0;
  }
  // Single-pixel extents give no step: take the axis the direction vectors point along.
  auto axisOf = [&](const core::Vec3& dir, double spacing) {
    core::Index3 s{};
    const core::Vec3 d = sub(g.lpsToIndex(add(p.position, scale(dir, spacing))), o);
    nearInteger(d, s);
    return s;
  };
  if (columns == 1) pl.colStep = axisOf(p.rowDir, p.colSpacing);
  if (rows == 1) pl.rowStep = axisOf(p.colDir, p.rowSpacing);
  if (!isUnitAxis(pl.colStep) || !isUnitAxis(pl.rowStep) || pl.colStep == pl.rowStep)
    return makeError(ErrorCode::GeometryMismatch, path,
                     "frame " + std::to_string(frame + 1) +
                         ": its pixel spacing or orientation does not match the reference grid's (one frame pixel must "
                         "be one voxel)");
  return pl;
}

// A frame's set pixels for one segment: the bounding box on the grid and its bits.
struct Piece {
  int segment = 0;
  core::IndexBox box;
  std::vector<std::uint8_t> bits;  // over box, x fastest
};

// Derives a grid from the SEG's own planes: in-plane axes and spacing from the first frame, slices along the normal
// at SpacingBetweenSlices or else the smallest gap between distinct plane positions.
core::Result<core::Geometry> deriveGrid(const std::string& path, const std::vector<FramePlane>& planes, int rows,
                                        int columns, double spacingBetweenSlices, double sliceThickness) {
  const FramePlane& f = planes.front();
  const core::Vec3 normal = normalized(cross(f.rowDir, f.colDir));
  std::vector<double> proj;
  proj.reserve(planes.size());
  for (const FramePlane& p : planes) {
    if (std::abs(dot(p.rowDir, f.rowDir) - 1) > 1e-3 || std::abs(dot(p.colDir, f.colDir) - 1) > 1e-3)
      return makeError(ErrorCode::Unsupported, path, "frames have different orientations; read it onto a reference grid");
    proj.push_back(dot(p.position, normal));
  }
  std::vector<double> sorted = proj;
  std::sort(sorted.begin(), sorted.end());
  double gap = 0;
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const double d = sorted[i] - sorted[i - 1];
    if (d > 1e-3 && (gap == 0 || d < gap)) gap = d;
  }
  double dz = spacingBetweenSlices > 0 ? spacingBetweenSlices : gap;
  if (dz <= 0) dz = sliceThickness > 0 ? sliceThickness : 1.0;
  const double extent = sorted.back() - sorted.front();
  const double slices = std::round(extent / dz) + 1;
  if (!(slices >= 1) || slices * rows * columns > double(kMaxDerivedVoxels))
    return makeError(ErrorCode::SizeLimit, path,
                     "plane positions span " + fmt(extent) + " mm at " + fmt(dz) + " mm spacing: " + fmt(slices) +
                         " slices of " + std::to_string(columns) + " x " + std::to_string(rows) +
                         " exceed the limit for a grid derived from a SEG");
  // The origin: the first frame's position moved along the normal to the lowest plane.
  const std::size_t lowest = std::size_t(std::min_element(proj.begin(), proj.end()) - proj.begin());
  const core::Vec3 origin = add(f.position, scale(normal, proj[lowest] - dot(f.position, normal)));
  core::Mat3 d;
  for (int r = 0; r < 3; ++r) {
    d(r, 0) = f.rowDir[size_t(r)];
    d(r, 1) = f.colDir[size_t(r)];
    d(r, 2) = normal[size_t(r)];
  }
  const core::Geometry g({columns, rows, std::int64_t(slices)}, {f.colSpacing, f.rowSpacing, dz}, origin, d);
  if (core::Status s = g.validate(path); !s) return s.error();
  // Frames need not share one in-plane position (cropped frames): widen the grid to hold every frame's corners.
  double lo[2] = {0, 0}, hi[2] = {double(columns - 1), double(rows - 1)};
  for (const FramePlane& p : planes)
    for (int corner = 0; corner < 4; ++corner) {
      const core::Vec3 lps = add(add(p.position, scale(p.rowDir, p.colSpacing * ((corner & 1) ? columns - 1 : 0))),
                                 scale(p.colDir, p.rowSpacing * ((corner & 2) ? rows - 1 : 0)));
      const core::Vec3 ijk = g.lpsToIndex(lps);
      for (int a = 0; a < 2; ++a) {
        lo[a] = std::min(lo[a], std::round(ijk[size_t(a)]));
        hi[a] = std::max(hi[a], std::round(ijk[size_t(a)]));
      }
    }
  if (lo[0] == 0 && lo[1] == 0 && hi[0] == columns - 1 && hi[1] == rows - 1) return g;
  const double wide = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * slices;
  if (!(wide <= double(kMaxDerivedVoxels)))
    return makeError(ErrorCode::SizeLimit, path, "the frames' in-plane positions span more than the voxel limit");
  const core::Geometry wider({std::int64_t(hi[0] - lo[0] + 1), std::int64_t(hi[1] - lo[1] + 1), std::int64_t(slices)},
                             g.spacingMm(), g.indexToLps(core::Vec3{lo[0], lo[1], 0}), d);
  if (core::Status s = wider.validate(path); !s) return s.error();
  return wider;
}

}  // namespace

std::int64_t SegSegmentMask::count() const {
  std::int64_t n = 0;
  for (std::uint8_t v : voxels) n += v != 0;
  return n;
}

const SegSegmentInfo* DicomSegDocument::findSegment(int number) const {
  for (const auto& s : segments)
    if (s.number == number) return &s;
  return nullptr;
}

const SegSegmentMask* DicomSegDocument::findMask(int number) const {
  for (const auto& m : masks)
    if (m.number == number) return &m;
  return nullptr;
}

core::Result<DicomSegDocument> readDicomSeg(const std::string& path, const std::optional<core::Geometry>& reference,
                                            const DicomSegReadOptions& options) {
  dicom_detail::ensureDcmtkReady();
  if (reference) {
    if (core::Status s = reference->validate(path + " (reference grid)"); !s) return s.error();
  }
  auto pre = dicom_detail::prescanDicomFile(path);
  if (!pre) return pre.error();
  auto readable = ReadableFile::open(path, "DICOM SEG");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  const OFCondition cond = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange,
                                       readable->sealed() ? 0xFFFFFFFFu : dicom_detail::maxReadLength(*pre), ERM_autoDetect);
  if (cond.bad()) return makeError(ErrorCode::ParseError, path, std::string("DCMTK cannot parse the file: ") + cond.text());
  DcmDataset* ds = ff.getDataset();

  DicomSegDocument doc;
  doc.sopClassUid = str(ds, DCM_SOPClassUID);
  const std::string modality = str(ds, DCM_Modality);
  if (doc.sopClassUid != kSegmentationStorage && doc.sopClassUid != kLabelMapSegmentationStorage)
    return makeError(ErrorCode::Unsupported, path,
                     "not a DICOM SEG (SOP class " + (doc.sopClassUid.empty() ? std::string("missing") : doc.sopClassUid) +
                         ", modality " + (modality.empty() ? std::string("missing") : modality) + ")");
  doc.segmentationType = str(ds, DCM_SegmentationType);
  doc.seriesDescription = str(ds, DCM_SeriesDescription);
  doc.frameOfReferenceUid = str(ds, DCM_FrameOfReferenceUID);
  doc.referencedSeriesUid = str(firstItem(ds, DCM_ReferencedSeriesSequence), DCM_SeriesInstanceUID);
  if (doc.referencedSeriesUid.empty())  // Common Instance Reference module within a study sequence
    doc.referencedSeriesUid = str(firstItem(firstItem(ds, DCM_StudiesContainingOtherReferencedInstancesSequence),
                                            DCM_ReferencedSeriesSequence),
                                  DCM_SeriesInstanceUID);
  if (!options.referenceFrameOfReferenceUid.empty() && !doc.frameOfReferenceUid.empty() &&
      options.referenceFrameOfReferenceUid != doc.frameOfReferenceUid)
    return makeError(ErrorCode::GeometryMismatch, path,
                     "the SEG is on frame of reference " + doc.frameOfReferenceUid + ", the reference series on " +
                         options.referenceFrameOfReferenceUid);

  const bool labelmap = doc.segmentationType == "LABELMAP";
  const bool fractional = doc.segmentationType == "FRACTIONAL";
  if (!labelmap && !fractional && doc.segmentationType != "BINARY")
    return makeError(ErrorCode::Unsupported, path, "SegmentationType '" + doc.segmentationType + "'");

  // Pixel format, checked from the header before anything is allocated.
  DicomPixelFormat f = dicom_detail::readPixelFormat(ds, *pre);
  Uint16 u = 0;
  auto u16 = [&](const DcmTagKey& key, int fallback) { return ds->findAndGetUint16(key, u).good() ? int(u) : fallback; };
  Sint32 frames = 1;
  if (ds->findAndGetSint32(DCM_NumberOfFrames, frames).bad()) frames = 1;
  doc.rows = f.rows;
  doc.columns = f.columns;
  doc.frameCount = frames;
  if (f.rows <= 0 || f.columns <= 0)
    return makeError(ErrorCode::Corrupt, path, "Rows x Columns is " + std::to_string(f.rows) + " x " + std::to_string(f.columns));
  if (frames <= 0) return makeError(ErrorCode::Corrupt, path, "NumberOfFrames is " + std::to_string(frames));
  if (frames > kMaxFrames)
    return makeError(ErrorCode::SizeLimit, path, "NumberOfFrames " + std::to_string(frames) + " exceeds " + std::to_string(kMaxFrames));
  const std::int64_t total = std::int64_t(f.rows) * f.columns * frames;
  if (total > core::Geometry::kMaxVoxels)
    return makeError(ErrorCode::SizeLimit, path, "Rows x Columns x NumberOfFrames exceeds the voxel limit");
  const bool bitsOk = labelmap ? (f.bitsAllocated == 8 || f.bitsAllocated == 16)
                               : fractional ? f.bitsAllocated == 8 : f.bitsAllocated == 1;
  if (!bitsOk)
    return makeError(ErrorCode::Corrupt, path,
                     "BitsAllocated " + std::to_string(f.bitsAllocated) + " is impossible for a " + doc.segmentationType + " SEG");
  if (f.samplesPerPixel != 1)
    return makeError(ErrorCode::Corrupt, path, "SamplesPerPixel " + std::to_string(f.samplesPerPixel));
  if (!pre->pixelDataPresent) return makeError(ErrorCode::Corrupt, path, "no pixel data (7FE0,0010)");
  if (!pre->pixelDataEncapsulated && pre->pixelDataOffset >= 0 &&
      pre->pixelDataLength * 8 < total * f.bitsAllocated)
    return makeError(ErrorCode::Corrupt, path,
                     "pixel data holds " + std::to_string(pre->pixelDataLength) +
                         " bytes, fewer than Rows x Columns x Frames x BitsAllocated need (truncated or damaged)");
  // LABELMAP: pixels holding the Pixel Padding Value belong to no segment.
  const int padding = labelmap ? u16(DCM_PixelPaddingValue, -1) : -1;
  int maxFractional = 1;
  if (fractional) {
    maxFractional = u16(DCM_MaximumFractionalValue, 255);
    if (maxFractional <= 0) return makeError(ErrorCode::Corrupt, path, "MaximumFractionalValue is 0");
  }

  // Segments.
  std::map<int, std::size_t> segmentIndex;
  DcmSequenceOfItems* segSeq = nullptr;
  if (ds->findAndGetSequence(DCM_SegmentSequence, segSeq).bad() || segSeq == nullptr || segSeq->card() == 0)
    return makeError(ErrorCode::Corrupt, path, "no Segment Sequence (0062,0002)");
  for (unsigned long i = 0; i < segSeq->card(); ++i) {
    DcmItem* it = segSeq->getItem(i);
    SegSegmentInfo s;
    Uint16 number = 0;
    if (it->findAndGetUint16(DCM_SegmentNumber, number).bad())
      return makeError(ErrorCode::Corrupt, path, "segment item " + std::to_string(i + 1) + " has no Segment Number");
    s.number = number;
    if (segmentIndex.count(s.number))
      return makeError(ErrorCode::Corrupt, path, "Segment Number " + std::to_string(s.number) + " appears twice");
    s.entry.id = core::Label(s.number);
    s.entry.name = str(it, DCM_SegmentLabel);
    if (s.entry.name.empty()) s.entry.name = "Segment " + std::to_string(s.number);
    s.algorithmType = str(it, DCM_SegmentAlgorithmType);
    s.algorithmName = str(it, DCM_SegmentAlgorithmName);
    Uint16 lab[3];
    bool hasLab = true;
    for (unsigned long k = 0; k < 3; ++k) hasLab = hasLab && it->findAndGetUint16(DCM_RecommendedDisplayCIELabValue, lab[k], k).good();
    s.entry.color = hasLab ? cielabToRgb(lab[0], lab[1], lab[2]) : core::LabelTable::defaultColor(core::Label(s.number));
    core::Terminology& t = s.entry.terminology;
    t.category = codeOf(it, DCM_SegmentedPropertyCategoryCodeSequence);
    t.type = codeOf(it, DCM_SegmentedPropertyTypeCodeSequence);
    t.typeModifier = codeOf(firstItem(it, DCM_SegmentedPropertyTypeCodeSequence), DCM_SegmentedPropertyTypeModifierCodeSequence);
    t.region = codeOf(it, DCM_AnatomicRegionSequence);
    t.regionModifier = codeOf(firstItem(it, DCM_AnatomicRegionSequence), DCM_AnatomicRegionModifierSequence);
    segmentIndex[s.number] = doc.segments.size();
    doc.segments.push_back(std::move(s));
  }

  // Frame planes.
  DcmItem* shared = firstItem(ds, DCM_SharedFunctionalGroupsSequence);
  DcmSequenceOfItems* perFrameSeq = nullptr;
  ds->findAndGetSequence(DCM_PerFrameFunctionalGroupsSequence, perFrameSeq);
  const unsigned long perFrameCount = perFrameSeq ? perFrameSeq->card() : 0;
  if (perFrameCount != 0 && perFrameCount != static_cast<unsigned long>(frames))
    return makeError(ErrorCode::Corrupt, path,
                     "Per-frame Functional Groups hold " + std::to_string(perFrameCount) + " items for " +
                         std::to_string(frames) + " frames");
  std::vector<FramePlane> planes(static_cast<std::size_t>(frames));
  double spacingBetween = 0, thickness = 0;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    DcmItem* pf = perFrameCount ? perFrameSeq->getItem(static_cast<unsigned long>(i)) : nullptr;
    FramePlane& p = planes[i];
    const std::string which = "frame " + std::to_string(i + 1);
    DcmItem* pos = groupItem(pf, shared, DCM_PlanePositionSequence);
    if (pos == nullptr || !doubles(pos, DCM_ImagePositionPatient, p.position.data(), 3))
      return makeError(ErrorCode::Unsupported, path,
                       which + " has no Plane Position (Patient) (a slide-microscopy or tiled SEG has no patient "
                               "positions; only volumetric SEGs are read)");
    double iop[6];
    if (!doubles(groupItem(pf, shared, DCM_PlaneOrientationSequence), DCM_ImageOrientationPatient, iop, 6))
      return makeError(ErrorCode::Corrupt, path, which + " has no Plane Orientation (Patient)");
    p.rowDir = normalized({iop[0], iop[1], iop[2]});
    p.colDir = normalized({iop[3], iop[4], iop[5]});
    if (std::abs(dot(p.rowDir, p.colDir)) > core::Geometry::kOrthonormalTolerance || dot(p.rowDir, p.rowDir) < 0.5 ||
        dot(p.colDir, p.colDir) < 0.5)
      return makeError(ErrorCode::Corrupt, path, which + ": Image Orientation (Patient) is not two orthogonal unit vectors");
    DcmItem* measures = groupItem(pf, shared, DCM_PixelMeasuresSequence);
    double ps[2];
    if (!doubles(measures, DCM_PixelSpacing, ps, 2) || !(ps[0] > 0) || !(ps[1] > 0))
      return makeError(ErrorCode::Corrupt, path, which + " has no valid Pixel Spacing in its Pixel Measures");
    p.rowSpacing = ps[0];
    p.colSpacing = ps[1];
    if (i == 0) {
      doubles(measures, DCM_SpacingBetweenSlices, &spacingBetween, 1);
      doubles(measures, DCM_SliceThickness, &thickness, 1);
    }
    if (!labelmap) {
      DcmItem* ident = groupItem(pf, shared, DCM_SegmentIdentificationSequence);
      Uint16 ref = 0;
      for (unsigned long k = 0; ident != nullptr && ident->findAndGetUint16(DCM_ReferencedSegmentNumber, ref, k).good(); ++k)
        p.segments.push_back(ref);
      if (p.segments.size() != 1)
        return makeError(ErrorCode::Corrupt, path,
                         which + " references " + std::to_string(p.segments.size()) + " segments (one expected)");
      if (!segmentIndex.count(p.segments.front()))
        return makeError(ErrorCode::Corrupt, path,
                         which + " references segment " + std::to_string(p.segments.front()) + ", which is not defined");
      doc.segments[segmentIndex[p.segments.front()]].frames++;
    }
  }

  // The grid and where each frame lands on it.
  if (reference) {
    doc.grid = *reference;
  } else {
    auto g = deriveGrid(path, planes, f.rows, f.columns, spacingBetween, thickness);
    if (!g) return g.error();
    doc.grid = *g;
  }
  std::vector<Placement> placements;
  placements.reserve(planes.size());
  for (std::size_t i = 0; i < planes.size(); ++i) {
    auto pl = place(path, i, planes[i], doc.grid, f.rows, f.columns);
    if (!pl) return pl.error();
    placements.push_back(*pl);
  }

  // Pixels: one frame at a time; each frame's set pixels become a piece per segment, cropped to their bounding box.
  std::vector<Piece> pieces;
  std::string outside;
  std::vector<int> numbers(static_cast<std::size_t>(frames));
  for (int i = 0; i < frames; ++i) numbers[std::size_t(i)] = i;
  const int R = f.rows, C = f.columns;
  std::map<int, std::size_t> labelmapFrames;
  std::string unknownLabel;
  core::Status decoded;
  try {
    decoded = dicom_detail::decodeFrames(path, f, numbers, [&](std::size_t i, const std::int32_t* s) {
      if (!outside.empty() || !unknownLabel.empty()) return;
      const Placement& pl = placements[i];
      // Frame-space bounding boxes per value.
      struct Box { int c0, c1, r0, r1; };
      std::map<int, Box> boxes;  // node-based: pointers stay valid as values are added
      int lastSeg = 0;
      Box* lastBox = nullptr;
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
          const std::int32_t v = s[std::size_t(r) * std::size_t(C) + std::size_t(c)];
          int seg = 0;
          if (labelmap) seg = v == padding ? 0 : v;
          else if (fractional) seg = (std::int64_t(v) * 2 >= maxFractional) ? planes[i].segments.front() : 0;
          else seg = v != 0 ? planes[i].segments.front() : 0;
          if (seg <= 0) continue;
          if (seg != lastSeg) {  // runs of one value: look the box up once per run
            lastBox = &boxes.try_emplace(seg, Box{c, c, r, r}).first->second;
            lastSeg = seg;
          }
          Box& b = *lastBox;
          b.c0 = std::min(b.c0, c); b.c1 = std::max(b.c1, c);
          b.r0 = std::min(b.r0, r); b.r1 = std::max(b.r1, r);
        }
      for (const auto& [seg, b] : boxes) {
        if (labelmap) {
          if (!segmentIndex.count(seg)) {
            unknownLabel = "frame " + std::to_string(i + 1) + " holds value " + std::to_string(seg) +
                           ", which is not a defined segment";
            return;
          }
          labelmapFrames[seg]++;
        }
        Piece piece;
        piece.segment = seg;
        auto toGrid = [&](int c, int r) {
          core::Index3 x;
          for (int a = 0; a < 3; ++a)
            x[size_t(a)] = pl.origin[size_t(a)] + c * pl.colStep[size_t(a)] + r * pl.rowStep[size_t(a)];
          return x;
        };
        piece.box.include(toGrid(b.c0, b.r0));
        piece.box.include(toGrid(b.c1, b.r1));
        if (!doc.grid.contains(piece.box.min) || !doc.grid.contains(piece.box.max)) {
          outside = "frame " + std::to_string(i + 1) + " has segment " + std::to_string(seg) +
                    " pixels outside the grid";
          return;
        }
        const std::int64_t nx = piece.box.max[0] - piece.box.min[0] + 1, ny = piece.box.max[1] - piece.box.min[1] + 1;
        piece.bits.assign(std::size_t(piece.box.voxelCount()), 0);
        for (int r = b.r0; r <= b.r1; ++r)
          for (int c = b.c0; c <= b.c1; ++c) {
            const std::int32_t v = s[std::size_t(r) * std::size_t(C) + std::size_t(c)];
            const bool set = labelmap ? v == seg : fractional ? std::int64_t(v) * 2 >= maxFractional : v != 0;
            if (!set) continue;
            const core::Index3 x = toGrid(c, r);
            const std::int64_t li = (x[0] - piece.box.min[0]) + nx * ((x[1] - piece.box.min[1]) + ny * (x[2] - piece.box.min[2]));
            piece.bits[std::size_t(li)] = 1;
          }
        pieces.push_back(std::move(piece));
      }
    });
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the segment masks");
  }
  if (!decoded) return decoded.error();
  if (!outside.empty()) return makeError(ErrorCode::GeometryMismatch, path, outside);
  if (!unknownLabel.empty()) return makeError(ErrorCode::Corrupt, path, unknownLabel);
  if (labelmap)
    for (auto& s : doc.segments) s.frames = labelmapFrames.count(s.number) ? labelmapFrames[s.number] : 0;

  // Assemble one mask per segment.
  std::map<int, core::IndexBox> boxes;
  for (const Piece& p : pieces) boxes[p.segment].include(p.box);
  core::IndexBox all;
  std::int64_t maskBytes = 0;
  for (const auto& entry : boxes) {
    all.include(entry.second);
    maskBytes += entry.second.voxelCount();
  }
  if (boxes.size() > 1) maskBytes += all.voxelCount();
  if (maskBytes > kMaxMaskBytes)
    return makeError(ErrorCode::SizeLimit, path,
                     "the segments' bounding boxes need " + std::to_string(maskBytes) + " bytes of masks, over the limit of " +
                         std::to_string(kMaxMaskBytes));
  try {
    for (const auto& [seg, box] : boxes) {
      SegSegmentMask m;
      m.number = seg;
      m.box = box;
      m.voxels.assign(std::size_t(box.voxelCount()), 0);
      doc.masks.push_back(std::move(m));
    }
    std::map<int, std::size_t> maskIndex;
    for (std::size_t k = 0; k < doc.masks.size(); ++k) maskIndex[doc.masks[k].number] = k;
    for (Piece& p : pieces) {
      SegSegmentMask& m = doc.masks[maskIndex[p.segment]];
      const std::int64_t mx = m.box.max[0] - m.box.min[0] + 1, my = m.box.max[1] - m.box.min[1] + 1;
      std::size_t src = 0;
      for (std::int64_t z = p.box.min[2]; z <= p.box.max[2]; ++z)
        for (std::int64_t y = p.box.min[1]; y <= p.box.max[1]; ++y)
          for (std::int64_t x = p.box.min[0]; x <= p.box.max[0]; ++x, ++src)
            if (p.bits[src])
              m.voxels[std::size_t((x - m.box.min[0]) + mx * ((y - m.box.min[1]) + my * (z - m.box.min[2])))] = 1;
      std::vector<std::uint8_t>().swap(p.bits);
    }
    // Overlap: count, per voxel of the union box, how many masks claim it (saturating at 2).
    if (doc.masks.size() > 1) {
      const std::int64_t ax = all.max[0] - all.min[0] + 1, ay = all.max[1] - all.min[1] + 1;
      std::vector<std::uint8_t> claims(std::size_t(all.voxelCount()), 0);
      for (const SegSegmentMask& m : doc.masks) {
        std::size_t src = 0;
        for (std::int64_t z = m.box.min[2]; z <= m.box.max[2]; ++z)
          for (std::int64_t y = m.box.min[1]; y <= m.box.max[1]; ++y)
            for (std::int64_t x = m.box.min[0]; x <= m.box.max[0]; ++x, ++src)
              if (m.voxels[src]) {
                std::uint8_t& n = claims[std::size_t((x - all.min[0]) + ax * ((y - all.min[1]) + ay * (z - all.min[2])))];
                if (n == 1) doc.overlappingVoxels++;
                if (n < 2) n++;
              }
      }
    }
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the segment masks");
  }
  return doc;
}

core::Result<std::pair<core::LabelMap, core::LabelTable>> segToLabelMap(const DicomSegDocument& doc, bool allowOverlap) {
  const std::string subject = "DICOM SEG" + (doc.seriesDescription.empty() ? std::string() : " '" + doc.seriesDescription + "'");
  if (doc.overlappingVoxels > 0 && !allowOverlap)
    return makeError(ErrorCode::InvalidArgument, subject,
                     std::to_string(doc.overlappingVoxels) +
                         " voxels belong to more than one segment; a label map holds one label per voxel (allow "
                         "overlap to let the highest-numbered segment win)");
  core::LabelTable table;
  for (const SegSegmentInfo& s : doc.segments) {
    if (s.number == 0 && doc.segmentationType == "LABELMAP") continue;  // the background segment: label 0
    if (s.number < 1 || s.number > std::numeric_limits<core::Label>::max())
      return makeError(ErrorCode::Unsupported, subject, "segment number " + std::to_string(s.number) + " is not a label id (1..65535)");
    core::LabelEntry e = s.entry;
    e.id = core::Label(s.number);
    table.set(e);
  }
  auto volume = core::Volume<core::Label>::create(doc.grid, 0, subject);
  if (!volume) return volume.error();
  std::vector<const SegSegmentMask*> order;
  for (const auto& m : doc.masks) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->number < b->number; });
  core::Volume<core::Label>& v = *volume;
  for (const SegSegmentMask* m : order) {
    if (!doc.grid.contains(m->box.min) || !doc.grid.contains(m->box.max) ||
        m->voxels.size() != std::size_t(m->box.voxelCount()))
      return makeError(ErrorCode::InvalidArgument, subject, "mask of segment " + std::to_string(m->number) + " does not fit the grid");
    std::size_t src = 0;
    for (std::int64_t z = m->box.min[2]; z <= m->box.max[2]; ++z)
      for (std::int64_t y = m->box.min[1]; y <= m->box.max[1]; ++y)
        for (std::int64_t x = m->box.min[0]; x <= m->box.max[0]; ++x, ++src)
          if (m->voxels[src]) v.at({x, y, z}) = core::Label(m->number);
  }
  return std::make_pair(core::LabelMap(std::move(volume).value()), std::move(table));
}

core::Rgba cielabToRgb(std::uint16_t l, std::uint16_t a, std::uint16_t b) {
  const double L = l * 100.0 / 65535.0, A = a * 255.0 / 65535.0 - 128.0, B = b * 255.0 / 65535.0 - 128.0;
  const double fy = (L + 16) / 116, fx = fy + A / 500, fz = fy - B / 200;
  auto finv = [](double t) { return t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29); };
  const double X = 0.95047 * finv(fx), Y = finv(fy), Z = 1.08883 * finv(fz);
  const double lin[3] = {3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z, -0.9692660 * X + 1.8760108 * Y + 0.0415560 * Z,
                         0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z};
  std::uint8_t out[3];
  for (int k = 0; k < 3; ++k) {
    double c = std::clamp(lin[k], 0.0, 1.0);
    c = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
    out[k] = std::uint8_t(std::lround(std::clamp(c, 0.0, 1.0) * 255));
  }
  return core::Rgba{out[0], out[1], out[2], 255};
}

}  // namespace delineate::io
