// Who may read what io writes (issue 40, defect 4): under the usual umask 022 the share's files are for its group
// alone (folders 02770, files 0640, the audit log 0660), local copies for their user alone (0700 / 0600), files at a
// path the user chose 0640 narrowed by the umask, and a de-identification key others may read is refused. A real
// second account (tests/common/other_user.h) tries to read everything.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/label_map.h"
#include "io/autosave/autosave_journal.h"
#include "io/base/atomic_file.h"
#include "io/dicom/dicom_deidentify.h"
#include "io/share/audit_log.h"
#include "io/share/share_datasets.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/studies/dataset_fetch.h"
#include "io/studies/study_import.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

const std::string kStudy = "2.25.4004001";
const std::string kSeries = kStudy + ".1";

// Three CT slices of a named patient in `folder` (outside the share).
void writePatientSeries(const fs::path& folder) {
  fs::create_directories(folder);
  for (int k = 0; k < 3; ++k) {
    test::CtSliceParams p;
    p.patientId = "MRN-4711";
    p.patientName = "Doe^Jane";
    p.studyUid = kStudy;
    p.seriesUid = kSeries;
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    p.pixel = [k](int i, int j) { return 100 * k + 10 * j + i; };
    test::makeCtSlice(p).write(folder / ("slice" + std::to_string(k) + ".dcm"));
  }
}

// A share with everything the store writes: an imported study, a label revision bound to it (a catalogue record), a
// lease, a model checkpoint, a dataset and an audit line.
io::ShareStore fillShare(const ScratchDir& dir, const fs::path& root) {
  auto store = io::ShareStore::initialize(root.string());
  REQUIRE(store.ok());
  writePatientSeries(dir / "input");
  REQUIRE(io::importStudies(*store, {(dir / "input").string()}).ok());
  auto manifest = io::readSeriesManifest(*store, kStudy, kSeries);
  REQUIRE(manifest.ok());
  auto voxels = core::Volume<core::Label>::create(*manifest->geometry);
  REQUIRE(voxels.ok());
  voxels->at({1, 1, 1}) = 3;
  auto set = io::LabelSetRevisions::open(*store, kStudy, "organs");
  REQUIRE(set.ok());
  REQUIRE(set->saveLabels(core::LabelMap(std::move(voxels).value()),
                          io::SaveRequest{"ann", 0, "", io::withLabelBinding({}, *manifest)})
              .ok());
  auto lease = io::ShareLease::prepare(*store, set->folder(), "ann");
  REQUIRE(lease.ok());
  REQUIRE(lease->acquire().ok());
  auto checkpoints = io::ModelCheckpoints::open(*store, "organs-net");
  REQUIRE(checkpoints.ok());
  const std::vector<std::uint8_t> weights(4096, 7);
  REQUIRE(checkpoints->save(weights.data(), weights.size(), io::SaveRequest{"ann", 0, "", "{}"}).ok());
  auto list = set->list();
  REQUIRE(list.ok());
  io::Dataset d;
  d.name = "organ-set";
  d.source = "by hand";
  d.entries.push_back({kStudy, "organs", 1, list->revisions[0].sha256, "train"});
  auto datasets = io::DatasetRevisions::open(*store, "organ-set");
  REQUIRE(datasets.ok());
  REQUIRE(datasets->saveDataset(d, io::SaveRequest{"ann", 0, "", {}}).ok());
  io::AuditRecord record;
  record.action = "import";
  record.study = kStudy;
  REQUIRE(io::appendStoreAudit(root.string(), record).ok());
  return std::move(store).value();
}

bool anyBelow(const std::vector<fs::path>& all, const fs::path& folder) {
  const std::string prefix = folder.string() + "/";
  for (const auto& p : all)
    if (p.string().rfind(prefix, 0) == 0 && fs::is_regular_file(p)) return true;
  return false;
}

}  // namespace

