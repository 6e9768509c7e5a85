#include "io/volume/image_file.h"

#include <vector>

#include "io/base/streamed_file.h"
#include "io/volume/image_file_internal.h"
#include "io/volume/itk_formats.h"
#include "io/volume/metaimage.h"
#include "io/volume/nifti.h"
#include "io/volume/nrrd.h"

namespace delineate::io {
namespace {

using image_file_detail::endsWithNoCase;

core::Error unknownFormat(const std::string& path) {
  return core::makeError(core::ErrorCode::Unsupported, path,
                         std::string("unknown image file type: the name must end in ") + supportedImageExtensions());
}

core::Error notWritable(const std::string& path, ImageFileFormat format) {
  const bool known = format != ImageFileFormat::Unknown;
  return core::makeError(core::ErrorCode::Unsupported, path,
                         std::string(known ? "Delineate reads this format but does not write it" : "unknown image file type") +
                             ": the name must end in " + writableImageExtensions());
}

NiftiWriteOptions niftiOptions(const ImageFileWriteOptions& o) {
  NiftiWriteOptions n;
  n.gzipLevel = o.compressionLevel;
  n.int16WhenExact = o.int16WhenExact;
  return n;
}

NrrdWriteOptions nrrdOptions(const ImageFileWriteOptions& o) {
  NrrdWriteOptions n;
  n.gzip = o.compress;
  n.gzipLevel = o.compressionLevel;
  n.int16WhenExact = o.int16WhenExact;
  return n;
}

MetaImageWriteOptions metaOptions(const ImageFileWriteOptions& o) {
  MetaImageWriteOptions m;
  m.compress = o.compress;
  m.compressionLevel = o.compressionLevel;
  m.int16WhenExact = o.int16WhenExact;
  return m;
}

}  // namespace

namespace {
// Every readable extension and its format; where one ends another, the longer comes first.
struct ExtensionFormat {
  const char* extension;
  ImageFileFormat format;
};
constexpr ExtensionFormat kExtensions[] = {
    {".nii.gz", ImageFileFormat::Nifti},   {".nii", ImageFileFormat::Nifti},          {".nrrd", ImageFileFormat::Nrrd},
    {".nhdr", ImageFileFormat::Nrrd},      {".mha", ImageFileFormat::MetaImage},      {".mhd", ImageFileFormat::MetaImage},
    {".gipl.gz", ImageFileFormat::Gipl},   {".gipl", ImageFileFormat::Gipl},          {".img.gz", ImageFileFormat::Analyze},
    {".hdr", ImageFileFormat::Analyze},    {".img", ImageFileFormat::Analyze},        {".vtk", ImageFileFormat::VtkLegacy},
};
}  // namespace

ImageFileFormat imageFileFormatFromPath(const std::string& path) {
  for (const auto& e : kExtensions)
    if (endsWithNoCase(path, e.extension)) return e.format;
  return ImageFileFormat::Unknown;
}

std::vector<std::string> readableImageExtensionList() {
  std::vector<std::string> out;
  for (const auto& e : kExtensions) out.emplace_back(e.extension);
  return out;
}

bool imageFileFormatWritable(ImageFileFormat format) {
  return format == ImageFileFormat::Nifti || format == ImageFileFormat::Nrrd || format == ImageFileFormat::MetaImage;
}

const char* supportedImageExtensions() {
  return ".nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd, .gipl, .gipl.gz, .hdr, .img, .img.gz (Analyze 7.5) or .vtk (VTK "
         "legacy structured points)";
}

const char* writableImageExtensions() { return ".nii, .nii.gz, .nrrd, .nhdr, .mha or .mhd"; }

core::Result<core::ImageVolume> readImageFile(const std::string& path) {
  switch (imageFileFormatFromPath(path)) {
    case ImageFileFormat::Nifti: return readNiftiImage(path);
    case ImageFileFormat::Nrrd: return readNrrdImage(path);
    case ImageFileFormat::MetaImage: return readMetaImage(path);
    case ImageFileFormat::Gipl: return readItkFormatImage(path, ItkReadFormat::Gipl);
    case ImageFileFormat::Analyze: return readItkFormatImage(path, ItkReadFormat::Analyze);
    case ImageFileFormat::VtkLegacy: return readItkFormatImage(path, ItkReadFormat::VtkLegacy);
    case ImageFileFormat::Unknown: break;
  }
  return unknownFormat(path);
}

core::Result<core::LabelMap> readLabelFile(const std::string& path) {
  core::Result<core::LabelMap> labels = unknownFormat(path);
  switch (imageFileFormatFromPath(path)) {
    case ImageFileFormat::Nifti: labels = readNiftiLabels(path); break;
    case ImageFileFormat::Nrrd: labels = readNrrdLabels(path); break;
    case ImageFileFormat::MetaImage: labels = readMetaImageLabels(path); break;
    case ImageFileFormat::Gipl: labels = readItkFormatLabels(path, ItkReadFormat::Gipl); break;
    case ImageFileFormat::Analyze: labels = readItkFormatLabels(path, ItkReadFormat::Analyze); break;
    case ImageFileFormat::VtkLegacy: labels = readItkFormatLabels(path, ItkReadFormat::VtkLegacy); break;
    case ImageFileFormat::Unknown: break;
  }
  if (!labels) return labels;
  if (core::Status s = checkLooksLikeLabelMap(*labels, path); !s) return s.error();
  return labels;
}

core::Error labelValueRefused(const std::string& path, const core::Geometry& geometry, std::size_t index,
                              const std::string& value) {
  const auto& d = geometry.dimensions();
  const auto i = static_cast<std::int64_t>(index);
  return core::makeError(core::ErrorCode::ParseError, path,
                         std::string(kIntensityNotLabels) + " (voxel (" + std::to_string(i % d[0]) + ", " +
                             std::to_string(i / d[0] % d[1]) + ", " + std::to_string(i / (d[0] * d[1])) + ") holds " +
                             value + "; labels are whole numbers in 0..65535)");
}

core::Status checkLooksLikeLabelMap(const core::LabelMap& labels, const std::string& path) {
  std::vector<bool> present(65536, false);
  std::size_t distinct = 0, labelled = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const core::Label v = labels[i];
    if (v == 0) continue;
    ++labelled;
    if (!present[v]) {
      present[v] = true;
      ++distinct;
    }
  }
  // Both conditions: a dense parcellation can label most voxels, and a sparse map can use many ids, but a map that
  // does both is an image of whole numbers (the reported case: an MR taken as 1,209 labels, minutes of work).
  if (distinct > kMaxLabelsOfMostlyLabelledMap && labelled * 2 > labels.size())
    return core::makeError(core::ErrorCode::ParseError, path,
                           std::string(kIntensityNotLabels) + " (" + std::to_string(distinct) +
                               " distinct values, " + std::to_string(labelled * 100 / labels.size()) +
                               "% of voxels non-zero)");
  return core::Status::success();
}

