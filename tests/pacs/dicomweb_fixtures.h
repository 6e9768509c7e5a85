#pragma once
// DICOM files the DICOMweb tests make with DCMTK: tiny 8x8 instances (many studies fast), and copies of a real file
// with a new patient and new UIDs.

#include <filesystem>
#include <string>

namespace delineate::test {

struct TinyInstance {
  std::string patientId = "WEB-1", patientName = "Web^Test", characterSet;  // characterSet empty: none declared
  std::string studyUid, seriesUid, sopUid;  // empty: new ones
  std::string studyDate = "20200101", modality = "MR", studyDescription = "tiny", seriesDescription = "tiny";
  int instanceNumber = 1;
};

// Writes an 8x8 16-bit MR image (Part 10, explicit VR little endian); throws on failure.
void writeTinyInstance(const std::filesystem::path& path, const TinyInstance& what);

// A copy of `source` with PatientName, PatientID and Specific Character Set replaced and new study, series and SOP
// Instance UIDs; throws on failure.
void writeRenamedCopy(const std::filesystem::path& source, const std::filesystem::path& target,
                      const std::string& patientId, const std::string& patientName, const std::string& characterSet);

// A new UID (DCMTK's generator).
std::string newUid();

}  // namespace delineate::test
