// Surface export (viewer/mesh_export.h): binary STL and OBJ written by our own code and read back. Round trips of a
// sphere, a cube and a stripped sphere (positions, triangle counts, outward STL normals, enclosed volume against
// vtkMassProperties), real label surfaces through writeMeshes, malformed files refused naming the file, and failed
// writes that leave the previous file and no temporary behind.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <vtkCellArray.h>
#include <vtkCubeSource.h>
#include <vtkMassProperties.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkSphereSource.h>
#include <vtkStripper.h>
#include <vtkTriangleFilter.h>

#include "core/label_map.h"
#include "tests/common/test_support.h"
#include "viewer/mesh_export.h"
#include "viewer/surface_scene.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

vtkSmartPointer<vtkPolyData> sphere(double radius, const std::array<double, 3>& centre, int resolution = 24) {
  auto source = vtkSmartPointer<vtkSphereSource>::New();
  source->SetRadius(radius);
  source->SetCenter(centre[0], centre[1], centre[2]);
  source->SetThetaResolution(resolution);
  source->SetPhiResolution(resolution);
  source->Update();
  return source->GetOutput();
}

// 6 quads (24 points: each face has its own corners).
vtkSmartPointer<vtkPolyData> cube() {
  auto source = vtkSmartPointer<vtkCubeSource>::New();
  source->SetBounds(-3, 5, 1, 3, -0.5, 4);  // 8 x 2 x 4.5 = 72 mm^3
  source->Update();
  return source->GetOutput();
}

double massVolume(vtkPolyData* mesh) {
  auto tri = vtkSmartPointer<vtkTriangleFilter>::New();
  tri->SetInputData(mesh);
  auto mass = vtkSmartPointer<vtkMassProperties>::New();
  mass->SetInputConnection(tri->GetOutputPort());
  mass->Update();
  return mass->GetVolume();
}

// Divergence theorem: the signed volume enclosed by consistently oriented triangles (positive when they face out).
double enclosedVolume(const viewer::TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) {
    const auto& a = m.vertices[t[0]];
    const auto& b = m.vertices[t[1]];
    const auto& c = m.vertices[t[2]];
    const double cx = double(b[1]) * c[2] - double(b[2]) * c[1];
    const double cy = double(b[2]) * c[0] - double(b[0]) * c[2];
    const double cz = double(b[0]) * c[1] - double(b[1]) * c[0];
    v += double(a[0]) * cx + double(a[1]) * cy + double(a[2]) * cz;
  }
  return v / 6;
}

// The triangles of a polydata made only of triangles, as point ids.
std::vector<std::array<vtkIdType, 3>> sourceTriangles(vtkPolyData* mesh) {
  std::vector<std::array<vtkIdType, 3>> out;
  for (vtkIdType c = 0; c < mesh->GetNumberOfCells(); ++c) {
    vtkIdType n = 0;
    const vtkIdType* ids = nullptr;
    mesh->GetCellPoints(c, n, ids);
    REQUIRE(n == 3);
    out.push_back({ids[0], ids[1], ids[2]});
  }
  return out;
}

// Every triangle read back has the corners of the source's triangle at the same position, as floats.
void checkSameTriangles(vtkPolyData* source, const viewer::TriangleMesh& read) {
  const auto tris = sourceTriangles(source);
  REQUIRE(read.triangles.size() == tris.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < tris.size(); ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      REQUIRE(read.triangles[i][k] < read.vertices.size());
      double p[3];
      source->GetPoint(tris[i][k], p);
      const auto& q = read.vertices[read.triangles[i][k]];
      for (std::size_t a = 0; a < 3; ++a)
        if (q[a] != static_cast<float>(p[a])) ++mismatches;
    }
  CHECK(mismatches == 0);
}

std::vector<std::string> listFolder(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readBytes(const fs::path& p) { return test::readTextFile(p); }

float floatAt(const std::string& bytes, std::size_t offset) {
  unsigned char b[4];
  std::memcpy(b, bytes.data() + offset, 4);
  const std::uint32_t v = std::uint32_t(b[0]) | (std::uint32_t(b[1]) << 8) | (std::uint32_t(b[2]) << 16) | (std::uint32_t(b[3]) << 24);
  float f = 0;
  std::memcpy(&f, &v, 4);
  return f;
}

}  // namespace

