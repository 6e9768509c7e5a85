#include "tests/pacs/dicomweb_fixtures.h"

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcmetinf.h>
#include <dcmtk/dcmdata/dcuid.h>

#include <stdexcept>
#include <vector>

namespace delineate::test {

std::string newUid() {
  char buffer[100];
  dcmGenerateUniqueIdentifier(buffer, SITE_INSTANCE_UID_ROOT);
  return buffer;
}

void writeTinyInstance(const std::filesystem::path& path, const TinyInstance& w) {
  DcmFileFormat ff;
  DcmDataset* ds = ff.getDataset();
  const std::string sop = w.sopUid.empty() ? newUid() : w.sopUid;
  if (!w.characterSet.empty()) ds->putAndInsertString(DCM_SpecificCharacterSet, w.characterSet.c_str());
  ds->putAndInsertString(DCM_SOPClassUID, UID_MRImageStorage);
  ds->putAndInsertString(DCM_SOPInstanceUID, sop.c_str());
  ds->putAndInsertString(DCM_StudyInstanceUID, (w.studyUid.empty() ? newUid() : w.studyUid).c_str());
  ds->putAndInsertString(DCM_SeriesInstanceUID, (w.seriesUid.empty() ? newUid() : w.seriesUid).c_str());
  ds->putAndInsertString(DCM_PatientID, w.patientId.c_str());
  ds->putAndInsertString(DCM_PatientName, w.patientName.c_str());
  ds->putAndInsertString(DCM_StudyDate, w.studyDate.c_str());
  ds->putAndInsertString(DCM_StudyTime, "120000");
  ds->putAndInsertString(DCM_Modality, w.modality.c_str());
  ds->putAndInsertString(DCM_StudyDescription, w.studyDescription.c_str());
  ds->putAndInsertString(DCM_SeriesDescription, w.seriesDescription.c_str());
  ds->putAndInsertString(DCM_SeriesNumber, "1");
  ds->putAndInsertString(DCM_InstanceNumber, std::to_string(w.instanceNumber).c_str());
  ds->putAndInsertUint16(DCM_SamplesPerPixel, 1);
  ds->putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
  ds->putAndInsertUint16(DCM_Rows, 8);
  ds->putAndInsertUint16(DCM_Columns, 8);
  ds->putAndInsertUint16(DCM_BitsAllocated, 16);
  ds->putAndInsertUint16(DCM_BitsStored, 16);
  ds->putAndInsertUint16(DCM_HighBit, 15);
  ds->putAndInsertUint16(DCM_PixelRepresentation, 0);
  std::vector<Uint16> pixels(64);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = Uint16(i * 7 + w.instanceNumber);
  ds->putAndInsertUint16Array(DCM_PixelData, pixels.data(), 64);
  const OFCondition c = ff.saveFile(path.string().c_str(), EXS_LittleEndianExplicit);
  if (c.bad()) throw std::runtime_error("cannot write " + path.string() + ": " + c.text());
}

void writeRenamedCopy(const std::filesystem::path& source, const std::filesystem::path& target,
                      const std::string& patientId, const std::string& patientName, const std::string& characterSet) {
  DcmFileFormat ff;
  OFCondition c = ff.loadFile(source.string().c_str());
  if (c.bad()) throw std::runtime_error("cannot read " + source.string() + ": " + c.text());
  DcmDataset* ds = ff.getDataset();
  ds->putAndInsertString(DCM_SpecificCharacterSet, characterSet.c_str());
  ds->putAndInsertString(DCM_PatientName, patientName.c_str());
  ds->putAndInsertString(DCM_PatientID, patientId.c_str());
  const std::string sop = newUid();
  ds->putAndInsertString(DCM_StudyInstanceUID, newUid().c_str());
  ds->putAndInsertString(DCM_SeriesInstanceUID, newUid().c_str());
  ds->putAndInsertString(DCM_SOPInstanceUID, sop.c_str());
  ff.getMetaInfo()->putAndInsertString(DCM_MediaStorageSOPInstanceUID, sop.c_str());
  c = ff.saveFile(target.string().c_str(), EXS_Unknown);
  if (c.bad()) throw std::runtime_error("cannot write " + target.string() + ": " + c.text());
}

}  // namespace delineate::test
