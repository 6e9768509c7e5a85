#pragma once
// NIfTI-1 and NIfTI-2 single-file images (.nii, .nii.gz), read and written by our own code.
//
// Reading
// - Either byte order, told apart by sizeof_hdr (348 or 540, possibly byte-swapped). gzip is recognised by its magic
//   bytes, not by the file name. Separate .hdr/.img pairs (magic "ni1"/"ni2") are refused as Unsupported.
// - Supported voxel types: uint8, int8, int16, uint16, int32, uint32, int64, uint64, float32, float64.
// - Up to 3 dimensions; dim[0] > 3 is accepted only while dims 4..dim[0] are all 1 ("4D images are not supported"
//   otherwise). Axes beyond dim[0] count as size 1.
// - Every size declared in the header is checked in 64 bits before anything is allocated: voxel count against
//   core::Geometry::kMaxVoxels (SizeLimit), the data size against the file size (or, for .nii.gz, against what the
//   compressed size could possibly inflate to), and inflation is capped at header + data bytes. A short file is a
//   Corrupt error that says how many bytes were expected and how many were found.
//
// Geometry rule (one rule for every reader in Delineate):
//   1. sform_code > 0  -> the srow_x/y/z affine.
//   2. else qform_code > 0 -> quaternion (b, c, d; a = sqrt(1 - b^2 - c^2 - d^2)), qoffset, spacing |pixdim[1..3]|,
//      qfac = pixdim[0] (-1 flips the k axis; any other value counts as +1).
//   3. else the legacy ANALYZE rule: diag(pixdim[1..3]), origin 0.
//   The chosen affine is scaled to mm when xyzt_units says metres or micrometres (as ITK does), converted from RAS
//   to LPS by negating its first two rows, and split into spacing = column norms and direction = normalised columns.
//   core::Geometry needs orthonormal directions: a sheared sform falls back to the qform when qform_code > 0 and the
//   qform places the grid's corners within one voxel of the sform (ITK falls back unconditionally; a registration
//   result whose sform is in template space would then silently land in scanner space), and is InvalidGeometry
//   otherwise. Zero or non-finite spacing, or a singular direction, is InvalidGeometry
//   naming the file. Zero pixdim on an axis beyond dim[0]
//   (2D images) counts as 1 so such images stay loadable.
//
// Writing
// - NIfTI-1, little-endian, vox_offset 352, xyzt_units mm; NIfTI-2 only when a dimension exceeds NIfTI-1's int16 limit
//   (or when asked). .nii.gz when the path ends in ".nii.gz", .nii when it ends in ".nii", else InvalidArgument.
// - Geometry goes into both sform and qform with code 1 (NIFTI_XFORM_SCANNER_ANAT): core::Geometry is in the scanner's
//   patient frame (it usually comes from DICOM), and code 1 is what ITK writes, so files round-trip between tools.
//   The sform holds the exact affine (float32 in NIfTI-1, so a geometry that was read from NIfTI-1 is written back
//   bit-identical; NIfTI-2 stores doubles). The qform holds the nearest rotation with qfac, for readers that prefer it.
// - Labels are written as uint16 with intent_code NIFTI_INTENT_LABEL (1002); images as float32, or as int16 when
//   NiftiWriteOptions::int16WhenExact is set and every voxel is a whole number in -32768..32767 (CT in HU: half the
//   bytes, nothing lost; any other image stays float32). scl_slope 1, inter 0.
// - Writes are atomic (io/base/atomic_file.h): a failed save leaves the previous file byte-identical.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/scalar_image.h"
#include "core/label_map.h"
#include "core/volume.h"
#include "io/base/file_modes.h"

