// Studies on the share (issue 24, items 1-3): images imported as received and verified, series manifests published
// last, racing and interrupted imports, the catalogue and its local index (search, label status, damaged entries,
// snapshots), label sets bound to their series, and a share written by the layout before studies held images.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/label_map.h"
#include "io/base/file_read.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/dicom/dicom.h"
#include "io/share/share_catalogue.h"
#include "io/share/share_datasets.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/studies/dataset_fetch.h"
#include "io/studies/study_import.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

struct SeriesSpec {
  std::string patientId = "DLT-TEST-1", patientName = "Test^Phantom";
  std::string studyUid = "2.25.40112233445566778899", seriesUid = "2.25.40112233445566778899.1";
  int slices = 3;
};

SeriesSpec spec(const std::string& studyUid, const std::string& seriesUid, int slices = 3,
                const std::string& patientId = "DLT-TEST-1", const std::string& patientName = "Test^Phantom") {
  SeriesSpec s;
  s.studyUid = studyUid;
  s.seriesUid = seriesUid;
  s.slices = slices;
  s.patientId = patientId;
  s.patientName = patientName;
  return s;
}

// A DICOM series of `slices` CT slices (4x5, 2 mm apart) written into `folder`.
void writeSeries(const fs::path& folder, const SeriesSpec& spec) {
  fs::create_directories(folder);
  for (int k = 0; k < spec.slices; ++k) {
    test::CtSliceParams p;
    p.patientId = spec.patientId;
    p.patientName = spec.patientName;
    p.studyUid = spec.studyUid;
    p.seriesUid = spec.seriesUid;
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    p.pixel = [k](int i, int j) { return 100 * k + 10 * j + i; };
    test::makeCtSlice(p).write(folder / ("slice" + std::to_string(k) + ".dcm"));
  }
}

io::ShareStore makeStore(const ScratchDir& dir) {
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  if (!store) {
    fs::create_directories(dir.path() / "share");
    store = io::ShareStore::initialize((dir.path() / "share").string());
  }
  REQUIRE(store.ok());
  return std::move(store).value();
}

// A catalogue record of a series whose manifest is on the share (written here, with `patientId`): the refresh checks
// series records against the manifests they name.
std::string seriesRecord(const io::ShareStore& store, const std::string& study, const std::string& series,
                         const std::string& patientId = {}) {
  io::SeriesManifest m;
  m.study = study;
  m.series = series;
  m.kind = "dicom";
  m.patientId = patientId;
  const std::string text = io::seriesManifestJson(m);
  REQUIRE(store.writeFile(m.path(), text.data(), text.size(), true).ok());
  return io::catalogueSeriesRecord(m, io::sha256Hex(text.data(), text.size()));
}

// A cancel flag that trips after `n` reports of the copy stage (files copied).
class CancelAfter final : public core::ProgressSink {
 public:
  explicit CancelAfter(int n) : m_left(n) {}
  void report(double, const std::string& stage) override {
    if (stage == "copy") --m_left;
  }
  bool cancelled() const override { return m_left <= 0; }

 private:
  std::atomic<int> m_left;
};

// A query with one or two fields set by name.
io::StudyQuery query(const std::string& field, const std::string& value, const std::string& field2 = {},
                     const std::string& value2 = {}) {
  io::StudyQuery q;
  for (const auto& [f, v] : {std::pair{field, value}, std::pair{field2, value2}}) {
    if (f == "text") q.text = v;
    else if (f == "patient") q.patient = v;
    else if (f == "modality") q.modality = v;
    else if (f == "dateFrom") q.dateFrom = v;
    else if (f == "dateTo") q.dateTo = v;
    else if (f == "description") q.description = v;
    else if (f == "status") q.status = v;
  }
  return q;
}