TEST_CASE("viewer: a sphere round trips through binary STL with outward unit normals and its volume",
          "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-stl");
  const std::array<double, 3> centre{12.5, -40.25, 103.0};
  auto mesh = sphere(17.3, centre);
  const std::string path = (dir / "sphere.stl").string();
  const auto written = viewer::writeMesh(path, mesh, viewer::MeshFormat::StlBinary, "sphere test");
  INFO((written ? std::string() : written.error().describe()));
  REQUIRE(written.ok());
  CHECK(listFolder(dir.path()) == std::vector<std::string>{"sphere.stl"});

  const std::string bytes = readBytes(path);
  const auto triangles = static_cast<std::size_t>(mesh->GetNumberOfPolys());
  REQUIRE(bytes.size() == 84 + 50 * triangles);
  CHECK(bytes.substr(0, 11) == "sphere test");
  CHECK(bytes.substr(11, 69) == std::string(69, '\0'));
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);  // the test machine is little-endian, as the file is
  CHECK(count == triangles);
  std::size_t inward = 0, notUnit = 0, attributes = 0;
  for (std::size_t i = 0; i < triangles; ++i) {
    const std::size_t rec = 84 + 50 * i;
    double n[3], centroid[3] = {0, 0, 0};
    for (std::size_t a = 0; a < 3; ++a) n[a] = floatAt(bytes, rec + 4 * a);
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t a = 0; a < 3; ++a) centroid[a] += floatAt(bytes, rec + 12 + 12 * k + 4 * a) / 3.0;
    double outward = 0;
    for (std::size_t a = 0; a < 3; ++a) outward += n[a] * (centroid[a] - centre[a]);
    if (outward <= 0) ++inward;
    if (std::fabs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) > 1e-5) ++notUnit;
    if (bytes[rec + 48] != 0 || bytes[rec + 49] != 0) ++attributes;
  }
  CHECK(inward == 0);
  CHECK(notUnit == 0);
  CHECK(attributes == 0);

  const auto read = viewer::readMesh(path);
  INFO((read ? std::string() : read.error().describe()));
  REQUIRE(read.ok());
  checkSameTriangles(mesh, *read);
  // Corners at one position become one vertex again: the sphere's points, each once.
  CHECK(read->vertices.size() == static_cast<std::size_t>(mesh->GetNumberOfPoints()));
  const double expected = massVolume(mesh);
  CHECK(enclosedVolume(*read) == Approx(expected).epsilon(1e-6));
  // And near the true sphere's (a coarse tessellation stays a little inside it).
  CHECK(expected == Approx(4.0 / 3.0 * M_PI * std::pow(17.3, 3)).epsilon(0.05));
}

TEST_CASE("viewer: a sphere round trips through OBJ with shared vertices and its volume", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-obj");
  auto mesh = sphere(0.37, {-1e-3, 250.125, -3.5e-4}, 31);
  const std::string path = (dir / "sphere.obj").string();
  REQUIRE(viewer::writeMesh(path, mesh, viewer::MeshFormat::Obj, "left kidney").ok());
  const std::string text = test::readTextFile(path);
  CHECK(text.find("\no left kidney\n") != std::string::npos);
  const auto read = viewer::readMesh(path);
  INFO((read ? std::string() : read.error().describe()));
  REQUIRE(read.ok());
  // Every point once, in the source's order, exactly as floats.
  REQUIRE(read->vertices.size() == static_cast<std::size_t>(mesh->GetNumberOfPoints()));
  std::size_t moved = 0;
  for (vtkIdType i = 0; i < mesh->GetNumberOfPoints(); ++i) {
    double p[3];
    mesh->GetPoint(i, p);
    for (std::size_t a = 0; a < 3; ++a)
      if (read->vertices[static_cast<std::size_t>(i)][a] != static_cast<float>(p[a])) ++moved;
  }
  CHECK(moved == 0);
  checkSameTriangles(mesh, *read);
  CHECK(enclosedVolume(*read) == Approx(massVolume(mesh)).epsilon(1e-6));
  // No decimal comma, no exponent-free blow-up: each "v" line has exactly three numbers.
  std::size_t vLines = 0, fLines = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.rfind("v ", 0) == 0) {
      ++vLines;
      CHECK(line.find(',') == std::string::npos);
      CHECK(std::count(line.begin(), line.end(), ' ') == 3);
    }
    if (line.rfind("f ", 0) == 0) ++fLines;
  }
  CHECK(vLines == static_cast<std::size_t>(mesh->GetNumberOfPoints()));
  CHECK(fLines == static_cast<std::size_t>(mesh->GetNumberOfPolys()));
}

