// The only translation unit that includes ITK headers (io/volume/README.md): they are heavy to compile, and keeping
// them here keeps ITK out of every other file's build time and out of io's interface.
#include "io/volume/itk_formats.h"

#include <itkGiplImageIO.h>
#include <itkNiftiImageIO.h>
#include <itkVTKImageIO.h>
#include <locale.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/geometry.h"
#include "io/base/gzip.h"
#include "io/base/regular_file.h"
#include "io/volume/image_file.h"
#include "io/volume/image_file_internal.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::Geometry;
using core::makeError;
using core::Mat3;
using core::Result;
using core::Status;
using core::Vec3;
using Component = itk::IOComponentEnum;
using image_file_detail::endsWithNoCase;

constexpr std::uint64_t kGiplHeaderBytes = 256;
constexpr std::uint64_t kAnalyzeHeaderBytes = 348;
// ITK's GIPL reader counts voxels in 32 bits and hands gzread an unsigned int byte count.
constexpr std::uint64_t kGiplMaxVoxels = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kGiplGzMaxBytes = std::numeric_limits<unsigned int>::max();

const char* formatName(ItkReadFormat f) {
  switch (f) {
    case ItkReadFormat::Gipl: return "GIPL";
    case ItkReadFormat::Analyze: return "Analyze 7.5";
    case ItkReadFormat::VtkLegacy: return "VTK legacy structured points";
  }
  return "image";
}

// ITK parses headers with sscanf and strtod, which follow LC_NUMERIC: under a German locale (which the window's Qt
// sets for the process) "0.5" would read as 0. uselocale switches only this thread, only while ITK runs.
class CLocaleScope {
 public:
  CLocaleScope() {
    m_c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    if (m_c) m_previous = uselocale(m_c);
  }
  ~CLocaleScope() {
    if (!m_c) return;
    uselocale(m_previous);
    freelocale(m_c);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t m_c = static_cast<locale_t>(nullptr);
  locale_t m_previous = static_cast<locale_t>(nullptr);
};

// ITK's GIPL reader knows its extensions in lower case only, and takes gzip from the name: "CT.GIPL" would be refused
// and "CT.GIPL.GZ" read as raw bytes. Such a name is handed to ITK as a lower-case symbolic link to the file, in a
// private temporary folder removed afterwards; errors still name the user's file.
class LowerCaseGiplName {
 public:
  LowerCaseGiplName() = default;
  LowerCaseGiplName(const LowerCaseGiplName&) = delete;
  LowerCaseGiplName& operator=(const LowerCaseGiplName&) = delete;
  ~LowerCaseGiplName() {
    if (!m_folder.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(m_folder, ec);
    }
  }

  // The name ITK should open for `path`.
  Result<std::string> nameFor(const std::string& path) {
    const bool gz = endsWithNoCase(path, ".gipl.gz");
    const std::string lower = gz ? ".gipl.gz" : ".gipl";
    if (path.size() >= lower.size() && path.compare(path.size() - lower.size(), lower.size(), lower) == 0) return path;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::absolute(path, ec);
    std::string pattern = (std::filesystem::temp_directory_path(ec) / "delineate-gipl-XXXXXX").string();
    if (ec || !::mkdtemp(pattern.data()))
      return makeError(ErrorCode::ReadFailed, path,
                       "cannot make a temporary folder for ITK's GIPL reader (it needs a lower-case .gipl name)");
    m_folder = pattern;
    const std::filesystem::path link = std::filesystem::path(m_folder) / ("image" + lower);
    std::filesystem::create_symlink(target, link, ec);
    if (ec)
      return makeError(ErrorCode::ReadFailed, path,
                       "cannot link the file under a lower-case .gipl name for ITK's GIPL reader: " + ec.message());
    return link.string();
  }

