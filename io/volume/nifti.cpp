#include "io/volume/nifti.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "io/base/atomic_file.h"
#include "io/base/gzip.h"
#include "io/base/regular_file.h"
#include "io/volume/image_file.h"
#include "io/volume/nifti_internal.h"

namespace delineate::io {
namespace {

using namespace nifti_detail;

std::string datatypeName(int datatype) {
  switch (datatype) {
    case 1: return "binary";
    case 32: return "complex64";
    case 128: return "RGB24";
    case 1536: return "float128";
    case 1792: return "complex128";
    case 2048: return "complex256";
    case 2304: return "RGBA32";
    default: return "unknown";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Files

// Owns a file descriptor; move-only.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct Source {
  std::string path;
  Fd fd;
  std::uint64_t fileSize = 0;
  bool gzipped = false;
  std::vector<std::uint8_t> compressed;  // the whole file, for .nii.gz once voxel data is wanted
};

// Reads up to n bytes at offset; returns how many were read (fewer only at end of file).
Result<std::size_t> readAt(const Source& src, std::uint64_t offset, std::uint8_t* dst, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const std::size_t chunk = std::min(n - done, std::size_t(1) << 30);
    const ssize_t r = ::pread(src.fd.fd, dst + done, chunk, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::ReadFailed, src.path, std::string("read failed: ") + std::strerror(errno));
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

Result<Source> openSource(const std::string& path) {
  Source src;
  src.path = path;
  // A pipe, socket, device or folder is refused before it is opened: a FIFO would block the open forever.
  auto fd = openRegularFile(path, "image file");
  if (!fd) return fd.error();
  src.fd = Fd(*fd);
  struct stat st {};
  if (::fstat(src.fd.fd, &st) != 0)
    return makeError(ErrorCode::ReadFailed, path, std::string("cannot stat: ") + std::strerror(errno));
  src.fileSize = static_cast<std::uint64_t>(st.st_size);
  std::uint8_t magic[2] = {0, 0};
  auto n = readAt(src, 0, magic, 2);
  if (!n) return n.error();
  src.gzipped = isGzip(magic, *n);
  return src;
}

Status loadCompressed(Source& src) {
  if (!src.compressed.empty() || !src.gzipped) return Status::success();
  if (src.fileSize > std::numeric_limits<std::size_t>::max())
    return makeError(ErrorCode::SizeLimit, src.path, "file is too large for this machine");
  try {
    src.compressed.resize(static_cast<std::size_t>(src.fileSize));
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, src.path,
                     "cannot allocate " + std::to_string(src.fileSize) + " bytes for the compressed file");
  }
  auto n = readAt(src, 0, src.compressed.data(), src.compressed.size());
  if (!n) return n.error();
  src.compressed.resize(*n);  // the file shrank under us; whatever is missing shows up as truncation
  return Status::success();
}

// The first bytes of the uncompressed file, enough for either header version.
Result<std::vector<std::uint8_t>> readHeaderBytes(Source& src, bool wholeFileWanted) {
  std::vector<std::uint8_t> header(kNifti2HeaderSize);
  if (!src.gzipped) {
    auto n = readAt(src, 0, header.data(), header.size());
    if (!n) return n.error();
    header.resize(*n);
    return header;
  }
  if (!wholeFileWanted && src.fileSize > kHeaderPeekBytes) {
    std::vector<std::uint8_t> prefix(kHeaderPeekBytes);
    auto n = readAt(src, 0, prefix.data(), prefix.size());
    if (!n) return n.error();
    auto r = gunzipInto(prefix.data(), *n, header.data(), header.size(), src.path);
    if (r && r->bytes == header.size()) return header;
  }
  if (Status s = loadCompressed(src); !s) return s.error();
  auto r = gunzipInto(src.compressed.data(), src.compressed.size(), header.data(), header.size(), src.path);
  if (!r) return r.error();
  header.resize(r->bytes);
  return header;
}

// ---------------------------------------------------------------------------------------------------------------
// Header parsing and geometry

struct RawTransforms {
  std::array<double, 6> quatern{};  // b, c, d, qoffset x, y, z
  std::array<double, 12> srow{};
};

double columnNorm(const Mat3& m, int c) {
  return std::sqrt(m(0, c) * m(0, c) + m(1, c) * m(1, c) + m(2, c) * m(2, c));
}

Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// A 2D image may leave the affine column of its missing k axis zero; give it the unit normal of the slice so the grid
// stays valid. Present axes are never touched: zero there is an error for validate() to report.
void fillMissingColumns(Mat3& a, std::int64_t dimCount) {
  for (int c = static_cast<int>(std::max<std::int64_t>(dimCount, 1)); c < 3; ++c) {
    const double n = columnNorm(a, c);
    if (std::isfinite(n) && n > 0) continue;
    Vec3 v = c == 2 ? cross({a(0, 0), a(1, 0), a(2, 0)}, {a(0, 1), a(1, 1), a(2, 1)}) : Vec3{0, 0, 0};
    const double vn = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int r = 0; r < 3; ++r) a(r, c) = vn > 0 ? v[static_cast<std::size_t>(r)] / vn : (r == c ? 1.0 : 0.0);
  }
}

Mat3 quaternionToRotation(double b, double c, double d) {
  double aa = 1.0 - (b * b + c * c + d * d);
  double a = 0;
  if (aa < 1e-7) {
    // (b, c, d) is (nearly) a unit vector: a 180 degree rotation. Renormalise as the NIfTI reference code does.
    const double n = std::sqrt(b * b + c * c + d * d);
    b /= n;
    c /= n;
    d /= n;
  } else {
    a = std::sqrt(aa);
  }
  Mat3 r;
  r.m = {a * a + b * b - c * c - d * d, 2 * (b * c - a * d),           2 * (b * d + a * c),
         2 * (b * c + a * d),           a * a + c * c - b * b - d * d, 2 * (c * d - a * b),
         2 * (b * d - a * c),           2 * (c * d + a * b),           a * a + d * d - c * c - b * b};
  return r;
}

// The index->RAS affine (3x3 part and translation) that `source` describes in the header.
void affineFor(NiftiTransformSource source, const NiftiHeaderInfo& info, const RawTransforms& raw, Mat3& a, Vec3& t) {
  const std::int64_t dimCount = info.dim[0];
  auto pixdimOr1 = [&](int axis) {
    const double p = std::abs(info.pixdim[static_cast<std::size_t>(axis)]);
    return (axis > dimCount && (!std::isfinite(p) || p == 0)) ? 1.0 : p;
  };
  t = {0, 0, 0};
  if (source == NiftiTransformSource::Sform) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) a(r, c) = raw.srow[static_cast<std::size_t>(r * 4 + c)];
      t[static_cast<std::size_t>(r)] = raw.srow[static_cast<std::size_t>(r * 4 + 3)];
    }
  } else if (source == NiftiTransformSource::Qform) {
    const Mat3 rot = quaternionToRotation(raw.quatern[0], raw.quatern[1], raw.quatern[2]);
    const double qfac = info.pixdim[0] < 0 ? -1.0 : 1.0;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) a(r, c) = rot(r, c) * pixdimOr1(c + 1) * (c == 2 ? qfac : 1.0);
    t = {raw.quatern[3], raw.quatern[4], raw.quatern[5]};
  } else {
    a.m = {info.pixdim[1], 0, 0, 0, info.pixdim[2], 0, 0, 0, info.pixdim[3]};
    for (int c = 0; c < 3; ++c)
      if (c + 1 > dimCount) a(c, c) = pixdimOr1(c + 1);
  }
  fillMissingColumns(a, dimCount);
}

