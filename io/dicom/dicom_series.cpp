// Series bookkeeping and the slice geometry analysis (no DCMTK here: this is plain arithmetic on DicomSlice).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "io/dicom/dicom.h"

namespace delineate::io {
namespace {

constexpr double kDuplicateMm = 1e-3;
constexpr double kTiltDegrees = 0.01;
constexpr double kPi = 3.14159265358979323846;

double dot(const core::Vec3& a, const core::Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
core::Vec3 cross(const core::Vec3& a, const core::Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const core::Vec3& a) { return std::sqrt(dot(a, a)); }
core::Vec3 normalized(const core::Vec3& a) {
  const double n = norm(a);
  return n > 0 ? core::Vec3{a[0] / n, a[1] / n, a[2] / n} : a;
}

std::string mm(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void addIssue(DicomSeries& s, SeriesIssueKind kind, std::string detail) {
  s.issues.push_back(SeriesIssue{kind, std::move(detail)});
}

}  // namespace

const char* seriesIssueName(SeriesIssueKind kind) {
  switch (kind) {
    case SeriesIssueKind::MissingSlices: return "missing slices";
    case SeriesIssueKind::NonUniformSpacing: return "non-uniform spacing";
    case SeriesIssueKind::DuplicatePositions: return "duplicate positions";
    case SeriesIssueKind::GantryTilt: return "gantry tilt";
    case SeriesIssueKind::MissingGeometry: return "missing geometry";
    case SeriesIssueKind::MissingSeriesUid: return "missing SeriesInstanceUID";
    case SeriesIssueKind::Split: return "split series";
    case SeriesIssueKind::DuplicateInstances: return "duplicate instances";
    case SeriesIssueKind::ConflictingInstances: return "conflicting instances";
    case SeriesIssueKind::UnreadableFiles: return "unreadable files";
  }
  return "issue";
}

bool breaksRegularGrid(SeriesIssueKind kind) {
  return kind == SeriesIssueKind::MissingSlices || kind == SeriesIssueKind::NonUniformSpacing ||
         kind == SeriesIssueKind::DuplicatePositions || kind == SeriesIssueKind::GantryTilt;
}

bool DicomSeries::isRegular() const {
  return std::none_of(issues.begin(), issues.end(), [](const SeriesIssue& i) { return breaksRegularGrid(i.kind); });
}

std::string DicomSeries::key() const {
  std::string k = seriesInstanceUid.empty() ? "noseriesuid:" + folder + ":" + seriesNumber : seriesInstanceUid;
  if (splitIndex > 0) k += "#" + std::to_string(splitIndex);
  return k;
}

bool DicomSeries::hasConflictingInstances() const {
  return std::any_of(duplicates.begin(), duplicates.end(), [](const DicomDuplicateFile& d) { return !d.identical; });
}

std::string DicomSeries::conflictDescription() const {
  std::string out;
  for (const DicomDuplicateFile& d : duplicates)
    if (!d.identical)
      out += (out.empty() ? "" : "; ") + d.sameAs + " and " + d.path + " carry SOPInstanceUID " + d.sopInstanceUid +
             " with different bytes";
  return out;
}

std::vector<const DicomSeries*> DicomIndex::allSeries() const {
  std::vector<const DicomSeries*> out;
  for (const auto& p : patients)
    for (const auto& st : p.studies)
      for (const auto& se : st.series) out.push_back(&se);
  return out;
}

const DicomSeries* DicomIndex::findSeries(const std::string& keyOrNumber) const {
  const auto all = allSeries();
  for (const DicomSeries* s : all)
    if (s->key() == keyOrNumber) return s;
  const DicomSeries* byNumber = nullptr;
  for (const DicomSeries* s : all) {
    if (s->seriesNumber == keyOrNumber && s->isImage) {
      if (byNumber) return nullptr;  // ambiguous
      byNumber = s;
    }
  }
  return byNumber;
}

void analyzeSeriesGeometry(DicomSeries& series) {
  auto& slices = series.slices;
  series.geometry.reset();
  series.issues.erase(std::remove_if(series.issues.begin(), series.issues.end(),
                                     [](const SeriesIssue& i) {
                                       return breaksRegularGrid(i.kind) || i.kind == SeriesIssueKind::MissingGeometry;
                                     }),
                      series.issues.end());
  series.gantryTiltDegrees = 0;
  series.sliceSpacingMm = 0;
  if (slices.empty() || !series.isImage) return;

  const DicomSlice& first = slices.front();
  const bool allPositions =
      std::all_of(slices.begin(), slices.end(), [](const DicomSlice& s) { return s.hasPosition; });
  std::string missing;
  if (!first.hasOrientation) missing += "ImageOrientationPatient ";
  if (!allPositions) missing += "ImagePositionPatient ";
  if (!first.hasPixelSpacing) missing += "PixelSpacing ";
  if (!missing.empty()) {
    missing.pop_back();
    addIssue(series, SeriesIssueKind::MissingGeometry,
             "no " + missing + ": assumed identity orientation, 1 mm pixels and slices stacked by InstanceNumber");
  }

  const core::Vec3 row = normalized(first.rowDirection);
  const core::Vec3 col = normalized(first.columnDirection);
  const core::Vec3 normal = normalized(cross(row, col));

  // Sort along the normal (by InstanceNumber, then frame, where positions are missing or equal).
  std::vector<double> along(slices.size());
  if (allPositions) {
    // By position (a strict order), then each run of positions within kDuplicateMm by InstanceNumber and frame, so
    // the slice kept for a duplicated position does not depend on file order.
    std::stable_sort(slices.begin(), slices.end(), [&](const DicomSlice& a, const DicomSlice& b) {
      return dot(a.positionLps, normal) < dot(b.positionLps, normal);
    });
    for (std::size_t runStart = 0; runStart < slices.size();) {
      std::size_t runEnd = runStart + 1;
      while (runEnd < slices.size() && dot(slices[runEnd].positionLps, normal) -
                                               dot(slices[runEnd - 1].positionLps, normal) <= kDuplicateMm)
        ++runEnd;
      std::stable_sort(slices.begin() + long(runStart), slices.begin() + long(runEnd),
                       [](const DicomSlice& a, const DicomSlice& b) {
                         return a.instanceNumber != b.instanceNumber ? a.instanceNumber < b.instanceNumber
                                                                     : a.frame < b.frame;
                       });
      runStart = runEnd;
    }
    for (std::size_t k = 0; k < slices.size(); ++k) along[k] = dot(slices[k].positionLps, normal);
  } else {
    std::stable_sort(slices.begin(), slices.end(), [](const DicomSlice& a, const DicomSlice& b) {
      return a.instanceNumber != b.instanceNumber ? a.instanceNumber < b.instanceNumber : a.frame < b.frame;
    });
    const double step = first.sliceThicknessMm > 0 ? first.sliceThicknessMm : 1.0;
    for (std::size_t k = 0; k < slices.size(); ++k) along[k] = double(k) * step;
  }

  // Unique positions: duplicates are dropped from the grid (gridIndex -1).
  std::vector<std::size_t> unique;
  int duplicates = 0;
  for (std::size_t k = 0; k < slices.size(); ++k) {
    if (!unique.empty() && along[k] - along[unique.back()] <= kDuplicateMm) {
      ++duplicates;
      continue;
    }
    unique.push_back(k);
  }
  if (duplicates > 0)
    addIssue(series, SeriesIssueKind::DuplicatePositions,
             std::to_string(duplicates) + " slice(s) share a position with another slice (several acquisitions, "
                                          "echoes or time points in one series?); the first by InstanceNumber is kept");

  std::vector<double> gaps;
  for (std::size_t u = 1; u < unique.size(); ++u) gaps.push_back(along[unique[u]] - along[unique[u - 1]]);
  double spacing = first.sliceThicknessMm > 0 ? first.sliceThicknessMm : 1.0;
  if (!gaps.empty()) {
    std::vector<double> sorted = gaps;
    std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
    spacing = sorted[sorted.size() / 2];
  }
  series.sliceSpacingMm = spacing;

  // Gaps: missing slices (whole multiples) and non-uniform spacing; grid indices follow the true positions when
  // slices are missing so every acquired slice lands where it was scanned.
  int missingCount = 0;
  std::string missingWhere;
  double worstDeviation = 0;
  int nonUniformGaps = 0;
  const double tolerance = std::max(0.01, 0.01 * spacing);
  for (auto& s : slices) s.gridIndex = -1;
  int k = 0;
  if (!unique.empty()) slices[unique[0]].gridIndex = 0;
  for (std::size_t g = 0; g < gaps.size(); ++g) {
    const double ratio = gaps[g] / spacing;
    const double whole = std::round(ratio);
    int step = 1;
    if (whole >= 2 && std::abs(ratio - whole) <= 0.1) {
      step = int(whole);
      missingCount += step - 1;
      if (missingWhere.size() < 200)
        missingWhere += (missingWhere.empty() ? "" : ", ") + std::to_string(step - 1) + " between " +
                        mm(along[unique[g]]) + " and " + mm(along[unique[g + 1]]) + " mm";
    } else if (std::abs(gaps[g] - spacing) > tolerance) {
      ++nonUniformGaps;
      worstDeviation = std::max(worstDeviation, std::abs(gaps[g] - spacing));
    }
    k += step;
    slices[unique[g + 1]].gridIndex = k;
  }
  const int depth = unique.empty() ? 0 : k + 1;
  if (missingCount > 0)
    addIssue(series, SeriesIssueKind::MissingSlices,
             std::to_string(missingCount) + " slice(s) missing (" + missingWhere + " along the normal, slice gap " +
                 mm(spacing) + " mm)");
  // Slices lost at the ends leave a regular grid; ImagesInAcquisition, where the scanner wrote it, still counts
  // them. Only for an unsplit series of one acquisition whose slices all agree on the count (the count covers the
  // acquisition, which a split or several acquisitions would divide).
  if (series.splitIndex == 0 && !slices.empty()) {
    const int declared = slices.front().imagesInAcquisition;
    const int acquisition = slices.front().acquisitionNumber;
    const bool agree = declared > 0 && std::all_of(slices.begin(), slices.end(), [&](const DicomSlice& s) {
      return s.frame == 0 && s.imagesInAcquisition == declared && s.acquisitionNumber == acquisition;
    });
    const int lostAtEnds = declared - int(unique.size()) - missingCount;
    if (agree && lostAtEnds > 0)
      addIssue(series, SeriesIssueKind::MissingSlices,
               "ImagesInAcquisition says " + std::to_string(declared) + " but " + std::to_string(unique.size()) +
                   " slice position(s) are here" +
                   (missingCount > 0 ? " and the gaps hold " + std::to_string(missingCount) : std::string()) + ": " +
                   std::to_string(lostAtEnds) + " slice(s) missing, at the first or last end of the stack");
  }
  if (nonUniformGaps > 0)
    addIssue(series, SeriesIssueKind::NonUniformSpacing,
             std::to_string(nonUniformGaps) + " gap(s) differ from the median gap of " + mm(spacing) +
                 " mm, by up to " + mm(worstDeviation) + " mm");

  // Gantry tilt: consecutive positions step off the normal.
  if (allPositions) {
    double worst = 0;
    for (std::size_t u = 1; u < unique.size(); ++u) {
      const auto& a = slices[unique[u - 1]].positionLps;
      const auto& b = slices[unique[u]].positionLps;
      const core::Vec3 d{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double len = norm(d);
      if (len <= kDuplicateMm) continue;
      const double c = std::min(1.0, std::abs(dot(d, normal)) / len);
      worst = std::max(worst, std::acos(c) * 180.0 / kPi);
    }
    if (worst > kTiltDegrees) {
      series.gantryTiltDegrees = worst;
      addIssue(series, SeriesIssueKind::GantryTilt,
               "slices step off their normal by " + mm(worst) +
                   " degrees (gantry tilt or a sheared stack); stacking them along the normal shifts slices by up to " +
                   mm(std::tan(worst * kPi / 180.0) * spacing * double(std::max(0, depth - 1))) + " mm");
    }
  }

  core::Mat3 dir;
  for (int r = 0; r < 3; ++r) {
    dir(r, 0) = row[std::size_t(r)];
    dir(r, 1) = col[std::size_t(r)];
    dir(r, 2) = normal[std::size_t(r)];
  }
  const core::Vec3 origin = unique.empty() ? core::Vec3{0, 0, 0} : slices[unique[0]].positionLps;
  core::Geometry g({series.format.columns, series.format.rows, depth},
                   {first.columnSpacingMm, first.rowSpacingMm, spacing > 0 ? spacing : 1.0}, origin, dir);
  if (core::Status valid = g.validate(series.key()); valid) {
    series.geometry = g;
  } else {
    addIssue(series, SeriesIssueKind::MissingGeometry,
             "the slices do not form a valid grid: " + valid.error().detail + " (the series cannot be loaded)");
  }
}

}  // namespace delineate::io