std::vector<std::string> studiesOf(const std::vector<io::StudyRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.study);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("studies: a DICOM folder is imported bit-exact under its hashes, its manifest last, and fetched back verified",
          "[share][share-suite]") {
  ScratchDir dir("studies-import");
  const io::ShareStore store = makeStore(dir);
  const fs::path input = dir.path() / "incoming";
  writeSeries(input / "ct", {});
  test::writeTextFile(input / "notes.txt", "not an image");

  auto report = io::importStudies(store, {input.string()});
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 1);
  const io::ImportedSeries& s = report->series[0];
  CHECK(s.study == "2.25.40112233445566778899");
  CHECK(s.series == "2.25.40112233445566778899.1");
  CHECK(s.files == 3);
  CHECK(s.copied == 3);
  CHECK_FALSE(s.manifestExisted);
  REQUIRE(report->skipped.size() == 1);  // notes.txt, said
  CHECK(report->skipped[0].find("neither DICOM nor a volume file") != std::string::npos);

  // Each stored file is the input's bytes, named by their SHA-256.
  auto manifest = io::readSeriesManifest(store, s.study, s.series);
  REQUIRE(manifest.ok());
  CHECK(manifest->patientId == "DLT-TEST-1");
  CHECK(manifest->modality == "CT");
  REQUIRE(manifest->geometry.has_value());
  CHECK(manifest->geometry->dimensions() == core::Size3{5, 4, 3});
  REQUIRE(manifest->files.size() == 3);
  for (int k = 0; k < 3; ++k) {
    const std::string original = test::readFileBytes(input / "ct" / ("slice" + std::to_string(k) + ".dcm"));
    const std::string hash = io::sha256Hex(original.data(), original.size());
    const auto f = std::find_if(manifest->files.begin(), manifest->files.end(),
                                [&](const io::SeriesFile& file) { return file.sha256 == hash; });
    REQUIRE(f != manifest->files.end());
    CHECK(f->name == hash + ".dcm");
    CHECK(test::readFileBytes(fs::path(store.root()) / "studies" / s.study / "series" / s.series / f->name) == original);
  }

  // Fetched to a local folder, verified, it loads as the same series.
  auto fetched = io::fetchSeries(store, s.study, s.series, (dir.path() / "local").string());
  REQUIRE(fetched.ok());
  CHECK(fetched->copied == 3);
  auto index = io::indexDicomFolder(fetched->openPath);
  REQUIRE(index.ok());
  REQUIRE(index->allSeries().size() == 1);
  auto loaded = io::loadDicomSeries(*index->allSeries()[0]);
  REQUIRE(loaded.ok());
  CHECK(loaded->image.geometry() == *manifest->geometry);
  // A second fetch reuses what is there; a damaged file on the share is refused, naming it.
  auto again = io::fetchSeries(store, s.study, s.series, (dir.path() / "local").string());
  REQUIRE(again.ok());
  CHECK(again->reused == 3);
  const fs::path stored = fs::path(store.root()) / "studies" / s.study / "series" / s.series / manifest->files[1].name;
  std::string bytes = test::readFileBytes(stored);
  bytes[bytes.size() - 1] ^= 0x01;
  fs::permissions(stored, fs::perms::owner_write, fs::perm_options::add);
  test::writeFileBytes(stored, bytes);
  auto damaged = io::fetchSeries(store, s.study, s.series, (dir.path() / "other").string());
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.error().code == core::ErrorCode::Corrupt);
  CHECK(damaged.error().subject == stored.string());
  // Issue 40: a failed fetch takes back what it wrote (here the folder it made): no part of a series is left to be
  // opened as if whole.
  CHECK_FALSE(fs::exists(dir.path() / "other"));
  // A temporary file a killed fetch left in the folder is removed by the next fetch into it (it holds the folder's
  // lock, so no other fetch is writing there); the files already fetched stay.
  test::writeFileBytes(dir.path() / "local" / ("." + manifest->files[0].name + ".tmp-0123abcd"), "half a file");
  auto afterKill = io::fetchSeries(store, s.study, s.series, (dir.path() / "local").string());
  REQUIRE(afterKill.ok());
  CHECK(afterKill->reused == 3);
  CHECK_FALSE(fs::exists(dir.path() / "local" / ("." + manifest->files[0].name + ".tmp-0123abcd")));

  // Imported again: nothing copied, the same manifest.
  auto second = io::importStudies(store, {input.string()});
  REQUIRE(second.ok());
  CHECK(second->series[0].copied == 0);
  CHECK(second->series[0].alreadyThere == 3);
  CHECK(second->series[0].manifestExisted);
}

TEST_CASE("studies: two importers of the same study at once end with one study and one manifest", "[share][share-suite]") {
  ScratchDir dir("studies-race");
  const io::ShareStore store = makeStore(dir);
  // The same series received twice (two copies of the instances in two folders), imported by two importers at once.
  writeSeries(dir.path() / "a", {});
  fs::create_directories(dir.path() / "b");
  for (const auto& e : fs::directory_iterator(dir.path() / "a")) fs::copy_file(e.path(), dir.path() / "b" / e.path().filename());
  for (int round = 0; round < 4; ++round) {
    ScratchDir shareDir("studies-race-share");
    const io::ShareStore share = makeStore(shareDir);
    core::Result<io::StudyImportReport> results[2] = {core::makeError(core::ErrorCode::Cancelled, "", ""),
                                                      core::makeError(core::ErrorCode::Cancelled, "", "")};
    std::thread t0([&] { results[0] = io::importStudies(share, {(dir.path() / "a").string()}); });
    std::thread t1([&] { results[1] = io::importStudies(share, {(dir.path() / "b").string()}); });
    t0.join();
    t1.join();
    REQUIRE(results[0].ok());
    REQUIRE(results[1].ok());
    CHECK(results[0]->series[0].copied + results[1]->series[0].copied >= 3);
    CHECK(int(results[0]->series[0].manifestExisted) + int(results[1]->series[0].manifestExisted) == 1);
    auto names = io::listStudyNames(share);
    REQUIRE(names.ok());
    CHECK(*names == std::vector<std::string>{"2.25.40112233445566778899"});
    auto listing = io::listStudy(share, "2.25.40112233445566778899");
    REQUIRE(listing.ok());
    REQUIRE(listing->series.size() == 1);
    CHECK(listing->series[0].files.size() == 3);
    CHECK(listing->seriesInProgress.empty());
    // Only the three files are in the series folder: no temporary left, nothing twice.
    int files = 0;
    for (const auto& e : fs::directory_iterator(fs::path(share.root()) / "studies" / listing->study / "series" /
                                                listing->series[0].series)) {
      CHECK(e.path().filename().string()[0] != '.');
      ++files;
    }
    CHECK(files == 3);
    auto index = io::StudyIndex::open(share, (shareDir.path() / "index.sqlite").string());
    REQUIRE(index.ok());
    REQUIRE(index->refresh().ok());
    CHECK(index->studyCount().value() == 1);
  }
}

