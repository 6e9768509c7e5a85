// DICOM headers (DCMTK) and the folder index: parallel header reads, then grouping into patients/studies/series.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcistrmb.h>
#include <dcmtk/dcmdata/dcmetinf.h>
#include <dcmtk/dcmdata/dcsequen.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmdata/dcxfer.h>

#include "io/base/regular_file.h"
#include "io/dicom/dicom_internal.h"

namespace delineate::io {
namespace dicom_detail {
namespace {

using core::ErrorCode;
using core::makeError;

// Headers larger than this (huge private blocks, Enhanced objects with thousands of frames) are parsed by DCMTK from
// the file, which reads them in pieces.
constexpr std::int64_t kMaxHeaderBytes = std::int64_t(64) << 20;

std::string trim(const char* s) {
  std::string v = s ? s : "";
  const auto notSpace = [](unsigned char c) { return c != ' ' && c != '\0' && c != '\t' && c != '\r' && c != '\n'; };
  v.erase(v.begin(), std::find_if(v.begin(), v.end(), notSpace));
  v.erase(std::find_if(v.rbegin(), v.rend(), notSpace).base(), v.end());
  return v;
}

std::string str(DcmItem* item, const DcmTagKey& key) {
  OFString v;
  if (item && item->findAndGetOFStringArray(key, v).good()) return trim(v.c_str());
  return {};
}

bool f64(DcmItem* item, const DcmTagKey& key, double& out, unsigned long pos = 0) {
  Float64 v = 0;
  if (!item || item->findAndGetFloat64(key, v, pos).bad() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool vec3(DcmItem* item, const DcmTagKey& key, unsigned long first, core::Vec3& out) {
  core::Vec3 v{};
  for (unsigned long i = 0; i < 3; ++i)
    if (!f64(item, key, v[i], first + i)) return false;
  out = v;
  return true;
}

int int32(DcmItem* item, const DcmTagKey& key, int fallback = 0) {
  Sint32 v = 0;
  if (item && item->findAndGetSint32(key, v).good()) return int(v);
  return fallback;
}

int uint16(DcmItem* item, const DcmTagKey& key, int fallback = -1) {
  Uint16 v = 0;
  if (item && item->findAndGetUint16(key, v).good()) return int(v);
  return fallback;
}

// The first item of functional-group sequence `group` for a frame: per-frame first, then shared.
DcmItem* functionalGroup(DcmItem* perFrame, DcmItem* shared, const DcmTagKey& group) {
  DcmItem* it = nullptr;
  if (perFrame && perFrame->findAndGetSequenceItem(group, it, 0).good() && it) return it;
  it = nullptr;
  if (shared && shared->findAndGetSequenceItem(group, it, 0).good() && it) return it;
  return nullptr;
}

bool isNonImageSopClass(const std::string& uid) {
  return uid == UID_SegmentationStorage || uid.rfind("1.2.840.10008.5.1.4.1.1.88.", 0) == 0 ||  // SR
         uid == UID_RTStructureSetStorage || uid == UID_GrayscaleSoftcopyPresentationStateStorage ||
         uid == UID_KeyObjectSelectionDocumentStorage || uid == UID_RTPlanStorage;
}

void fillPlane(DicomSlice& s, DcmItem* positionItem, DcmItem* orientationItem, DcmItem* measuresItem) {
  s.hasPosition = vec3(positionItem, DCM_ImagePositionPatient, 0, s.positionLps);
  core::Vec3 r{}, c{};
  if (vec3(orientationItem, DCM_ImageOrientationPatient, 0, r) &&
      vec3(orientationItem, DCM_ImageOrientationPatient, 3, c)) {
    s.rowDirection = r;
    s.columnDirection = c;
    s.hasOrientation = true;
  }
  double rs = 0, cs = 0;
  if (f64(measuresItem, DCM_PixelSpacing, rs, 0) && f64(measuresItem, DCM_PixelSpacing, cs, 1) && rs > 0 && cs > 0) {
    s.rowSpacingMm = rs;
    s.columnSpacingMm = cs;
    s.hasPixelSpacing = true;
  }
  f64(measuresItem, DCM_SliceThickness, s.sliceThicknessMm);
}

}  // namespace

core::Result<FileHeader> readDicomFileHeader(const std::string& path) {
  ensureDcmtkReady();
  // One open for the pre-scan and the header: the bytes before the pixel data are read once (from the pre-scan's
  // pages) and DCMTK parses them from memory. Each open and read is a round trip on a network share.
  PrescanResult prescan;
  std::vector<std::uint8_t> headerBytes;
  bool fromMemory = false;
  core::Status scanned = prescanDicomFile(path, [&](RandomAccessFile& file, const PrescanResult& r) -> core::Status {
    prescan = r;
    const std::int64_t end = r.pixelDataElementOffset >= 0 ? r.pixelDataElementOffset
                             : r.transferSyntaxUid == "1.2.840.10008.1.2.1.99" ? -1
                                                                                : std::int64_t(file.size());
    if (end < 0 || end > kMaxHeaderBytes) return core::Status::success();  // DCMTK reads the file itself
    headerBytes.resize(std::size_t(end));
    auto got = file.readAt(0, headerBytes.data(), headerBytes.size());
    if (!got) return got.error();
    if (*got != headerBytes.size()) return makeError(ErrorCode::ReadFailed, path, "reading the header: the file shrank");
    fromMemory = true;
    return core::Status::success();
  });
  if (!scanned) return scanned.error();
  const PrescanResult* pre = &prescan;

  ReadableFile lateReader;  // before ff: outlives it
  DcmFileFormat ff;
  OFCondition c;
  if (fromMemory) {
    DcmInputBufferStream stream;
    stream.setBuffer(headerBytes.data(), offile_off_t(headerBytes.size()));
    stream.setEos();
    ff.transferInit();
    c = ff.read(stream, EXS_Unknown, EGL_noChange, DCM_MaxReadLength);
    ff.transferEnd();
  } else {
    // Values longer than 256 bytes are read later from the file's name (a sealed file's memory file lives as long).
    auto readable = ReadableFile::open(path, "DICOM file");
    if (!readable) return readable.error();
    lateReader = std::move(*readable);
    c = ff.loadFile(OFFilename(lateReader.path().c_str()), EXS_Unknown, EGL_noChange, 256, ERM_autoDetect);
  }
  if (c.bad()) return makeError(ErrorCode::ParseError, path, std::string("DCMTK cannot parse the file: ") + c.text());
  DcmDataset* ds = ff.getDataset();
  DcmMetaInfo* meta = ff.getMetaInfo();

  FileHeader h;
  h.patientId = str(ds, DCM_PatientID);
  h.patientName = str(ds, DCM_PatientName);
  h.studyInstanceUid = storedUid(prescan, 0x0020, 0x000D, str(ds, DCM_StudyInstanceUID));
  h.studyDate = str(ds, DCM_StudyDate);
  h.studyDescription = str(ds, DCM_StudyDescription);
  h.accessionNumber = str(ds, DCM_AccessionNumber);
  h.seriesInstanceUid = storedUid(prescan, 0x0020, 0x000E, str(ds, DCM_SeriesInstanceUID));
  h.seriesNumber = str(ds, DCM_SeriesNumber);
  h.seriesDescription = str(ds, DCM_SeriesDescription);
  h.modality = str(ds, DCM_Modality);
  h.sopClassUid = str(ds, DCM_SOPClassUID);
  if (h.sopClassUid.empty()) h.sopClassUid = str(meta, DCM_MediaStorageSOPClassUID);
  h.frameOfReferenceUid = str(ds, DCM_FrameOfReferenceUID);

  const DcmXfer xfer(ds->getOriginalXfer());
  auto& f = h.format;
  f.transferSyntaxUid = pre->transferSyntaxUid.empty() ? xfer.getXferID() : pre->transferSyntaxUid;
  f.transferSyntaxName = dicom_detail::transferSyntaxName(f.transferSyntaxUid, xfer.getXferName());

  const bool nonImageModality = h.modality == "SEG" || h.modality == "SR" || h.modality == "RTSTRUCT" ||
                                h.modality == "PR" || h.modality == "KO" || h.modality == "REG" ||
                                h.modality == "RWV" || h.modality == "RTPLAN";
  h.isImage = pre->pixelDataPresent && !nonImageModality && !isNonImageSopClass(h.sopClassUid);
  if (!h.isImage && !nonImageModality && !isNonImageSopClass(h.sopClassUid) && !pre->floatPixelDataPresent &&
      ds->tagExists(DCM_Rows) && ds->tagExists(DCM_Columns))
    return makeError(ErrorCode::Corrupt, path,
                     "image without pixel data (7FE0,0010): the file ends before its pixels (truncated?)");
  if (!h.isImage) {
    DicomSlice s;
    s.path = path;
    s.sopInstanceUid = storedUid(prescan, 0x0008, 0x0018, str(ds, DCM_SOPInstanceUID));
    h.slices.push_back(std::move(s));
    return h;
  }

  f.rows = uint16(ds, DCM_Rows);
  f.columns = uint16(ds, DCM_Columns);
  f.bitsAllocated = uint16(ds, DCM_BitsAllocated);
  f.bitsStored = uint16(ds, DCM_BitsStored, f.bitsAllocated);
  f.highBit = uint16(ds, DCM_HighBit, f.bitsStored - 1);
  f.pixelRepresentation = uint16(ds, DCM_PixelRepresentation, 0);
  f.samplesPerPixel = uint16(ds, DCM_SamplesPerPixel, 1);
  f.photometric = str(ds, DCM_PhotometricInterpretation);
  h.numberOfFrames = int32(ds, DCM_NumberOfFrames, 1);

  if (f.rows <= 0) return makeError(ErrorCode::Corrupt, path, "Rows is " + std::to_string(f.rows) + " (missing or 0)");
  if (f.columns <= 0)
    return makeError(ErrorCode::Corrupt, path, "Columns is " + std::to_string(f.columns) + " (missing or 0)");
  if (h.numberOfFrames <= 0)
    return makeError(ErrorCode::Corrupt, path, "NumberOfFrames is " + std::to_string(h.numberOfFrames));
  if (h.numberOfFrames > kMaxFrames)
    return makeError(ErrorCode::SizeLimit, path,
                     "NumberOfFrames " + std::to_string(h.numberOfFrames) + " exceeds the limit of " +
                         std::to_string(kMaxFrames) + " frames per instance");
  if (pre->pixelDataEncapsulated && pre->pixelItems - 1 < h.numberOfFrames)
    return makeError(ErrorCode::Corrupt, path,
                     "NumberOfFrames " + std::to_string(h.numberOfFrames) + " but the encapsulated pixel data holds " +
                         std::to_string(std::max<std::int64_t>(0, pre->pixelItems - 1)) + " fragments");
  if (f.bitsAllocated != 8 && f.bitsAllocated != 16 && f.bitsAllocated != 32)
    return makeError(ErrorCode::Unsupported, path,
                     "BitsAllocated " + std::to_string(f.bitsAllocated) + " (images need 8, 16 or 32 bits)");
  if (f.bitsStored < 1 || f.bitsStored > f.bitsAllocated)
    return makeError(ErrorCode::Corrupt, path,
                     "BitsStored " + std::to_string(f.bitsStored) + " does not fit BitsAllocated " +
                         std::to_string(f.bitsAllocated));
  if (f.highBit >= f.bitsAllocated || f.highBit < f.bitsStored - 1)
    return makeError(ErrorCode::Corrupt, path,
                     "HighBit " + std::to_string(f.highBit) + " is impossible with BitsAllocated " +
                         std::to_string(f.bitsAllocated) + " and BitsStored " + std::to_string(f.bitsStored));
  if (f.samplesPerPixel < 1 || f.samplesPerPixel > 4)
    return makeError(ErrorCode::Corrupt, path, "SamplesPerPixel " + std::to_string(f.samplesPerPixel));

  // Sizes in 64 bits before anything is allocated.
  const std::int64_t voxels = std::int64_t(f.rows) * f.columns * h.numberOfFrames;
  if (voxels > core::Geometry::kMaxVoxels)
    return makeError(ErrorCode::SizeLimit, path,
                     "Rows x Columns x NumberOfFrames = " + std::to_string(f.rows) + " x " + std::to_string(f.columns) +
                         " x " + std::to_string(h.numberOfFrames) + " exceeds the voxel limit");
  const std::int64_t needBytes = voxels * f.samplesPerPixel * (f.bitsAllocated / 8);
  if (!pre->pixelDataEncapsulated) {
    std::int64_t have = pre->pixelDataLength;
    if (pre->pixelDataOffset < 0) {  // deflated: ask DCMTK for the element's length
      DcmElement* pd = nullptr;
      if (ds->findAndGetElement(DCM_PixelData, pd).good() && pd) have = pd->getLength();
    }
    if (have < needBytes)
      return makeError(ErrorCode::Corrupt, path,
                       "pixel data holds " + std::to_string(have) + " bytes but Rows x Columns x Frames x "
                       "BitsAllocated need " + std::to_string(needBytes) + " (truncated or damaged)");
  }

  // One slice per frame; Enhanced multi-frame objects carry the plane in functional groups.
  DcmItem* shared = nullptr;
  ds->findAndGetSequenceItem(DCM_SharedFunctionalGroupsSequence, shared, 0);
  DcmSequenceOfItems* perFrame = nullptr;
  ds->findAndGetSequence(DCM_PerFrameFunctionalGroupsSequence, perFrame);
  const std::string sop = storedUid(prescan, 0x0008, 0x0018, str(ds, DCM_SOPInstanceUID));
  const int instance = int32(ds, DCM_InstanceNumber, 0);
  const int echo = int32(ds, DCM_EchoNumbers, 0);
  const int acquisition = int32(ds, DCM_AcquisitionNumber, 0);
  const int imagesInAcquisition = int32(ds, DCM_ImagesInAcquisition, 0);
  double slope = 1, intercept = 0;
  f64(ds, DCM_RescaleSlope, slope);
  f64(ds, DCM_RescaleIntercept, intercept);
  if (slope == 0) slope = 1;
  const bool enhanced = shared || perFrame;
  h.slices.reserve(std::size_t(h.numberOfFrames));
  for (int fr = 0; fr < h.numberOfFrames; ++fr) {
    DicomSlice s;
    s.path = path;
    s.frame = fr;
    s.sopInstanceUid = sop;
    s.instanceNumber = instance;
    s.echoNumber = echo;
    s.acquisitionNumber = acquisition;
    if (h.numberOfFrames == 1) s.imagesInAcquisition = imagesInAcquisition;
    s.rescaleSlope = slope;
    s.rescaleIntercept = intercept;
    if (enhanced) {
      DcmItem* pf = perFrame && unsigned(fr) < perFrame->card() ? perFrame->getItem(unsigned(fr)) : nullptr;
      fillPlane(s, functionalGroup(pf, shared, DCM_PlanePositionSequence),
                functionalGroup(pf, shared, DCM_PlaneOrientationSequence),
                functionalGroup(pf, shared, DCM_PixelMeasuresSequence));
      if (DcmItem* t = functionalGroup(pf, shared, DCM_PixelValueTransformationSequence)) {
        double sl = 1, in = 0;
        if (f64(t, DCM_RescaleSlope, sl) && sl != 0) s.rescaleSlope = sl;
        if (f64(t, DCM_RescaleIntercept, in)) s.rescaleIntercept = in;
      }
      if (DcmItem* fc = functionalGroup(pf, nullptr, DCM_FrameContentSequence)) {
        const int inStack = int32(fc, DCM_InStackPositionNumber, 0);
        if (inStack > 0) s.instanceNumber = inStack;
      }
      // Older multi-frame objects may keep the plane at the top level.
      if (!s.hasPosition && !s.hasOrientation) fillPlane(s, ds, ds, ds);
    } else {
      fillPlane(s, ds, ds, ds);
      if (h.numberOfFrames > 1) {
        // Multi-frame without functional groups (RT Dose, NM, old MR): frame planes follow GridFrameOffsetVector
        // along the normal when given; otherwise frames have no position of their own and are stacked in order.
        double offset = 0;
        if (s.hasPosition && s.hasOrientation && f64(ds, DCM_GridFrameOffsetVector, offset, unsigned(fr))) {
          const core::Vec3& rd = s.rowDirection;
          const core::Vec3& cd = s.columnDirection;
          const core::Vec3 n{rd[1] * cd[2] - rd[2] * cd[1], rd[2] * cd[0] - rd[0] * cd[2], rd[0] * cd[1] - rd[1] * cd[0]};
          for (int a = 0; a < 3; ++a) s.positionLps[std::size_t(a)] += offset * n[std::size_t(a)];
        } else {
          s.hasPosition = false;
          double between = 0;
          if (f64(ds, DCM_SpacingBetweenSlices, between) && between > 0) s.sliceThicknessMm = between;
        }
      }
    }
    h.slices.push_back(std::move(s));
  }
  return h;
}

namespace {

// One value of (group, element) found at `at` in `bytes`, in any of the three encodings; empty when the bytes there
// do not look like that element (a wrong VR, an implausible length, or characters outside `allowed`).
std::string salvagedValue(const std::vector<std::uint8_t>& bytes, std::size_t at, bool bigEndian, const char* vr,
                          std::size_t maxLength, const char* allowed) {
  std::size_t len = 0, value = at + 8;
  if (at + 8 > bytes.size()) return {};
  if (bytes[at + 4] == std::uint8_t(vr[0]) && bytes[at + 5] == std::uint8_t(vr[1])) {
    len = bigEndian ? std::size_t(bytes[at + 6]) << 8 | bytes[at + 7] : std::size_t(bytes[at + 7]) << 8 | bytes[at + 6];
  } else if (!bigEndian) {  // implicit VR exists only in little endian
    len = std::size_t(bytes[at + 4]) | std::size_t(bytes[at + 5]) << 8 | std::size_t(bytes[at + 6]) << 16 |
          std::size_t(bytes[at + 7]) << 24;
  } else {
    return {};
  }
  if (len == 0 || len > maxLength || value + len > bytes.size()) return {};
  std::string v(reinterpret_cast<const char*>(bytes.data() + value), len);
  while (!v.empty() && (v.back() == '\0' || v.back() == ' ')) v.pop_back();
  if (v.empty() || v.find_first_not_of(allowed) != std::string::npos) return {};
  return v;
}

// Every value of (group, element) in the bytes, in order, little endian and big endian.
std::vector<std::string> salvagedValues(const std::vector<std::uint8_t>& bytes, std::uint16_t group,
                                        std::uint16_t element, const char* vr, std::size_t maxLength,
                                        const char* allowed) {
  std::vector<std::string> out;
  const std::uint8_t le[4] = {std::uint8_t(group), std::uint8_t(group >> 8), std::uint8_t(element),
                              std::uint8_t(element >> 8)};
  const std::uint8_t be[4] = {std::uint8_t(group >> 8), std::uint8_t(group), std::uint8_t(element >> 8),
                              std::uint8_t(element)};
  for (std::size_t i = 0; i + 8 <= bytes.size(); ++i) {
    const bool isLe = std::memcmp(bytes.data() + i, le, 4) == 0;
    const bool isBe = !isLe && std::memcmp(bytes.data() + i, be, 4) == 0;
    if (!isLe && !isBe) continue;
    std::string v = salvagedValue(bytes, i, isBe, vr, maxLength, allowed);
    if (!v.empty()) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

SalvagedHeader salvageHeader(const std::string& path, std::size_t maxBytes) {
  SalvagedHeader h;
  auto opened = openRegularFile(path, "DICOM file");  // a sealed file's content, as every reader sees it
  if (!opened) return h;
  const int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return h;
  }
  h.fileSize = std::int64_t(st.st_size);
  std::vector<std::uint8_t> bytes(std::size_t(std::min<std::int64_t>(h.fileSize, std::int64_t(maxBytes))));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  bytes.resize(done);
  for (std::string& uid : salvagedValues(bytes, 0x0020, 0x000E, "UI", 64, "0123456789."))
    if (std::find(h.seriesUids.begin(), h.seriesUids.end(), uid) == h.seriesUids.end()) h.seriesUids.push_back(uid);
  for (const std::string& v : salvagedValues(bytes, 0x0020, 0x0013, "IS", 12, "0123456789+- ")) {
    try {
      h.instanceNumber = std::stoi(v);
      break;
    } catch (...) {
    }
  }
  for (const std::string& v : salvagedValues(bytes, 0x0020, 0x0032, "DS", 64, "0123456789.eE+- \\")) {
    core::Vec3 p{};
    std::stringstream ss(v);
    std::string part;
    int n = 0;
    try {
      while (n < 3 && std::getline(ss, part, '\\')) p[std::size_t(n++)] = std::stod(part);
    } catch (...) {
      n = 0;
    }
    if (n == 3 && std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2])) {
      h.positionLps = p;
      break;
    }
  }
  return h;
}

}  // namespace dicom_detail

namespace {

using dicom_detail::FileHeader;

std::string orientationKey(const DicomSlice& s) {
  if (!s.hasOrientation) return "none";
  // Rounded to 1e-3 (about 0.06 degrees); + 0.0 turns -0 into 0 so rounding noise around zero does not split.
  auto r = [](double v) { return std::round(v * 1000.0) / 1000.0 + 0.0; };
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.3f/%.3f/%.3f/%.3f/%.3f/%.3f", r(s.rowDirection[0]), r(s.rowDirection[1]),
                r(s.rowDirection[2]), r(s.columnDirection[0]), r(s.columnDirection[1]), r(s.columnDirection[2]));
  return buf;
}


double numberOf(const std::string& s) {
  try {
    return s.empty() ? 1e300 : std::stod(s);
  } catch (...) {
    return 1e300;
  }
}

// A damaged file may still be DICOM by its name: series exported from PACS are named *.dcm, so a zero-byte or
// overwritten 1-01.dcm is a lost slice, not "some other file".
bool hasDicomName(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".dcm" || ext == ".dicom" || ext == ".ima";
}

// Where an unreadable file's slice would have been in `series`' grid, from its salvaged position; empty when unknown.
std::string whereInStack(const DicomSkippedFile& f, const DicomSeries& series) {
  if (!f.positionLps || !series.geometry) return {};
  const core::Geometry& g = *series.geometry;
  const core::Vec3& o = g.originLps();
  const core::Vec3 d{(*f.positionLps)[0] - o[0], (*f.positionLps)[1] - o[1], (*f.positionLps)[2] - o[2]};
  double along = 0;
  for (int a = 0; a < 3; ++a) along += d[std::size_t(a)] * g.direction()(a, 2);
  const double k = std::round(along / g.spacingMm()[2]);
  const std::int64_t depth = g.dimensions()[2];
  char buf[160];
  if (k < 0)
    std::snprintf(buf, sizeof buf, "slice k = %.0f, before the first slice (the stack would start %.3g mm earlier)", k,
                  -along);
  else if (k >= double(depth))
    std::snprintf(buf, sizeof buf, "slice k = %.0f, after the last slice k = %lld", k, (long long)(depth - 1));
  else
    std::snprintf(buf, sizeof buf, "slice k = %.0f, inside the stack", k);
  return buf;
}

// The UnreadableFiles issue: every file, its reason and, where salvaged, its instance number and place.
SeriesIssue unreadableIssue(const DicomSeries& series) {
  std::string detail = std::to_string(series.unreadable.size()) +
                       " file(s) of this series or beside it could not be read; the series is incomplete: ";
  bool first = true;
  for (const DicomSkippedFile& f : series.unreadable) {
    detail += first ? "" : "; ";
    first = false;
    detail += f.reason;
    std::string extra;
    if (f.seriesInstanceUid.empty()) extra = "its series cannot be told, it lies in this series' folder";
    if (f.instanceNumber) extra += (extra.empty() ? "" : ", ") + std::string("InstanceNumber ") + std::to_string(*f.instanceNumber);
    const std::string where = whereInStack(f, series);
    if (!where.empty()) extra += (extra.empty() ? "" : ", ") + where;
    if (!extra.empty()) detail += " (" + extra + ")";
  }
  return SeriesIssue{SeriesIssueKind::UnreadableFiles, detail};
}


// Whether two files hold the same bytes (read in pieces; an unreadable one is "different": never silently equal).
bool sameFileBytes(const std::string& a, const std::string& b) {
  // Opened as every reader opens them: two sealed copies of one content are the same file.
  auto openedA = openRegularFile(a, "DICOM file"), openedB = openRegularFile(b, "DICOM file");
  const int fa = openedA ? *openedA : -1, fb = openedB ? *openedB : -1;
  struct stat sa {}, sb {};
  bool same = fa >= 0 && fb >= 0 && ::fstat(fa, &sa) == 0 && ::fstat(fb, &sb) == 0 && sa.st_size == sb.st_size;
  const auto sizeA = static_cast<std::uint64_t>(sa.st_size);
  std::vector<char> bufA(1 << 20), bufB(1 << 20);
  std::uint64_t left = sizeA;
  while (same && left > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, bufA.size()));
    same = ::read(fa, bufA.data(), n) == static_cast<ssize_t>(n) && ::read(fb, bufB.data(), n) == static_cast<ssize_t>(n) &&
           std::memcmp(bufA.data(), bufB.data(), n) == 0;
    left -= n;
  }
  if (fa >= 0) ::close(fa);
  if (fb >= 0) ::close(fb);
  return same;
}

}  // namespace

