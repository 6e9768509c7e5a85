// One patient never mistaken for another on import (issue 40, defect 2): patients without a Patient ID keep their own
// pseudonyms and date shifts when de-identified, and studies whose UIDs sanitise to the same text never share a folder.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "io/dicom/dicom.h"
#include "io/dicom/dicom_deidentify.h"
#include "io/studies/study_import.h"
#include "io/studies/study_store.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace delineate;
using test::ScratchDir;

namespace {

io::ShareStore storeIn(const ScratchDir& dir) {
  fs::create_directories(dir.path() / "share");
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(store.ok());
  return std::move(store).value();
}

// Two slices of one series in `folder`.
void writeSeries(const fs::path& folder, const std::string& patientId, const std::string& patientName,
                 const std::string& studyUid, const std::string& seriesUid, const std::string& studyDate) {
  fs::create_directories(folder);
  for (int k = 0; k < 2; ++k) {
    test::CtSliceParams p;
    p.patientId = patientId;
    p.patientName = patientName;
    p.studyUid = studyUid;
    p.seriesUid = seriesUid;
    p.sopInstanceUid = "2.25.5550" + std::to_string(std::hash<std::string>{}(studyUid + seriesUid) % 100000) + "." +
                       std::to_string(k + 1);
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    test::DicomBuilder b = test::makeCtSlice(p);
    b.str(0x0008, 0x0020, "DA", studyDate);
    if (studyUid.empty()) b.remove(0x0020, 0x000D);
    if (patientId.empty()) b.str(0x0010, 0x0020, "LO", "");
    b.write(folder / ("slice" + std::to_string(k) + ".dcm"));
  }
}

}  // namespace

TEST_CASE("identity: patients without a Patient ID keep pseudonyms of their own when de-identified",
          "[share][deidentify]") {
  ScratchDir dir("identity-noid");
  const io::ShareStore store = storeIn(dir);
  writeSeries(dir / "a", "", "Doe^Jane", "2.25.7001", "2.25.7001.1", "20240102");
  writeSeries(dir / "b", "", "Roe^Richard", "2.25.7002", "2.25.7002.1", "20240102");
  writeSeries(dir / "c", "MRN-1", "Poe^Edgar", "2.25.7003", "2.25.7003.1", "20240102");
  io::StudyImportOptions options;
  options.deidentify = io::DeidentifyKey{"a key of thirty-two bytes, local"};
  auto report = io::importStudies(store, {(dir / "a").string(), (dir / "b").string(), (dir / "c").string()}, options);
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 3);
  std::set<std::string> patients;
  std::set<std::string> dates;
  for (const auto& s : report->series) {
    auto manifest = io::readSeriesManifest(store, s.study, s.series);
    REQUIRE(manifest.ok());
    patients.insert(manifest->patientId);
    dates.insert(manifest->studyDate);
    // The files carry what the manifest says.
    const fs::path folder = fs::path(store.root()) / "studies" / s.study / "series" / s.series;
    for (const auto& f : manifest->files)
      CHECK(test::readFileBytes(folder / f.name).find(manifest->patientId) != std::string::npos);
  }
  // Three patients, three pseudonyms; the one with an ID keeps the pseudonym of its ID.
  CHECK(patients.size() == 3);
  CHECK(patients.count(io::pseudonymFor(*options.deidentify, "MRN-1")) == 1);
  CHECK(patients.count(io::pseudonymFor(*options.deidentify, "")) == 0);
  // The same calendar date, moved by each patient's own shift (two of three could meet by chance: 1 in 365).
  CHECK(dates.size() >= 2);
  // A series that names neither a patient nor a study is left out, named, when de-identifying.
  writeSeries(dir / "d", "", "Nobody^Known", "", "2.25.7004.1", "20240102");
  auto none = io::importStudies(store, {(dir / "d").string()}, options);
  if (none.ok()) {
    CHECK(none->series.empty());
    REQUIRE(none->skipped.size() >= 1);
    CHECK(none->skipped[0].find("neither a Patient ID nor a Study Instance UID") != std::string::npos);
  } else {
    CHECK(none.error().describe().find("neither a Patient ID nor a Study Instance UID") != std::string::npos);
  }
}