TEST_CASE("viewer: a cube of quads is fanned into twelve triangles in both formats, volume kept",
          "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-cube");
  auto mesh = cube();
  REQUIRE(mesh->GetNumberOfPolys() == 6);
  for (const auto format : {viewer::MeshFormat::StlBinary, viewer::MeshFormat::Obj}) {
    const std::string path = (dir / (std::string("cube.") + viewer::meshFormatExtension(format))).string();
    REQUIRE(viewer::writeMesh(path, mesh, format).ok());
    const auto read = viewer::readMesh(path);
    INFO(path << (read ? std::string() : read.error().describe()));
    REQUIRE(read.ok());
    CHECK(read->triangles.size() == 12);
    // STL merges the faces' separate corners into the cube's 8; OBJ keeps the 24 points it was given.
    CHECK(read->vertices.size() == (format == viewer::MeshFormat::StlBinary ? 8u : 24u));
    CHECK(enclosedVolume(*read) == Approx(72.0).epsilon(1e-6));
    CHECK(enclosedVolume(*read) == Approx(massVolume(mesh)).epsilon(1e-6));
  }
}

TEST_CASE("viewer: triangle strips are converted keeping their orientation", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-strips");
  auto mesh = sphere(5, {1, 2, 3}, 20);
  auto stripper = vtkSmartPointer<vtkStripper>::New();
  stripper->SetInputData(mesh);
  stripper->Update();
  vtkPolyData* strips = stripper->GetOutput();
  REQUIRE(strips->GetNumberOfStrips() > 0);
  for (const auto format : {viewer::MeshFormat::StlBinary, viewer::MeshFormat::Obj}) {
    const std::string path = (dir / (std::string("strips.") + viewer::meshFormatExtension(format))).string();
    REQUIRE(viewer::writeMesh(path, strips, format).ok());
    const auto read = viewer::readMesh(path);
    REQUIRE(read.ok());
    CHECK(read->triangles.size() == static_cast<std::size_t>(mesh->GetNumberOfPolys()));
    // A flipped triangle would subtract its share: the volume says every one faces out.
    CHECK(enclosedVolume(*read) == Approx(massVolume(mesh)).epsilon(1e-6));
  }
}

TEST_CASE("viewer: STL header names never start with solid and are cut to 80 bytes", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-header");
  auto mesh = cube();
  const std::string path = (dir / "a.stl").string();
  REQUIRE(viewer::writeMesh(path, mesh, viewer::MeshFormat::StlBinary, "solid liver").ok());
  std::string bytes = readBytes(path);
  CHECK(bytes.rfind("solid", 0) != 0);
  CHECK(bytes.substr(0, 80).find("solid liver") != std::string::npos);
  REQUIRE(viewer::writeMesh(path, mesh, viewer::MeshFormat::StlBinary, "  SOLID").ok());
  bytes = readBytes(path);
  CHECK(bytes.substr(0, 7) != "  SOLID");
  REQUIRE(viewer::writeMesh(path, mesh, viewer::MeshFormat::StlBinary, std::string(200, 'x')).ok());
  bytes = readBytes(path);
  CHECK(bytes.size() == 84 + 50 * 12);
  CHECK(bytes.substr(0, 80) == std::string(80, 'x'));
  REQUIRE(viewer::readMesh(path).ok());
  // Unnamed: a default header, still binary.
  REQUIRE(viewer::writeMesh(path, mesh, viewer::MeshFormat::StlBinary).ok());
  CHECK(readBytes(path).rfind("solid", 0) != 0);
}

