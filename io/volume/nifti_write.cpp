#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "io/base/atomic_file.h"
#include "io/base/gzip.h"
#include "io/volume/nifti.h"
#include "io/volume/image_file_internal.h"
#include "io/volume/nifti_internal.h"

namespace delineate::io {
namespace {

using namespace nifti_detail;

// ---------------------------------------------------------------------------------------------------------------
// Writing

using image_file_detail::endsWithNoCase;

// Nearest rotation to a nearly orthonormal matrix (polar decomposition by Newton iteration); exact input stays put.
Mat3 nearestRotation(Mat3 r) {
  for (int it = 0; it < 50; ++it) {
    const Mat3 invT = r.inverse().transposed();
    double change = 0;
    Mat3 next;
    for (std::size_t i = 0; i < 9; ++i) {
      next.m[i] = 0.5 * (r.m[i] + invT.m[i]);
      change = std::max(change, std::abs(next.m[i] - r.m[i]));
    }
    r = next;
    if (change < 1e-15) break;
  }
  return r;
}

// Quaternion (b, c, d) with a >= 0 of a proper rotation; the inverse of quaternionToRotation. The rotation formula
// gives every product 4*q_i*q_j of (a, b, c, d); dividing by the largest component (Shepperd's method) stays accurate
// near 180 degree rotations, where a is ~0.
std::array<double, 3> rotationToQuaternion(const Mat3& r) {
  const double sq[4] = {1 + r(0, 0) + r(1, 1) + r(2, 2), 1 + r(0, 0) - r(1, 1) - r(2, 2),
                        1 - r(0, 0) + r(1, 1) - r(2, 2), 1 - r(0, 0) - r(1, 1) + r(2, 2)};
  const double ab = r(2, 1) - r(1, 2), ac = r(0, 2) - r(2, 0), ad = r(1, 0) - r(0, 1);
  const double bc = r(0, 1) + r(1, 0), bd = r(0, 2) + r(2, 0), cd = r(1, 2) + r(2, 1);
  const double p[4][4] = {{sq[0], ab, ac, ad}, {ab, sq[1], bc, bd}, {ac, bc, sq[2], cd}, {ad, bd, cd, sq[3]}};
  const auto k = static_cast<std::size_t>(std::max_element(sq, sq + 4) - sq);
  const double fourQk = 2 * std::sqrt(p[k][k]);
  double q[4];
  for (std::size_t j = 0; j < 4; ++j) q[j] = p[k][j] / fourQk;
  const double sign = q[0] < 0 ? -1.0 : 1.0;
  return {sign * q[1], sign * q[2], sign * q[3]};
}

struct HeaderFields {
  std::array<double, 12> srow{};
  std::array<double, 3> quatern{};
  double qfac = 1;
};

HeaderFields transformsFor(const Geometry& g) {
  HeaderFields f;
  Mat3 dirRas = g.direction();
  for (int c = 0; c < 3; ++c) {
    dirRas(0, c) = -dirRas(0, c);
    dirRas(1, c) = -dirRas(1, c);
  }
  const Vec3& s = g.spacingMm();
  const Vec3& o = g.originLps();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      f.srow[static_cast<std::size_t>(r * 4 + c)] = dirRas(r, c) * s[static_cast<std::size_t>(c)];
    f.srow[static_cast<std::size_t>(r * 4 + 3)] = (r < 2 ? -1.0 : 1.0) * o[static_cast<std::size_t>(r)];
  }
  Mat3 rot = dirRas;
  if (rot.determinant() < 0) {
    f.qfac = -1;
    for (int r = 0; r < 3; ++r) rot(r, 2) = -rot(r, 2);
  }
  f.quatern = rotationToQuaternion(nearestRotation(rot));
  return f;
}

std::vector<std::uint8_t> buildHeader(const Geometry& g, int version, NiftiDatatype type, int intentCode) {
  const HeaderFields f = transformsFor(g);
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  const int bytes = bytesPerVoxel(static_cast<int>(type));
  const char descrip[] = "Delineate";
  std::vector<std::uint8_t> h(static_cast<std::size_t>(version == 1 ? kNifti1DefaultOffset : kNifti2DefaultOffset), 0);
  FieldWriter w{h};
  const double pixdim[8] = {f.qfac, s[0], s[1], s[2], 1, 1, 1, 1};
  const std::int64_t dim[8] = {3, d[0], d[1], d[2], 1, 1, 1, 1};
  if (version == 1) {
    w.put<std::int32_t>(0, 348);
    for (std::size_t i = 0; i < 8; ++i) w.put<std::int16_t>(40 + 2 * i, static_cast<std::int16_t>(dim[i]));
    w.put<std::int16_t>(68, static_cast<std::int16_t>(intentCode));
    w.put<std::int16_t>(70, static_cast<std::int16_t>(type));
    w.put<std::int16_t>(72, static_cast<std::int16_t>(bytes * 8));
    for (std::size_t i = 0; i < 8; ++i) w.put<float>(76 + 4 * i, static_cast<float>(pixdim[i]));
    w.put<float>(108, static_cast<float>(kNifti1DefaultOffset));
    w.put<float>(112, 1.0f);
    h[123] = kUnitsMm;
    w.putBytes(148, descrip, sizeof descrip);
    w.put<std::int16_t>(252, kXformScannerAnat);
    w.put<std::int16_t>(254, kXformScannerAnat);
    for (std::size_t i = 0; i < 3; ++i) w.put<float>(256 + 4 * i, static_cast<float>(f.quatern[i]));
    for (std::size_t i = 0; i < 3; ++i) w.put<float>(268 + 4 * i, static_cast<float>(f.srow[i * 4 + 3]));
    for (std::size_t i = 0; i < 12; ++i) w.put<float>(280 + 4 * i, static_cast<float>(f.srow[i]));
    w.putBytes(344, "n+1\0", 4);
  } else {
    w.put<std::int32_t>(0, 540);
    w.putBytes(4, "n+2\0\r\n\032\n", 8);
    w.put<std::int16_t>(12, static_cast<std::int16_t>(type));
    w.put<std::int16_t>(14, static_cast<std::int16_t>(bytes * 8));
    for (std::size_t i = 0; i < 8; ++i) w.put<std::int64_t>(16 + 8 * i, dim[i]);
    for (std::size_t i = 0; i < 8; ++i) w.put<double>(104 + 8 * i, pixdim[i]);
    w.put<std::int64_t>(168, kNifti2DefaultOffset);
    w.put<double>(176, 1.0);
    w.putBytes(240, descrip, sizeof descrip);
    w.put<std::int32_t>(344, kXformScannerAnat);
    w.put<std::int32_t>(348, kXformScannerAnat);
    for (std::size_t i = 0; i < 3; ++i) w.put<double>(352 + 8 * i, f.quatern[i]);
    for (std::size_t i = 0; i < 3; ++i) w.put<double>(376 + 8 * i, f.srow[i * 4 + 3]);
    for (std::size_t i = 0; i < 12; ++i) w.put<double>(400 + 8 * i, f.srow[i]);
    w.put<std::int32_t>(500, kUnitsMm);
    w.put<std::int32_t>(504, intentCode);
  }
  return h;
}

NiftiDatatype niftiTypeOf(core::ScalarType type) {
  switch (type) {
    case core::ScalarType::UInt8: return NiftiDatatype::UInt8;
    case core::ScalarType::Int16: return NiftiDatatype::Int16;
    case core::ScalarType::UInt16: return NiftiDatatype::UInt16;
    case core::ScalarType::Int32: return NiftiDatatype::Int32;
    case core::ScalarType::Float32: break;
  }
  return NiftiDatatype::Float32;
}

// Checks shared by the file writer and the in-memory encoder; the NIfTI version to write.
Result<int> checkWrite(const std::string& path, const Geometry& g, std::size_t count, const NiftiWriteOptions& options,
                       bool gz) {
  if (gz && (options.gzipLevel < 0 || options.gzipLevel > 12))
    return makeError(ErrorCode::InvalidArgument, path,
                     "gzip level " + std::to_string(options.gzipLevel) + " is outside 0..12");
  if (Status s = g.validate(path); !s) return s.error();
  if (count != static_cast<std::size_t>(g.voxelCount()))
    return makeError(ErrorCode::InvalidArgument, path, "voxel buffer does not match the geometry");
  const bool fitsNifti1 = std::all_of(g.dimensions().begin(), g.dimensions().end(),
                                      [](std::int64_t d) { return d <= std::numeric_limits<std::int16_t>::max(); });
  if (options.format == NiftiFormat::Nifti1 && !fitsNifti1)
    return makeError(ErrorCode::SizeLimit, path, "NIfTI-1 holds at most 32767 voxels per axis; use NIfTI-2");
  return options.format == NiftiFormat::Nifti2 || !fitsNifti1 ? 2 : 1;
}

Result<std::vector<std::uint8_t>> encodeGz(const std::string& path, const Geometry& g, NiftiDatatype type,
                                           const void* data, std::size_t count, int intentCode,
                                           const NiftiWriteOptions& options) {
  auto version = checkWrite(path, g, count, options, true);
  if (!version) return version.error();
  const auto elementSize = static_cast<std::size_t>(bytesPerVoxel(static_cast<int>(type)));
  try {
    std::vector<std::uint8_t> whole = buildHeader(g, *version, type, intentCode);
    // Little-endian hosts store the voxels as they are: compress them in place behind the header, no copy of a
    // volume that may be gigabytes.
    std::vector<std::uint8_t> swapped;
    const std::uint8_t* voxels = image_file_detail::littleEndianBytes(data, count, elementSize, swapped);
    return gzipCompress(whole.data(), whole.size(), voxels, count * elementSize, options.gzipLevel, path);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate buffers to compress " +
                                                       std::to_string(count * elementSize) + " bytes of voxel data");
  }
}