// RAS affine -> LPS geometry parts (mm), without validation.
void splitAffine(const NiftiHeaderInfo& info, Mat3 a, const Vec3& t, Vec3& spacing, Mat3& direction, Vec3& origin) {
  const double unitToMm = info.spatialUnits == 1 ? 1000.0 : info.spatialUnits == 3 ? 1e-3 : 1.0;
  for (int r = 0; r < 3; ++r) {
    const double lps = r < 2 ? -1.0 : 1.0;  // RAS -> LPS
    for (int c = 0; c < 3; ++c) a(r, c) *= lps * unitToMm;
    origin[static_cast<std::size_t>(r)] = t[static_cast<std::size_t>(r)] * lps * unitToMm;
  }
  for (int c = 0; c < 3; ++c) {
    const double n = columnNorm(a, c);
    spacing[static_cast<std::size_t>(c)] = n;
    for (int r = 0; r < 3; ++r) direction(r, c) = n > 0 && std::isfinite(n) ? a(r, c) / n : a(r, c);
  }
}

Status geometryFromHeader(NiftiHeaderInfo& info, const RawTransforms& raw, const std::string& path) {
  info.transformSource = info.sformCode > 0   ? NiftiTransformSource::Sform
                         : info.qformCode > 0 ? NiftiTransformSource::Qform
                                              : NiftiTransformSource::PixdimOnly;
  Mat3 a;
  Vec3 t{0, 0, 0};
  Vec3 spacing{0, 0, 0}, origin{0, 0, 0};
  Mat3 direction;
  affineFor(info.transformSource, info, raw, a, t);
  splitAffine(info, a, t, spacing, direction, origin);
  const core::Size3 dims{info.dim[1], info.dim[0] >= 2 ? info.dim[2] : 1, info.dim[0] >= 3 ? info.dim[3] : 1};
  Status s = Geometry::validate(dims, spacing, origin, direction, path);
  // A sheared sform cannot be a core::Geometry. The qform (always a rotation) may describe the same scan without
  // the shear, as ITK assumes; but after a 12-parameter registration the sform points into a template space and the
  // qform stays in scanner space, so the fallback is taken only when the two place the grid's corners within a
  // voxel of each other. Otherwise guessing would put saved masks in the wrong space.
  const bool onlyTheDirectionIsWrong = !s && Geometry::validate(dims, spacing, origin, Mat3::identity()).ok();
  if (onlyTheDirectionIsWrong && info.transformSource == NiftiTransformSource::Sform && info.qformCode > 0) {
    const Mat3 sformA = a;
    const Vec3 sformT = t;
    affineFor(NiftiTransformSource::Qform, info, raw, a, t);
    double worstMm = 0;
    for (int corner = 0; corner < 8; ++corner) {
      const Vec3 ijk{(corner & 1) ? double(dims[0] - 1) : 0.0, (corner & 2) ? double(dims[1] - 1) : 0.0,
                     (corner & 4) ? double(dims[2] - 1) : 0.0};
      const Vec3 ps = sformA * ijk, pq = a * ijk;
      double d2 = 0;
      for (std::size_t r = 0; r < 3; ++r) d2 += std::pow((ps[r] + sformT[r]) - (pq[r] + t[r]), 2);
      worstMm = std::max(worstMm, std::sqrt(d2));
    }
    Vec3 qSpacing{0, 0, 0}, qOrigin{0, 0, 0};
    Mat3 qDirection;
    splitAffine(info, a, t, qSpacing, qDirection, qOrigin);
    const double voxelMm = std::max({qSpacing[0], qSpacing[1], qSpacing[2]});
    if (worstMm > voxelMm)
      return makeError(ErrorCode::InvalidGeometry, path,
                       s.error().detail + " in the sform, and the qform places the grid up to " +
                           std::to_string(worstMm) + " mm away from it (a registration result?): refusing to guess "
                           "which space is meant");
    info.transformSource = NiftiTransformSource::Qform;
    spacing = qSpacing;
    origin = qOrigin;
    direction = qDirection;
    s = Geometry::validate(dims, spacing, origin, direction, path);
  }
  if (!s) return s;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) info.affineRas[static_cast<std::size_t>(r * 4 + c)] = a(r, c);
    info.affineRas[static_cast<std::size_t>(r * 4 + 3)] = t[static_cast<std::size_t>(r)];
  }
  info.affineRas[15] = 1;
  info.geometry = Geometry(dims, spacing, origin, direction);
  return Status::success();
}