TEST_CASE("viewer: label surfaces from a label map export one file per label with writeMeshes",
          "[viewer][mesh-export]") {
  // Two blobs on an oblique, anisotropic grid: label 3 a ball, label 7 a box.
  const core::Geometry g({40, 36, 24}, {0.8, 0.9, 1.5}, {-20, 15, 100}, test::rotationMatrix(0.3, -0.2, 0.5));
  auto voxels = core::Volume<core::Label>::create(g, 0).value();
  std::size_t ballVoxels = 0, boxVoxels = 0;
  for (std::int64_t z = 0; z < 24; ++z)
    for (std::int64_t y = 0; y < 36; ++y)
      for (std::int64_t x = 0; x < 40; ++x) {
        const double dx = (double(x) - 12) * 0.8, dy = (double(y) - 14) * 0.9, dz = (double(z) - 11) * 1.5;
        if (dx * dx + dy * dy + dz * dz < 49) {
          voxels.at({x, y, z}) = 3;
          ++ballVoxels;
        } else if (x >= 26 && x <= 34 && y >= 8 && y <= 28 && z >= 4 && z <= 18) {
          voxels.at({x, y, z}) = 7;
          ++boxVoxels;
        }
      }
  const core::LabelMap labels(std::move(voxels));
  const auto surfaces = viewer::buildLabelSurfaces(labels);
  REQUIRE(surfaces.size() == 2);

  test::ScratchDir dir("mesh-labels");
  for (const auto format : {viewer::MeshFormat::StlBinary, viewer::MeshFormat::Obj}) {
    const std::string ext = viewer::meshFormatExtension(format);
    const std::string prefix = format == viewer::MeshFormat::Obj ? "case01_" : "";
    const auto paths = viewer::writeMeshes(dir.path().string(), surfaces, format, prefix);
    INFO((paths ? std::string() : paths.error().describe()));
    REQUIRE(paths.ok());
    REQUIRE(paths->size() == 2);
    CHECK(fs::path((*paths)[0]).filename().string() == prefix + "label_3." + ext);
    CHECK(fs::path((*paths)[1]).filename().string() == prefix + "label_7." + ext);
    std::size_t i = 0;
    for (const auto& [label, mesh] : surfaces) {
      const auto read = viewer::readMesh((*paths)[i++]);
      INFO("label " << label << (read ? std::string() : read.error().describe()));
      REQUIRE(read.ok());
      CHECK(read->triangles.size() == static_cast<std::size_t>(mesh->GetNumberOfPolys()));
      const double volume = enclosedVolume(*read);
      CHECK(volume == Approx(massVolume(mesh)).epsilon(1e-6));
      // In millimetres, near the voxels' volume (the smoothed surface runs through the boundary voxels' faces).
      const double voxelMm3 = double(label == 3 ? ballVoxels : boxVoxels) * g.voxelVolumeMm3();
      CHECK(volume == Approx(voxelMm3).epsilon(0.25));
      // And in LPS: the centroid of the vertices near the blob's centre.
      std::array<double, 3> mean{0, 0, 0};
      for (const auto& v : read->vertices)
        for (std::size_t a = 0; a < 3; ++a) mean[a] += v[a] / double(read->vertices.size());
      const core::Vec3 centre = label == 3 ? g.indexToLps(core::Vec3{12, 14, 11}) : g.indexToLps(core::Vec3{30, 18, 11});
      for (std::size_t a = 0; a < 3; ++a) CHECK(mean[a] == Approx(centre[a]).margin(1.5));
    }
  }
  CHECK(listFolder(dir.path()) ==
        std::vector<std::string>{"case01_label_3.obj", "case01_label_7.obj", "label_3.stl", "label_7.stl"});
}

TEST_CASE("viewer: writing into a missing folder fails naming the path and creates nothing", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-missing");
  const std::string path = (dir / "no-such-folder" / "m.stl").string();
  const auto s = viewer::writeMesh(path, cube(), viewer::MeshFormat::StlBinary);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == core::ErrorCode::NotFound);
  CHECK(s.error().describe().find(path) != std::string::npos);
  CHECK(listFolder(dir.path()).empty());

  const std::string folder = (dir / "absent").string();
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> one{{1, cube()}};
  const auto r = viewer::writeMeshes(folder, one, viewer::MeshFormat::Obj);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::NotFound);
  CHECK(r.error().describe().find(folder) != std::string::npos);
  CHECK(listFolder(dir.path()).empty());
  // A prefix cannot reach into another folder.
  CHECK_FALSE(viewer::writeMeshes(dir.path().string(), one, viewer::MeshFormat::Obj, "../x").ok());
  CHECK(listFolder(dir.path()).empty());
}