 private:
  std::string m_folder;
};

// Size of a regular file; NotFound or ReadFailed naming `subject` (and `path` when it is another file).
Result<std::uint64_t> regularFileSize(const std::string& path, const std::string& subject) {
  struct stat st {};
  const std::string which = path == subject ? std::string() : "'" + path + "' ";
  if (::stat(path.c_str(), &st) != 0)
    return makeError(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, subject,
                     which.empty() ? "file does not exist or cannot be opened" : "file " + which + "does not exist");
  if (!S_ISREG(st.st_mode)) return makeError(ErrorCode::ReadFailed, subject, which + "is not a regular file");
  return static_cast<std::uint64_t>(st.st_size);
}

bool isFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The files of an Analyze pair: the header ITK is given, the data file whose size is checked.
struct AnalyzeFiles {
  std::string header;
  std::string data;
  bool dataGzipped = false;
};

Result<AnalyzeFiles> analyzeFiles(const std::string& path) {
  AnalyzeFiles f;
  std::string stem;
  if (endsWithNoCase(path, ".img.gz")) {
    stem = path.substr(0, path.size() - 7);
  } else if (endsWithNoCase(path, ".hdr") || endsWithNoCase(path, ".img")) {
    stem = path.substr(0, path.size() - 4);
  } else {
    return makeError(ErrorCode::Unsupported, path, "an Analyze 7.5 file must end in .hdr or .img");
  }
  if (endsWithNoCase(path, ".hdr")) {
    f.header = path;
  } else {
    for (const char* ext : {".hdr", ".HDR"})
      if (isFile(stem + ext)) f.header = stem + ext;
    if (f.header.empty())
      return makeError(ErrorCode::NotFound, path,
                       "the Analyze 7.5 header '" + stem + ".hdr' that goes with this image file does not exist");
  }
  // The order in which niftilib looks for the data of a header.
  for (const char* ext : {".img", ".IMG", ".img.gz", ".IMG.GZ"})
    if (f.data.empty() && isFile(stem + ext)) {
      f.data = stem + ext;
      f.dataGzipped = endsWithNoCase(f.data, ".gz");
    }
  if (f.data.empty())
    return makeError(ErrorCode::NotFound, path,
                     "the Analyze 7.5 image file '" + stem + ".img' that goes with this header does not exist");
  return f;
}

// Inflates a gzip file without keeping the output and says how many bytes it holds, stopping once past `cap`.
Result<std::uint64_t> gzipContentBytes(const std::string& path, std::uint64_t cap, const std::string& subject) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return makeError(ErrorCode::ReadFailed, subject, "cannot open '" + path + "'");
  std::vector<char> scratch(std::size_t(1) << 16);
  std::uint64_t total = 0;
  for (;;) {
    const int n = gzread(gz, scratch.data(), static_cast<unsigned>(scratch.size()));
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(gz, &code);
      gzclose(gz);
      return makeError(ErrorCode::Corrupt, subject, "gzip data is corrupt (" + why + ") after " +
                                                        std::to_string(total) + " decompressed bytes");
    }
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > cap) break;
  }
  int code = 0;
  const char* message = gzerror(gz, &code);
  const bool cutOff = code == Z_BUF_ERROR;  // zlib's word for "the stream ends before its end"
  const std::string why = message ? message : "";
  gzclose(gz);
  if (cutOff)
    return makeError(ErrorCode::Corrupt, subject,
                     "file is truncated: the gzip stream is cut off after " + std::to_string(total) +
                         " decompressed bytes");
  return total;
}

// Every number of an ASCII VTK file's data part must be there and be a number: ITK's text reader stops silently at
// the first word it cannot read and leaves the rest of the buffer as it was.
Status checkVtkText(const std::string& path, std::uint64_t from, std::uint64_t values) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(ErrorCode::ReadFailed, path, "cannot open the file");
  in.seekg(static_cast<std::streamoff>(from));
  std::vector<char> chunk(std::size_t(1) << 16);
  std::string token;
  std::uint64_t seen = 0;
  auto finish = [&]() -> Status {
    if (token.empty()) return Status::success();
    double v = 0;
    const char* b = token.data() + (token[0] == '+' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(b, token.data() + token.size(), v);
    if (token.size() > 64 || ec != std::errc() || ptr != token.data() + token.size()) {
      const std::string shown = token.size() > 40 ? token.substr(0, 40) + "..." : token;
      return makeError(ErrorCode::ParseError, path,
                       "text value " + std::to_string(seen) + " is '" + shown + "', not a number");
    }
    ++seen;
    token.clear();
    return Status::success();
  };
  while (seen < values && in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    for (std::size_t i = 0; i < n && seen < values; ++i) {
      const char c = chunk[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        if (Status s = finish(); !s) return s;
      } else if (token.size() <= 64) {
        token.push_back(c);
      }
    }
  }
  if (Status s = finish(); !s) return s;
  if (seen < values)
    return makeError(ErrorCode::Corrupt, path,
                     "file is truncated: expected " + std::to_string(values) + " numbers of voxel data, found " +
                         std::to_string(seen));
  return Status::success();
}

