#include "io/dicom/dicom_write_support.h"
#include "io/base/regular_file.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include <dcmtk/dcmdata/dcostrma.h>

#include "io/base/atomic_file.h"

namespace delineate::io::dicom_detail {

using core::ErrorCode;
using core::makeError;

namespace {

// dcmdata's output end that appends to an AtomicFileWriter through a 1 MiB buffer, so the encoded SEG never sits in
// memory a second time.
class AtomicConsumer : public DcmConsumer {
 public:
  explicit AtomicConsumer(AtomicFileWriter& writer) : m_writer(writer) { m_buffer.reserve(kBuffer); }
  OFBool good() const override { return m_status.ok(); }
  OFCondition status() const override { return m_status.ok() ? EC_Normal : EC_InvalidStream; }
  OFBool isFlushed() const override { return m_buffer.empty(); }
  offile_off_t avail() const override { return m_status.ok() ? offile_off_t(1) << 30 : 0; }
  offile_off_t write(const void* buf, offile_off_t buflen) override {
    if (!m_status.ok() || buflen <= 0) return 0;
    const char* p = static_cast<const char*>(buf);
    m_buffer.insert(m_buffer.end(), p, p + buflen);
    if (m_buffer.size() >= kBuffer) flush();
    return m_status.ok() ? buflen : 0;
  }
  void flush() override {
    if (m_status.ok() && !m_buffer.empty()) m_status = m_writer.write(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
  }
  void finish() { flush(); }
  const core::Status& writerStatus() const { return m_status; }

 private:
  static constexpr std::size_t kBuffer = std::size_t(1) << 20;
  AtomicFileWriter& m_writer;
  std::vector<char> m_buffer;
  core::Status m_status;
};

class AtomicOutputStream : public DcmOutputStream {
 public:
  explicit AtomicOutputStream(DcmConsumer* consumer) : DcmOutputStream(consumer) {}
};

}  // namespace

core::Result<SourceHeader> readSourceHeader(const std::string& file) {
  auto pre = prescanDicomFile(file);
  if (!pre) return pre.error();
  ensureDcmtkReady();
  auto readable = ReadableFile::open(file, "DICOM file");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  const OFCondition c = ff.loadFileUntilTag(readable->path().c_str(), EXS_Unknown, EGL_noChange,
                                            readable->sealed() ? 0xFFFFFFFFu : maxReadLength(*pre),
                                            ERM_autoDetect, DCM_PixelData);
  if (c.bad()) return makeError(ErrorCode::ReadFailed, file, std::string("cannot read the source instance: ") + c.text());
  DcmDataset* d = ff.getDataset();
  SourceHeader h;
  h.patientName = textOf(d, DCM_PatientName);
  h.patientId = textOf(d, DCM_PatientID);
  h.birthDate = textOf(d, DCM_PatientBirthDate);
  h.sex = textOf(d, DCM_PatientSex);
  h.studyDate = textOf(d, DCM_StudyDate);
  h.studyTime = textOf(d, DCM_StudyTime);
  h.referringPhysician = textOf(d, DCM_ReferringPhysicianName);
  h.studyId = textOf(d, DCM_StudyID);
  h.accessionNumber = textOf(d, DCM_AccessionNumber);
  h.studyDescription = textOf(d, DCM_StudyDescription);
  return h;
}

void nowDicom(std::string& date, std::string& time) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char d[16], s[16];
  std::strftime(d, sizeof d, "%Y%m%d", &tm);
  std::strftime(s, sizeof s, "%H%M%S", &tm);
  date = d;
  time = s;
}

core::Result<std::vector<SourceRef>> sliceReferences(const std::string& path, const core::Geometry& grid,
                                                      const DicomSeries& source) {
  if (!source.isImage || !source.geometry || !source.isRegular())
    return makeError(ErrorCode::Unsupported, path,
                     "the source series " + source.seriesInstanceUid + " is not a regular image grid");
  if (!grid.isCloseTo(*source.geometry)) {
    const auto& a = grid.dimensions();
    const auto& b = source.geometry->dimensions();
    return makeError(ErrorCode::GeometryMismatch, path,
                     "the label map (" + std::to_string(a[0]) + " x " + std::to_string(a[1]) + " x " +
                         std::to_string(a[2]) + ") is not on the grid of the source series " +
                         source.seriesInstanceUid + " (" + std::to_string(b[0]) + " x " + std::to_string(b[1]) +
                         " x " + std::to_string(b[2]) + ")");
  }
  if (source.slices.empty()) return makeError(ErrorCode::Unsupported, path, "the source series has no instances");
  const std::int64_t nz = grid.dimensions()[2];
  std::vector<SourceRef> refs(static_cast<std::size_t>(nz));
  std::map<std::string, int> framesPerInstance;
  for (const DicomSlice& s : source.slices) ++framesPerInstance[s.sopInstanceUid];
  for (const DicomSlice& s : source.slices) {
    if (s.gridIndex < 0 || s.gridIndex >= nz) continue;
    const bool multiFrame = s.frame > 0 || framesPerInstance[s.sopInstanceUid] > 1;
    refs[std::size_t(s.gridIndex)] = {s.sopInstanceUid, multiFrame ? s.frame + 1 : 0};
  }
  for (std::int64_t k = 0; k < nz; ++k)
    if (refs[std::size_t(k)].sopInstanceUid.empty())
      return makeError(ErrorCode::Unsupported, path,
                       "slice " + std::to_string(k + 1) + " of the source series has no instance to reference");
  return refs;
}

std::string singleValue(const std::string& typed, std::size_t n) {
  std::string s = truncateUtf8(typed, n);
  for (char& ch : s)
    if (ch == '\\' || static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  return s;
}

std::string personName(const std::string& typed) {
  std::string s = singleValue(typed, 64);
  std::replace(s.begin(), s.end(), '=', ' ');
  return s;
}

void putPatientAndStudy(Builder& b, DcmItem* d, bool deidentify, const SourceHeader& patient) {
  if (deidentify) {
    b.put(d, DCM_StudyDate, "");
    b.put(d, DCM_StudyTime, "");
    b.put(d, DCM_AccessionNumber, "");
    b.put(d, DCM_ReferringPhysicianName, "");
    b.put(d, DCM_StudyID, "");
    b.put(d, DCM_PatientName, "Anonymous^Patient");
    const std::string anon = newUid();
    b.put(d, DCM_PatientID, "ANON" + anon.substr(anon.size() - 12));
    b.put(d, DCM_PatientBirthDate, "");
    b.put(d, DCM_PatientSex, "");
    b.put(d, DCM_PatientIdentityRemoved, "YES");
    b.put(d, DCM_DeidentificationMethod, "PS3.15 Basic Application Level Confidentiality Profile");
    b.code(d, DCM_DeidentificationMethodCodeSequence,
           core::CodedConcept{"DCM", "113100", "Basic Application Confidentiality Profile"});
  } else {
    const SourceHeader& p = patient;
    b.put(d, DCM_StudyDate, p.studyDate);
    b.put(d, DCM_StudyTime, p.studyTime);
    b.put(d, DCM_AccessionNumber, p.accessionNumber);
    b.put(d, DCM_ReferringPhysicianName, p.referringPhysician);
    b.put(d, DCM_StudyID, p.studyId);
    if (!p.studyDescription.empty()) b.put(d, DCM_StudyDescription, p.studyDescription);
    b.put(d, DCM_PatientName, p.patientName);
    b.put(d, DCM_PatientID, p.patientId);
    b.put(d, DCM_PatientBirthDate, p.birthDate);
    b.put(d, DCM_PatientSex, p.sex);
  }
}

core::Status encodeAtomically(DcmFileFormat& ff, const std::string& path, const std::string& what, bool implicitVr) {
  const E_TransferSyntax xfer = implicitVr ? EXS_LittleEndianImplicit : EXS_LittleEndianExplicit;
  OFCondition c = ff.validateMetaInfo(xfer);
  if (c.bad()) return makeError(ErrorCode::WriteFailed, path, std::string("cannot build the meta header: ") + c.text());
  auto writer = AtomicFileWriter::create(path);
  if (!writer) return writer.error();
  AtomicConsumer consumer(*writer);
  {
    AtomicOutputStream out(&consumer);
    ff.transferInit();
    c = ff.write(out, xfer, EET_ExplicitLength, nullptr);
    ff.transferEnd();
    out.flush();
  }
  consumer.finish();
  if (!consumer.writerStatus().ok()) return consumer.writerStatus();
  if (c.bad()) return makeError(ErrorCode::WriteFailed, path, "cannot encode " + what + ": " + c.text());
  return writer->commit();
}

}  // namespace delineate::io::dicom_detail