Result<NiftiHeaderInfo> parseHeader(const std::vector<std::uint8_t>& h, const std::string& path, bool gzipped) {
  const std::string found = gzipped ? " after decompression" : "";
  if (h.size() < kNifti1HeaderSize)
    return makeError(ErrorCode::Corrupt, path,
                     "too short for a NIfTI header: expected at least 348 bytes, found " + std::to_string(h.size()) +
                         found);
  NiftiHeaderInfo info;
  info.gzipped = gzipped;
  std::int32_t sizeofHdr = 0;
  std::memcpy(&sizeofHdr, h.data(), 4);
  // sizeof_hdr doubles as the byte-order mark: it reads as 348 or 540 only in the file's own order.
  const bool swap = sizeofHdr != 348 && sizeofHdr != 540;
  if (swap) sizeofHdr = byteSwapped(sizeofHdr);
  if (sizeofHdr != 348 && sizeofHdr != 540)
    return makeError(ErrorCode::ParseError, path,
                     "not a NIfTI file: sizeof_hdr is " + std::to_string(byteSwapped(sizeofHdr)) +
                         ", expected 348 (NIfTI-1) or 540 (NIfTI-2)");
  info.bigEndian = hostIsLittleEndian() == swap;
  info.version = sizeofHdr == 348 ? 1 : 2;
  if (info.version == 2 && h.size() < kNifti2HeaderSize)
    return makeError(ErrorCode::Corrupt, path,
                     "too short for a NIfTI-2 header: expected at least 540 bytes, found " +
                         std::to_string(h.size()) + found);
  const FieldReader r{h.data(), swap};
  RawTransforms raw;
  double voxOffset = 0;
  if (info.version == 1) {
    const char* magic = reinterpret_cast<const char*>(h.data() + 344);
    if (std::memcmp(magic, "ni1\0", 4) == 0)
      return makeError(ErrorCode::Unsupported, path, "separate .hdr/.img NIfTI pairs are not supported");
    if (std::memcmp(magic, "n+1\0", 4) != 0)
      return makeError(ErrorCode::ParseError, path, "not a NIfTI-1 file: bad magic (expected \"n+1\")");
    for (std::size_t i = 0; i < 8; ++i) info.dim[i] = r.get<std::int16_t>(40 + 2 * i);
    info.intentCode = r.get<std::int16_t>(68);
    info.datatype = r.get<std::int16_t>(70);
    for (std::size_t i = 0; i < 8; ++i) info.pixdim[i] = r.get<float>(76 + 4 * i);
    voxOffset = r.get<float>(108);
    info.sclSlope = r.get<float>(112);
    info.sclInter = r.get<float>(116);
    info.spatialUnits = h[123] & 7;
    info.qformCode = r.get<std::int16_t>(252);
    info.sformCode = r.get<std::int16_t>(254);
    for (std::size_t i = 0; i < 6; ++i) raw.quatern[i] = r.get<float>(256 + 4 * i);
    for (std::size_t i = 0; i < 12; ++i) raw.srow[i] = r.get<float>(280 + 4 * i);
  } else {
    const char* magic = reinterpret_cast<const char*>(h.data() + 4);
    if (std::memcmp(magic, "ni2\0", 4) == 0)
      return makeError(ErrorCode::Unsupported, path, "separate .hdr/.img NIfTI pairs are not supported");
    // The four bytes after "n+2\0" catch text-mode transfers (CR/LF translation), as in PNG.
    if (std::memcmp(magic, "n+2\0\r\n\032\n", 8) != 0)
      return makeError(ErrorCode::ParseError, path, "not a NIfTI-2 file: bad magic (expected \"n+2\")");
    info.datatype = r.get<std::int16_t>(12);
    for (std::size_t i = 0; i < 8; ++i) info.dim[i] = r.get<std::int64_t>(16 + 8 * i);
    for (std::size_t i = 0; i < 8; ++i) info.pixdim[i] = r.get<double>(104 + 8 * i);
    voxOffset = static_cast<double>(r.get<std::int64_t>(168));
    info.sclSlope = r.get<double>(176);
    info.sclInter = r.get<double>(184);
    info.qformCode = r.get<std::int32_t>(344);
    info.sformCode = r.get<std::int32_t>(348);
    for (std::size_t i = 0; i < 6; ++i) raw.quatern[i] = r.get<double>(352 + 8 * i);
    for (std::size_t i = 0; i < 12; ++i) raw.srow[i] = r.get<double>(400 + 8 * i);
    info.spatialUnits = r.get<std::int32_t>(500) & 7;
    info.intentCode = r.get<std::int32_t>(504);
  }

  const std::int64_t dimCount = info.dim[0];
  if (dimCount < 1 || dimCount > 7)
    return makeError(ErrorCode::ParseError, path, "dim[0] is " + std::to_string(dimCount) + ", expected 1..7");
  for (std::int64_t i = 1; i <= dimCount; ++i)
    if (info.dim[static_cast<std::size_t>(i)] < 1)
      return makeError(ErrorCode::InvalidGeometry, path,
                       "dim[" + std::to_string(i) + "] is " + std::to_string(info.dim[static_cast<std::size_t>(i)]) +
                           ", must be positive");
  for (std::int64_t i = 4; i <= dimCount; ++i)
    if (info.dim[static_cast<std::size_t>(i)] != 1)
      return makeError(ErrorCode::Unsupported, path,
                       std::string(i == 4 ? "4D images are not supported" : "images with more than 3 dimensions are "
                                                                            "not supported") +
                           ": dim[" + std::to_string(i) + "] is " +
                           std::to_string(info.dim[static_cast<std::size_t>(i)]));

  // Voxel count one factor at a time, so the check itself cannot overflow.
  std::int64_t count = 1;
  for (std::int64_t i = 1; i <= std::min<std::int64_t>(dimCount, 3); ++i) {
    const std::int64_t d = info.dim[static_cast<std::size_t>(i)];
    if (d > Geometry::kMaxVoxels / count) {
      std::string dims;
      for (std::int64_t j = 1; j <= std::min<std::int64_t>(dimCount, 3); ++j)
        dims += (j > 1 ? "x" : "") + std::to_string(info.dim[static_cast<std::size_t>(j)]);
      return makeError(ErrorCode::SizeLimit, path,
                       "declares " + dims + " voxels, more than the limit of " + std::to_string(Geometry::kMaxVoxels));
    }
    count *= d;
  }

  info.bytesPerVoxel = bytesPerVoxel(info.datatype);
  if (info.bytesPerVoxel == 0)
    return makeError(ErrorCode::Unsupported, path,
                     "datatype " + std::to_string(info.datatype) + " (" + datatypeName(info.datatype) +
                         ") is not supported");
  info.dataBytes = count * info.bytesPerVoxel;  // <= 2^36 * 8: no overflow

  const std::int64_t headerSize = info.version == 1 ? std::int64_t(kNifti1HeaderSize) : std::int64_t(kNifti2HeaderSize);
  if (!std::isfinite(voxOffset) || voxOffset != std::floor(voxOffset) || voxOffset < 0)
    return makeError(ErrorCode::ParseError, path, "vox_offset " + std::to_string(voxOffset) + " is not a byte offset");
  if (voxOffset > static_cast<double>(kMaxVoxOffset))
    return makeError(ErrorCode::SizeLimit, path,
                     "vox_offset " + std::to_string(static_cast<std::int64_t>(voxOffset)) + " is implausibly large");
  info.voxOffset = static_cast<std::int64_t>(voxOffset);
  // Some old writers leave 0 in single files; data then follows the header and extension flag.
  if (info.voxOffset == 0) info.voxOffset = info.version == 1 ? kNifti1DefaultOffset : kNifti2DefaultOffset;
  if (info.voxOffset < headerSize)
    return makeError(ErrorCode::Corrupt, path,
                     "vox_offset " + std::to_string(info.voxOffset) + " lies inside the " +
                         std::to_string(headerSize) + "-byte header");

  if (Status s = geometryFromHeader(info, raw, path); !s) return s.error();
  return info;
}

