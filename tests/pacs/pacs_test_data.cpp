#include "tests/pacs/pacs_test_data.h"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcmetinf.h>
#include <dcmtk/dcmdata/dcuid.h>

#include <map>
#include <memory>
#include <stdexcept>

namespace delineate::test {
namespace fs = std::filesystem;

namespace {
std::string newUid() {
  char buffer[100];
  dcmGenerateUniqueIdentifier(buffer, SITE_INSTANCE_UID_ROOT);
  return buffer;
}
}  // namespace

MadeStudy makeStudy(const std::vector<fs::path>& sources, const fs::path& folder, const StudySpec& spec) {
  if (sources.empty()) throw std::runtime_error("makeStudy: no source files");
  fs::create_directories(folder);
  MadeStudy made;
  made.studyUid = newUid();
  made.seriesUid = newUid();
  // Each source is parsed once per process (thousands of instances are made from 41 files).
  static std::map<std::string, std::unique_ptr<DcmFileFormat>> parsed;
  for (int i = 0; i < spec.instances; ++i) {
    const std::string source = sources[static_cast<std::size_t>(i) % sources.size()].string();
    auto& cached = parsed[source];
    if (!cached) {
      cached = std::make_unique<DcmFileFormat>();
      if (cached->loadFile(source.c_str()).bad()) {
        cached.reset();
        throw std::runtime_error("makeStudy: cannot read " + source);
      }
    }
    DcmFileFormat ff(*cached);
    DcmDataset* d = ff.getDataset();
    const std::string sop = newUid();
    if (!spec.characterSet.empty()) d->putAndInsertString(DCM_SpecificCharacterSet, spec.characterSet.c_str());
    d->putAndInsertString(DCM_PatientID, spec.patientId.c_str());
    d->putAndInsertString(DCM_PatientName, spec.patientName.c_str());
    d->putAndInsertString(DCM_StudyDate, spec.studyDate.c_str());
    d->putAndInsertString(DCM_StudyDescription, spec.studyDescription.c_str());
    d->putAndInsertString(DCM_AccessionNumber, spec.accessionNumber.c_str());
    if (!spec.modality.empty()) d->putAndInsertString(DCM_Modality, spec.modality.c_str());
    d->putAndInsertString(DCM_StudyInstanceUID, made.studyUid.c_str());
    d->putAndInsertString(DCM_SeriesInstanceUID, made.seriesUid.c_str());
    d->putAndInsertString(DCM_SOPInstanceUID, sop.c_str());
    d->putAndInsertString(DCM_InstanceNumber, std::to_string(i + 1).c_str());
    const std::string position = "-200\\-200\\" + std::to_string(-5.0 * i);
    d->putAndInsertString(DCM_ImagePositionPatient, position.c_str());
    if (spec.tiny) {
      d->putAndInsertUint16(DCM_Rows, 8);
      d->putAndInsertUint16(DCM_Columns, 8);
      std::vector<Uint16> pixels(64, static_cast<Uint16>(i));
      d->putAndInsertUint16Array(DCM_PixelData, pixels.data(), 64);
    }
    ff.getMetaInfo()->putAndInsertString(DCM_MediaStorageSOPInstanceUID, sop.c_str());
    const fs::path out = folder / (std::to_string(i + 1) + ".dcm");
    if (ff.saveFile(out.c_str(), EXS_LittleEndianExplicit).bad())
      throw std::runtime_error("makeStudy: cannot write " + out.string());
    made.sopUids.push_back(sop);
    made.files.push_back(out);
  }
  return made;
}

std::string pixelBytes(const fs::path& file) {
  DcmFileFormat ff;
  if (ff.loadFile(file.c_str()).bad()) return {};
  const Uint8* data = nullptr;
  unsigned long count = 0;
  if (ff.getDataset()->findAndGetUint8Array(DCM_PixelData, data, &count).bad() || !data) return {};
  return std::string(reinterpret_cast<const char*>(data), count);
}

std::string sopInstanceUid(const fs::path& file) {
  DcmFileFormat ff;
  OFString v;
  if (ff.loadFile(file.c_str()).bad() || ff.getDataset()->findAndGetOFString(DCM_SOPInstanceUID, v).bad()) return {};
  return v.c_str();
}

}  // namespace delineate::test
