#pragma once
// Formats users bring that are too rare to deserve a reader of our own, read through ITK's ImageIO classes:
//   GIPL (.gipl, .gipl.gz)                     itk::GiplImageIO   (ITK-SNAP's own test data)
//   Analyze 7.5 (.hdr + .img, .img.gz)         itk::NiftiImageIO  (also reads two-file NIfTI, magic "ni1")
//   VTK legacy structured points (.vtk)        itk::VTKImageIO    (ASCII or BINARY, one scalar per point)
// Read only: Delineate writes NIfTI, NRRD and MetaImage (io/volume/image_file.h).
//
// The rules are those of our own readers (io/volume/image_file.h):
// - Geometry is what ITK reports (ITK's physical space is LPS), checked by core::Geometry::validate: positive finite
//   spacing, orthonormal direction. Per format, as ITK defines it:
//     GIPL: spacing from pixdim, origin from the header's origin field, identity direction.
//     Analyze 7.5: spacing from pixdim, origin 0, identity direction (ITK's "ITK4" Analyze flavour, its default; the
//       orient field is ignored). A negative pixdim (SPM's way of saying "flipped") becomes a positive spacing with
//       that axis's direction reversed: the same index-to-point mapping ITK gives, in a form core::Geometry accepts.
//     VTK: SPACING and ORIGIN as written, identity direction (VTK's structured points have no orientation).
//   2D images get a third axis of one slice (spacing 1, normal to the plane).
// - Every size is checked in 64 bits before anything is allocated: the voxel count against
//   core::Geometry::kMaxVoxels, and the voxel bytes against what the data file holds (for gzip, against what its
//   compressed bytes can inflate to, then by inflating it once without keeping the output, since ITK's GIPL reader
//   does not notice a short stream).
// - Images become float32 (or stay in their stored type: readItkFormatImageTyped); label maps uint16, refusing any value that is not a whole number in 0..65535 (ParseError
//   naming the voxel). Multi-component pixels (RGB, vectors, tensors, complex) are Unsupported.
// - Errors name the file and the reason; no ITK exception leaves this file.

#include <string>

#include "core/error.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::io {

enum class ItkReadFormat { Gipl, Analyze, VtkLegacy };

// `path` may name either file of an Analyze pair; the other is looked for beside it.
core::Result<core::ImageVolume> readItkFormatImage(const std::string& path, ItkReadFormat format);
// In the stored type: uint8, int16, uint16, int32 and float32 are read by ITK straight into the result; other types
// come as float32 narrowed to the smallest exact type (ScalarImage::narrowed).
core::Result<core::ScalarImage> readItkFormatImageTyped(const std::string& path, ItkReadFormat format);
core::Result<core::LabelMap> readItkFormatLabels(const std::string& path, ItkReadFormat format);

}  // namespace delineate::io
