#pragma once
// DICOM inputs the pacs tests make from the shared CT series with DCMTK: copies with new UIDs and other patients,
// studies of any size, names in other character sets.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace delineate::test {

struct StudySpec {
  std::string patientId = "PACS-TEST";
  std::string patientName = "Test^Patient";
  std::string characterSet;  // empty: as the source; else written as is (the name must be in that set's bytes)
  std::string studyDate = "20240102";
  std::string studyDescription = "PACS test";
  std::string accessionNumber;
  std::string modality;  // empty: as the source (CT)
  int instances = 41;    // made by cycling through the source files, each with its own UIDs and position
  bool tiny = false;     // 8x8 pixels instead of the source's 512x512 (large counts, small bytes)
};

struct MadeStudy {
  std::string studyUid, seriesUid;
  std::vector<std::string> sopUids;
  std::vector<std::filesystem::path> files;
};

// Writes spec.instances files into `folder` from the CRLM series `sources` (crlmSeriesFiles()).
MadeStudy makeStudy(const std::vector<std::filesystem::path>& sources, const std::filesystem::path& folder,
                    const StudySpec& spec);

// The Pixel Data bytes and the SOP Instance UID of a DICOM file (empty when it cannot be read).
std::string pixelBytes(const std::filesystem::path& file);
std::string sopInstanceUid(const std::filesystem::path& file);

}  // namespace delineate::test