namespace {

// The format's image writer for `image` (float32 or in its own type), by the file name.
template <class Image>
core::Status writeImageAs(const std::string& path, const Image& image, const ImageFileWriteOptions& options) {
  const ImageFileFormat format = imageFileFormatFromPath(path);
  switch (format) {
    case ImageFileFormat::Nifti: return writeNiftiImage(path, image, niftiOptions(options));
    case ImageFileFormat::Nrrd: return writeNrrdImage(path, image, nrrdOptions(options));
    case ImageFileFormat::MetaImage: return writeMetaImage(path, image, metaOptions(options));
    default: break;
  }
  return notWritable(path, format);
}

}  // namespace

core::Status writeImageFile(const std::string& path, const core::ImageVolume& image,
                            const ImageFileWriteOptions& options) {
  return writeImageAs(path, image, options);
}

core::Result<core::ScalarImage> readImageFileTyped(const std::string& path) {
  switch (imageFileFormatFromPath(path)) {
    case ImageFileFormat::Nifti: return readNiftiImageTyped(path);
    case ImageFileFormat::Nrrd: return readNrrdImageTyped(path);
    case ImageFileFormat::MetaImage: return readMetaImageTyped(path);
    case ImageFileFormat::Gipl: return readItkFormatImageTyped(path, ItkReadFormat::Gipl);
    case ImageFileFormat::Analyze: return readItkFormatImageTyped(path, ItkReadFormat::Analyze);
    case ImageFileFormat::VtkLegacy: return readItkFormatImageTyped(path, ItkReadFormat::VtkLegacy);
    case ImageFileFormat::Unknown: break;
  }
  auto image = readImageFile(path);
  if (!image) return image.error();
  return core::ScalarImage::narrowed(std::move(*image), path);
}

core::Status writeImageFile(const std::string& path, const core::ScalarImage& image,
                            const ImageFileWriteOptions& options) {
  return writeImageAs(path, image, options);
}