TEST_CASE("studies: an import stopped halfway lists no half series and finishes when run again", "[share][share-suite]") {
  ScratchDir dir("studies-resume");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "ct", spec("2.25.40112233445566778899", "2.25.40112233445566778899.1", 6));
  CancelAfter cancel(2);
  io::StudyImportOptions options;
  options.jobs = 1;
  options.progress = &cancel;
  auto stopped = io::importStudies(store, {(dir.path() / "ct").string()}, options);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().code == core::ErrorCode::Cancelled);

  auto listing = io::listStudy(store, "2.25.40112233445566778899");
  REQUIRE(listing.ok());
  CHECK(listing->series.empty());
  CHECK(listing->seriesInProgress == std::vector<std::string>{"2.25.40112233445566778899.1"});
  auto index = io::StudyIndex::open(store, (dir.path() / "index.sqlite").string());
  REQUIRE(index.ok());
  REQUIRE(index->refresh().ok());
  CHECK(index->studyCount().value() == 0);

  auto resumed = io::importStudies(store, {(dir.path() / "ct").string()});
  REQUIRE(resumed.ok());
  CHECK(resumed->series[0].alreadyThere == 2);
  CHECK(resumed->series[0].copied == 4);
  REQUIRE(index->refresh().ok());
  CHECK(index->studyCount().value() == 1);
}

TEST_CASE("studies: a series imported again with other files is refused and the stored one kept", "[share]") {
  ScratchDir dir("studies-other-files");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "three", {});
  writeSeries(dir.path() / "four", spec("2.25.40112233445566778899", "2.25.40112233445566778899.1", 4));
  REQUIRE(io::importStudies(store, {(dir.path() / "three").string()}).ok());
  auto again = io::importStudies(store, {(dir.path() / "four").string()});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().detail.find("imported before with 3 files; this import has 4") != std::string::npos);
  auto manifest = io::readSeriesManifest(store, "2.25.40112233445566778899", "2.25.40112233445566778899.1");
  REQUIRE(manifest.ok());
  CHECK(manifest->files.size() == 3);
}

TEST_CASE("catalogue: search by patient, modality, date, description and label status from saves, reviews and leases",
          "[share][share-suite]") {
  ScratchDir dir("catalogue-search");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "p1", spec("2.25.1", "2.25.1.1", 3, "MRN-001", "Doe^Jane"));
  writeSeries(dir.path() / "p2", spec("2.25.2", "2.25.2.1", 3, "MRN-002", "Roe^Rick"));
  REQUIRE(io::importStudies(store, {(dir.path() / "p1").string(), (dir.path() / "p2").string()}).ok());
  // A volume study with its own modality and description.
  auto sample = test::sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  io::StudyImportOptions mr;
  mr.study = "brain-1";
  mr.modality = "MR";
  mr.description = "brain tumour follow-up";
  if (sample) REQUIRE(io::importStudies(store, {sample->string()}, mr).ok());

  auto index = io::StudyIndex::open(store, (dir.path() / "index.sqlite").string());
  REQUIRE(index.ok());
  REQUIRE(index->refresh().ok());
  const auto search = [&](io::StudyQuery q) {
    auto rows = index->search(q);
    REQUIRE(rows.ok());
    return studiesOf(*rows);
  };
  CHECK(search(query("text", "doe")) == std::vector<std::string>{"2.25.1"});
  CHECK(search(query("patient", "MRN-002")) == std::vector<std::string>{"2.25.2"});
  CHECK(search(query("modality", "ct")) == std::vector<std::string>{"2.25.1", "2.25.2"});
  if (sample) {
    CHECK(search(query("modality", "MR")) == std::vector<std::string>{"brain-1"});
    CHECK(search(query("description", "follow")) == std::vector<std::string>{"brain-1"});
  }
  CHECK(search(query("status", "none")).size() == (sample ? 3u : 2u));

  // Labels on study 2.25.1 (bound to its series), submitted and approved; a lease on 2.25.2.
  auto manifest = io::readSeriesManifest(store, "2.25.1", "2.25.1.1");
  REQUIRE(manifest.ok());
  auto voxels = core::Volume<core::Label>::create(*manifest->geometry);
  REQUIRE(voxels.ok());
  voxels->at({1, 1, 1}) = 5;
  core::LabelMap labels(std::move(voxels).value());
  auto set = io::LabelSetRevisions::open(store, "2.25.1", "organs");
  REQUIRE(set.ok());
  auto saved = set->saveLabels(labels, io::SaveRequest{"ann", 0, "first", io::withLabelBinding({}, *manifest)});
  REQUIRE(saved.ok());
  CHECK(saved->catalogueWarning.empty());
  REQUIRE(index->refresh().ok());
  CHECK(search(query("status", "revisions")) == std::vector<std::string>{"2.25.1"});
  const io::LabelSetReviews reviews(*set);
  REQUIRE(reviews.record(1, io::ReviewAction::Submit, "ann", "").ok());
  REQUIRE(index->refresh().ok());
  CHECK(search(query("status", "submitted")) == std::vector<std::string>{"2.25.1"});
  REQUIRE(reviews.record(1, io::ReviewAction::Approve, "bob", "").ok());
  auto other = io::LabelSetRevisions::open(store, "2.25.2", "organs");
  REQUIRE(other.ok());
  auto lease = io::ShareLease::prepare(store, other->folder(), "cy");
  REQUIRE(lease.ok());
  REQUIRE(lease->acquire().ok());
  REQUIRE(index->refresh().ok());
  CHECK(search(query("status", "approved")) == std::vector<std::string>{"2.25.1"});
  CHECK(search(query("status", "editing")) == std::vector<std::string>{"2.25.2"});
  auto row = index->find("2.25.1");
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->latestLabelSet == "organs");
  CHECK((*row)->latestRevision == 1);
  CHECK((*row)->review == "approved");
  CHECK((*row)->studyDate.empty() == false);
  auto editing = index->find("2.25.2");
  REQUIRE(editing.ok());
  CHECK((*editing)->editing.rfind("cy@", 0) == 0);
  REQUIRE(lease->release().ok());
  REQUIRE(index->refresh().ok());
  CHECK(search(query("status", "editing")).empty());

  // The revision is bound to its series; the study's folder says so.
  auto listing = io::listStudy(store, "2.25.1");
  REQUIRE(listing.ok());
  REQUIRE(listing->labelSets.size() == 1);
  CHECK(listing->labelSets[0].boundSeries == "2.25.1.1");
  // Dates: a range, and a bad date refused by name.
  CHECK(search(query("dateFrom", "1900-01-01", "dateTo", "2999-12-31")).size() >= 2);
  auto bad = index->search(query("dateFrom", "26.11.2026"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().subject == "26.11.2026");
}