namespace delineate::io {

// NIfTI datatype codes we understand (nifti1.h values).
enum class NiftiDatatype : int {
  UInt8 = 2,
  Int16 = 4,
  Int32 = 8,
  Float32 = 16,
  Float64 = 64,
  Int8 = 256,
  UInt16 = 512,
  UInt32 = 768,
  Int64 = 1024,
  UInt64 = 1280,
};

// Which part of the header produced the geometry (see the rule above).
enum class NiftiTransformSource { Sform, Qform, PixdimOnly };

struct NiftiHeaderInfo {
  int version = 1;          // 1 or 2
  bool bigEndian = false;   // byte order of the file
  bool gzipped = false;
  std::array<std::int64_t, 8> dim{};  // as stored; dim[0] is the number of dimensions
  int datatype = 0;                   // NiftiDatatype value
  int bytesPerVoxel = 0;
  std::array<double, 8> pixdim{};
  double sclSlope = 0;  // 0 (or non-finite) means "no scaling"
  double sclInter = 0;
  int qformCode = 0;
  int sformCode = 0;
  int intentCode = 0;
  int spatialUnits = 0;            // xyzt_units & 7: 0 unknown (mm assumed), 1 m, 2 mm, 3 um
  std::int64_t voxOffset = 0;      // byte offset of the voxel data in the uncompressed file
  std::int64_t dataBytes = 0;      // voxel count x bytes per voxel, checked for overflow
  NiftiTransformSource transformSource = NiftiTransformSource::PixdimOnly;
  std::array<double, 16> affineRas{};  // the chosen index->RAS affine, row-major, in the file's units
  core::Geometry geometry;             // validated, in LPS and mm
};

// Parses and checks the header only (for .nii.gz only the start of the stream is read and inflated).
core::Result<NiftiHeaderInfo> readNiftiHeader(const std::string& path);

// float32 voxels; scl_slope/scl_inter applied (in double) unless slope is 0 or not finite.
core::Result<core::ImageVolume> readNiftiImage(const std::string& path);
// The image in the type it is stored in (uint8, int16 (int8 widened), uint16, int32, float32) when unscaled; scaled or
// other types (uint32, 64-bit, float64) come as float32 narrowed to the smallest exact type (ScalarImage::narrowed).
core::Result<core::ScalarImage> readNiftiImageTyped(const std::string& path);

// uint16 labels (any integer or float storage). A voxel that after scaling is not a whole number in 0..65535 is a
// ParseError naming the file, the voxel index and its value.
core::Result<core::LabelMap> readNiftiLabels(const std::string& path);
// The same from a .nii.gz file's bytes already in memory (share revisions are hash-checked in memory before they are
// decoded). `subject` names the source in errors.
core::Result<core::LabelMap> decodeNiftiLabelsGz(std::vector<std::uint8_t> bytes, const std::string& subject);

enum class NiftiFormat { Auto, Nifti1, Nifti2 };

struct NiftiWriteOptions {
  int gzipLevel = 6;                     // libdeflate level 0..12, used for .nii.gz only
  NiftiFormat format = NiftiFormat::Auto;  // Auto: NIfTI-1 unless a dimension exceeds 32767
  bool int16WhenExact = false;             // images only: int16 when lossless, float32 otherwise
  FileAccess access = FileAccess::Personal;  // who may read the file (io/base/file_modes.h)
};

core::Status writeNiftiImage(const std::string& path, const core::ImageVolume& image,
                             const NiftiWriteOptions& options = {});
// The image in its own type (uint8, int16, uint16, int32, float32), its buffer written as it is.
core::Status writeNiftiImage(const std::string& path, const core::ScalarImage& image, const NiftiWriteOptions& options = {});
core::Status writeNiftiLabels(const std::string& path, const core::LabelMap& labels,
                              const NiftiWriteOptions& options = {});
// The bytes of the .nii.gz file writeNiftiLabels would write (options.gzipLevel applies; `subject` names it in
// errors).
core::Result<std::vector<std::uint8_t>> encodeNiftiLabelsGz(const core::LabelMap& labels, const std::string& subject,
                                                            const NiftiWriteOptions& options = {});

// The header writeNiftiImage writes for an image of `type` on `geometry` (the same checks: the name, the gzip level,
// the geometry, NIfTI-1 or -2), for a writer that streams the voxels after it (io::ImageStreamWriter). In a .nii.gz
// the header is compressed with the voxels.
// `gzip`: the name asks for a .nii.gz (the header and voxels are then one gzip stream at options.gzipLevel).
struct NiftiStreamHeader {
  std::vector<std::uint8_t> bytes;
  bool gzip = false;
};
core::Result<NiftiStreamHeader> niftiImageHeader(const std::string& path, const core::Geometry& geometry,
                                                 core::ScalarType type, const NiftiWriteOptions& options = {});

}  // namespace delineate::io
