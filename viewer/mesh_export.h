#pragma once
// Label surfaces out to files other programs read (3D printing, CAD, Blender, Slicer): binary STL and Wavefront OBJ,
// written by our own code (both formats are a page long; VTK's writers would not give atomic replacement, typed
// errors or a locale-proof number format). Coordinates are LPS millimetres, as buildLabelSurfaces makes them.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <vtkSmartPointer.h>

#include "core/error.h"
#include "core/label_map.h"

class vtkPolyData;

namespace delineate::viewer {

enum class MeshFormat { StlBinary, Obj };

// "stl" or "obj".
const char* meshFormatExtension(MeshFormat format);

// Writes the triangles of `mesh`: polygons with more than three corners are fanned, triangle strips converted
// (keeping their orientation), vertices and lines ignored. Binary STL: little-endian, one face normal per triangle
// from its corners (right-hand rule; zero for a degenerate one), attribute 0; `name` fills the 80-byte header
// (truncated, zero-padded; prefixed when it would start with "solid", which readers take for ASCII STL). OBJ: a
// comment, "o <name>" when a name is given, the vertices the triangles use, each once ("v x y z", as float: the
// shortest text that reads back as the same float, at most 9 significant digits, the same under any locale) and
// "f a b c" with 1-based indices.
// Atomic: written to a temporary file beside `path`, flushed and renamed over it, so a failure (also a non-finite
// coordinate found half-way) leaves an existing file untouched and no temporary behind. The folder must exist.
// Errors name `path`.
core::Status writeMesh(const std::string& path, vtkPolyData* mesh, MeshFormat format, const std::string& name = {});

// Every label of `surfaces` into the existing `folder` as "<folder>/<prefix>label_<id>.<stl|obj>" (file names carry
// no patient identifiers), named "<prefix>label_<id>" inside. All files are written to temporaries first and only
// renamed into place when every one succeeded, so a failure changes nothing. `prefix` must not contain '/'.
// Returns the paths written, in label order.
core::Result<std::vector<std::string>> writeMeshes(const std::string& folder,
                                                   const std::map<core::Label, vtkSmartPointer<vtkPolyData>>& surfaces,
                                                   MeshFormat format, const std::string& prefix = {});

// What readMesh returns: positions and triangles as indices into them.
struct TriangleMesh {
  std::vector<std::array<float, 3>> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
};

// Reads binary STL or OBJ back (for tests and round trips), chosen by the extension (.stl / .obj, any case; another
// extension: STL when the size fits a binary STL, else OBJ). STL: the size must be 84 + 50 x count, corners at
// identical positions become one vertex (first-seen order), normals are ignored. OBJ: "v" and "f" lines (f corners as
// a, a/b, a//c or a/b/c; negative indices count back from the last vertex; polygons fanned), other statements ignored;
// every index must name a vertex defined before it. ASCII STL is refused (Unsupported). Errors name `path`, with
// the line for OBJ.
core::Result<TriangleMesh> readMesh(const std::string& path);

}  // namespace delineate::viewer