TEST_CASE("catalogue: a damaged segment, record or manifest is named and skipped and hides no other study",
          "[share][share-suite]") {
  ScratchDir dir("catalogue-damaged");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "p1", spec("2.25.1", "2.25.1.1"));
  writeSeries(dir.path() / "p2", spec("2.25.2", "2.25.2.1"));
  REQUIRE(io::importStudies(store, {(dir.path() / "p1").string()}).ok());
  REQUIRE(io::importStudies(store, {(dir.path() / "p2").string()}).ok());
  // A segment with one torn line among good ones, and a record of an unknown kind.
  auto segment = io::appendCatalogue(store, {R"({"kind":"labels","study":"2.25.2","labelSet":"x","revision":1})",
                                             R"({"kind":"weather","study":"2.25.2"})"});
  REQUIRE(segment.ok());
  const fs::path segmentPath = fs::path(store.root()) / *segment;
  std::string text = test::readTextFile(segmentPath);
  fs::permissions(segmentPath, fs::perms::owner_write, fs::perm_options::add);
  test::writeTextFile(segmentPath, "{\"kind\":\"series\",\"stu\n" + text);

  auto index = io::StudyIndex::open(store, (dir.path() / "index.sqlite").string());
  REQUIRE(index.ok());
  auto refreshed = index->refresh();
  REQUIRE(refreshed.ok());
  REQUIRE(refreshed->newProblems.size() == 2);
  CHECK(refreshed->newProblems[0].find(*segment + ":1: not a JSON object") != std::string::npos);
  CHECK(refreshed->newProblems[1].find(*segment + ":3: unknown record kind \"weather\"") != std::string::npos);
  CHECK(index->studyCount().value() == 2);
  auto row = index->find("2.25.2");
  REQUIRE(row.ok());
  CHECK((*row)->latestRevision == 1);  // the good line between them was applied
  // Reported once, remembered: a later refresh does not report it again but problems() keeps it.
  auto later = index->refresh();
  REQUIRE(later.ok());
  CHECK(later->newProblems.empty());
  CHECK(index->problems().value().size() == 2);

  // A manifest that is no longer JSON: the study listing and the reindex name it; the other study stays.
  const fs::path manifest = fs::path(store.root()) / "studies/2.25.1/series/2.25.1.1.json";
  fs::permissions(manifest, fs::perms::owner_write, fs::perm_options::add);
  test::writeTextFile(manifest, "{\"format\": 1, \"study\": ");
  auto listing = io::listStudy(store, "2.25.1");
  REQUIRE(listing.ok());
  CHECK(listing->series.empty());
  REQUIRE(listing->damaged.size() == 1);
  CHECK(listing->damaged[0].find(manifest.string()) == 0);
  auto reindexed = io::reindexStudies(store);
  REQUIRE(reindexed.ok());
  CHECK(reindexed->series == 1);
  REQUIRE(reindexed->problems.size() == 1);
  CHECK(reindexed->problems[0].find(manifest.string()) == 0);
}