Result<NiftiHeaderInfo> openAndParse(Source& src, bool wholeFileWanted) {
  auto bytes = readHeaderBytes(src, wholeFileWanted);
  if (!bytes) return bytes.error();
  return parseHeader(*bytes, src.path, src.gzipped);
}

// ---------------------------------------------------------------------------------------------------------------
// Voxel data

std::uint64_t totalBytes(const NiftiHeaderInfo& info) {
  return static_cast<std::uint64_t>(info.voxOffset) + static_cast<std::uint64_t>(info.dataBytes);
}

std::string expectedText(const NiftiHeaderInfo& info) {
  return "expected " + std::to_string(totalBytes(info)) + " bytes (" + std::to_string(info.voxOffset) +
         " header + " + std::to_string(info.dataBytes) + " voxel data)";
}

// Everything checkable before allocating: the declared size must fit in what the file holds (or can inflate to).
Status checkDataAvailable(const Source& src, const NiftiHeaderInfo& info) {
  const std::uint64_t total = totalBytes(info);
  if (total > std::numeric_limits<std::size_t>::max())
    return makeError(ErrorCode::SizeLimit, src.path, "too large for this machine's address space");
  if (!info.gzipped) {
    if (src.fileSize < total)
      return makeError(ErrorCode::Corrupt, src.path,
                       "file is truncated: " + expectedText(info) + ", found " + std::to_string(src.fileSize));
    return Status::success();
  }
  const std::uint64_t most = maxInflatedSize(src.compressed.size());
  if (total > most)
    return makeError(ErrorCode::Corrupt, src.path,
                     "file is truncated: " + expectedText(info) + " after decompression, but its " +
                         std::to_string(src.compressed.size()) + " compressed bytes can hold at most " +
                         std::to_string(most));
  return Status::success();
}