TEST_CASE("viewer: truncated, overlong and ASCII STL files are refused naming the file", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-truncated");
  const fs::path path = dir / "s.stl";
  REQUIRE(viewer::writeMesh(path.string(), sphere(3, {0, 0, 0}), viewer::MeshFormat::StlBinary).ok());
  const std::string good = readBytes(path);
  const auto refused = [&](const std::string& bytes, core::ErrorCode code) {
    test::writeTextFile(path, bytes);
    const auto r = viewer::readMesh(path.string());
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == code);
    CHECK(r.error().describe().find(path.string()) != std::string::npos);
  };
  refused(good.substr(0, good.size() - 17), core::ErrorCode::Corrupt);
  refused(good.substr(0, good.size() - 50), core::ErrorCode::Corrupt);  // whole triangles missing: the count tells
  refused(good + "x", core::ErrorCode::Corrupt);
  refused(good.substr(0, 60), core::ErrorCode::Corrupt);
  refused("", core::ErrorCode::Corrupt);
  // A count so large its size would overflow 32 bits: refused by size, nothing allocated.
  std::string huge = good.substr(0, 84);
  huge[80] = huge[81] = huge[82] = huge[83] = char(0xff);
  refused(huge, core::ErrorCode::Corrupt);
  refused("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n"
          "  endloop\n endfacet\nendsolid x\n",
          core::ErrorCode::Unsupported);
  const auto missing = viewer::readMesh((dir / "nothing.stl").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::NotFound);
}

TEST_CASE("viewer: the OBJ reader takes v/vt/vn corners, negative indices and polygons, and checks indices",
          "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-objread");
  const fs::path path = dir / "m.obj";
  test::writeTextFile(path,
                      "# a comment\r\nmtllib x.mtl\r\no thing\r\n"
                      "v 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0   # trailing comment\r\nv +0.5 0.5 1e0 1.0\r\n"
                      "vt 0 0\nvn 0 0 1\ng group\ns off\nusemtl m\n"
                      "f 1/1/1 2/1/1 3/1/1 4/1/1\n"  // a quad: two triangles
                      "f -5//1 -4//1 -1//1\n"        // negative: 1 2 5
                      "f 2/1 3/1 5/1\n"
                      "l 1 2\n");
  const auto m = viewer::readMesh(path.string());
  INFO((m ? std::string() : m.error().describe()));
  REQUIRE(m.ok());
  REQUIRE(m->vertices.size() == 5);
  CHECK(m->vertices[4] == std::array<float, 3>{0.5f, 0.5f, 1.0f});
  using T = std::array<std::uint32_t, 3>;
  CHECK(m->triangles == std::vector<T>{{0, 1, 2}, {0, 2, 3}, {0, 1, 4}, {1, 2, 4}});

  const auto refused = [&](const std::string& text, int line) {
    test::writeTextFile(path, text);
    const auto r = viewer::readMesh(path.string());
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == core::ErrorCode::ParseError);
    CHECK(r.error().line == line);
    CHECK(r.error().describe().find(path.string()) != std::string::npos);
  };
  refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4);
  refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4);
  refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", 4);
  refused("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 3);  // an index must name a vertex defined before it
  refused("v 0 0\n", 1);
  refused("v 0 0,5 0\n", 1);
  refused("v 0 0 nan\n", 1);
  refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", 4);
  refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n", 4);
}