TEST_CASE("catalogue: a new client reads the newest snapshot and only the segments after it", "[share][share-suite]") {
  ScratchDir dir("catalogue-snapshot");
  const io::ShareStore store = makeStore(dir);
  for (int i = 0; i < 30; ++i)
    REQUIRE(io::appendCatalogue(store, {seriesRecord(store, "s" + std::to_string(i), "x", "P" + std::to_string(i))}).ok());
  auto first = io::StudyIndex::open(store, (dir.path() / "first.sqlite").string());
  REQUIRE(first.ok());
  auto r1 = first->refresh();
  REQUIRE(r1.ok());
  CHECK(r1->segmentsRead == 30);
  CHECK(first->studyCount().value() == 30);
  auto snapshot = first->compact();
  REQUIRE(snapshot.ok());
  REQUIRE(io::appendCatalogue(store, {seriesRecord(store, "late", "x")}).ok());

  auto fresh = io::StudyIndex::open(store, (dir.path() / "fresh.sqlite").string());
  REQUIRE(fresh.ok());
  auto r2 = fresh->refresh();
  REQUIRE(r2.ok());
  CHECK(r2->snapshotsRead == 1);
  CHECK(r2->segmentsRead == 1);  // only the segment the snapshot does not cover
  CHECK(fresh->studyCount().value() == 31);
  auto rows = fresh->search(query("patient", "P17"));
  REQUIRE(rows.ok());
  CHECK(studiesOf(*rows) == std::vector<std::string>{"s17"});

  // A damaged local index (it is a cache) is set aside and built again from the share.
  test::writeTextFile(dir.path() / "broken.sqlite", std::string(4096, 'x'));
  auto rebuilt = io::StudyIndex::open(store, (dir.path() / "broken.sqlite").string());
  REQUIRE(rebuilt.ok());
  CHECK_FALSE(rebuilt->setAside().empty());
  CHECK(fs::exists(rebuilt->setAside()));
  REQUIRE(rebuilt->refresh().ok());
  CHECK(rebuilt->studyCount().value() == 31);

  // The first client sees the late study too, and its own snapshot adds nothing it has to parse again.
  auto r3 = first->refresh();
  REQUIRE(r3.ok());
  CHECK(r3->snapshotsRead == 0);
  CHECK(r3->segmentsRead == 1);
  CHECK(first->studyCount().value() == 31);
}

TEST_CASE("studies: a label map binds to the series on its grid, another grid is refused, two candidates need a name",
          "[share]") {
  ScratchDir dir("studies-binding");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "a", spec("2.25.7", "2.25.7.1"));
  REQUIRE(io::importStudies(store, {(dir.path() / "a").string()}).ok());
  auto manifest = io::readSeriesManifest(store, "2.25.7", "2.25.7.1");
  REQUIRE(manifest.ok());
  auto bound = io::seriesForLabels(store, "2.25.7", *manifest->geometry, "");
  REQUIRE(bound.ok());
  REQUIRE(bound->has_value());
  CHECK((*bound)->series == "2.25.7.1");
  const core::Geometry other({5, 4, 2}, {0.5, 0.5, 2}, {0, 0, 0});
  auto none = io::seriesForLabels(store, "2.25.7", other, "");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  auto refused = io::seriesForLabels(store, "2.25.7", other, "2.25.7.1");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::GeometryMismatch);
  // A second series on the same grid: no guess.
  writeSeries(dir.path() / "b", spec("2.25.7", "2.25.7.2"));
  REQUIRE(io::importStudies(store, {(dir.path() / "b").string()}).ok());
  std::vector<std::string> ambiguous;
  auto two = io::seriesForLabels(store, "2.25.7", *manifest->geometry, "", &ambiguous);
  REQUIRE(two.ok());
  CHECK_FALSE(two->has_value());
  CHECK(ambiguous == std::vector<std::string>{"2.25.7.1", "2.25.7.2"});
}

TEST_CASE("studies: a share written by the layout before studies held images opens and is reindexed into the catalogue",
          "[share][share-suite]") {
  // tests/data/share_layout_8376d1f: made by delineate-cli at commit 8376d1f (share init, two saves, a review
  // approved by another user, a dataset), before studies held images or the catalogue existed.
  ScratchDir dir("studies-old-layout");
  const fs::path root = dir.path() / "share";
  fs::copy(fs::path(DELINEATE_SOURCE_DIR) / "tests/data/share_layout_8376d1f", root, fs::copy_options::recursive);
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "sample", "organs");
  REQUIRE(set.ok());
  auto labels = set->loadLabels(2);  // hash verified
  REQUIRE(labels.ok());
  auto review = io::LabelSetReviews(*set).review(2);
  REQUIRE(review.ok());
  CHECK(review->state == io::ReviewState::Approved);
  auto datasets = io::DatasetRevisions::open(*store, "lungs");
  REQUIRE(datasets.ok());
  auto dataset = datasets->loadDataset(1);
  REQUIRE(dataset.ok());
  auto changed = io::verifyDataset(*store, *dataset);
  REQUIRE(changed.ok());
  CHECK(changed->empty());
  auto listing = io::listStudy(*store, "sample");
  REQUIRE(listing.ok());
  CHECK(listing->series.empty());
  REQUIRE(listing->labelSets.size() == 1);
  CHECK(listing->labelSets[0].latestRevision == 2);
  CHECK(listing->labelSets[0].boundSeries.empty());

  auto index = io::StudyIndex::open(*store, (dir.path() / "index.sqlite").string());
  REQUIRE(index.ok());
  REQUIRE(index->refresh().ok());
  CHECK(index->studyCount().value() == 0);  // nothing catalogued yet
  auto reindexed = io::reindexStudies(*store);
  REQUIRE(reindexed.ok());
  CHECK(reindexed->studies == 1);
  CHECK(reindexed->problems.empty());
  REQUIRE(index->refresh().ok());
  auto row = index->find("sample");
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->latestRevision == 2);
  CHECK((*row)->approved);
  CHECK((*row)->labelStatus() == "approved");
  // New work on the old share joins the catalogue as it happens.
  REQUIRE(set->saveLabels(*labels, io::SaveRequest{"cy", 2, "more", {}}).ok());
  REQUIRE(index->refresh().ok());
  CHECK((*index->find("sample"))->latestRevision == 3);
  CHECK((*index->find("sample"))->review == "none");
}