// What ReadImageInformation told us, in our terms, once every check has passed.
struct Header {
  Geometry geometry;
  Component component = Component::UNKNOWNCOMPONENTTYPE;
  std::uint64_t voxels = 0;
  std::uint64_t componentBytes = 0;
};

std::string itkWords(const itk::ExceptionObject& e) {
  const char* d = e.GetDescription();
  std::string s = d && *d ? d : e.what();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string numberText(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::size_t bytesOf(Component c) {
  switch (c) {
    case Component::UCHAR:
    case Component::CHAR: return 1;
    case Component::USHORT:
    case Component::SHORT: return 2;
    case Component::UINT:
    case Component::INT:
    case Component::FLOAT: return 4;
    case Component::ULONG: return sizeof(unsigned long);
    case Component::LONG: return sizeof(long);
    case Component::ULONGLONG:
    case Component::LONGLONG:
    case Component::DOUBLE: return 8;
    default: return 0;
  }
}

// Calls fn(T{}) with the C++ type ITK stores `c` as (bytesOf(c) must be nonzero).
template <class Fn>
void visitComponent(Component c, Fn&& fn) {
  switch (c) {
    case Component::UCHAR: fn(static_cast<unsigned char>(0)); break;
    case Component::CHAR: fn(static_cast<signed char>(0)); break;
    case Component::USHORT: fn(static_cast<unsigned short>(0)); break;
    case Component::SHORT: fn(static_cast<short>(0)); break;
    case Component::UINT: fn(0u); break;
    case Component::INT: fn(0); break;
    case Component::ULONG: fn(0ul); break;
    case Component::LONG: fn(0l); break;
    case Component::ULONGLONG: fn(0ull); break;
    case Component::LONGLONG: fn(0ll); break;
    case Component::FLOAT: fn(0.0f); break;
    case Component::DOUBLE: fn(0.0); break;
    default: break;
  }
}

// Whether ITK's component `c` is exactly T, so that ITK reads straight into a Volume<T> with no staging buffer.
template <class T>
bool storedAs(Component c) {
  bool same = false;
  visitComponent(c, [&](auto tag) { same = std::is_same_v<decltype(tag), T>; });
  return same;
}

// ITK's geometry (any number of dimensions) as a validated core::Geometry.
Result<Header> headerFrom(itk::ImageIOBase& io, ItkReadFormat format, const std::string& path) {
  const std::string what = formatName(format);
  const unsigned nd = io.GetNumberOfDimensions();
  if (nd == 0) return makeError(ErrorCode::ParseError, path, "the " + what + " header declares no dimensions");
  if (io.GetNumberOfComponents() != 1)
    return makeError(ErrorCode::Unsupported, path,
                     "pixels of " + std::to_string(io.GetNumberOfComponents()) + " components (" +
                         itk::ImageIOBase::GetPixelTypeAsString(io.GetPixelType()) +
                         ") are not supported: Delineate reads images of one value per voxel");
  Header h;
  h.component = io.GetComponentType();
  h.componentBytes = bytesOf(h.component);
  if (h.componentBytes == 0)
    return makeError(ErrorCode::Unsupported, path,
                     "the voxel type (" + itk::ImageIOBase::GetComponentTypeAsString(h.component) +
                         ") is not supported");
  for (unsigned i = 3; i < nd; ++i)
    if (io.GetDimensions(i) != 1)
      return makeError(ErrorCode::Unsupported, path,
                       "images with more than 3 dimensions are not supported: dimension " + std::to_string(i + 1) +
                           " has " + std::to_string(io.GetDimensions(i)) + " samples");
  core::Size3 dims{1, 1, 1};
  Vec3 spacing{1, 1, 1}, origin{0, 0, 0};
  Mat3 direction = Mat3::identity();
  const unsigned used = std::min(nd, 3u);
  std::uint64_t count = 1;
  for (unsigned i = 0; i < used; ++i) {
    const auto d = static_cast<std::uint64_t>(io.GetDimensions(i));
    if (d == 0)
      return makeError(ErrorCode::InvalidGeometry, path,
                       "dimension " + std::to_string(i + 1) + " has 0 samples, must be positive");
    if (d > static_cast<std::uint64_t>(Geometry::kMaxVoxels) / count) {
      std::string text;
      for (unsigned j = 0; j < used; ++j) text += (j ? "x" : "") + std::to_string(io.GetDimensions(j));
      return makeError(ErrorCode::SizeLimit, path,
                       "declares " + text + " voxels, more than the limit of " + std::to_string(Geometry::kMaxVoxels));
    }
    count *= d;
    dims[i] = static_cast<std::int64_t>(d);
    spacing[i] = io.GetSpacing(i);
    origin[i] = io.GetOrigin(i);
    const std::vector<double> column = io.GetDirection(i);
    for (unsigned r = 0; r < used && r < column.size(); ++r) direction(static_cast<int>(r), static_cast<int>(i)) = column[r];
  }
  // SPM writes a negative pixdim for a flipped axis; ITK keeps the sign. The same points, with a positive spacing:
  if (format == ItkReadFormat::Analyze)
    for (int c = 0; c < 3; ++c)
      if (spacing[static_cast<std::size_t>(c)] < 0) {
        spacing[static_cast<std::size_t>(c)] = -spacing[static_cast<std::size_t>(c)];
        for (int r = 0; r < 3; ++r) direction(r, c) = -direction(r, c);
      }
  if (Status s = Geometry::validate(dims, spacing, origin, direction, path); !s) return s.error();
  h.geometry = Geometry(dims, spacing, origin, direction);
  h.voxels = count;
  return h;
}

std::string expectedBytes(std::uint64_t header, std::uint64_t data) {
  return "expected " + std::to_string(header + data) + " bytes (" +
         (header ? std::to_string(header) + " header + " : std::string()) + std::to_string(data) + " voxel data)";
}

// Everything that can be checked before allocating: the voxel data must fit in what the data file holds.
Status checkDataAvailable(itk::ImageIOBase& io, ItkReadFormat format, const std::string& path,
                          const AnalyzeFiles* analyze, const Header& h) {
  const std::uint64_t dataBytes = h.voxels * h.componentBytes;  // <= 2^36 * 8: no overflow
  if (dataBytes > std::numeric_limits<std::size_t>::max())
    return makeError(ErrorCode::SizeLimit, path, "too large for this machine's address space");
  switch (format) {
    case ItkReadFormat::Gipl: {
      if (h.voxels > kGiplMaxVoxels)
        return makeError(ErrorCode::SizeLimit, path,
                         "declares " + std::to_string(h.voxels) + " voxels; ITK's GIPL reader counts at most " +
                             std::to_string(kGiplMaxVoxels));
      auto size = regularFileSize(path, path);
      if (!size) return size.error();
      if (!endsWithNoCase(path, ".gz")) {
        if (*size < kGiplHeaderBytes + dataBytes)
          return makeError(ErrorCode::Corrupt, path,
                           "file is truncated: " + expectedBytes(kGiplHeaderBytes, dataBytes) + ", found " +
                               std::to_string(*size));
        return Status::success();
      }
      if (dataBytes > kGiplGzMaxBytes)
        return makeError(ErrorCode::SizeLimit, path,
                         "declares " + std::to_string(dataBytes) +
                             " bytes of voxel data; ITK's reader of gzipped GIPL reads at most " +
                             std::to_string(kGiplGzMaxBytes));
      const std::uint64_t need = kGiplHeaderBytes + dataBytes;
      if (need > maxInflatedSize(*size))
        return makeError(ErrorCode::Corrupt, path,
                         "file is truncated: " + expectedBytes(kGiplHeaderBytes, dataBytes) +
                             " after decompression, but its " + std::to_string(*size) +
                             " compressed bytes can hold at most " + std::to_string(maxInflatedSize(*size)));
      auto held = gzipContentBytes(path, need, path);
      if (!held) return held.error();
      if (*held < need)
        return makeError(ErrorCode::Corrupt, path,
                         "file is truncated: " + expectedBytes(kGiplHeaderBytes, dataBytes) +
                             " after decompression, found " + std::to_string(*held));
      return Status::success();
    }
    case ItkReadFormat::Analyze: {
      auto size = regularFileSize(analyze->data, path);
      if (!size) return size.error();
      const std::string data = "the image file '" + analyze->data + "'";
      if (!analyze->dataGzipped) {
        if (*size < dataBytes)
          return makeError(ErrorCode::Corrupt, path,
                           data + " is truncated: expected " + std::to_string(dataBytes) + " bytes of voxel data, found " +
                               std::to_string(*size));
        return Status::success();
      }
      if (dataBytes > maxInflatedSize(*size))
        return makeError(ErrorCode::Corrupt, path,
                         data + " is truncated: expected " + std::to_string(dataBytes) +
                             " bytes of voxel data after decompression, but its " + std::to_string(*size) +
                             " compressed bytes can hold at most " + std::to_string(maxInflatedSize(*size)));
      auto held = gzipContentBytes(analyze->data, dataBytes, path);
      if (!held) return held.error();
      if (*held < dataBytes)
        return makeError(ErrorCode::Corrupt, path,
                         data + " is truncated: expected " + std::to_string(dataBytes) +
                             " bytes of voxel data after decompression, found " + std::to_string(*held));
      return Status::success();
    }
    case ItkReadFormat::VtkLegacy: {
      auto size = regularFileSize(path, path);
      if (!size) return size.error();
      auto* vtk = dynamic_cast<itk::VTKImageIO*>(&io);
      if (!vtk) return makeError(ErrorCode::Unsupported, path, "no VTK reader");
      const auto headerBytes = static_cast<std::uint64_t>(vtk->GetHeaderSize());
      const std::uint64_t rest = *size > headerBytes ? *size - headerBytes : 0;
      if (io.GetFileType() == itk::IOFileEnum::ASCII) {
        // Every number needs a character and a separator: refuse before reading what cannot be there.
        if (rest < 2 * h.voxels - 1)
          return makeError(ErrorCode::Corrupt, path,
                           "file is truncated: expected " + std::to_string(h.voxels) + " numbers, but its " +
                               std::to_string(rest) + " bytes of text can hold at most " +
                               std::to_string((rest + 1) / 2));
        return checkVtkText(path, headerBytes, h.voxels);
      }
      if (rest < dataBytes)
        return makeError(ErrorCode::Corrupt, path,
                         "file is truncated: " + expectedBytes(headerBytes, dataBytes) + ", found " +
                             std::to_string(*size));
      return Status::success();
    }
  }
  return Status::success();
}

itk::ImageIOBase::Pointer makeImageIO(ItkReadFormat format) {
  switch (format) {
    case ItkReadFormat::Gipl: return itk::GiplImageIO::New().GetPointer();
    case ItkReadFormat::Analyze: {
      auto nifti = itk::NiftiImageIO::New();
      // ITK's default flavour, without the deprecation warning it would print on every read.
      nifti->SetLegacyAnalyze75Mode(itk::NiftiImageIOEnums::Analyze75Flavor::AnalyzeITK4);
      return nifti.GetPointer();
    }
    case ItkReadFormat::VtkLegacy: return itk::VTKImageIO::New().GetPointer();
  }
  return nullptr;
}

// The header, read and checked; `io` is then ready for Read().
Result<Header> openHeader(itk::ImageIOBase& io, ItkReadFormat format, const std::string& path,
                          const AnalyzeFiles* analyze, const std::string& itkName) {
  const std::string headerPath = analyze ? analyze->header : path;
  auto size = regularFileSize(headerPath, path);
  if (!size) return size.error();
  const std::string what = formatName(format);
  if (format == ItkReadFormat::Gipl && !endsWithNoCase(path, ".gz") && *size < kGiplHeaderBytes)
    return makeError(ErrorCode::Corrupt, path,
                     "too short for a GIPL header: expected at least 256 bytes, found " + std::to_string(*size));
  if (format == ItkReadFormat::Analyze && *size < kAnalyzeHeaderBytes)
    return makeError(ErrorCode::Corrupt, path,
                     "the header '" + headerPath + "' is too short for Analyze 7.5: expected 348 bytes, found " +
                         std::to_string(*size));
  const std::string itkPath = analyze ? analyze->header : itkName;
  io.SetFileName(itkPath);
  if (!io.CanReadFile(itkPath.c_str())) {
    const char* why = format == ItkReadFormat::Gipl        ? " (no GIPL magic number at byte 252)"
                      : format == ItkReadFormat::Analyze ? " (sizeof_hdr is not 348 in either byte order)"
                                                         : " (it must start with '# vtk DataFile' and declare "
                                                           "DATASET STRUCTURED_POINTS)";
    return makeError(ErrorCode::ParseError, path, "not a " + what + " file" + why);
  }
  try {
    io.ReadImageInformation();
  } catch (const itk::ExceptionObject& e) {
    return makeError(ErrorCode::ParseError, path, "cannot read the " + what + " header: " + itkWords(e));
  }
  auto h = headerFrom(io, format, path);
  if (!h) return h.error();
  if (Status s = checkDataAvailable(io, format, path, analyze, *h); !s) return s.error();
  return h;
}

// Reads the voxels as ITK stores them (host byte order) into `raw`, which holds voxels x component bytes.
Status readVoxels(itk::ImageIOBase& io, void* raw, const std::string& path, ItkReadFormat format) {
  const unsigned nd = io.GetNumberOfDimensions();
  itk::ImageIORegion region(nd);
  for (unsigned i = 0; i < nd; ++i) {
    region.SetIndex(i, 0);
    region.SetSize(i, io.GetDimensions(i));
  }
  io.SetIORegion(region);  // the whole image: the readers stream (or fail) on anything smaller
  try {
    io.Read(raw);
  } catch (const itk::ExceptionObject& e) {
    return makeError(ErrorCode::ReadFailed, path,
                     std::string("cannot read the ") + formatName(format) + " voxel data: " + itkWords(e));
  }
  return Status::success();
}

struct Opened {
  itk::ImageIOBase::Pointer io;
  Header header;
};

Result<Opened> open(const std::string& path, ItkReadFormat format, std::optional<AnalyzeFiles>& analyze,
                    LowerCaseGiplName& giplName) {
  // ITK opens with a blocking open(2): a named pipe would hang it, a device never end.
  if (Status s = checkRegularFile(path, "image file"); !s) return s.error();
  std::string itkName = path;
  if (format == ItkReadFormat::Gipl) {
    auto name = giplName.nameFor(path);
    if (!name) return name.error();
    itkName = *name;
  }
  if (format == ItkReadFormat::Analyze) {
    auto files = analyzeFiles(path);
    if (!files) return files.error();
    if (Status s = checkRegularFile(files->header, "Analyze header"); !s) return s.error();
    if (Status s = checkRegularFile(files->data, "Analyze image data"); !s) return s.error();
    analyze = *files;
  }
  Opened o;
  o.io = makeImageIO(format);
  if (!o.io) return makeError(ErrorCode::Unsupported, path, "no reader for this format");
  auto h = openHeader(*o.io, format, path, analyze ? &*analyze : nullptr, itkName);
  if (!h) return h.error();
  o.header = std::move(h).value();
  return o;
}

// ITK 5.2's NiftiImageIO::ReadImageInformation keeps a function-static string of the last file name: two threads
// reading Analyze at once (the window loads in the background) would race on it. One lock for every reader here (a
// static inside the reading template would be one lock per instantiation, images and labels apart).
std::mutex& analyzeMutex() {
  static std::mutex m;
  return m;
}

// Opens `path` and hands the opened file to `read` under what ITK needs around it (the C locale, the Analyze lock, a
// GIPL name ITK accepts); ITK's exceptions and out-of-memory become errors naming the file.
template <class R, class Read>
Result<R> withOpened(const std::string& path, ItkReadFormat format, Read&& read) {
  CLocaleScope cLocale;
  std::optional<AnalyzeFiles> analyze;
  LowerCaseGiplName giplName;  // outlives the ImageIO, which reads through it
  std::unique_lock<std::mutex> analyzeLock(analyzeMutex(), std::defer_lock);
  if (format == ItkReadFormat::Analyze) analyzeLock.lock();
  try {
    auto opened = open(path, format, analyze, giplName);
    if (!opened) return opened.error();
    return read(*opened);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, path, "cannot allocate memory for the voxel data");
  } catch (const itk::ExceptionObject& e) {
    return makeError(ErrorCode::ReadFailed, path, std::string("ITK: ") + itkWords(e));
  } catch (const std::exception& e) {
    return makeError(ErrorCode::ReadFailed, path, std::string("ITK: ") + e.what());
  }
}

// The voxels of an opened file that stores exactly T, read by ITK straight into the volume (no staging buffer).
template <class T>
Result<core::Volume<T>> readStored(Opened& opened, const std::string& path, ItkReadFormat format) {
  typename core::Volume<T>::UninitBuffer out(static_cast<std::size_t>(opened.header.voxels));
  if (Status s = readVoxels(*opened.io, out.data(), path, format); !s) return s.error();
  return core::Volume<T>::adopt(opened.header.geometry, std::move(out), path);
}

// The voxels of an opened file as Out, each through `convert` (which may refuse one).
template <class Out, class Convert>
Result<core::Volume<Out>> convertOpened(Opened& opened, const std::string& path, ItkReadFormat format, Convert&& convert) {
  const Header& h = opened.header;
  // ITK writes straight into the result when it stores what we keep; otherwise through one staging buffer.
  if (storedAs<Out>(h.component)) return readStored<Out>(opened, path, format);
  const auto count = static_cast<std::size_t>(h.voxels);
  typename core::Volume<Out>::UninitBuffer out(count);
  core::Volume<std::uint8_t>::UninitBuffer raw(static_cast<std::size_t>(h.voxels * h.componentBytes));
  if (Status s = readVoxels(*opened.io, raw.data(), path, format); !s) return s.error();
  std::optional<core::Error> refused;
  visitComponent(h.component, [&](auto tag) {
    using Src = decltype(tag);
    const auto* src = reinterpret_cast<const Src*>(raw.data());
    for (std::size_t i = 0; i < count; ++i)
      if (!convert(src[i], out[i])) {
        refused = convert.refusal(i, static_cast<double>(src[i]), h.geometry, path);
        return;
      }
  });
  if (refused) return *refused;
  return core::Volume<Out>::adopt(h.geometry, std::move(out), path);
}

template <class Out, class Convert>
Result<core::Volume<Out>> readConverted(const std::string& path, ItkReadFormat format, Convert&& convert) {
  return withOpened<core::Volume<Out>>(path, format, [&](Opened& opened) {
    return convertOpened<Out>(opened, path, format, std::forward<Convert>(convert));
  });
}

struct ToFloat {
  template <class T>
  bool operator()(T v, float& out) const {
    out = static_cast<float>(v);
    return true;
  }
  // Images take every value, so this is never asked; readConverted needs it for label maps.
  core::Error refusal(std::size_t, double, const Geometry&, const std::string& path) const {
    return makeError(ErrorCode::ParseError, path, "voxel value refused");
  }
};

struct ToLabel {
  template <class T>
  bool operator()(T v, std::uint16_t& out) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (!(v >= 0 && v <= 65535 && v == std::floor(v))) return false;
    } else if constexpr (std::is_signed_v<T>) {
      if (v < 0 || static_cast<long long>(v) > 65535) return false;
    } else {
      if (static_cast<unsigned long long>(v) > 65535) return false;
    }
    out = static_cast<std::uint16_t>(v);
    return true;
  }
  core::Error refusal(std::size_t index, double value, const Geometry& g, const std::string& path) const {
    return labelValueRefused(path, g, index, numberText(value));
  }
};

}  // namespace