std::size_t bufferBytesNeeded(const NiftiHeaderInfo& info) {
  return static_cast<std::size_t>(info.gzipped ? totalBytes(info) : static_cast<std::uint64_t>(info.dataBytes));
}

// Puts the voxel bytes at buffer[0, dataBytes); `buffer` holds bufferBytesNeeded(info) bytes.
Status loadVoxelBytes(const Source& src, const NiftiHeaderInfo& info, std::uint8_t* buffer) {
  const auto dataBytes = static_cast<std::size_t>(info.dataBytes);
  if (!info.gzipped) {
    auto n = readAt(src, static_cast<std::uint64_t>(info.voxOffset), buffer, dataBytes);
    if (!n) return n.error();
    if (*n != dataBytes)
      return makeError(ErrorCode::Corrupt, src.path,
                       "file is truncated: " + expectedText(info) + ", found " +
                           std::to_string(static_cast<std::size_t>(info.voxOffset) + *n));
    return Status::success();
  }
  const auto total = static_cast<std::size_t>(totalBytes(info));
  auto r = gunzipInto(src.compressed.data(), src.compressed.size(), buffer, total, src.path);
  if (!r) return r.error();
  if (r->bytes < total || r->truncated)
    return makeError(ErrorCode::Corrupt, src.path,
                     "file is truncated: " + expectedText(info) + " after decompression, found " +
                         std::to_string(r->bytes) +
                         (r->truncated ? (r->bytes < total ? " (the gzip stream is cut off)"
                                                           : " (the gzip stream is cut off before its checksum)")
                                       : ""));
  std::memmove(buffer, buffer + info.voxOffset, dataBytes);
  return Status::success();
}