TEST_CASE("identity: studies whose UIDs sanitise alike land in folders of their own, plain UIDs keep their names",
          "[share]") {
  ScratchDir dir("identity-names");
  const io::ShareStore store = storeIn(dir);
  // "1.2 3.4" and "1.2-3.4" both sanitise to "1.2-3.4"; "../x" would be a path.
  writeSeries(dir / "a", "P-A", "Alpha^Ann", "1.2 3.4", "2.25.8001.1", "20240102");
  writeSeries(dir / "b", "P-B", "Beta^Bob", "1.2-3.4", "2.25.8002.1", "20240103");
  writeSeries(dir / "c", "P-C", "Gamma^Cy", "../x", "2.25.8003.1", "20240104");
  writeSeries(dir / "d", "P-D", "Delta^Di", "1.23.4", "2.25.8004.1", "20240105");
  auto report = io::importStudies(
      store, {(dir / "a").string(), (dir / "b").string(), (dir / "c").string(), (dir / "d").string()});
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 4);
  std::set<std::string> studies;
  for (const auto& s : report->series) {
    studies.insert(s.study);
    CHECK(s.study.find('/') == std::string::npos);
    auto manifest = io::readSeriesManifest(store, s.study, s.series);
    REQUIRE(manifest.ok());
    // Each folder holds its own patient's series only.
    auto listed = io::listStudy(store, s.study);
    REQUIRE(listed.ok());
    INFO("study " << s.study << " holds " << listed->series.size() << " series");
    REQUIRE(listed->series.size() == 1);
    CHECK(listed->series[0].patientId == manifest->patientId);
  }
  CHECK(studies.size() == 4);
  CHECK(studies.count("1.23.4") == 1);  // a plain UID is its own name, as on every share written before
  CHECK(io::shareNameFromUid("1.2.840.113619.2.55") == "1.2.840.113619.2.55");
  CHECK(io::shareNameFromUid("1.2 3.4") != io::shareNameFromUid("1.2-3.4"));
  CHECK(io::shareNameFromUid("1.2 3.4").rfind("1.2-3.4-", 0) == 0);
  // A hostile UID spelled as another's suffixed name does not take it: it is not a plain UID, so it is suffixed too.
  const std::string taken = io::shareNameFromUid("1.2 3.4");
  CHECK(io::shareNameFromUid(taken) != taken);
  CHECK_FALSE(fs::exists(dir.path() / "x"));
  CHECK_FALSE(fs::exists(fs::path(store.root()) / "x"));

  // De-identified, the two studies DCMTK would read as one UID get pseudonyms of their own, in folders and files.
  ScratchDir other("identity-names-deid");
  const io::ShareStore deidStore = storeIn(other);
  io::StudyImportOptions options;
  options.deidentify = io::DeidentifyKey{"a key of thirty-two bytes, local"};
  auto deid = io::importStudies(deidStore, {(dir / "a").string(), (dir / "d").string()}, options);
  REQUIRE(deid.ok());
  REQUIRE(deid->series.size() == 2);
  std::set<std::string> studyUids;
  for (const auto& s : deid->series) {
    auto manifest = io::readSeriesManifest(deidStore, s.study, s.series);
    REQUIRE(manifest.ok());
    studyUids.insert(manifest->studyInstanceUid);
    auto index = io::indexDicomFolder((fs::path(deidStore.root()) / "studies" / s.study / "series" / s.series).string());
    REQUIRE(index.ok());
    REQUIRE(index->allSeries().size() == 1);
    CHECK(index->allSeries()[0]->studyInstanceUid == manifest->studyInstanceUid);
  }
  CHECK(studyUids.size() == 2);
  CHECK(deid->series[0].study != deid->series[1].study);
}