core::Status writeLabelFile(const std::string& path, const core::LabelMap& labels,
                            const ImageFileWriteOptions& options) {
  const ImageFileFormat format = imageFileFormatFromPath(path);
  switch (format) {
    case ImageFileFormat::Nifti: return writeNiftiLabels(path, labels, niftiOptions(options));
    case ImageFileFormat::Nrrd: return writeNrrdLabels(path, labels, nrrdOptions(options));
    case ImageFileFormat::MetaImage: return writeMetaImageLabels(path, labels, metaOptions(options));
    default: break;
  }
  return notWritable(path, format);
}

bool imageStreamWritable(const std::string& path) {
  const ImageFileFormat format = imageFileFormatFromPath(path);
  if (format == ImageFileFormat::Nifti) return true;
  return format == ImageFileFormat::Nrrd && endsWithNoCase(path, ".nrrd");
}

ImageStreamWriter::ImageStreamWriter() = default;
ImageStreamWriter::ImageStreamWriter(ImageStreamWriter&&) noexcept = default;
ImageStreamWriter& ImageStreamWriter::operator=(ImageStreamWriter&&) noexcept = default;
ImageStreamWriter::~ImageStreamWriter() = default;

core::Result<ImageStreamWriter> ImageStreamWriter::create(const std::string& path, const core::Geometry& geometry,
                                                          core::ScalarType type, const ImageFileWriteOptions& options) {
  // The format's own header function checks the name and options and says whether the voxels are compressed: the
  // choice is made there once, as for a whole write.
  std::vector<std::uint8_t> header;
  bool headerInStream = false;  // NIfTI's header is part of a .nii.gz's gzip stream; NRRD's text header stays plain
  int level = StreamedFileWriter::kNoCompression;
  switch (imageFileFormatFromPath(path)) {
    case ImageFileFormat::Nifti: {
      const NiftiWriteOptions n = niftiOptions(options);
      auto h = niftiImageHeader(path, geometry, type, n);
      if (!h) return h.error();
      header = std::move(h->bytes);
      headerInStream = true;
      if (h->gzip) level = n.gzipLevel;
      break;
    }
    case ImageFileFormat::Nrrd: {
      const NrrdWriteOptions n = nrrdOptions(options);
      auto h = nrrdImageHeader(path, geometry, type, n);  // refuses a detached header (.nhdr)
      if (!h) return h.error();
      header.assign(h->begin(), h->end());
      if (n.gzip) level = n.gzipLevel;
      break;
    }
    default:
      return core::makeError(core::ErrorCode::Unsupported, path,
                             "only NIfTI (.nii, .nii.gz) and NRRD (.nrrd) are written as their voxels arrive");
  }
  ImageStreamWriter w;
  w.m_expected = static_cast<std::uint64_t>(geometry.voxelCount());
  w.m_elementSize = core::scalarTypeBytes(type);
  auto file = StreamedFileWriter::create(path, level);
  if (!file) return file.error();
  w.m_file = std::move(*file);
  const core::Status s = headerInStream ? w.m_file->writeBody(header.data(), header.size())
                                        : w.m_file->writePlain(header.data(), header.size());
  if (!s) return s.error();
  return w;
}

core::Status ImageStreamWriter::append(const void* voxels, std::size_t count) {
  if (count > m_expected - m_received)
    return m_file->fail(core::makeError(core::ErrorCode::InvalidArgument, m_file->path(),
                                        "more voxels than the geometry holds (" + std::to_string(m_expected) + ")"));
  try {
    std::vector<std::uint8_t> swapped;  // only on a big-endian host: every format here stores little-endian
    const core::Status s = m_file->writeBody(image_file_detail::littleEndianBytes(voxels, count, m_elementSize, swapped),
                                             count * m_elementSize);
    if (s) m_received += count;
    return s;
  } catch (const std::bad_alloc&) {
    return m_file->fail(core::makeError(core::ErrorCode::OutOfMemory, m_file->path(),
                                        "cannot allocate a byte-swapped copy of " +
                                            std::to_string(count * m_elementSize) + " bytes"));
  }
}

core::Status ImageStreamWriter::commit() {
  if (m_received != m_expected)
    return m_file->fail(core::makeError(core::ErrorCode::InvalidArgument, m_file->path(),
                                        std::to_string(m_received) + " of the image's " + std::to_string(m_expected) +
                                            " voxels were written; nothing was saved"));
  return m_file->commit();
}

}  // namespace delineate::io