struct Scaling {
  bool apply = false;
  double slope = 1;
  double inter = 0;
};

Scaling scalingOf(const NiftiHeaderInfo& info) {
  Scaling s;
  if (!std::isfinite(info.sclSlope) || info.sclSlope == 0) return s;  // spec: slope 0 means unscaled
  s.slope = info.sclSlope;
  s.inter = std::isfinite(info.sclInter) ? info.sclInter : 0.0;
  s.apply = !(s.slope == 1 && s.inter == 0);
  return s;
}

// Loads the voxel data and converts each value with convert(index, value-as-Src, out) -> bool. A false return stops
// and yields an empty vector with `rejected` set; the caller words the error since it knows why.
// One buffer for both: the file's bytes are placed at the tail of the output vector (for .nii.gz the whole inflated
// stream, header included) and converted front to back in blocks. Output element i never reaches input bytes that
// are still unread, because the input starts at least count x (sizeof(Dst) - sizeof(Src)) bytes in; a file type
// wider than the output (float64 -> float32) is staged through a separate buffer instead.
template <class Dst, class Convert>
Result<typename core::Volume<Dst>::UninitBuffer> loadConverted(const Source& src, const NiftiHeaderInfo& info,
                                                               Convert&& convert,
                                       bool identityWhenSameType, int sameTypeCode, bool& rejected) {
  if (Status s = checkDataAvailable(src, info); !s) return s.error();
  const auto count = static_cast<std::size_t>(info.dataBytes / info.bytesPerVoxel);
  const std::size_t bufferBytes = bufferBytesNeeded(info);
  const auto dataBytes = static_cast<std::size_t>(info.dataBytes);
  const bool swap = info.bigEndian == hostIsLittleEndian();
  const bool inPlace = static_cast<std::size_t>(info.bytesPerVoxel) <= sizeof(Dst);
  try {
    // Uninitialised buffers: only the pages inflation reaches are touched (see core::UninitAllocator).
    typename core::Volume<Dst>::UninitBuffer out;
    core::Volume<std::uint8_t>::UninitBuffer raw;
    std::uint8_t* bytes = nullptr;  // the voxel bytes, in file order
    if (inPlace) {
      const std::size_t outBytes = count * sizeof(Dst);
      const std::size_t headroom = bufferBytes > dataBytes ? bufferBytes - dataBytes : 0;  // gzip: the header too
      out.resize((outBytes + headroom + sizeof(Dst) - 1) / sizeof(Dst));
      auto* base = reinterpret_cast<std::uint8_t*>(out.data());
      const std::size_t total = out.size() * sizeof(Dst);
      std::uint8_t* load = base + (total - bufferBytes);  // loadVoxelBytes puts the voxels at load[0, dataBytes)
      if (Status s = loadVoxelBytes(src, info, load); !s) return s.error();
      // loadVoxelBytes moved the voxels to the front of its buffer; move them to the very end instead.
      bytes = base + (total - dataBytes);
      if (bytes != load) std::memmove(bytes, load, dataBytes);
    } else {
      raw.resize(bufferBytes);
      out.resize(count);
      if (Status s = loadVoxelBytes(src, info, raw.data()); !s) return s.error();
      bytes = raw.data();
    }
    if (inPlace && info.datatype == sameTypeCode && !swap && identityWhenSameType) {
      std::memmove(out.data(), bytes, dataBytes);
      out.resize(count);
      return out;
    }
    bool ok = true;
    visitDatatype(info.datatype, [&](auto tag) {
      using Src = decltype(tag);
      constexpr std::size_t kBlock = 4096;
      Src block[kBlock];
      for (std::size_t first = 0; first < count && ok; first += kBlock) {
        const std::size_t n = std::min(kBlock, count - first);
        std::memcpy(block, bytes + first * sizeof(Src), n * sizeof(Src));  // read before the block is overwritten
        if (swap)
          for (std::size_t i = 0; i < n; ++i) block[i] = byteSwapped(block[i]);
        Dst* dst = out.data() + first;
        for (std::size_t i = 0; i < n; ++i)
          if (!convert(first + i, block[i], dst[i])) {  // images never refuse, so this loop vectorises for them
            ok = false;
            break;
          }
      }
    });
    out.resize(count);
    if (!ok) out.clear();
    rejected = !ok;
    return out;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, src.path,
                     "cannot allocate " + std::to_string(bufferBytes + count * sizeof(Dst)) + " bytes for voxel data");
  }
}