core::Result<DicomIndex> indexDicomFiles(const std::vector<std::string>& files, const DicomScanOptions& options) {
  dicom_detail::ensureDcmtkReady();
  DicomIndex index;
  index.filesVisited = std::int64_t(files.size());
  std::vector<std::optional<core::Result<FileHeader>>> headers(files.size());
  std::mutex progressMutex;
  std::size_t done = 0;
  bool cancelled = false;
  const std::string thrown = dicom_detail::parallelFor(files.size(), dicom_detail::resolveThreads(options.threads), [&](std::size_t i, int) {
    if (options.progress && options.progress->cancelled()) {
      std::lock_guard<std::mutex> lock(progressMutex);
      cancelled = true;
      return false;
    }
    try {
      headers[i] = dicom_detail::readDicomFileHeader(files[i]);
    } catch (const std::exception& e) {  // bad_alloc on a crafted file: skip the file, keep indexing
      headers[i] = core::makeError(core::ErrorCode::OutOfMemory, files[i], std::string("reading the header failed: ") + e.what());
    }
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      ++done;
      options.progress->report(double(done) / double(files.size()), "index");
    }
    return true;
  });
  if (!thrown.empty()) return core::makeError(core::ErrorCode::OutOfMemory, files.front(), "indexing failed: " + thrown);
  if (cancelled)
    return core::makeError(core::ErrorCode::Cancelled,
                           files.empty() ? std::string() : std::filesystem::path(files.front()).parent_path().string(),
                           "indexing cancelled");

  // Group: series key -> sub-key (orientation, size, pixel format, echo) -> slices.
  struct Group {
    DicomSeries proto;
    std::map<std::string, std::vector<DicomSlice>> parts;
    std::map<std::string, DicomPixelFormat> formats;
    std::map<std::string, std::string> sops;  // instance key -> the file read for it
    int instances = 0;
    std::vector<DicomDuplicateFile> duplicates;
    std::optional<std::pair<std::string, std::string>> nonImageIdentity;  // modality, SOP class
    bool protoFromImage = false;
  };
  std::map<std::string, Group> groups;
  std::vector<std::string> order;
  std::vector<std::vector<std::string>> skippedUids;  // per index.skipped: the SeriesInstanceUIDs its bytes hold
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto& r = *headers[i];
    if (!r) {
      const auto& e = r.error();
      const bool notDicom = e.code == core::ErrorCode::ParseError && e.detail.rfind("not a DICOM file", 0) == 0;
      // A file that failed is searched for what it still says: its series, instance and position.
      // Files that do not claim to be DICOM (a folder's PDFs and JPEGs) are searched less deeply: one read of the
      // first 64 KiB, where a dataset's identifying attributes lie, keeps indexing such folders cheap on a share.
      const dicom_detail::SalvagedHeader salvaged = dicom_detail::salvageHeader(
          files[i], notDicom && !hasDicomName(files[i]) ? dicom_detail::kSalvageOtherBytes : dicom_detail::kSalvageBytes);
      if (notDicom && !hasDicomName(files[i]) && salvaged.seriesUids.empty()) {
        ++index.nonDicomFiles;
        continue;
      }
      DicomSkippedFile skipped{files[i], e.describe(), {}, salvaged.instanceNumber, salvaged.positionLps};
      if (salvaged.fileSize == 0) skipped.reason = core::makeError(core::ErrorCode::Corrupt, files[i], "empty file (0 bytes)").describe();
      else if (notDicom) skipped.reason += " (a damaged header?)";
      index.skipped.push_back(std::move(skipped));
      skippedUids.push_back(salvaged.seriesUids);
      continue;
    }
    FileHeader& h = *r;
    const std::string folder = std::filesystem::path(files[i]).parent_path().string();
    const std::string key = !h.seriesInstanceUid.empty()
                                ? "uid:" + h.seriesInstanceUid
                                : "folder:" + folder + "|" + h.seriesNumber + "|" + h.modality + "|" + h.studyInstanceUid;
    auto [it, inserted] = groups.try_emplace(key);
    Group& g = it->second;
    if (inserted) {
      order.push_back(key);
      DicomSeries& p = g.proto;
      p.patientId = h.patientId;
      p.patientName = h.patientName;
      p.studyInstanceUid = h.studyInstanceUid;
      p.studyDate = h.studyDate;
      p.studyDescription = h.studyDescription;
      p.accessionNumber = h.accessionNumber;
      p.seriesInstanceUid = h.seriesInstanceUid;
      p.seriesNumber = h.seriesNumber;
      p.seriesDescription = h.seriesDescription;
      p.modality = h.modality;
      p.sopClassUid = h.sopClassUid;
      p.frameOfReferenceUid = h.frameOfReferenceUid;
      p.isImage = h.isImage;
      p.folder = folder;
      if (h.seriesInstanceUid.empty())
        p.issues.push_back(SeriesIssue{SeriesIssueKind::MissingSeriesUid,
                                       "no SeriesInstanceUID: grouped by folder, SeriesNumber and Modality"});
    }
    ++g.instances;
    // The same instance twice: a byte-identical copy is ignored and counted; different bytes are a conflict that
    // refuses the series (neither file can be taken as the instance), both named.
    // (Same SOPInstanceUID and same first plane: files that reuse a UID for different images are kept.)
    const std::string sopUid = h.slices.empty() ? std::string() : h.slices.front().sopInstanceUid;
    std::string sop = sopUid;
    if (!sop.empty()) {
      const DicomSlice& first = h.slices.front();
      char plane[96];
      std::snprintf(plane, sizeof plane, "|%.3f/%.3f/%.3f|", first.positionLps[0], first.positionLps[1],
                    first.positionLps[2]);
      sop += plane + orientationKey(first) + "|" + std::to_string(h.slices.size());
    }
    if (!sop.empty()) {
      const auto [first, isNew] = g.sops.emplace(sop, files[i]);
      if (!isNew) {
        g.duplicates.push_back({files[i], first->second, sopUid, sameFileBytes(first->second, files[i])});
        continue;
      }
    }
    if (!h.isImage) {
      // Non-image instances sharing a SeriesInstanceUID with images (rare) get a part of their own, named by the
      // first of them (an SR filed in its CT's series is listed as SR).
      g.parts["nonimage"].insert(g.parts["nonimage"].end(), h.slices.begin(), h.slices.end());
      g.formats.emplace("nonimage", h.format);
      g.nonImageIdentity.emplace(h.modality, h.sopClassUid);
      continue;
    }
    if (!g.protoFromImage) {  // the series is named after its images, whichever file came first
      g.protoFromImage = true;
      g.proto.modality = h.modality;
      g.proto.sopClassUid = h.sopClassUid;
      if (!h.seriesDescription.empty()) g.proto.seriesDescription = h.seriesDescription;
    }
    const auto& f = h.format;
    const std::string sizeKey = std::to_string(f.columns) + "x" + std::to_string(f.rows);
    const std::string formatKey = std::to_string(f.bitsAllocated) + "/" + std::to_string(f.bitsStored) + "/" +
                                  std::to_string(f.highBit) + "/" + std::to_string(f.pixelRepresentation) + "/" +
                                  std::to_string(f.samplesPerPixel) + "/" + f.photometric + "/" + f.transferSyntaxUid;
    for (DicomSlice& s : h.slices) {
      const std::string sub = orientationKey(s) + "|" + sizeKey + "|" + formatKey + "|" + std::to_string(s.echoNumber);
      g.parts[sub].push_back(std::move(s));
      g.formats.emplace(sub, f);
    }
  }

  // An unreadable file belongs to the first of its salvaged UIDs that names an indexed series (a referenced series
  // in a sequence may come earlier in the bytes); with none known, to the first UID found.
  for (std::size_t k = 0; k < index.skipped.size(); ++k) {
    const auto& uids = skippedUids[k];
    const auto known = std::find_if(uids.begin(), uids.end(), [&](const std::string& u) { return groups.count("uid:" + u) > 0; });
    if (known != uids.end()) index.skipped[k].seriesInstanceUid = *known;
    else if (!uids.empty()) index.skipped[k].seriesInstanceUid = uids.front();
  }

  // Build the series and hang them under patients and studies (in first-seen order, series by number).
  std::map<std::string, std::size_t> patientPos;
  std::map<std::string, std::pair<std::size_t, std::size_t>> studyPos;
  for (const std::string& key : order) {
    Group& g = groups[key];
    std::vector<DicomSeries> pieces;
    const std::size_t imageParts = g.parts.size() - g.parts.count("nonimage");
    const bool split = imageParts > 1;
    int splitIndex = 0;
    // which fields differ among the parts
    std::set<std::string> orient, size, format, echo;
    for (auto& [sub, slices] : g.parts) {
      if (sub == "nonimage") continue;
      std::stringstream ss(sub);
      std::string a, b, c, d;
      std::getline(ss, a, '|');
      std::getline(ss, b, '|');
      std::getline(ss, c, '|');
      std::getline(ss, d, '|');
      orient.insert(a);
      size.insert(b);
      format.insert(c);
      echo.insert(d);
    }
    std::string reason;
    if (orient.size() > 1) reason += "orientation ";
    if (size.size() > 1) reason += "size ";
    if (format.size() > 1) reason += "pixel format ";
    if (echo.size() > 1) reason += "echo ";
    if (!reason.empty()) reason.pop_back();
    for (auto& [sub, slices] : g.parts) {
      DicomSeries s = g.proto;
      s.isImage = sub != "nonimage";
      if (!s.isImage && g.nonImageIdentity) std::tie(s.modality, s.sopClassUid) = *g.nonImageIdentity;
      s.format = g.formats[sub];
      s.slices = std::move(slices);
      std::set<std::string> paths;
      for (const auto& sl : s.slices) paths.insert(sl.path);
      s.instanceCount = int(paths.size());
      if (!s.isImage && imageParts > 0) {
        s.splitIndex = int(imageParts) + 1;  // after the image parts, so every piece keeps a unique key()
        s.splitReason = "non-image instances";
        s.issues.push_back(SeriesIssue{SeriesIssueKind::Split,
                                       "SeriesInstanceUID also holds images; these instances have no image volume"});
      } else if (split) {
        s.splitIndex = ++splitIndex;
        s.splitReason = reason;
        s.issues.push_back(SeriesIssue{SeriesIssueKind::Split,
                                       "SeriesInstanceUID holds " + std::to_string(imageParts) +
                                           " stacks that differ in " + reason + "; this is part " +
                                           std::to_string(splitIndex)});
      }
      s.duplicates = g.duplicates;
      std::string copies;
      int copyCount = 0, conflictCount = 0;
      for (const DicomDuplicateFile& d : g.duplicates) {
        if (!d.identical) {
          ++conflictCount;
          continue;
        }
        if (++copyCount <= 3) copies += (copies.empty() ? "" : ", ") + d.path + " (a copy of " + d.sameAs + ")";
      }
      if (copyCount > 3) copies += ", ...";
      if (copyCount > 0)
        s.issues.push_back(SeriesIssue{SeriesIssueKind::DuplicateInstances,
                                       std::to_string(copyCount) + " file(s) repeat an instance already read, byte for "
                                       "byte (same SOPInstanceUID): ignored: " + copies});
      if (conflictCount > 0)
        s.issues.push_back(SeriesIssue{SeriesIssueKind::ConflictingInstances,
                                       std::to_string(conflictCount) + " file(s) repeat an instance with different "
                                       "bytes (" + s.conflictDescription() + "): the series is not loaded or imported "
                                       "until one of each pair is removed"});
      analyzeSeriesGeometry(s);
      if (s.isImage) {
        // Unreadable members: by their salvaged UID, or, when no UID could be read, by lying in one of its folders.
        std::set<std::string> folders;
        for (const auto& sl : s.slices) folders.insert(std::filesystem::path(sl.path).parent_path().string());
        for (const DicomSkippedFile& f : index.skipped) {
          const bool member = f.seriesInstanceUid.empty()
                                  ? folders.count(std::filesystem::path(f.path).parent_path().string()) > 0
                                  : !s.seriesInstanceUid.empty() && f.seriesInstanceUid == s.seriesInstanceUid;
          if (member) s.unreadable.push_back(f);
        }
        if (!s.unreadable.empty()) s.issues.push_back(unreadableIssue(s));
      }
      pieces.push_back(std::move(s));
    }
    for (DicomSeries& s : pieces) {
      const std::string pkey = s.patientId + "\x1f" + s.patientName;
      auto pit = patientPos.find(pkey);
      if (pit == patientPos.end()) {
        pit = patientPos.emplace(pkey, index.patients.size()).first;
        index.patients.push_back(DicomPatient{s.patientId, s.patientName, {}});
      }
      DicomPatient& patient = index.patients[pit->second];
      const std::string skey = pkey + "\x1f" + (s.studyInstanceUid.empty() ? "nostudy:" + s.folder : s.studyInstanceUid);
      auto sit = studyPos.find(skey);
      if (sit == studyPos.end()) {
        sit = studyPos.emplace(skey, std::make_pair(pit->second, patient.studies.size())).first;
        patient.studies.push_back(DicomStudy{s.studyInstanceUid, s.studyDate, s.studyDescription, {}});
      }
      patient.studies[sit->second.second].series.push_back(std::move(s));
    }
  }
  for (auto& p : index.patients)
    for (auto& st : p.studies)
      std::stable_sort(st.series.begin(), st.series.end(), [](const DicomSeries& a, const DicomSeries& b) {
        const double na = numberOf(a.seriesNumber), nb = numberOf(b.seriesNumber);
        if (na != nb) return na < nb;
        return a.splitIndex < b.splitIndex;
      });
  return index;
}