TEST_CASE("modes: under umask 022 the share's studies, revisions, checkpoints, audit log and catalogue are for its "
          "group alone",
          "[share][modes]") {
  auto other = test::otherUser();
  if (!other) return;
  const test::UmaskScope umask(022);
  ScratchDir dir("modes-share");
  test::openToOthers(dir.path());
  // The share's root as an administrator might leave it: the share's group, setgid, but others may enter and list.
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(::chown(root.c_str(), static_cast<uid_t>(-1), other->shareGroup) == 0);
  REQUIRE(::chmod(root.c_str(), 02755) == 0);
  fillShare(dir, root);

  const auto all = test::everythingBelow(root);
  // What the issue names is there to be looked at.
  REQUIRE(anyBelow(all, root / "studies" / kStudy / "series"));
  REQUIRE(anyBelow(all, root / "studies" / kStudy / "labelsets"));
  REQUIRE(anyBelow(all, root / "checkpoints" / "organs-net"));
  REQUIRE(anyBelow(all, root / "audit"));
  REQUIRE(anyBelow(all, root / "catalogue"));
  for (const auto& p : all) {
    INFO(p.string());
    CHECK(test::groupOf(p) == other->shareGroup);
    if (fs::is_directory(p)) {
      CHECK(test::modeOf(p) == 02770);
    } else {
      const bool auditLog = p.parent_path() == root / "audit";
      CHECK(test::modeOf(p) == (auditLog ? 0660u : 0640u));
    }
    CHECK_FALSE(test::canRead(*other, p));                       // not in the share's group
    CHECK(test::canRead(*other, p, {other->shareGroup}));  // a member of it
  }
}

TEST_CASE("modes: the share's modes are exact under umask 000 and 077", "[share][modes]") {
  for (const mode_t mask : {mode_t(0), mode_t(077)}) {
    INFO("umask " << mask);
    const test::UmaskScope umask(mask);
    ScratchDir dir("modes-share-umask");
    auto store = io::ShareStore::initialize(dir.path().string());
    REQUIRE(store.ok());
    const std::string text = "{}";
    REQUIRE(store->writeFile("studies/s/labelsets/x/r1.json", text.data(), text.size(), true).ok());
    CHECK(test::modeOf(dir / "studies" / "s" / "labelsets" / "x" / "r1.json") == 0640);
    for (const char* folder : {"studies", "studies/s", "studies/s/labelsets", "studies/s/labelsets/x", "audit"})
      CHECK(test::modeOf(dir / folder) == 02770);
    CHECK(test::modeOf(dir / io::ShareStore::kSentinel) == 0640);
  }
}

TEST_CASE("modes: local copies (series, dataset, checkpoint cache, catalogue index, autosave) are the user's alone",
          "[share][modes]") {
  auto other = test::otherUser();
  if (!other) return;
  const test::UmaskScope umask(022);
  ScratchDir dir("modes-local");
  test::openToOthers(dir.path());
  fs::create_directories(dir / "share");
  const io::ShareStore store = fillShare(dir, dir / "share");

  const fs::path cache = dir / "cache";
  REQUIRE(io::fetchSeries(store, kStudy, kSeries, (cache / "series").string()).ok());
  REQUIRE(io::fetchCheckpoint(store, "organs-net", 0, (cache / "checkpoints").string()).ok());
  auto fetched = io::fetchDataset(store, "organ-set", 0, (cache / "cases").string(), true);
  REQUIRE(fetched.ok());
  REQUIRE(fetched->cases.size() == 1);
  {
    auto index = io::StudyIndex::open(store, (cache / "catalogue" / "index.sqlite").string());
    REQUIRE(index.ok());
    REQUIRE(index->refresh().ok());
    REQUIRE(index->studyCount().value() == 1);  // the index holds the patient's name and id
  }
  io::AutosaveContext context;
  context.study = kStudy;
  auto journal = io::AutosaveJournal::create((cache / "autosave").string(), context);
  REQUIRE(journal.ok());
  auto voxels = core::Volume<core::Label>::create(io::readSeriesManifest(store, kStudy, kSeries)->geometry.value());
  REQUIRE(voxels.ok());
  voxels->at({1, 2, 1}) = 4;
  REQUIRE(journal->snapshot(core::LabelMap(std::move(voxels).value())).ok());

  const auto all = test::everythingBelow(cache);
  REQUIRE(anyBelow(all, cache / "series"));
  REQUIRE(anyBelow(all, cache / "checkpoints"));
  REQUIRE(anyBelow(all, cache / "cases"));
  REQUIRE(fs::exists(cache / "catalogue" / "index.sqlite"));
  REQUIRE(anyBelow(all, cache / "autosave"));
  for (const auto& p : all) {
    INFO(p.string());
    CHECK(test::modeOf(p) == (fs::is_directory(p) ? 0700u : 0600u));
    CHECK_FALSE(test::canRead(*other, p));
  }
}