std::string formatValue(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Source and parsed header, with the voxel data loaded (inflated) and ready to convert.
struct LoadedNifti {
  Source source;
  NiftiHeaderInfo info;
};

Result<LoadedNifti> openForVoxels(const std::string& path) {
  auto src = openSource(path);
  if (!src) return src.error();
  if (Status s = loadCompressed(*src); !s) return s.error();
  auto info = openAndParse(*src, true);
  if (!info) return info.error();
  return LoadedNifti{std::move(src).value(), std::move(info).value()};
}

}  // namespace

Result<NiftiHeaderInfo> readNiftiHeader(const std::string& path) {
  auto src = openSource(path);
  if (!src) return src.error();
  return openAndParse(*src, false);
}

namespace {

// The voxels of an opened file as float32 values (scaled when the header says so).
Result<core::ImageVolume> floatImageFrom(const LoadedNifti& loaded, const std::string& path) {
  const Source* src = &loaded.source;
  const NiftiHeaderInfo* info = &loaded.info;
  const Scaling sc = scalingOf(*info);
  auto convert = [&sc](std::size_t, auto v, float& out) {
    out = sc.apply ? static_cast<float>(static_cast<double>(v) * sc.slope + sc.inter) : static_cast<float>(v);
    return true;
  };
  bool rejected = false;
  auto voxels =
      loadConverted<float>(*src, *info, convert, !sc.apply, static_cast<int>(NiftiDatatype::Float32), rejected);
  if (!voxels) return voxels.error();
  return core::ImageVolume::adopt(info->geometry, std::move(voxels).value(), path);
}

}  // namespace

Result<core::ImageVolume> readNiftiImage(const std::string& path) {
  auto loaded = openForVoxels(path);
  if (!loaded) return loaded.error();
  return floatImageFrom(*loaded, path);
}