core::Result<DicomIndex> indexDicomFolder(const std::string& folder, const DicomScanOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(folder, ec);
  if (ec || !fs::exists(st)) return core::makeError(core::ErrorCode::NotFound, folder, "no such file or folder");
  std::vector<std::string> files;
  std::int64_t ignored = 0;
  // Pipes, sockets and devices are never opened (a FIFO blocks the open): given directly they are an error, met in
  // a folder they are listed as skipped with their kind.
  std::vector<DicomSkippedFile> special;
  if (fs::is_regular_file(st)) {
    files.push_back(folder);
  } else if (!fs::is_directory(st)) {
    if (core::Status s = checkRegularFile(folder, "DICOM input"); !s) return s.error();
    files.push_back(folder);  // became a file since the first look
  } else {
    const auto opts = fs::directory_options::skip_permission_denied;
    auto add = [&](const fs::directory_entry& e) {
      std::error_code fe;
      const fs::file_status est = e.status(fe);
      if (fe || fs::is_directory(est)) return;
      if (!fs::is_regular_file(est)) {
        // A stat, not an open: the reason names the kind ("a named pipe (FIFO), not a regular file").
        if (core::Status s = checkRegularFile(e.path().string(), "file"); !s)
          special.push_back(DicomSkippedFile{e.path().string(), s.error().describe(), {}, std::nullopt, std::nullopt});
        return;
      }
      const std::string name = e.path().filename().string();
      if (name == "DICOMDIR" || (!name.empty() && name[0] == '.')) {
        ++ignored;
        return;
      }
      files.push_back(e.path().string());
    };
    if (options.recursive) {
      for (fs::recursive_directory_iterator it(folder, opts, ec), end; !ec && it != end; it.increment(ec)) add(*it);
    } else {
      for (fs::directory_iterator it(folder, opts, ec), end; !ec && it != end; it.increment(ec)) add(*it);
    }
    if (ec) return core::makeError(core::ErrorCode::ReadFailed, folder, "cannot list the folder: " + ec.message());
    std::sort(files.begin(), files.end());
  }
  auto index = indexDicomFiles(files, options);
  if (!index) return index;
  index->root = folder;
  index->filesVisited += ignored + static_cast<std::int64_t>(special.size());
  index->skipped.insert(index->skipped.end(), special.begin(), special.end());
  index->nonDicomFiles += ignored;
  return index;
}

}  // namespace delineate::io