TEST_CASE("viewer: a failed mesh write leaves the previous file intact and no temporary behind",
          "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-atomic");
  auto small = cube();
  const fs::path target = dir / "out.stl";
  REQUIRE(viewer::writeMesh(target.string(), small, viewer::MeshFormat::StlBinary, "previous").ok());
  const std::string previous = readBytes(target);

  SECTION("a non-finite coordinate met half-way through") {
    auto big = vtkSmartPointer<vtkPolyData>::New();
    big->DeepCopy(sphere(10, {0, 0, 0}, 300));  // ~180k triangles: several buffers written before the bad point
    const auto tris = sourceTriangles(big);
    big->GetPoints()->SetPoint(tris.back()[2], 0, std::nan(""), 0);
    for (const auto format : {viewer::MeshFormat::StlBinary, viewer::MeshFormat::Obj}) {
      const auto s = viewer::writeMesh(target.string(), big, format);
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().code == core::ErrorCode::InvalidArgument);
      CHECK(s.error().describe().find(target.string()) != std::string::npos);
      CHECK(readBytes(target) == previous);
      CHECK(listFolder(dir.path()) == std::vector<std::string>{"out.stl"});
    }
  }

  SECTION("the disk refusing the data (a file size limit)") {
    // Root ignores permissions, not RLIMIT_FSIZE: writes past the limit fail with EFBIG (SIGXFSZ ignored).
    rlimit old{};
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    rlimit low = old;
    low.rlim_cur = 256 * 1024;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &low) == 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    const auto s = viewer::writeMesh(target.string(), sphere(10, {0, 0, 0}, 300), viewer::MeshFormat::StlBinary);
    std::signal(SIGXFSZ, oldHandler);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
    REQUIRE_FALSE(s.ok());
    INFO(s.error().describe());
    CHECK(s.error().code == core::ErrorCode::WriteFailed);
    CHECK(s.error().describe().find(target.string()) != std::string::npos);
    CHECK(readBytes(target) == previous);
    CHECK(listFolder(dir.path()) == std::vector<std::string>{"out.stl"});
  }

  SECTION("the target is a folder, or its parent a file") {
    fs::create_directory(dir / "taken.obj");
    test::writeTextFile(dir / "taken.obj" / "inside.txt", "keep");
    const auto s = viewer::writeMesh((dir / "taken.obj").string(), small, viewer::MeshFormat::Obj);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().describe().find((dir / "taken.obj").string()) != std::string::npos);
    CHECK(fs::is_directory(dir / "taken.obj"));
    CHECK(test::readTextFile(dir / "taken.obj" / "inside.txt") == "keep");
    const std::string underFile = (target / "x.stl").string();
    const auto t = viewer::writeMesh(underFile, small, viewer::MeshFormat::StlBinary);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().describe().find(underFile) != std::string::npos);
    CHECK(readBytes(target) == previous);
    CHECK(listFolder(dir.path()) == std::vector<std::string>{"out.stl", "taken.obj"});
  }

  SECTION("writeMeshes replaces nothing when one label fails") {
    REQUIRE(viewer::writeMeshes(dir.path().string(), {{1, small}}, viewer::MeshFormat::StlBinary).ok());
    const std::string label1 = readBytes(dir / "label_1.stl");
    const std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces{{1, sphere(2, {0, 0, 0})}, {2, nullptr}};
    const auto r = viewer::writeMeshes(dir.path().string(), surfaces, viewer::MeshFormat::StlBinary);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().describe().find("label_2.stl") != std::string::npos);
    CHECK(readBytes(dir / "label_1.stl") == label1);
    CHECK(listFolder(dir.path()) == std::vector<std::string>{"label_1.stl", "out.stl"});
  }

  // And a successful write replaces the file.
  REQUIRE(viewer::writeMesh(target.string(), sphere(1, {0, 0, 0}), viewer::MeshFormat::StlBinary).ok());
  CHECK(readBytes(target) != previous);
  CHECK(viewer::readMesh(target.string()).ok());
}

TEST_CASE("viewer: readMesh recognises a binary STL by size under another extension", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-sniff");
  auto mesh = cube();
  REQUIRE(viewer::writeMesh((dir / "a.mesh").string(), mesh, viewer::MeshFormat::StlBinary).ok());
  REQUIRE(viewer::writeMesh((dir / "b.mesh").string(), mesh, viewer::MeshFormat::Obj).ok());
  for (const char* name : {"a.mesh", "b.mesh"}) {
    const auto m = viewer::readMesh((dir / name).string());
    INFO(name);
    REQUIRE(m.ok());
    CHECK(m->triangles.size() == 12);
  }
}

TEST_CASE("viewer: an empty mesh gives valid empty files, lines and vertices are ignored", "[viewer][mesh-export]") {
  test::ScratchDir dir("mesh-empty");
  auto empty = vtkSmartPointer<vtkPolyData>::New();
  auto lines = vtkSmartPointer<vtkPolyData>::New();
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->InsertNextPoint(0, 0, 0);
  points->InsertNextPoint(1, 0, 0);
  lines->SetPoints(points);
  auto cells = vtkSmartPointer<vtkCellArray>::New();
  const vtkIdType line[2] = {0, 1};
  cells->InsertNextCell(2, line);
  lines->SetLines(cells);
  auto verts = vtkSmartPointer<vtkCellArray>::New();
  verts->InsertNextCell(1, line);
  lines->SetVerts(verts);
  for (vtkPolyData* mesh : {empty.Get(), lines.Get()})
    for (const auto format : {viewer::MeshFormat::StlBinary, viewer::MeshFormat::Obj}) {
      const fs::path path = dir / (std::string("e.") + viewer::meshFormatExtension(format));
      REQUIRE(viewer::writeMesh(path.string(), mesh, format).ok());
      if (format == viewer::MeshFormat::StlBinary) CHECK(fs::file_size(path) == 84);
      const auto m = viewer::readMesh(path.string());
      REQUIRE(m.ok());
      CHECK(m->triangles.empty());
      CHECK(m->vertices.empty());
    }
  CHECK_FALSE(viewer::writeMesh((dir / "n.stl").string(), nullptr, viewer::MeshFormat::StlBinary).ok());
}