TEST_CASE("modes: a catalogue index left readable by others is made the user's alone when opened", "[share][modes]") {
  const test::UmaskScope umask(022);
  ScratchDir dir("modes-index");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  const fs::path path = dir / "index.sqlite";
  { REQUIRE(io::StudyIndex::open(*store, path.string()).ok()); }
  REQUIRE(::chmod(path.c_str(), 0644) == 0);  // as an earlier version left it
  auto index = io::StudyIndex::open(*store, path.string());
  REQUIRE(index.ok());
  REQUIRE(index->refresh().ok());
  CHECK(test::modeOf(path) == 0600);
  for (const char* suffix : {"-wal", "-shm"})
    if (fs::exists(path.string() + suffix)) CHECK(test::modeOf(path.string() + suffix) == 0600);
}

TEST_CASE("modes: a file at a path the user chose is 0640 narrowed by the umask, and a replaced file keeps its mode",
          "[modes]") {
  ScratchDir dir("modes-personal");
  const std::string text = "labels";
  const fs::path out = dir / "out.txt";
  for (const auto& [mask, expected] : std::vector<std::pair<mode_t, unsigned>>{{0, 0640}, {022, 0640}, {077, 0600}}) {
    INFO("umask " << mask);
    const test::UmaskScope umask(mask);
    fs::remove(out);
    REQUIRE(io::writeFileAtomically(out.string(), text.data(), text.size()).ok());
    CHECK(test::modeOf(out) == expected);
  }
  const test::UmaskScope umask(022);
  REQUIRE(::chmod(out.c_str(), 0600) == 0);
  REQUIRE(io::writeFileAtomically(out.string(), text.data(), text.size()).ok());
  CHECK(test::modeOf(out) == 0600);

  auto other = test::otherUser();
  if (!other) return;
  test::openToOthers(dir.path());
  fs::remove(out);
  REQUIRE(io::writeFileAtomically(out.string(), text.data(), text.size()).ok());
  CHECK_FALSE(test::canRead(*other, out));
}

TEST_CASE("modes: a de-identification key its group or others may read is refused, naming the file and the chmod",
          "[modes][dicom]") {
  const test::UmaskScope umask(022);
  ScratchDir dir("modes-key");
  const fs::path key = dir / "key";
  test::writeTextFile(key, "0123456789abcdef0123456789abcdef");
  for (const mode_t mode : {mode_t(0644), mode_t(0640), mode_t(0604), mode_t(0610), mode_t(0601)}) {
    INFO("mode " << std::oct << mode);
    REQUIRE(::chmod(key.c_str(), mode) == 0);
    auto read = io::readDeidentifyKey(key.string());
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().code == core::ErrorCode::InvalidArgument);
    CHECK(read.error().subject == key.string());
    CHECK(read.error().detail.find("chmod 600 '" + key.string() + "'") != std::string::npos);
  }
  REQUIRE(::chmod(key.c_str(), 0644) == 0);
  CHECK(io::readDeidentifyKey(key.string()).error().detail.find("its group and others (mode 0644)") !=
        std::string::npos);
  for (const mode_t mode : {mode_t(0600), mode_t(0400)}) {
    REQUIRE(::chmod(key.c_str(), mode) == 0);
    CHECK(io::readDeidentifyKey(key.string()).ok());
  }
  // Not a regular file: refused without waiting for a writer.
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto piped = io::readDeidentifyKey(fifo.string());
  REQUIRE_FALSE(piped.ok());
  CHECK(piped.error().code == core::ErrorCode::InvalidArgument);
  CHECK(piped.error().detail.find("not a regular file") != std::string::npos);
}
