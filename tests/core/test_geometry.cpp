#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "core/geometry.h"
#include "tests/common/test_support.h"

using namespace delineate::core;

namespace {
Mat3 rotation(double ax, double ay, double az) { return delineate::test::rotationMatrix(ax, ay, az); }
}  // namespace

TEST_CASE("index <-> LPS round trips on oblique grids", "[geometry]") {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> angle(-3.1, 3.1), spacing(0.1, 5.0), origin(-500, 500), idx(-10, 600);
  for (int t = 0; t < 200; ++t) {
    Geometry g({512, 512, 300}, {spacing(rng), spacing(rng), spacing(rng)}, {origin(rng), origin(rng), origin(rng)},
               rotation(angle(rng), angle(rng), angle(rng)));
    REQUIRE(g.validate().ok());
    const Vec3 ijk{idx(rng), idx(rng), idx(rng)};
    const Vec3 back = g.lpsToIndex(g.indexToLps(ijk));
    for (int a = 0; a < 3; ++a) REQUIRE(back[a] == Approx(ijk[a]).margin(1e-9));
    // Moving one voxel along i moves spacing[0] mm.
    const Vec3 p0 = g.indexToLps(Vec3{0, 0, 0}), p1 = g.indexToLps(Vec3{1, 0, 0});
    const double dist = std::sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                                  (p1[2] - p0[2]) * (p1[2] - p0[2]));
    REQUIRE(dist == Approx(g.spacingMm()[0]));
  }
}

TEST_CASE("index to LPS matches the DICOM formula on an axial grid", "[geometry]") {
  // Identity direction: i runs to patient left (+L), j to posterior (+P), k to superior (+S).
  Geometry g({512, 512, 41}, {0.8, 0.8, 5.0}, {-200.0, -180.0, -300.0});
  const Vec3 p = g.indexToLps(Index3{10, 20, 3});
  REQUIRE(p[0] == Approx(-200.0 + 8.0));
  REQUIRE(p[1] == Approx(-180.0 + 16.0));
  REQUIRE(p[2] == Approx(-300.0 + 15.0));
  REQUIRE(g.lpsToNearestIndex({-191.7, -164.2, -284.0}) == Index3{10, 20, 3});
  REQUIRE(g.voxelVolumeMm3() == Approx(3.2));
  const auto a = g.indexToLpsAffine();
  REQUIRE(a[0] == Approx(0.8));
  REQUIRE(a[3] == Approx(-200.0));
  REQUIRE(a[15] == 1.0);
  REQUIRE(g.orientationCode() == "LPS");
  Mat3 ras;
  ras.m = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  REQUIRE(Geometry({2, 2, 2}, {1, 1, 1}, {0, 0, 0}, ras).orientationCode() == "RAS");
  Mat3 coronal;  // i -> L, j -> S (k grows inferior to superior), k -> A
  coronal.m = {1, 0, 0, 0, 0, -1, 0, 1, 0};
  REQUIRE(Geometry({2, 2, 2}, {1, 1, 1}, {0, 0, 0}, coronal).orientationCode() == "LSA");
}