TEST_CASE("studies: a de-identified import keeps pixels and references, and gives one patient one pseudonym per key",
          "[share][dicom]") {
  ScratchDir dir("studies-deid");
  const io::ShareStore store = makeStore(dir);
  // Two studies of one patient a month apart, with identifying attributes, a physician, a private tag and a reference.
  const auto write = [&](const fs::path& folder, const std::string& studyUid, const std::string& date) {
    fs::create_directories(folder);
    for (int k = 0; k < 3; ++k) {
      test::CtSliceParams p;
      p.patientId = "MRN-4711";
      p.patientName = "Doe^Jane";
      p.studyUid = studyUid;
      p.seriesUid = studyUid + ".1";
      p.instanceNumber = k + 1;
      p.positionLps = {0, 0, 2.0 * k};
      test::DicomBuilder b = test::makeCtSlice(p);
      b.str(0x0008, 0x0020, "DA", date)
          .str(0x0008, 0x0080, "LO", "General Hospital")
          .str(0x0008, 0x0090, "PN", "House^Gregory")
          .str(0x0008, 0x1030, "LO", "CT abdomen for Jane Doe")
          .str(0x0010, 0x0030, "DA", "19700101")
          .str(0x0009, 0x0010, "LO", "ACME private")
          .str(0x0018, 0x1200, "DA", "20200101\\20200315")  // a multi-valued date: every value shifted
          .str(0x0009, 0x1001, "LO", "MRN-4711 again")
          .beginSequence(0x0008, 0x1140)
          .beginItem()
          .ui(0x0008, 0x1150, "1.2.840.10008.5.1.4.1.1.2")
          .ui(0x0008, 0x1155, studyUid + ".1." + std::to_string(k == 0 ? 2 : 1))
          .str(0x0008, 0x1070, "PN", "Operator^Olga")
          .str(0x0008, 0x0050, "SH", "ACC-77")  // an accession number inside a sequence
          .endItem()
          .endSequence();
      b.write(folder / ("i" + std::to_string(k) + ".dcm"));
    }
  };
  write(dir.path() / "s1", "2.25.9001", "20240102");
  write(dir.path() / "s2", "2.25.9002", "20240201");
  // A screenshot (secondary capture) that does not say its pixels are free of text: its series is left out.
  {
    test::CtSliceParams p;
    p.patientId = "MRN-4711";
    p.studyUid = "2.25.9001";
    p.seriesUid = "2.25.9001.77";
    test::DicomBuilder b = test::makeCtSlice(p);
    b.ui(0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.7");
    fs::create_directories(dir.path() / "sc");
    b.write(dir.path() / "sc" / "screen.dcm");
  }
  io::StudyImportOptions options;
  options.deidentify = io::DeidentifyKey{"a key of thirty-two bytes, local"};
  auto report = io::importStudies(
      store, {(dir.path() / "s1").string(), (dir.path() / "s2").string(), (dir.path() / "sc").string()}, options);
  REQUIRE(report.ok());
  REQUIRE(report->series.size() == 2);
  REQUIRE(report->skipped.size() == 1);
  CHECK(report->skipped[0].find("secondary capture") != std::string::npos);
  CHECK(report->skipped[0].find("screen.dcm") != std::string::npos);
  const std::string pseudonym = io::pseudonymFor(*options.deidentify, "MRN-4711");
  CHECK(pseudonym.rfind("ANON-", 0) == 0);
  std::vector<std::string> dates;
  for (const auto& s : report->series) {
    CHECK(s.study.rfind("2.25.", 0) == 0);
    CHECK(s.study != "2.25.9001");
    CHECK(s.study != "2.25.9002");
    auto manifest = io::readSeriesManifest(store, s.study, s.series);
    REQUIRE(manifest.ok());
    CHECK(manifest->deidentified);
    CHECK(manifest->patientId == pseudonym);
    CHECK(manifest->studyDescription.empty());
    for (const auto& f : manifest->files) CHECK(f.source.empty());
    dates.push_back(manifest->studyDate);
    // What is stored: nothing of the patient, physician, operator, institution or private tag; its own UIDs and
    // references among its instances consistent; the pixels as they were.
    const fs::path folder = fs::path(store.root()) / "studies" / s.study / "series" / s.series;
    for (const auto& f : manifest->files) {
      const std::string bytes = test::readFileBytes(folder / f.name);
      for (const char* leak : {"Doe", "MRN-4711", "House", "Olga", "General Hospital", "ACME", "19700101", "9001.",
                               "9002.", "20200101", "20200315", "ACC-77"})
        CHECK(bytes.find(leak) == std::string::npos);
      CHECK(bytes.find(pseudonym) != std::string::npos);
    }
    auto index = io::indexDicomFolder(folder.string());
    REQUIRE(index.ok());
    REQUIRE(index->allSeries().size() == 1);
    const io::DicomSeries& series = *index->allSeries()[0];
    CHECK(series.seriesInstanceUid == manifest->seriesInstanceUid);
    CHECK(series.studyInstanceUid == manifest->studyInstanceUid);
    CHECK(series.slices.size() == 3);
    auto loaded = io::loadDicomSeries(series);
    REQUIRE(loaded.ok());
    const std::string original = s.study == io::shareNameFrom(io::pseudonymUid(*options.deidentify, "2.25.9001")) ? "s1" : "s2";
    auto originalIndex = io::indexDicomFolder((dir.path() / original).string());
    REQUIRE(originalIndex.ok());
    auto originalImage = io::loadDicomSeries(*originalIndex->allSeries()[0]);
    REQUIRE(originalImage.ok());
    CHECK(loaded->image.geometry() == originalImage->image.geometry());
    CHECK(std::equal(loaded->image.data(), loaded->image.data() + loaded->image.geometry().voxelCount(),
                     originalImage->image.data()));
  }
  // The same interval between the two studies (30 days), not the same dates.
  std::sort(dates.begin(), dates.end());
  REQUIRE(dates.size() == 2);
  CHECK(dates[0] != "20240102");
  auto days = [](const std::string& d) {
    std::tm tm{};
    tm.tm_year = std::stoi(d.substr(0, 4)) - 1900;
    tm.tm_mon = std::stoi(d.substr(4, 2)) - 1;
    tm.tm_mday = std::stoi(d.substr(6, 2));
    return timegm(&tm) / 86400;
  };
  CHECK(days(dates[1]) - days(dates[0]) == 30);
  // Imported again with the same key: the same names, nothing copied; another key: other pseudonyms.
  auto again = io::importStudies(store, {(dir.path() / "s1").string()}, options);
  REQUIRE(again.ok());
  CHECK(again->series[0].copied == 0);
  CHECK(again->series[0].manifestExisted);
  CHECK(io::pseudonymFor(io::DeidentifyKey{"another key, also long enough"}, "MRN-4711") != pseudonym);
  // A volume file is imported de-identified only into a named study.
  io::StudyImportOptions unnamed = options;
  auto refused = io::importStudies(store, {DELINEATE_SOURCE_DIR "/resources/sample/example_ct.nii.gz"}, unnamed);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail.find("--study") != std::string::npos);
}

