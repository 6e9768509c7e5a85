#pragma once
// MetaImage (ITK MetaIO) images: .mha (header and data in one file, ElementDataFile = LOCAL) and .mhd (header with
// the data in a separate file beside it), read and written by our own code.
//
// Reading
// - "Key = Value" lines up to ElementDataFile, which comes last; in a LOCAL file the data start on the next byte.
//   Keys are case-insensitive; unknown keys (Modality, ITK metadata, ...) are skipped; a key given twice is a
//   ParseError naming the file and line. Header lines are limited to 64 KiB and headers to 100000 lines.
// - Required: NDims, DimSize, ElementType, ElementDataFile. ObjectType, when present, must be Image.
// - NDims 2 (one slice) or 3; more only while the extra DimSize are 1. ElementNumberOfChannels must be 1
//   (Unsupported otherwise).
// - ElementType: MET_UCHAR, MET_CHAR, MET_USHORT, MET_SHORT, MET_UINT, MET_INT, MET_ULONG, MET_LONG (4 bytes in files,
//   as MetaIO defines them), MET_ULONG_LONG, MET_LONG_LONG, MET_FLOAT, MET_DOUBLE. Other types are Unsupported.
// - BinaryData (default True, as MetaIO's images; False means whitespace-separated text), BinaryDataByteOrderMSB or
//   ElementByteOrderMSB (default False). As in MetaIO a value starting with T, t or 1 is true.
// - CompressedData = True: one zlib stream of CompressedDataSize bytes (to the end of the file when absent).
// - HeaderSize: the data start this many bytes into the data file (the .mha itself for LOCAL); -1: the data are the
//   file's last bytes (uncompressed only). Absent: right after the header (LOCAL) or at the start of the data file.
// - ElementDataFile: LOCAL (any case) or one file name, resolved against the header's folder under the same rule as
//   NRRD data files: absolute paths and names leading out of the folder (lexically or through symbolic links) are
//   Unsupported naming the header and the name; a missing data file is NotFound naming both. LIST and numbered
//   file patterns are Unsupported.
// - Sizes are checked in 64 bits before anything is allocated, inflation stops at the declared size and a stream
//   holding more is Corrupt (see io/volume/image_file_internal.h).
//
// Geometry: MetaImage coordinates are ITK's physical space, which is LPS, so nothing is converted.
// - ElementSpacing (default 1), Offset / Origin / Position (synonyms; default 0), TransformMatrix / Rotation /
//   Orientation (synonyms; default identity). ElementSize, CenterOfRotation and AnatomicalOrientation (informational:
//   ITK derives it from the matrix) are not used.
// - TransformMatrix lists the direction matrix column after column: its values v give D[i][j] = v[i + NDims * j], i.e.
//   the first NDims numbers are the direction of the i axis. This is how ITK's MetaImageIO reads and writes it;
//   checked by writing a file with ITK 5.2 whose i axis points along +y: "TransformMatrix = 0 1 0 0 0 1 1 0 0" for
//   the columns (0,1,0), (0,0,1), (1,0,0).
// - The matrix is used as written (not renormalised), so a written geometry reads back bit-identical. Sheared or
//   otherwise invalid grids are InvalidGeometry via core::Geometry::validate, naming the file.
//
// Writing
// - As ITK writes it: ObjectType, NDims 3, BinaryData True, BinaryDataByteOrderMSB False, CompressedData (zlib by
//   libdeflate, CompressedDataSize), TransformMatrix, Offset, CenterOfRotation, AnatomicalOrientation, ElementSpacing,
//   DimSize, ElementType, ElementDataFile; numbers with 17 significant digits. Labels are MET_USHORT; images
//   MET_FLOAT, or MET_SHORT when asked and lossless (MetaImageWriteOptions::int16WhenExact).
// - ".mha": ElementDataFile = LOCAL. ".mhd": the data go to "<name>.zraw" (compressed) or "<name>.raw" beside it, the
//   data file first, each atomically. Any other name is InvalidArgument.
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

struct MetaImageHeaderInfo {
  int dimensions = 0;                 // NDims
  std::vector<std::int64_t> dimSize;  // as in the file
  std::string elementType;            // "MET_SHORT", ...
  int bytesPerVoxel = 0;
  bool binary = true;
  bool bigEndian = false;
  bool compressed = false;
  std::int64_t compressedDataSize = -1;  // -1: not given
  std::int64_t headerSize = 0;           // HeaderSize, 0 when absent
  bool local = false;                    // ElementDataFile = LOCAL
  std::string dataFile;                  // resolved data file; the header itself when local
  std::uint64_t dataOffset = 0;          // LOCAL: the byte after the ElementDataFile line
  std::string anatomicalOrientation;     // as written, informational
  std::int64_t dataBytes = 0;            // voxel count x bytes per voxel (decoded), checked for overflow
  core::Geometry geometry;               // validated, LPS, mm
};

// Parses and checks the header (and resolves the data file) without reading voxel data.
core::Result<MetaImageHeaderInfo> readMetaImageHeader(const std::string& path);

core::Result<core::ImageVolume> readMetaImage(const std::string& path);
// In its stored type, as readNrrdImageTyped.
core::Result<core::ScalarImage> readMetaImageTyped(const std::string& path);

// uint16 labels. A voxel that is not a whole number in 0..65535 is a ParseError naming the file, voxel and value.
core::Result<core::LabelMap> readMetaImageLabels(const std::string& path);

struct MetaImageWriteOptions {
  bool compress = true;         // CompressedData (zlib)
  int compressionLevel = 6;     // libdeflate level 0..12
  bool int16WhenExact = false;  // images only: MET_SHORT when every voxel is a whole number in -32768..32767
};

core::Status writeMetaImage(const std::string& path, const core::ImageVolume& image,
                            const MetaImageWriteOptions& options = {});
// The image in its own type, its buffer written as it is.
core::Status writeMetaImage(const std::string& path, const core::ScalarImage& image, const MetaImageWriteOptions& options = {});
core::Status writeMetaImageLabels(const std::string& path, const core::LabelMap& labels,
                                  const MetaImageWriteOptions& options = {});

}  // namespace delineate::io