// What every NIfTI file write starts with: the name (.nii or .nii.gz), the checks, and the header.
struct CheckedHeader {
  bool gz = false;
  std::vector<std::uint8_t> bytes;
};

Result<CheckedHeader> checkedHeader(const std::string& path, const Geometry& g, std::size_t count, NiftiDatatype type,
                                    int intentCode, const NiftiWriteOptions& options) {
  CheckedHeader h;
  h.gz = endsWithNoCase(path, ".nii.gz");
  if (!h.gz && !endsWithNoCase(path, ".nii"))
    return makeError(ErrorCode::InvalidArgument, path, "a NIfTI file name must end in .nii or .nii.gz");
  auto version = checkWrite(path, g, count, options, h.gz);
  if (!version) return version.error();
  try {
    h.bytes = buildHeader(g, *version, type, intentCode);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the header");
  }
  return h;
}

Status writeNifti(const std::string& path, const Geometry& g, NiftiDatatype type, const void* data, std::size_t count,
                  int intentCode, const NiftiWriteOptions& options) {
  auto checked = checkedHeader(path, g, count, type, intentCode, options);
  if (!checked) return checked.error();
  const std::vector<std::uint8_t>& header = checked->bytes;
  const auto elementSize = static_cast<std::size_t>(bytesPerVoxel(static_cast<int>(type)));
  const std::size_t bytes = count * elementSize;
  try {
    std::vector<std::uint8_t> swapped;  // a big-endian host's little-endian copy (none on a little-endian host)
    const std::uint8_t* voxels = image_file_detail::littleEndianBytes(data, count, elementSize, swapped);
    AtomicWriteOptions writeOptions;
    writeOptions.access = options.access;
    auto writer = AtomicFileWriter::create(path, writeOptions);
    if (!writer) return writer.error();
    if (checked->gz) {
      // Members compressed straight from the voxels and written as they come: the compressed file is never held
      // whole (a 512-slice CT: 111 MB less at the peak).
      if (Status s = gzipCompressTo(header.data(), header.size(), voxels, bytes, options.gzipLevel, path,
                                    [&](const std::uint8_t* b, std::size_t n) { return writer->write(b, n); });
          !s)
        return s;
    } else {
      if (Status s = writer->write(header.data(), header.size()); !s) return s;
      if (Status s = writer->write(voxels, bytes); !s) return s;
    }
    return writer->commit();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path,
                     "cannot allocate buffers to write " + std::to_string(bytes) + " bytes of voxel data");
  }
}

}  // namespace