Result<core::ScalarImage> readNiftiImageTyped(const std::string& path) {
  auto loaded = openForVoxels(path);
  if (!loaded) return loaded.error();
  const Source* src = &loaded->source;
  const NiftiHeaderInfo* info = &loaded->info;
  const Scaling sc = scalingOf(*info);
  // Stored as one of ours and not scaled: read in that type, no conversion (in place, as the float path does).
  auto as = [&](auto tag, NiftiDatatype code) -> Result<core::ScalarImage> {
    using T = decltype(tag);
    auto identity = [](std::size_t, auto v, T& out) {
      out = static_cast<T>(v);
      return true;
    };
    bool rejected = false;
    auto voxels = loadConverted<T>(*src, *info, identity, true, static_cast<int>(code), rejected);
    if (!voxels) return voxels.error();
    auto volume = core::Volume<T>::adopt(info->geometry, std::move(voxels).value(), path);
    if (!volume) return volume.error();
    return core::ScalarImage(std::move(*volume));
  };
  if (!sc.apply) switch (static_cast<NiftiDatatype>(info->datatype)) {
      case NiftiDatatype::UInt8: return as(std::uint8_t{}, NiftiDatatype::UInt8);
      case NiftiDatatype::Int8:
      case NiftiDatatype::Int16: return as(std::int16_t{}, NiftiDatatype::Int16);
      case NiftiDatatype::UInt16: return as(std::uint16_t{}, NiftiDatatype::UInt16);
      case NiftiDatatype::Int32: return as(std::int32_t{}, NiftiDatatype::Int32);
      case NiftiDatatype::Float32: return as(float{}, NiftiDatatype::Float32);
      default: break;
    }
  // Scaled, or a type of none of ours (uint32, 64-bit, float64): the float32 values, narrowed where they are whole.
  auto image = floatImageFrom(*loaded, path);
  loaded = core::makeError(core::ErrorCode::Cancelled, path, "released");  // a .nii.gz's compressed bytes go now
  if (!image) return image.error();
  return core::ScalarImage::narrowed(std::move(*image), path);
}

namespace {

Result<core::LabelMap> labelsFrom(Result<LoadedNifti> loaded) {
  if (!loaded) return loaded.error();
  const std::string path = loaded->source.path;
  const Source* src = &loaded->source;
  const NiftiHeaderInfo* info = &loaded->info;
  const Scaling sc = scalingOf(*info);
  std::size_t badIndex = 0;
  double badValue = 0;
  auto convert = [&](std::size_t i, auto v, Label& out) {
    const double x = sc.apply ? static_cast<double>(v) * sc.slope + sc.inter : static_cast<double>(v);
    if (!(x >= 0 && x <= 65535 && x == std::floor(x))) {
      badIndex = i;
      badValue = x;
      return false;
    }
    out = static_cast<Label>(x);
    return true;
  };
  bool rejected = false;
  auto voxels =
      loadConverted<Label>(*src, *info, convert, !sc.apply, static_cast<int>(NiftiDatatype::UInt16), rejected);
  if (!voxels) return voxels.error();
  if (rejected) return labelValueRefused(path, info->geometry, badIndex, formatValue(badValue));
  auto volume = core::Volume<Label>::adopt(info->geometry, std::move(voxels).value(), path);
  if (!volume) return volume.error();
  return core::LabelMap(std::move(volume).value());
}

}  // namespace

Result<core::LabelMap> readNiftiLabels(const std::string& path) { return labelsFrom(openForVoxels(path)); }

Result<core::LabelMap> decodeNiftiLabelsGz(std::vector<std::uint8_t> bytes, const std::string& subject) {
  if (!isGzip(bytes.data(), bytes.size()))
    return makeError(ErrorCode::ParseError, subject, "not a gzip-compressed NIfTI file");
  Source src;
  src.path = subject;
  src.fileSize = bytes.size();
  src.gzipped = true;
  src.compressed = std::move(bytes);  // every read of a gzipped source goes to this buffer, never to the descriptor
  auto info = openAndParse(src, true);
  if (!info) return info.error();
  return labelsFrom(LoadedNifti{std::move(src), std::move(info).value()});
}


}  // namespace delineate::io