TEST_CASE("studies: a fetch into a folder holding other files is refused and removes nothing", "[share]") {
  ScratchDir dir("studies-fetch-folder");
  const io::ShareStore store = makeStore(dir);
  writeSeries(dir.path() / "ct", spec("2.25.5", "2.25.5.1"));
  REQUIRE(io::importStudies(store, {(dir.path() / "ct").string()}).ok());
  const fs::path desktop = dir.path() / "desktop";
  fs::create_directories(desktop / "photos");
  test::writeTextFile(desktop / "notes.txt", "mine");
  auto refused = io::fetchSeries(store, "2.25.5", "2.25.5.1", desktop.string());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail.find("fetch into an empty folder") != std::string::npos);
  CHECK(fs::exists(desktop / "notes.txt"));
  CHECK(fs::exists(desktop / "photos"));
  CHECK(std::distance(fs::directory_iterator(desktop), fs::directory_iterator()) == 2);
}

TEST_CASE("catalogue: a day folder is listed again until a listing is known complete, then only when it changes",
          "[share][share-suite]") {
  // Shares keep folder times to the second: a segment added in the second of a listing may be missing from it, so a
  // folder is listed again until a listing made 2 s (this machine's clock) after its time last changed.
  ScratchDir dir("catalogue-days");
  const io::ShareStore store = makeStore(dir);
  auto index = io::StudyIndex::open(store, (dir.path() / "index.sqlite").string());
  REQUIRE(index.ok());
  REQUIRE(io::appendCatalogue(store, {seriesRecord(store, "a", "x")}).ok());
  auto first = index->refresh();
  REQUIRE(first.ok());
  CHECK(first->daysListed == 1);
  REQUIRE(io::appendCatalogue(store, {seriesRecord(store, "b", "x")}).ok());  // the same second, likely
  auto second = index->refresh();
  REQUIRE(second.ok());
  CHECK(second->daysListed == 1);
  CHECK(index->studyCount().value() == 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto third = index->refresh();  // listed once more, now 2 s after the folder last changed: complete
  REQUIRE(third.ok());
  CHECK(third->daysListed == 1);
  auto fourth = index->refresh();
  REQUIRE(fourth.ok());
  CHECK(fourth->daysListed == 0);  // unchanged and known complete: only its time is read
  REQUIRE(io::appendCatalogue(store, {seriesRecord(store, "c", "x")}).ok());
  auto fifth = index->refresh();
  REQUIRE(fifth.ok());
  CHECK(index->studyCount().value() == 3);

  // A folder of a day long past (a writer whose clock was behind): listed once, complete at once.
  const std::string old = seriesRecord(store, "d", "x");
  REQUIRE(store.writeFile("catalogue/log/20200101/0000000000001-late-1-00000001.jsonl", old.data(), old.size(), true).ok());
  auto sixth = index->refresh();
  REQUIRE(sixth.ok());
  CHECK(index->studyCount().value() == 4);
  auto seventh = index->refresh();
  REQUIRE(seventh.ok());
  CHECK(seventh->daysListed <= 1);  // today's folder may still be unconfirmed; the old one is not listed again
}

TEST_CASE("datasets: fetched to local disk, each case's labels and image verified, unusable cases named and skipped",
          "[share][share-suite]") {
  ScratchDir dir("dataset-fetch");
  const io::ShareStore store = makeStore(dir);
  // Two studies with images and approved labels bound to them, one label set saved before it had an image.
  for (const std::string uid : {"2.25.31", "2.25.32"}) {
    writeSeries(dir.path() / uid, spec(uid, uid + ".1"));
    REQUIRE(io::importStudies(store, {(dir.path() / uid).string()}).ok());
    auto manifest = io::readSeriesManifest(store, uid, uid + ".1");
    REQUIRE(manifest.ok());
    auto voxels = core::Volume<core::Label>::create(*manifest->geometry);
    REQUIRE(voxels.ok());
    voxels->at({1, 1, 1}) = 3;
    auto set = io::LabelSetRevisions::open(store, uid, "atlas");
    REQUIRE(set.ok());
    REQUIRE(set->saveLabels(core::LabelMap(std::move(voxels).value()),
                            io::SaveRequest{"ann", 0, "", io::withLabelBinding({}, *manifest)})
                .ok());
  }
  auto unbound = io::LabelSetRevisions::open(store, "old-study", "atlas");
  REQUIRE(unbound.ok());
  const std::vector<std::uint8_t> bytes(100, 7);
  REQUIRE(unbound->save(bytes.data(), bytes.size(), "ann", 0, "").ok());
  io::Dataset d;
  d.name = "atlas-set";
  d.source = "by hand";
  for (const std::string study : {"2.25.31", "2.25.32", "old-study"}) {
    auto set = io::LabelSetRevisions::open(store, study, "atlas");
    REQUIRE(set.ok());
    auto list = set->list();
    REQUIRE(list.ok());
    d.entries.push_back({study, "atlas", 1, list->revisions[0].sha256, study == "2.25.31" ? "train" : "validation"});
  }
  auto datasets = io::DatasetRevisions::open(store, "atlas-set");
  REQUIRE(datasets.ok());
  REQUIRE(datasets->saveDataset(d, io::SaveRequest{"ann", 0, "", {}}).ok());

  auto fetched = io::fetchDataset(store, "atlas-set", 0, (dir.path() / "cases").string());
  REQUIRE(fetched.ok());
  REQUIRE(fetched->cases.size() == 2);
  REQUIRE(fetched->skipped.size() == 1);
  CHECK(fetched->skipped[0].find("old-study / atlas r1: the label revision is bound to no image series") == 0);
  for (const auto& c : fetched->cases) {
    auto labels = io::readLabelFile(c.labels);
    REQUIRE(labels.ok());
    auto index = io::indexDicomFolder(c.image);
    REQUIRE(index.ok());
    REQUIRE(index->allSeries().size() == 1);
    CHECK(index->allSeries()[0]->geometry->isCloseTo(labels->geometry()));
    CHECK(labels->at({1, 1, 1}) == 3);
  }
  // The case list names the patients' studies: sealed at rest (io/base/sealed_file.h), read through io.
  CHECK(io::looksSealed(test::readTextFile(fetched->casesJson).data(), 8) == io::atRestSealingOn());
  auto listingText = io::readWholeFile(fetched->casesJson, 1 << 20, "case list");
  REQUIRE(listingText.ok());
  const std::string listing = *listingText;
  CHECK(listing.find("\"split\": \"train\"") != std::string::npos);
  CHECK(listing.find("\"skipped\"") != std::string::npos);
  // A folder given relative to the working directory: cases.json names absolute paths, so a reader resolving its
  // relative paths against cases.json's folder does not double the folder (delineate-train --out run --dataset ...).
  {
    const fs::path before = fs::current_path();
    fs::current_path(dir.path());
    auto relative = io::fetchDataset(store, "atlas-set", 0, "relative/cases");
    fs::current_path(before);
    REQUIRE(relative.ok());
    REQUIRE(relative->cases.size() == 2);
    CHECK(fs::path(relative->casesJson) == dir.path() / "relative" / "cases" / "cases.json");
    for (const auto& c : relative->cases) {
      CHECK(fs::path(c.labels).is_absolute());
      CHECK(fs::exists(c.labels));
      CHECK(fs::path(c.image).is_absolute());
    }
  }
  // Asked to stop at a bad case: an error naming it, and nothing listed as fetched.
  auto strict = io::fetchDataset(store, "atlas-set", 0, (dir.path() / "strict").string(), true);
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().subject == "old-study / atlas r1");
  CHECK_FALSE(fs::exists(dir.path() / "strict" / "cases.json"));
}