Status writeNiftiImage(const std::string& path, const core::ImageVolume& image, const NiftiWriteOptions& options) {
  if (options.int16WhenExact) {
    const auto& v = image.buffer();
    const bool exact = std::all_of(v.begin(), v.end(), [](float x) {
      return x >= -32768.0f && x <= 32767.0f && x == std::floor(x);  // NaN fails every comparison
    });
    if (exact) {
      try {
        std::vector<std::int16_t> stored(v.size());
        std::transform(v.begin(), v.end(), stored.begin(), [](float x) { return static_cast<std::int16_t>(x); });
        return writeNifti(path, image.geometry(), NiftiDatatype::Int16, stored.data(), stored.size(), 0, options);
      } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::OutOfMemory, path, "cannot allocate the int16 copy of " +
                                                           std::to_string(v.size()) + " voxels");
      }
    }
  }
  return writeNifti(path, image.geometry(), NiftiDatatype::Float32, image.data(), image.size(), 0, options);
}

Status writeNiftiImage(const std::string& path, const core::ScalarImage& image, const NiftiWriteOptions& options) {
  return writeNifti(path, image.geometry(), niftiTypeOf(image.type()), image.data(), image.size(), 0, options);
}

Result<NiftiStreamHeader> niftiImageHeader(const std::string& path, const Geometry& geometry, core::ScalarType type,
                                           const NiftiWriteOptions& options) {
  auto checked = checkedHeader(path, geometry, static_cast<std::size_t>(geometry.voxelCount()), niftiTypeOf(type), 0,
                               options);
  if (!checked) return checked.error();
  return NiftiStreamHeader{std::move(checked->bytes), checked->gz};
}

Status writeNiftiLabels(const std::string& path, const core::LabelMap& labels, const NiftiWriteOptions& options) {
  return writeNifti(path, labels.geometry(), NiftiDatatype::UInt16, labels.data(), labels.size(), kIntentLabel,
                    options);
}

Result<std::vector<std::uint8_t>> encodeNiftiLabelsGz(const core::LabelMap& labels, const std::string& subject,
                                                      const NiftiWriteOptions& options) {
  return encodeGz(subject, labels.geometry(), NiftiDatatype::UInt16, labels.data(), labels.size(), kIntentLabel,
                  options);
}


}  // namespace delineate::io