TEST_CASE("viewer: reduced surface detail meshes a large label coarser, encloses the same volume, and leaves a small "
          "label as it is",
          "[viewer][surfaces]") {
  // An ellipsoid whose box (about 2.8 M voxels) is over the reduced budget and under the full one, and a small ball
  // under both, on an anisotropic grid.
  const core::Geometry g({180, 170, 160}, {0.7, 0.7, 1.2}, {-60, -50, 10}, test::rotationMatrix(0.1, 0.2, -0.1));
  auto voxels = core::Volume<core::Label>::create(g, 0).value();
  std::size_t bigVoxels = 0;
  for (std::int64_t z = 0; z < 160; ++z)
    for (std::int64_t y = 0; y < 170; ++y)
      for (std::int64_t x = 0; x < 180; ++x) {
        const double a = (double(x) - 88) / 75, b = (double(y) - 84) / 70, c = (double(z) - 78) / 65;
        const double dx = double(x) - 170, dy = double(y) - 160, dz = double(z) - 150;
        if (a * a + b * b + c * c < 1) {
          voxels.at({x, y, z}) = 5;
          ++bigVoxels;
        } else if (dx * dx + dy * dy + dz * dz < 36) {
          voxels.at({x, y, z}) = 9;
        }
      }
  const core::LabelMap labels(std::move(voxels));
  REQUIRE(viewer::surfaceSampleBudget(viewer::SurfaceDetail::Reduced) < 152 * 142 * 132);
  REQUIRE(viewer::surfaceSampleBudget(viewer::SurfaceDetail::Full) >= 152 * 142 * 132);
  const auto full = viewer::buildLabelSurfaces(labels, 15, nullptr, nullptr, viewer::SurfaceDetail::Full);
  const auto reduced = viewer::buildLabelSurfaces(labels, 15, nullptr, nullptr, viewer::SurfaceDetail::Reduced);
  REQUIRE(full.size() == 2);
  REQUIRE(reduced.size() == 2);
  // The large label: on blocks of 2 voxels, about a quarter of the triangles, the same volume and place.
  const vtkIdType fullTriangles = full.at(5)->GetNumberOfPolys(), reducedTriangles = reduced.at(5)->GetNumberOfPolys();
  INFO("full " << fullTriangles << " reduced " << reducedTriangles);
  CHECK(reducedTriangles < fullTriangles * 4 / 10);
  CHECK(reducedTriangles > fullTriangles / 8);
  const double voxelMm3 = double(bigVoxels) * g.voxelVolumeMm3();
  CHECK(massVolume(full.at(5)) == Approx(voxelMm3).epsilon(0.03));
  // A block is inside where any of its voxels is (thin structures do not vanish), so the coarser surface lies up to
  // half a block further out: a few percent more volume here, never less.
  CHECK(massVolume(reduced.at(5)) == Approx(massVolume(full.at(5))).epsilon(0.05));
  CHECK(massVolume(reduced.at(5)) > massVolume(full.at(5)));
  double fb[6], rb[6];
  full.at(5)->GetBounds(fb);
  reduced.at(5)->GetBounds(rb);
  for (int i = 0; i < 6; ++i) CHECK(rb[i] == Approx(fb[i]).margin(2 * 1.2));
  // The small label is meshed on its own voxels at either detail: the same mesh.
  REQUIRE(reduced.at(9)->GetNumberOfPolys() == full.at(9)->GetNumberOfPolys());
  REQUIRE(reduced.at(9)->GetNumberOfPoints() == full.at(9)->GetNumberOfPoints());
  for (vtkIdType i = 0; i < full.at(9)->GetNumberOfPoints(); ++i) {
    double p[3], q[3];
    full.at(9)->GetPoint(i, p);
    reduced.at(9)->GetPoint(i, q);
    for (int a = 0; a < 3; ++a) CHECK(q[a] == p[a]);
  }
}