Result<core::ImageVolume> readItkFormatImage(const std::string& path, ItkReadFormat format) {
  return readConverted<float>(path, format, ToFloat{});
}

Result<core::ScalarImage> readItkFormatImageTyped(const std::string& path, ItkReadFormat format) {
  // ITK reads straight into a volume of the stored type when we keep that type (uchar, short, ushort, int, float):
  // no staging buffer and no float32 copy. Other types are converted to float32 from the same open file, then
  // narrowed.
  return withOpened<core::ScalarImage>(path, format, [&](Opened& opened) -> Result<core::ScalarImage> {
    // A type ScalarImage keeps is read as it is.
    std::optional<Result<core::ScalarImage>> kept;
    visitComponent(opened.header.component, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int16_t> ||
                    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) {
        auto volume = readStored<T>(opened, path, format);
        if (volume) kept = core::ScalarImage(std::move(*volume));
        else kept = volume.error();
      }
    });
    if (kept) return std::move(*kept);
    auto floats = convertOpened<float>(opened, path, format, ToFloat{});
    if (!floats) return floats.error();
    return core::ScalarImage::narrowed(std::move(*floats), path);
  });
}

Result<core::LabelMap> readItkFormatLabels(const std::string& path, ItkReadFormat format) {
  auto voxels = readConverted<std::uint16_t>(path, format, ToLabel{});
  if (!voxels) return voxels.error();
  return core::LabelMap(std::move(voxels).value());
}

}  // namespace delineate::io
