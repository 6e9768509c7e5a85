#include "viewer/mesh_export.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <vtkCellArray.h>
#include <vtkCellArrayIterator.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>

namespace delineate::viewer {

namespace {

using core::ErrorCode;
using core::makeError;

std::string errnoText(int error) { return std::strerror(error); }

std::pair<std::string, std::string> splitPath(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? std::string("/") : path.substr(0, slash), path.substr(slash + 1)};
}

// The temporary file of one atomic write: "<folder>/.<name>.tmp-<random>", created with the mode a new file would get
// (or the replaced file's), buffered, fsynced and closed by finish(), renamed over the target by publish(), removed
// otherwise (also by the destructor).
class TempFile {
 public:
  explicit TempFile(std::string target) : m_target(std::move(target)) {}
  ~TempFile() { discard(); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  core::Status open() {
    auto [folder, base] = splitPath(m_target);
    if (base.empty()) return makeError(ErrorCode::InvalidArgument, m_target, "the path names a folder, not a file");
    struct stat st {};
    const bool exists = ::stat(m_target.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return makeError(ErrorCode::WriteFailed, m_target, "a folder has that name");
    static thread_local std::mt19937_64 random{std::random_device{}()};
    // A long name keeps its start: the temporary's name must stay under NAME_MAX too.
    const std::string stem = "." + base.substr(0, std::min<std::size_t>(base.size(), 200)) + ".tmp-";
    for (int attempt = 0; attempt < 16; ++attempt) {
      char suffix[17];
      std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
      m_temp = folder + "/" + stem + suffix;
      m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (m_fd >= 0) break;
      const int error = errno;
      m_temp.clear();
      if (error == EEXIST) continue;
      if (error == ENOENT) return makeError(ErrorCode::NotFound, m_target, "the folder " + folder + " does not exist");
      if (error == ENOTDIR) return makeError(ErrorCode::NotFound, m_target, folder + " is not a folder");
      return makeError(ErrorCode::WriteFailed, m_target, "cannot create a temporary file in " + folder + ": " + errnoText(error));
    }
    if (m_fd < 0) return makeError(ErrorCode::WriteFailed, m_target, "cannot find a free temporary file name");
    // Replacing a file keeps who may read it.
    if (exists && S_ISREG(st.st_mode)) (void)::fchmod(m_fd, st.st_mode & 07777);
    m_buffer.reserve(kBufferSize + 4096);
    return core::Status::success();
  }

  std::string& buffer() { return m_buffer; }
  // Writes the buffer out when it has grown past its size (callers append, then call this).
  core::Status maybeFlush() { return m_buffer.size() >= kBufferSize ? flush() : core::Status::success(); }

  core::Status flush() {
    const char* p = m_buffer.data();
    std::size_t left = m_buffer.size();
    while (left > 0) {
      const ssize_t n = ::write(m_fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail("cannot write the temporary file", errno);
      }
      if (n == 0) return fail("cannot write the temporary file", EIO);
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    m_buffer.clear();
    return core::Status::success();
  }

  // Everything out, on disk, closed: only the rename is left.
  core::Status finish() {
    if (core::Status s = flush(); !s) return s;
    if (::fsync(m_fd) != 0) return fail("cannot flush the temporary file to disk", errno);
    const int fd = m_fd;
    m_fd = -1;
    // close can report deferred write errors (network file systems).
    if (::close(fd) != 0) return fail("cannot close the temporary file", errno);
    return core::Status::success();
  }

  core::Status publish() {
    if (::rename(m_temp.c_str(), m_target.c_str()) != 0) return fail("cannot rename the temporary file over the target", errno);
    m_temp.clear();
    const std::string folder = splitPath(m_target).first;
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      (void)::fsync(dir);  // the rename itself on disk; some file systems refuse, and the file is complete anyway
      ::close(dir);
    }
    return core::Status::success();
  }

  void discard() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    if (!m_temp.empty()) ::unlink(m_temp.c_str());
    m_temp.clear();
  }

  const std::string& target() const { return m_target; }

 private:
  static constexpr std::size_t kBufferSize = std::size_t(1) << 20;

  core::Error fail(const std::string& what, int error) {
    discard();
    return makeError(ErrorCode::WriteFailed, m_target, what + ": " + errnoText(error));
  }

  std::string m_target;
  std::string m_temp;
  int m_fd = -1;
  std::string m_buffer;
};

using Triangle = std::array<vtkIdType, 3>;

// The triangles of the polygons (fanned) and strips (alternating corners, so every triangle keeps the strip's
// orientation) of `mesh`; a triangle with a repeated corner (a strip's stitch, a collapsed polygon) has no area and
// is dropped.
core::Result<std::vector<Triangle>> collectTriangles(vtkPolyData* mesh, const std::string& path) {
  std::vector<Triangle> out;
  const vtkIdType pointCount = mesh->GetNumberOfPoints();
  bool badId = false;
  const auto add = [&](vtkIdType a, vtkIdType b, vtkIdType c) {
    if (a < 0 || b < 0 || c < 0 || a >= pointCount || b >= pointCount || c >= pointCount) {
      badId = true;
      return;
    }
    if (a == b || b == c || a == c) return;
    out.push_back({a, b, c});
  };
  if (vtkCellArray* polys = mesh->GetPolys()) {
    out.reserve(static_cast<std::size_t>(polys->GetNumberOfCells()));
    auto it = vtk::TakeSmartPointer(polys->NewIterator());
    for (it->GoToFirstCell(); !it->IsDoneWithTraversal(); it->GoToNextCell()) {
      vtkIdType n = 0;
      const vtkIdType* ids = nullptr;
      it->GetCurrentCell(n, ids);
      for (vtkIdType k = 1; k + 1 < n; ++k) add(ids[0], ids[k], ids[k + 1]);
    }
  }
  if (vtkCellArray* strips = mesh->GetStrips()) {
    auto it = vtk::TakeSmartPointer(strips->NewIterator());
    for (it->GoToFirstCell(); !it->IsDoneWithTraversal(); it->GoToNextCell()) {
      vtkIdType n = 0;
      const vtkIdType* ids = nullptr;
      it->GetCurrentCell(n, ids);
      for (vtkIdType k = 0; k + 2 < n; ++k) {
        if (k % 2 == 0)
          add(ids[k], ids[k + 1], ids[k + 2]);
        else
          add(ids[k + 1], ids[k], ids[k + 2]);
      }
    }
  }
  if (badId) return makeError(ErrorCode::InvalidArgument, path, "the mesh has a cell naming a point it does not have");
  return out;
}

// A point as float, or false when a coordinate is not finite as a float (NaN, infinite, beyond float's range).
bool floatPoint(vtkPoints* points, vtkIdType id, std::array<float, 3>& out) {
  double p[3];
  points->GetPoint(id, p);
  for (std::size_t a = 0; a < 3; ++a) {
    out[a] = static_cast<float>(p[a]);
    if (!std::isfinite(out[a])) return false;
  }
  return true;
}

core::Error nonFinite(const std::string& path, vtkIdType id) {
  return makeError(ErrorCode::InvalidArgument, path, "point " + std::to_string(id) + " has a coordinate that is not a finite float");
}

void putU32(std::string& out, std::uint32_t v) {
  const char b[4] = {char(v & 0xff), char((v >> 8) & 0xff), char((v >> 16) & 0xff), char((v >> 24) & 0xff)};
  out.append(b, 4);
}

void putFloat(std::string& out, float f) {
  std::uint32_t v = 0;
  static_assert(sizeof v == sizeof f);
  std::memcpy(&v, &f, sizeof v);
  putU32(out, v);
}

std::uint32_t getU32(const unsigned char* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}

float getFloat(const unsigned char* p) {
  const std::uint32_t v = getU32(p);
  float f = 0;
  std::memcpy(&f, &v, sizeof f);
  return f;
}

bool startsWithSolid(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (s.size() - i < 5) return false;
  for (std::size_t k = 0; k < 5; ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != "solid"[k]) return false;
  return true;
}

core::Status writeStl(TempFile& file, vtkPolyData* mesh, const std::vector<Triangle>& triangles, const std::string& name) {
  const std::string& path = file.target();
  if (triangles.size() > std::numeric_limits<std::uint32_t>::max())
    return makeError(ErrorCode::SizeLimit, path,
                     std::to_string(triangles.size()) + " triangles: binary STL holds at most 4294967295");
  // Readers take a header starting with "solid" for ASCII STL.
  std::string header = name.empty() ? std::string("Delineate surface, LPS mm") : name;
  if (startsWithSolid(header)) header = "mesh " + header;
  header.resize(80, '\0');
  std::string& out = file.buffer();
  out += header;
  putU32(out, static_cast<std::uint32_t>(triangles.size()));
  vtkPoints* points = mesh->GetPoints();
  for (const Triangle& t : triangles) {
    std::array<std::array<float, 3>, 3> c{};
    for (std::size_t k = 0; k < 3; ++k)
      if (!floatPoint(points, t[k], c[k])) return nonFinite(path, t[k]);
    // The normal from the corners as stored, in double: what a reader computing it itself would find.
    double e1[3], e2[3];
    for (std::size_t a = 0; a < 3; ++a) {
      e1[a] = double(c[1][a]) - double(c[0][a]);
      e2[a] = double(c[2][a]) - double(c[0][a]);
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (double& v : n) v = len > 0 && std::isfinite(len) ? v / len : 0.0;
    for (const double v : n) putFloat(out, static_cast<float>(v));
    for (const auto& corner : c)
      for (const float v : corner) putFloat(out, v);
    out.append(2, '\0');  // attribute byte count
    if (core::Status s = file.maybeFlush(); !s) return s;
  }
  return core::Status::success();
}

void putNumber(std::string& out, float v) {
  char buf[32];
  // The shortest text that reads back as exactly this float, independent of the locale (Qt sets LC_NUMERIC from the
  // environment, and printf would then write decimal commas).
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void putIndex(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

core::Status writeObj(TempFile& file, vtkPolyData* mesh, const std::vector<Triangle>& triangles, const std::string& name) {
  const std::string& path = file.target();
  std::string& out = file.buffer();
  out += "# Delineate surface mesh, coordinates in LPS millimetres\n";
  if (!name.empty()) {
    std::string clean = name;
    for (char& ch : clean)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '_';
    out += "o " + clean + "\n";
  }
  // Only the points the triangles use, in their original order, each once.
  vtkPoints* points = mesh->GetPoints();
  const vtkIdType pointCount = mesh->GetNumberOfPoints();
  std::vector<std::uint64_t> index(static_cast<std::size_t>(pointCount), 0);  // 1-based, 0: unused
  for (const Triangle& t : triangles)
    for (const vtkIdType id : t) index[static_cast<std::size_t>(id)] = 1;
  std::uint64_t next = 0;
  for (vtkIdType id = 0; id < pointCount; ++id) {
    std::uint64_t& slot = index[static_cast<std::size_t>(id)];
    if (!slot) continue;
    slot = ++next;
    std::array<float, 3> p{};
    if (!floatPoint(points, id, p)) return nonFinite(path, id);
    out += 'v';
    for (const float v : p) {
      out += ' ';
      putNumber(out, v);
    }
    out += '\n';
    if (core::Status s = file.maybeFlush(); !s) return s;
  }
  for (const Triangle& t : triangles) {
    out += 'f';
    for (const vtkIdType id : t) {
      out += ' ';
      putIndex(out, index[static_cast<std::size_t>(id)]);
    }
    out += '\n';
    if (core::Status s = file.maybeFlush(); !s) return s;
  }
  return core::Status::success();
}

// The whole content into `file`'s temporary, finished (on disk, closed), ready to publish.
core::Status writeToTemp(TempFile& file, vtkPolyData* mesh, MeshFormat format, const std::string& name) {
  const std::string& path = file.target();
  if (!mesh) return makeError(ErrorCode::InvalidArgument, path, "no mesh to write");
  auto triangles = collectTriangles(mesh, path);
  if (!triangles) return triangles.error();
  if (!triangles->empty() && !mesh->GetPoints())
    return makeError(ErrorCode::InvalidArgument, path, "the mesh has cells but no points");
  if (core::Status s = file.open(); !s) return s;
  core::Status s = format == MeshFormat::StlBinary ? writeStl(file, mesh, *triangles, name)
                                                   : writeObj(file, mesh, *triangles, name);
  if (s) s = file.finish();
  if (!s) file.discard();
  return s;
}

// ---- reading ----

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

core::Result<FilePtr> openForReading(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    const int error = errno;
    return makeError(error == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path, "cannot open: " + errnoText(error));
  }
  struct stat st {};
  if (::fstat(::fileno(f.get()), &st) != 0 || !S_ISREG(st.st_mode))
    return makeError(ErrorCode::ReadFailed, path, "not a regular file");
  return f;
}

struct FloatTripleHash {
  std::size_t operator()(const std::array<float, 3>& p) const {
    std::uint32_t v[3];
    std::memcpy(v, p.data(), sizeof v);
    std::uint64_t h = 1469598103934665603ull;
    for (const std::uint32_t x : v) h = (h ^ x) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};
struct FloatTripleBitsEqual {
  bool operator()(const std::array<float, 3>& a, const std::array<float, 3>& b) const {
    return std::memcmp(a.data(), b.data(), sizeof(float) * 3) == 0;
  }
};

constexpr std::uint64_t kStlHeader = 84, kStlTriangle = 50;

bool stlSizeFits(std::uint64_t size, std::uint32_t count) { return size == kStlHeader + kStlTriangle * std::uint64_t(count); }

core::Result<TriangleMesh> readStl(const std::string& path) {
  auto file = openForReading(path);
  if (!file) return file.error();
  std::FILE* f = file->get();
  struct stat st {};
  (void)::fstat(::fileno(f), &st);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  unsigned char head[kStlHeader];
  if (size < kStlHeader || std::fread(head, 1, kStlHeader, f) != kStlHeader)
    return makeError(ErrorCode::Corrupt, path,
                     "the file holds " + std::to_string(size) + " bytes, less than a binary STL header (84)");
  const std::uint32_t count = getU32(head + 80);
  if (!stlSizeFits(size, count)) {
    if (startsWithSolid(std::string(reinterpret_cast<const char*>(head), 80)))
      return makeError(ErrorCode::Unsupported, path, "ASCII STL is not supported (only binary STL)");
    return makeError(ErrorCode::Corrupt, path,
                     "the header declares " + std::to_string(count) + " triangles, which take " +
                         std::to_string(kStlHeader + kStlTriangle * std::uint64_t(count)) + " bytes, but the file holds " +
                         std::to_string(size) + " (truncated or not a binary STL)");
  }
  // The size was checked against the file's: the allocations follow data that is really there.
  TriangleMesh mesh;
  mesh.triangles.reserve(count);
  std::unordered_map<std::array<float, 3>, std::uint32_t, FloatTripleHash, FloatTripleBitsEqual> seen;
  seen.reserve(std::size_t(count) / 2 + 16);
  std::vector<unsigned char> chunk;
  constexpr std::uint32_t kPerChunk = 1u << 16;
  for (std::uint32_t done = 0; done < count;) {
    const std::uint32_t n = std::min(kPerChunk, count - done);
    chunk.resize(std::size_t(n) * kStlTriangle);
    if (std::fread(chunk.data(), 1, chunk.size(), f) != chunk.size())
      return makeError(ErrorCode::ReadFailed, path, "cannot read triangle " + std::to_string(done));
    for (std::uint32_t i = 0; i < n; ++i) {
      const unsigned char* rec = chunk.data() + std::size_t(i) * kStlTriangle + 12;  // past the normal
      std::array<std::uint32_t, 3> tri{};
      for (std::size_t k = 0; k < 3; ++k) {
        const std::array<float, 3> p{getFloat(rec + 12 * k), getFloat(rec + 12 * k + 4), getFloat(rec + 12 * k + 8)};
        const auto [it, inserted] = seen.emplace(p, static_cast<std::uint32_t>(mesh.vertices.size()));
        if (inserted) mesh.vertices.push_back(p);
        tri[k] = it->second;
      }
      mesh.triangles.push_back(tri);
    }
    done += n;
  }
  return mesh;
}

// Splits a line into whitespace-separated tokens (views into `line`).
void tokenize(const char* p, const char* end, std::vector<std::pair<const char*, const char*>>& out) {
  out.clear();
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\v' || *p == '\f')) ++p;
    if (p >= end) break;
    const char* start = p;
    while (p < end && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\v' || *p == '\f')) ++p;
    out.emplace_back(start, p);
  }
}

core::Result<TriangleMesh> readObj(const std::string& path) {
  auto file = openForReading(path);
  if (!file) return file.error();
  std::FILE* f = file->get();
  TriangleMesh mesh;
  std::vector<std::pair<const char*, const char*>> tokens;
  std::vector<std::uint32_t> corners;
  char* raw = nullptr;
  std::size_t capacity = 0;
  struct LineFree {
    char*& p;
    ~LineFree() { std::free(p); }
  } freeLine{raw};
  int lineNo = 0;
  for (;;) {
    errno = 0;
    const ssize_t len = ::getline(&raw, &capacity, f);
    if (len < 0) {
      if (std::ferror(f)) return makeError(ErrorCode::ReadFailed, path, "cannot read: " + errnoText(errno ? errno : EIO));
      break;
    }
    ++lineNo;
    const char* end = raw + len;
    if (const void* hash = std::memchr(raw, '#', static_cast<std::size_t>(len))) end = static_cast<const char*>(hash);
    tokenize(raw, end, tokens);
    if (tokens.empty()) continue;
    const std::string_view keyword(tokens[0].first, static_cast<std::size_t>(tokens[0].second - tokens[0].first));
    if (keyword == "v") {
      if (tokens.size() < 4) return makeError(ErrorCode::ParseError, path, "a vertex needs three coordinates", lineNo);
      std::array<float, 3> p{};
      for (std::size_t a = 0; a < 3; ++a) {
        const auto [first, last] = tokens[a + 1];
        const char* q = first + (first < last && *first == '+' ? 1 : 0);  // from_chars refuses a leading '+'
        const auto r = std::from_chars(q, last, p[a]);
        if (r.ec != std::errc() || r.ptr != last || !std::isfinite(p[a]))
          return makeError(ErrorCode::ParseError, path,
                           "bad vertex coordinate '" + std::string(first, last) + "'", lineNo);
      }
      if (mesh.vertices.size() >= std::numeric_limits<std::uint32_t>::max())
        return makeError(ErrorCode::SizeLimit, path, "more than 4294967295 vertices", lineNo);
      mesh.vertices.push_back(p);
    } else if (keyword == "f") {
      if (tokens.size() < 4) return makeError(ErrorCode::ParseError, path, "a face needs at least three corners", lineNo);
      corners.clear();
      const auto count = static_cast<std::int64_t>(mesh.vertices.size());
      for (std::size_t k = 1; k < tokens.size(); ++k) {
        const auto [first, last] = tokens[k];
        std::int64_t v = 0;
        const char* q = first + (first < last && *first == '+' ? 1 : 0);
        const auto r = std::from_chars(q, last, v);
        // After the vertex index only "/texture", "/texture/normal" or "//normal" may follow.
        if (r.ec != std::errc() || (r.ptr != last && *r.ptr != '/'))
          return makeError(ErrorCode::ParseError, path, "bad face corner '" + std::string(first, last) + "'", lineNo);
        const std::int64_t zeroBased = v > 0 ? v - 1 : count + v;
        if (v == 0 || zeroBased < 0 || zeroBased >= count)
          return makeError(ErrorCode::ParseError, path,
                           "vertex index " + std::string(first, r.ptr) + " out of range (" + std::to_string(count) +
                               " vertices defined before it)",
                           lineNo);
        corners.push_back(static_cast<std::uint32_t>(zeroBased));
      }
      for (std::size_t k = 1; k + 1 < corners.size(); ++k) mesh.triangles.push_back({corners[0], corners[k], corners[k + 1]});
    }
    // vt, vn, o, g, s, usemtl, mtllib, l, p and the rest say nothing about the surface's shape.
  }
  return mesh;
}

std::string lowerExtension(const std::string& path) {
  const std::string base = splitPath(path).second;
  const auto dot = base.find_last_of('.');
  if (dot == std::string::npos) return {};
  std::string ext = base.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

const char* meshFormatExtension(MeshFormat format) { return format == MeshFormat::StlBinary ? "stl" : "obj"; }

core::Status writeMesh(const std::string& path, vtkPolyData* mesh, MeshFormat format, const std::string& name) {
  TempFile file(path);
  if (core::Status s = writeToTemp(file, mesh, format, name); !s) return s;
  return file.publish();
}

core::Result<std::vector<std::string>> writeMeshes(const std::string& folder,
                                                   const std::map<core::Label, vtkSmartPointer<vtkPolyData>>& surfaces,
                                                   MeshFormat format, const std::string& prefix) {
  if (prefix.find('/') != std::string::npos || prefix.find('\0') != std::string::npos)
    return makeError(ErrorCode::InvalidArgument, folder, "the file name prefix '" + prefix + "' contains a '/' or a NUL");
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int error = errno;
    return makeError(error == ENOENT ? ErrorCode::NotFound : ErrorCode::WriteFailed, folder,
                     "cannot use the folder: " + errnoText(error));
  }
  if (!S_ISDIR(st.st_mode)) return makeError(ErrorCode::WriteFailed, folder, "not a folder");
  const std::string base = folder.empty() || folder.back() == '/' ? folder : folder + "/";
  // Every file complete in its temporary before any is renamed: a failure on the last label leaves all the old ones.
  std::vector<std::unique_ptr<TempFile>> files;
  std::vector<std::string> paths;
  for (const auto& [label, mesh] : surfaces) {
    const std::string name = prefix + "label_" + std::to_string(label);
    const std::string path = base + name + "." + meshFormatExtension(format);
    files.push_back(std::make_unique<TempFile>(path));
    if (core::Status s = writeToTemp(*files.back(), mesh, format, name); !s) return s.error();  // destructors discard
    paths.push_back(path);
  }
  for (auto& file : files)
    if (core::Status s = file->publish(); !s) return s.error();
  return paths;
}

core::Result<TriangleMesh> readMesh(const std::string& path) {
  const std::string ext = lowerExtension(path);
  if (ext == "stl") return readStl(path);
  if (ext == "obj") return readObj(path);
  // Unknown extension: a binary STL is recognised by its size, anything else is tried as OBJ.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= std::int64_t(kStlHeader)) {
    if (auto file = openForReading(path)) {
      unsigned char head[kStlHeader];
      if (std::fread(head, 1, kStlHeader, file->get()) == kStlHeader &&
          stlSizeFits(static_cast<std::uint64_t>(st.st_size), getU32(head + 80)))
        return readStl(path);
    }
  }
  return readObj(path);
}

}  // namespace delineate::viewer
