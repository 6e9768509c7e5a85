#pragma once
// One entry point for volumetric image files, chosen by extension (case-insensitive):
//   .nii, .nii.gz  NIfTI-1/2     (io/volume/nifti.h)
//   .nrrd, .nhdr   NRRD          (io/volume/nrrd.h)
//   .mha, .mhd     MetaImage     (io/volume/metaimage.h)
// and, read only, through ITK's ImageIO (io/volume/itk_formats.h: rare formats users bring):
//   .gipl, .gipl.gz                GIPL
//   .hdr, .img, .img.gz            Analyze 7.5 (either file of the pair; two-file NIfTI too)
//   .vtk                           VTK legacy structured points
// Any other name is Unsupported, naming the file and the extensions that can be read (or, for a write, written).
// The extension picks the reader; each
// reader then checks the content itself (NIfTI recognises gzip by its magic bytes, NRRD needs its magic line).
//
// Geometry rule, the same for every format: core::Geometry is LPS (DICOM/ITK patient coordinates) inside Delineate,
// and each reader converts at its boundary. NIfTI's RAS affine has its first two rows negated (io/volume/nifti.h); NRRD is
// converted from its declared `space` (RAS and LAS negate the coordinates that differ, LPS and scanner spaces are
// taken as they are; io/volume/nrrd.h); MetaImage is LPS already (io/volume/metaimage.h). Writers store LPS back in each format's own
// terms, so a label map saved for an image reads back on exactly that image's grid, whichever format either used.
// Every reader validates the grid (orthonormal directions, positive finite spacing) and checks every size declared in
// a header in 64 bits before allocating.
//
// Labels are uint16 in every format; images float32 (or int16 when ImageFileWriteOptions::int16WhenExact and every
// voxel is a whole number in int16 range). Writes are atomic: a failed save leaves the previous file byte-identical.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::io {

enum class ImageFileFormat { Nifti, Nrrd, MetaImage, Gipl, Analyze, VtkLegacy, Unknown };

ImageFileFormat imageFileFormatFromPath(const std::string& path);

// Whether Delineate writes the format (GIPL, Analyze and VTK are read only).
bool imageFileFormatWritable(ImageFileFormat format);

// Every extension that can be read (".nii.gz", ".nii", ...), longest first where one ends another: for file dialogs
// and for taking the extension off a name.
std::vector<std::string> readableImageExtensionList();
// Every extension that can be read, for messages: ".nii, .nii.gz, .nrrd, ... or .vtk (...)".
const char* supportedImageExtensions();
// Every extension that can be written: ".nii, .nii.gz, .nrrd, .nhdr, .mha or .mhd".
const char* writableImageExtensions();

struct ImageFileWriteOptions {
  int compressionLevel = 6;     // libdeflate level 0..12 (.nii.gz, NRRD gzip, MetaImage zlib)
  bool compress = true;         // NRRD and MetaImage; NIfTI compresses when the name ends in .nii.gz
  bool int16WhenExact = false;  // images only: int16 storage when lossless, float32 otherwise
};

// The words every refusal of an intensity image given as a label map starts with.
inline constexpr const char* kIntensityNotLabels =
    "looks like an intensity image, not a label map: did you swap IMAGE and LABELS?";

// The refusal of voxel `index` (in storage order on `geometry`) whose value, written as `value`, is no label (a
// fraction, a negative, above 65535): every label reader (NIfTI, NRRD, MetaImage, the ITK-read formats) says this.
core::Error labelValueRefused(const std::string& path, const core::Geometry& geometry, std::size_t index,
                              const std::string& value);

// More distinct ids than this, with most voxels labelled, is an intensity image (an MR or micro-CT of whole numbers):
// real atlases have hundreds of structures (TotalSegmentator 117, the Allen mouse atlas about 700) and a background.
inline constexpr std::size_t kMaxLabelsOfMostlyLabelledMap = 1000;

core::Result<core::ImageVolume> readImageFile(const std::string& path);
// The image in its own type: NIfTI, NRRD and MetaImage read in their stored type (uint8, int16 with int8 widened,
// uint16, int32, float32; other types and scaled NIfTI as float32 narrowed to the smallest exact type); the formats
// read through ITK as float32, then narrowed.
core::Result<core::ScalarImage> readImageFileTyped(const std::string& path);

// Every label map a user names comes through here (CLI, the window's Open Label Map, the share store), so each gets
// the same refusals: a value that is no label (a fraction, a negative, above 65535) and, after reading, a map that
// looks like an intensity image (checkLooksLikeLabelMap). Both say kIntensityNotLabels.
core::Result<core::LabelMap> readLabelFile(const std::string& path);

// Refuses (ParseError naming `path`) a map with more than kMaxLabelsOfMostlyLabelledMap distinct non-zero ids where
// more than half the voxels are non-zero. An empty map passes: whether nothing labelled is an error is the caller's.
core::Status checkLooksLikeLabelMap(const core::LabelMap& labels, const std::string& path);
core::Status writeImageFile(const std::string& path, const core::ImageVolume& image,
                            const ImageFileWriteOptions& options = {});
// The image in its own type (no float round trip): NIfTI, NRRD and MetaImage store uint8, int16, uint16, int32 and
// float32 as they are.
core::Status writeImageFile(const std::string& path, const core::ScalarImage& image,
                            const ImageFileWriteOptions& options = {});
core::Status writeLabelFile(const std::string& path, const core::LabelMap& labels,
                            const ImageFileWriteOptions& options = {});

// An image written as its voxels arrive, never held whole (delineate-cli convert streams a DICOM series slab by slab,
// issue 27): NIfTI (.nii, .nii.gz) and NRRD with its data inside (.nrrd, gzip or raw as the options say). The header
// first, then the voxels in file order (x fastest, then y, then z) as append() hands them over; the file's bytes
// equal writeImageFile's for the whole image. Nothing is published before commit(), which refuses unless exactly the
// geometry's voxel count arrived; a failure or a writer dropped before commit leaves the target as it was and no
// temporary file. Other names are Unsupported: imageStreamWritable says so first, and they are written whole.
bool imageStreamWritable(const std::string& path);
class StreamedFileWriter;
class ImageStreamWriter {
 public:
  static core::Result<ImageStreamWriter> create(const std::string& path, const core::Geometry& geometry,
                                                core::ScalarType type, const ImageFileWriteOptions& options = {});
  ImageStreamWriter(ImageStreamWriter&&) noexcept;
  ImageStreamWriter& operator=(ImageStreamWriter&&) noexcept;
  ~ImageStreamWriter();

  // `count` voxels of the writer's type, in this machine's byte order.
  core::Status append(const void* voxels, std::size_t count);
  core::Status commit();

 private:
  ImageStreamWriter();
  std::unique_ptr<StreamedFileWriter> m_file;
  std::uint64_t m_expected = 0, m_received = 0;
  std::size_t m_elementSize = 0;
};

}  // namespace delineate::io