TEST_CASE("validation rejects bad spacing, dimensions and singular directions", "[geometry]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  REQUIRE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}).validate().ok());
  for (double bad : {0.0, -1.0, nan, inf}) {
    Status s = Geometry({10, 10, 10}, {1, bad, 1}, {0, 0, 0}).validate("scan.nii");
    REQUIRE_FALSE(s.ok());
    REQUIRE(s.error().code == ErrorCode::InvalidGeometry);
    REQUIRE(s.error().describe().find("scan.nii") == 0);
  }
  REQUIRE_FALSE(Geometry({0, 10, 10}, {1, 1, 1}, {0, 0, 0}).validate().ok());
  REQUIRE_FALSE(Geometry({10, -3, 10}, {1, 1, 1}, {0, 0, 0}).validate().ok());
  REQUIRE_FALSE(Geometry({10, 10, 10}, {1, 1, 1}, {nan, 0, 0}).validate().ok());
  Mat3 singular;
  singular.m = {1, 0, 1, 0, 1, 0, 1, 0, 1};  // columns 0 and 2 equal
  REQUIRE_FALSE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, singular).validate().ok());
  Mat3 zeroCol;
  zeroCol.m = {1, 0, 0, 0, 1, 0, 0, 0, 0};
  REQUIRE_FALSE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, zeroCol).validate().ok());
  Mat3 sheared;  // 45 degree shear: non-singular, but not orthonormal
  sheared.m = {1, std::sqrt(0.5), 0, 0, std::sqrt(0.5), 0, 0, 0, 1};
  Status shear = Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, sheared).validate("tilted.nii");
  REQUIRE_FALSE(shear.ok());
  REQUIRE(shear.error().detail.find("sheared") != std::string::npos);
  Mat3 scaled;  // orthogonal, but a column of length 2 (spacing folded into the direction)
  scaled.m = {2, 0, 0, 0, 1, 0, 0, 0, 1};
  REQUIRE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, scaled).validate().error().detail.find("unit") !=
          std::string::npos);
  Mat3 nearlyOrthonormal = rotation(0.3, 0.2, 0.1);  // float32 round-off is accepted
  for (double& v : nearlyOrthonormal.m) v = double(float(v));
  REQUIRE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, nearlyOrthonormal).validate().ok());
  Mat3 nanDir;
  nanDir.m = {1, 0, 0, 0, nan, 0, 0, 0, 1};
  REQUIRE_FALSE(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, nanDir).validate().ok());
  // Huge dimensions are a size error, detected without overflowing.
  Status huge = Geometry({1 << 20, 1 << 20, 1 << 20}, {1, 1, 1}, {0, 0, 0}).validate("big.nrrd");
  REQUIRE_FALSE(huge.ok());
  REQUIRE(huge.error().code == ErrorCode::SizeLimit);
  Status overflow = Geometry({INT64_MAX / 2, INT64_MAX / 2, 4}, {1, 1, 1}, {0, 0, 0}).validate();
  REQUIRE(overflow.error().code == ErrorCode::SizeLimit);
}

TEST_CASE("tolerant equality", "[geometry]") {
  Geometry a({64, 64, 32}, {0.5, 0.5, 2.0}, {10, 20, 30}, rotation(0.1, 0.2, 0.3));
  Geometry b({64, 64, 32}, {0.5 * (1 + 1e-7), 0.5, 2.0}, {10 + 1e-5, 20, 30}, rotation(0.1, 0.2, 0.3 + 1e-8));
  REQUIRE(a.isCloseTo(b));
  REQUIRE_FALSE(a == b);
  REQUIRE_FALSE(a.isCloseTo(Geometry({64, 64, 33}, {0.5, 0.5, 2.0}, {10, 20, 30}, rotation(0.1, 0.2, 0.3))));
  REQUIRE_FALSE(a.isCloseTo(Geometry({64, 64, 32}, {0.5, 0.5, 2.01}, {10, 20, 30}, rotation(0.1, 0.2, 0.3))));
  REQUIRE_FALSE(a.isCloseTo(Geometry({64, 64, 32}, {0.5, 0.5, 2.0}, {10.1, 20, 30}, rotation(0.1, 0.2, 0.3))));
  REQUIRE_FALSE(a.isCloseTo(Geometry({64, 64, 32}, {0.5, 0.5, 2.0}, {10, 20, 30}, rotation(0.1, 0.2, 0.31))));
  GeometryTolerance loose;
  loose.originMm = 0.2;
  REQUIRE(a.isCloseTo(Geometry({64, 64, 32}, {0.5, 0.5, 2.0}, {10.1, 20, 30}, rotation(0.1, 0.2, 0.3)), loose));
}

TEST_CASE("index boxes", "[geometry]") {
  IndexBox b;
  REQUIRE(b.empty());
  REQUIRE(b.voxelCount() == 0);
  b.include(Index3{3, 4, 5});
  b.include(Index3{1, 8, 5});
  REQUIRE(b.min == Index3{1, 4, 5});
  REQUIRE(b.max == Index3{3, 8, 5});
  REQUIRE(b.voxelCount() == 3 * 5 * 1);
  REQUIRE(b.contains(Index3{2, 6, 5}));
  REQUIRE_FALSE(b.contains(Index3{2, 6, 6}));
  REQUIRE(b.intersected(IndexBox{{5, 5, 5}, {9, 9, 9}}).empty());
  REQUIRE(b.intersected(IndexBox{{2, 0, 0}, {9, 9, 9}}) == IndexBox{{2, 4, 5}, {3, 8, 5}});
}
