#pragma once
// Image grid geometry in LPS (DICOM/ITK convention). NIfTI's RAS is converted at the io boundary.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace delineate::core {

using Vec3 = std::array<double, 3>;
using Index3 = std::array<std::int64_t, 3>;
using Size3 = std::array<std::int64_t, 3>;

// 3x3 matrix, row-major. As a direction matrix its columns are the LPS unit vectors of the i, j, k axes.
struct Mat3 {
  std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};

  static Mat3 identity() { return Mat3{}; }
  double operator()(int row, int col) const { return m[static_cast<std::size_t>(row * 3 + col)]; }
  double& operator()(int row, int col) { return m[static_cast<std::size_t>(row * 3 + col)]; }
  double determinant() const;
  Mat3 inverse() const;  // caller checks determinant first
  Mat3 transposed() const;
  Vec3 operator*(const Vec3& v) const;
  Mat3 operator*(const Mat3& o) const;
};

// An axis-aligned box of voxel indices, inclusive on both ends. Empty when any max < min.
struct IndexBox {
  Index3 min{0, 0, 0};
  Index3 max{-1, -1, -1};

  bool empty() const { return max[0] < min[0] || max[1] < min[1] || max[2] < min[2]; }
  std::int64_t voxelCount() const;
  void include(const Index3& ijk);
  void include(const IndexBox& other);
  IndexBox intersected(const IndexBox& other) const;
  bool contains(const Index3& ijk) const;
  bool operator==(const IndexBox& o) const { return min == o.min && max == o.max; }
};

// Tolerances for Geometry::isCloseTo. Defaults follow what readers of the same grid in different formats agree to:
// float32 headers (NIfTI) carry about 7 significant digits.
struct GeometryTolerance {
  double spacingRelative = 1e-5;
  double originMm = 1e-3;
  double direction = 1e-5;
};

class Geometry {
 public:
  // Largest voxel count we accept from any header: 2^36 (64 Gi voxels) keeps every index product in 64 bits.
  static constexpr std::int64_t kMaxVoxels = std::int64_t(1) << 36;

  Geometry() = default;  // an empty 0x0x0 grid
  Geometry(Size3 dimensions, Vec3 spacingMm, Vec3 originLps, Mat3 direction = Mat3::identity());

  // How far direction columns may stray from unit length and from each other (float32 headers and 6-decimal DICOM
  // cosines stay far inside this).
  static constexpr double kOrthonormalTolerance = 1e-3;

  // Rejects non-positive or non-finite dimensions/spacing/origin, non-finite, singular or non-orthonormal
  // directions (sheared grids: painting, volumes and every viewer assume orthonormal axes; readers resample or refuse
  // them) and grids larger than kMaxVoxels. `subject` names the file in the error.
  static Status validate(const Size3& dimensions, const Vec3& spacingMm, const Vec3& originLps,
                         const Mat3& direction, const std::string& subject = {});
  Status validate(const std::string& subject = {}) const;

  const Size3& dimensions() const { return m_dimensions; }
  const Vec3& spacingMm() const { return m_spacingMm; }
  const Vec3& originLps() const { return m_originLps; }
  const Mat3& direction() const { return m_direction; }

  std::int64_t voxelCount() const { return m_dimensions[0] * m_dimensions[1] * m_dimensions[2]; }
  double voxelVolumeMm3() const { return m_spacingMm[0] * m_spacingMm[1] * m_spacingMm[2]; }
  IndexBox fullBox() const { return IndexBox{{0, 0, 0}, {m_dimensions[0] - 1, m_dimensions[1] - 1, m_dimensions[2] - 1}}; }

  bool contains(const Index3& ijk) const {
    return ijk[0] >= 0 && ijk[1] >= 0 && ijk[2] >= 0 && ijk[0] < m_dimensions[0] && ijk[1] < m_dimensions[1] &&
           ijk[2] < m_dimensions[2];
  }
  std::size_t linearIndex(const Index3& ijk) const {
    return static_cast<std::size_t>(ijk[0] + m_dimensions[0] * (ijk[1] + m_dimensions[1] * ijk[2]));
  }

  // Continuous index <-> physical point: lps = origin + D * diag(spacing) * ijk.
  Vec3 indexToLps(const Vec3& indexIjk) const;
  Vec3 indexToLps(const Index3& indexIjk) const;
  Vec3 lpsToIndex(const Vec3& pointLps) const;
  // Nearest voxel index of a physical point (may lie outside the grid; check contains()).
  Index3 lpsToNearestIndex(const Vec3& pointLps) const;

  // 4x4 index->LPS affine, row-major (the last row is 0 0 0 1).
  std::array<double, 16> indexToLpsAffine() const;

  // Three letters naming the patient direction each index axis points to, by its dominant component
  // ("LPS" for an identity direction, "RAS" for a NIfTI-style flip, "LSA" for a coronal stack).
  std::string orientationCode() const;

  bool isCloseTo(const Geometry& other, const GeometryTolerance& tol = {}) const;
  bool operator==(const Geometry& o) const {
    return m_dimensions == o.m_dimensions && m_spacingMm == o.m_spacingMm && m_originLps == o.m_originLps &&
           m_direction.m == o.m_direction.m;
  }

 private:
  void updateMatrices();

  Size3 m_dimensions{0, 0, 0};
  Vec3 m_spacingMm{1, 1, 1};
  Vec3 m_originLps{0, 0, 0};
  Mat3 m_direction{};
  Mat3 m_indexToLps{};  // D * diag(spacing)
  Mat3 m_lpsToIndex{};
};

}  // namespace delineate::core
