#include "core/geometry.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace delineate::core {

double Mat3::determinant() const {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
         m[2] * (m[3] * m[7] - m[4] * m[6]);
}

Mat3 Mat3::inverse() const {
  const double det = determinant();
  Mat3 r;
  r.m = {(m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
         (m[5] * m[6] - m[3] * m[8]) / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
         (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det};
  return r;
}

Mat3 Mat3::transposed() const {
  Mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = (*this)(j, i);
  return r;
}

Vec3 Mat3::operator*(const Vec3& v) const {
  return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
          m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}

Mat3 Mat3::operator*(const Mat3& o) const {
  Mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += (*this)(i, k) * o(k, j);
      r(i, j) = s;
    }
  return r;
}

std::int64_t IndexBox::voxelCount() const {
  if (empty()) return 0;
  return (max[0] - min[0] + 1) * (max[1] - min[1] + 1) * (max[2] - min[2] + 1);
}

void IndexBox::include(const Index3& ijk) {
  if (empty()) {
    min = ijk;
    max = ijk;
    return;
  }
  for (int a = 0; a < 3; ++a) {
    min[a] = std::min(min[a], ijk[a]);
    max[a] = std::max(max[a], ijk[a]);
  }
}

void IndexBox::include(const IndexBox& other) {
  if (other.empty()) return;
  include(other.min);
  include(other.max);
}

IndexBox IndexBox::intersected(const IndexBox& other) const {
  IndexBox r;
  for (int a = 0; a < 3; ++a) {
    r.min[a] = std::max(min[a], other.min[a]);
    r.max[a] = std::min(max[a], other.max[a]);
  }
  if (r.empty()) return IndexBox{};
  return r;
}

bool IndexBox::contains(const Index3& ijk) const {
  for (int a = 0; a < 3; ++a)
    if (ijk[a] < min[a] || ijk[a] > max[a]) return false;
  return true;
}

Geometry::Geometry(Size3 dimensions, Vec3 spacingMm, Vec3 originLps, Mat3 direction)
    : m_dimensions(dimensions), m_spacingMm(spacingMm), m_originLps(originLps), m_direction(direction) {
  updateMatrices();
}

Status Geometry::validate(const Size3& dims, const Vec3& spacing, const Vec3& origin, const Mat3& direction,
                          const std::string& subject) {
  auto fail = [&](const std::string& why) { return Status(makeError(ErrorCode::InvalidGeometry, subject, why)); };
  for (int a = 0; a < 3; ++a) {
    if (dims[a] <= 0) return fail("dimension " + std::to_string(a) + " is " + std::to_string(dims[a]) + ", must be > 0");
    if (!std::isfinite(spacing[a]) || spacing[a] <= 0)
      return fail("spacing " + std::to_string(a) + " is " + std::to_string(spacing[a]) + " mm, must be finite and > 0");
    if (!std::isfinite(origin[a])) return fail("origin is not finite");
  }
  // Checked one factor at a time so the product cannot overflow before the comparison.
  std::int64_t count = 1;
  for (int a = 0; a < 3; ++a) {
    if (dims[a] > kMaxVoxels / count)
      return Status(makeError(ErrorCode::SizeLimit, subject,
                              std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
                                  " voxels exceeds the limit of " + std::to_string(kMaxVoxels)));
    count *= dims[a];
  }
  for (double v : direction.m)
    if (!std::isfinite(v)) return fail("direction matrix is not finite");
  // Singular when the columns are (nearly) linearly dependent: compare |det| with the product of column norms.
  double norms = 1;
  for (int c = 0; c < 3; ++c) {
    const double n = std::sqrt(direction(0, c) * direction(0, c) + direction(1, c) * direction(1, c) +
                               direction(2, c) * direction(2, c));
    if (n < 1e-12) return fail("direction column " + std::to_string(c) + " is zero");
    norms *= n;
  }
  if (std::abs(direction.determinant()) < 1e-6 * norms) return fail("direction matrix is singular");
  for (int c = 0; c < 3; ++c) {
    for (int c2 = c; c2 < 3; ++c2) {
      const double dot = direction(0, c) * direction(0, c2) + direction(1, c) * direction(1, c2) +
                         direction(2, c) * direction(2, c2);
      const double expected = c == c2 ? 1.0 : 0.0;
      if (std::abs(dot - expected) > kOrthonormalTolerance)
        return fail(c == c2 ? "direction column " + std::to_string(c) + " is not a unit vector"
                            : "direction columns " + std::to_string(c) + " and " + std::to_string(c2) +
                                  " are not orthogonal (sheared grid)");
    }
  }
  return Status::success();
}

Status Geometry::validate(const std::string& subject) const {
  return validate(m_dimensions, m_spacingMm, m_originLps, m_direction, subject);
}

void Geometry::updateMatrices() {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m_indexToLps(r, c) = m_direction(r, c) * m_spacingMm[static_cast<std::size_t>(c)];
  const double det = m_indexToLps.determinant();
  m_lpsToIndex = (std::isfinite(det) && det != 0) ? m_indexToLps.inverse() : Mat3{};
}

Vec3 Geometry::indexToLps(const Vec3& ijk) const {
  Vec3 p = m_indexToLps * ijk;
  return {p[0] + m_originLps[0], p[1] + m_originLps[1], p[2] + m_originLps[2]};
}

Vec3 Geometry::indexToLps(const Index3& ijk) const {
  return indexToLps(Vec3{double(ijk[0]), double(ijk[1]), double(ijk[2])});
}

Vec3 Geometry::lpsToIndex(const Vec3& p) const {
  return m_lpsToIndex * Vec3{p[0] - m_originLps[0], p[1] - m_originLps[1], p[2] - m_originLps[2]};
}

Index3 Geometry::lpsToNearestIndex(const Vec3& p) const {
  Vec3 c = lpsToIndex(p);
  return {std::llround(c[0]), std::llround(c[1]), std::llround(c[2])};
}

std::array<double, 16> Geometry::indexToLpsAffine() const {
  std::array<double, 16> a{};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) a[static_cast<std::size_t>(r * 4 + c)] = m_indexToLps(r, c);
    a[static_cast<std::size_t>(r * 4 + 3)] = m_originLps[static_cast<std::size_t>(r)];
  }
  a[15] = 1;
  return a;
}

std::string Geometry::orientationCode() const {
  std::string code;
  for (int c = 0; c < 3; ++c) {
    int best = 0;
    for (int r = 1; r < 3; ++r)
      if (std::abs(m_direction(r, c)) > std::abs(m_direction(best, c))) best = r;
    const bool positive = m_direction(best, c) > 0;
    static const char kPositive[] = {'L', 'P', 'S'};
    static const char kNegative[] = {'R', 'A', 'I'};
    code += positive ? kPositive[best] : kNegative[best];
  }
  return code;
}

bool Geometry::isCloseTo(const Geometry& o, const GeometryTolerance& tol) const {
  if (m_dimensions != o.m_dimensions) return false;
  for (std::size_t a = 0; a < 3; ++a) {
    const double s = std::max(std::abs(m_spacingMm[a]), std::abs(o.m_spacingMm[a]));
    if (std::abs(m_spacingMm[a] - o.m_spacingMm[a]) > tol.spacingRelative * s) return false;
    if (std::abs(m_originLps[a] - o.m_originLps[a]) > tol.originMm) return false;
  }
  for (std::size_t i = 0; i < 9; ++i)
    if (std::abs(m_direction.m[i] - o.m_direction.m[i]) > tol.direction) return false;
  return true;
}

}  // namespace delineate::core
