#pragma once
// NRRD images (.nrrd with the data attached, .nhdr with `data file:`), read and written by our own code (no teem or
// ITK NrrdIO). Format: https://teem.sourceforge.net/nrrd/format.html
//
// Reading
// - Magic NRRD0001..NRRD0005. Field names are case-insensitive and may be spelled with or without spaces
//   ("space directions", "spacedirections"); a field given twice, an unknown field or a malformed value is a
//   ParseError naming the file and line. Key/value lines (key:=value) and comments are skipped. Header lines are
//   limited to 64 KiB and headers to 100000 lines.
// - type: every NRRD spelling of int8..uint64, float and double ("short", "unsigned short int", "uint16_t", ...);
//   "block" is Unsupported. endian: little or big (required for multi-byte raw and gzip data).
// - encoding: raw, gzip/gz, ascii/text/txt. bzip2, hex and zrl are Unsupported; anything else is a ParseError.
// - Detached data: `data file: NAME`, `data file: LIST [subdim]` (names on the following lines) and
//   `data file: FORMAT MIN MAX STEP [subdim]` (FORMAT holds one %d, optionally %0Nd). Each file holds an equal share
//   of the voxels, in order. Every name is resolved against the header's folder and must stay inside it: absolute
//   paths and names that leave the folder (lexically, or through a symbolic link) are Unsupported, naming the header
//   and the name. A missing data file is NotFound naming both. `line skip` applies to each data file before
//   decoding; `byte skip` after the lines for raw and ascii, after decompression for gzip (as teem does); byte skip -1
//   (raw only) means the data are the last bytes of the file.
// - Axes: an axis is non-spatial when its space direction is `none` or, without space directions, when its kind is
//   neither domain nor space (list, vector, time, RGB-color, ...). Non-spatial axes must have size 1 (else
//   Unsupported: multi-component and 4D images are not volumes); 2 or 3 spatial axes must remain. Two spatial axes are
//   one slice: the third axis is their unit normal, 1 mm.
// - Geometry: `space` left-posterior-superior/LPS, right-anterior-superior/RAS, left-anterior-superior/LAS (and their
//   -time variants, whose fourth coordinate must be 0), scanner-xyz, 3D-right-handed and 3D-left-handed (taken as
//   LPS, as ITK does), or `space dimension` 2 or 3 (LPS). Directions and origin are converted to LPS by negating the
//   coordinates that differ. Spacing is each space direction's length and the direction its unit vector; without
//   space directions, `spacings` (1 when absent) along the identity direction, in the space when one is given.
//   `space origin` is the origin (0 when absent). `space units` are taken as mm; `measurement frame`, `thicknesses`,
//   `axis mins/maxs`, `centers`, `labels`, `units` are ignored. Sheared or otherwise invalid grids are
//   InvalidGeometry via core::Geometry::validate, naming the file.
// - Sizes are checked in 64 bits before anything is allocated (see io/volume/image_file_internal.h): voxel count against
//   core::Geometry::kMaxVoxels, data bytes against the file size or the most the compressed bytes can inflate to;
//   inflation stops at the declared size and a stream holding more is Corrupt.
//
// Writing
// - NRRD0004, `space: left-posterior-superior`, space directions and origin printed with 17 significant digits,
//   `kinds: domain domain domain`, little-endian, gzip (libdeflate) or raw. Labels are `unsigned short`; images
//   `float`, or `short` when asked and lossless (NrrdWriteOptions::int16WhenExact).
// - A space direction is spacing x direction, which cannot always be split back into the same two doubles: the
//   writer also stores the exact spacing and direction as key/value pairs (delineate_spacing:=, delineate_direction:=,
//   which teem and ITK keep as metadata), and the reader uses them only when they reproduce the space directions
//   bit for bit. Our files therefore read back with the identical geometry; other files go by space directions.
// - ".nrrd" writes one file; ".nhdr" writes the header and its data file beside it ("<name>.raw.gz" or
//   "<name>.raw"), the data file first, each atomically. Any other name is InvalidArgument.
// - Writes are atomic (io/base/atomic_file.h): a failed save leaves the previous file byte-identical.

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/scalar_image.h"
#include "core/label_map.h"
#include "core/volume.h"

namespace delineate::io {

enum class NrrdEncoding { Raw, Gzip, Ascii };

struct NrrdHeaderInfo {
  int version = 0;                  // the X of NRRD000X
  std::string type;                 // "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                                    // "float" or "double", whatever the file's spelling
  int bytesPerVoxel = 0;
  int dimension = 0;
  std::vector<std::int64_t> sizes;  // one per axis, as in the file
  std::vector<std::string> kinds;   // empty when the file has none
  NrrdEncoding encoding = NrrdEncoding::Raw;
  bool bigEndian = false;
  std::string space;                // lower-case as written ("left-posterior-superior", "ras"); empty when none
  std::vector<std::string> dataFiles;  // resolved detached data files; empty when the data follow the header
  std::uint64_t dataOffset = 0;     // attached data: the byte just past the blank line that ends the header
  std::int64_t lineSkip = 0;
  std::int64_t byteSkip = 0;
  std::int64_t dataBytes = 0;       // voxel count x bytes per voxel (decoded), checked for overflow
  core::Geometry geometry;          // validated, LPS, mm
};

// Parses and checks the header (and resolves data files) without reading voxel data.
core::Result<NrrdHeaderInfo> readNrrdHeader(const std::string& path);

// float32 voxels; integer types above 2^24 lose precision as float does.
core::Result<core::ImageVolume> readNrrdImage(const std::string& path);
// In its stored type (see loadImageTyped): uint8, int16 (int8 widened), uint16, int32, float32 in place.
core::Result<core::ScalarImage> readNrrdImageTyped(const std::string& path);

// uint16 labels. A voxel that is not a whole number in 0..65535 is a ParseError naming the file, voxel and value.
core::Result<core::LabelMap> readNrrdLabels(const std::string& path);

struct NrrdWriteOptions {
  bool gzip = true;             // encoding gzip; false: raw
  int gzipLevel = 6;            // libdeflate level 0..12
  bool int16WhenExact = false;  // images only: `short` when every voxel is a whole number in -32768..32767
};

core::Status writeNrrdImage(const std::string& path, const core::ImageVolume& image,
                            const NrrdWriteOptions& options = {});
// The image in its own type, its buffer written as it is.
core::Status writeNrrdImage(const std::string& path, const core::ScalarImage& image, const NrrdWriteOptions& options = {});
core::Status writeNrrdLabels(const std::string& path, const core::LabelMap& labels,
                             const NrrdWriteOptions& options = {});

// The header writeNrrdImage writes into a .nrrd (the data inside it, raw or gzip as `options` say) for an image of
// `type` on `geometry`, for a writer that streams the voxels after it (io::ImageStreamWriter). A detached header
// (.nhdr) is refused: its data file is written whole.
core::Result<std::string> nrrdImageHeader(const std::string& path, const core::Geometry& geometry, core::ScalarType type,
                                          const NrrdWriteOptions& options = {});

}  // namespace delineate::io