TEST_CASE("studies: the series cache is pruned oldest first to its budget, never the one just opened", "[share]") {
  ScratchDir dir("series-cache");
  const fs::path root = dir.path() / "studies";
  const auto make = [&](const std::string& name, int ageHours, std::size_t bytes) {
    const fs::path folder = root / "0123456789abcdef" / "study" / name;
    fs::create_directories(folder);
    test::writeTextFile(folder / "f.dcm", std::string(bytes, 'x'));
    fs::last_write_time(folder, fs::file_time_type::clock::now() - std::chrono::hours(ageHours));
    return folder;
  };
  const fs::path oldest = make("a", 30, 4000), older = make("b", 20, 4000), kept = make("c", 10, 4000),
                 recent = make("d", 0, 4000);
  // Budget 9,000 bytes of 16,000: the oldest two go; "c" is the one being opened and the newest is within the grace.
  const std::uint64_t removed = io::pruneSeriesCache(root.string(), 9000, kept.string());
  CHECK(removed == 8000);
  CHECK_FALSE(fs::exists(oldest));
  CHECK_FALSE(fs::exists(older));
  CHECK(fs::exists(kept));
  CHECK(fs::exists(recent));
  CHECK(io::pruneSeriesCache(root.string(), 0, kept.string()) == 0);  // what is left is protected
}
