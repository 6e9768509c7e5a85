// `delineate-cli batch` (issue 43): an engine over a cohort on the share, resumable from the share, a broken study
// failing alone, others' labels and leases respected, slices, a watcher that segments arrivals once; and on a real
// one-node Slurm (tests/slurm/slurm_cluster.sh, tests tagged [.slurm]): a job array over a dozen studies, a cancelled
// job resubmitted, status read from the queue and the share.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/study_store.h"
#include "tests/cli/background_cli.h"
#include "tests/cli/cli_in_folder.h"
#include "tests/cli/share_fixture.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Volume files of the shared data copied into `dir`/`folder` (a study each when the folder is batched).
std::vector<std::string> copyVolumes(const ScratchDir& dir, const std::string& folder,
                                     const std::vector<std::string>& relative) {
  std::vector<std::string> stems;
  fs::create_directories(dir / folder);
  for (const auto& r : relative) {
    auto source = sharedFile(r);
    if (!source) return {};
    fs::copy_file(*source, dir / folder / source->filename());
    std::string stem = source->filename().string();
    for (const char* suffix : {".nii.gz", ".nrrd"})
      if (stem.size() > std::strlen(suffix) && stem.compare(stem.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
        stem.resize(stem.size() - std::strlen(suffix));
    stems.push_back(stem);
  }
  return stems;
}

const std::vector<std::string> kMice = {"data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_1.nii.gz",
                                        "data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_2.nii.gz",
                                        "data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_3.nii.gz"};

io::RevisionList revisions(const fs::path& root, const std::string& study, const std::string& set) {
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto folder = io::LabelSetRevisions::open(*store, study, set);
  REQUIRE(folder.ok());
  auto list = folder->list();
  REQUIRE(list.ok());
  return std::move(list).value();
}

// Damages the stored file of the study's one series (appends bytes), as bit rot or an edit on the share would.
void damageSeries(const fs::path& root, const std::string& study) {
  bool damaged = false;
  for (const auto& e : fs::recursive_directory_iterator(root / "studies" / study / "series"))
    if (e.is_regular_file() && e.path().extension() != ".json" && !damaged) {
      ::chmod(e.path().c_str(), 0640);
      std::ofstream(e.path(), std::ios::app) << "damage";
      damaged = true;
    }
  REQUIRE(damaged);
}

std::vector<std::string> csvLines(const fs::path& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("batch: a folder of studies becomes bound revisions with the engine and statistics, a rerun does nothing "
          "again, a damaged study fails alone (exit 3), and alone it fails the run (exit 1)",
          "[cli][batch]") {
  ScratchDir dir("cli-batch");
  std::vector<std::string> inputs = kMice;
  inputs.push_back("data/ct/totalseg-example/example_ct.nii.gz");
  const auto studies = copyVolumes(dir, "in", inputs);
  if (studies.empty()) return;
  const fs::path root = initCliShare(dir);
  const std::string store = quoted(root.string());

  auto first = cli(dir, "batch " + store + " --label-set auto --folder " + quoted((dir / "in").string()) +
                            " --summary " + quoted((dir / "s.csv").string()) + " --statistics " +
                            quoted((dir / "st.csv").string()));
  INFO(first.out << first.err);
  REQUIRE(first.exitCode == 0);
  CHECK(first.err.find("[4/4]") != std::string::npos);
  CHECK(first.err.find("ETA") != std::string::npos);
  std::string key;
  for (const auto& study : studies) {
    const auto list = revisions(root, study, "auto");
    REQUIRE(list.revisions.size() == 1);
    const json extra = json::parse(list.revisions[0].extraJson);
    CHECK(extra["batch"]["engine"] == "classic");
    CHECK(extra["batch"]["labels"].size() >= 1);
    CHECK(extra.contains("labelTable"));
    CHECK(extra["image"]["study"] == study);  // bound to the series it was segmented on
    if (key.empty()) key = extra["batch"]["key"];
    CHECK(extra["batch"]["key"] == key);
    CHECK(list.revisions[0].message == "batch: classic");
  }
  const auto summary = csvLines(dir / "s.csv");
  REQUIRE(summary.size() == 5);
  CHECK(summary[0].rfind("study,series,status,revision", 0) == 0);
  for (std::size_t i = 1; i < summary.size(); ++i) CHECK(summary[i].find(",segmented,1,") != std::string::npos);
  // The CT's labels by name, with volume and intensities.
  const auto statistics = csvLines(dir / "st.csv");
  bool lung = false;
  for (const auto& line : statistics)
    if (line.rfind("example_ct,", 0) == 0 && line.find(",right lung,") != std::string::npos) lung = true;
  CHECK(lung);

  // Again, over the whole catalogue: everything is done already (read from the share), nothing new is saved.
  auto again = cli(dir, "batch " + store + " --label-set auto --all --json");
  INFO(again.out << again.err);
  REQUIRE(again.exitCode == 0);
  int doneLines = 0;
  for (const auto& line : jsonLines(again.out))
    if (line["event"] == "study") {
      CHECK(line["status"] == "done");
      ++doneLines;
    }
  CHECK(doneLines == 4);
  for (const auto& study : studies) CHECK(revisions(root, study, "auto").latest() == 1);

  // A damaged series on the share, and a cache without its copy: that study fails, named, the others are saved.
  damageSeries(root, studies[1]);
  auto partial = cli(dir, "batch " + store + " --label-set second --all --summary " + quoted((dir / "p.json").string()),
                     "XDG_CACHE_HOME=" + quoted((dir / "fresh-cache").string()));
  INFO(partial.out << partial.err);
  CHECK(partial.exitCode == 3);
  CHECK(partial.err.find("failed: " + studies[1] + ": ") != std::string::npos);
  CHECK(partial.err.find("corrupt") != std::string::npos);
  CHECK(revisions(root, studies[1], "second").revisions.empty());
  for (const auto& study : {studies[0], studies[2], studies[3]}) CHECK(revisions(root, study, "second").latest() == 1);
  const json p = json::parse(readTextFile(dir / "p.json"));
  CHECK(p["outcome"] == "partial");
  CHECK(p["counts"]["failed"] == 1);

  auto failed = cli(dir, "batch " + store + " --label-set third --studies " + studies[1] + ",no-such-study",
                    "XDG_CACHE_HOME=" + quoted((dir / "fresh-cache-2").string()));
  INFO(failed.out << failed.err);
  CHECK(failed.exitCode == 1);
  CHECK(failed.err.find("no-such-study") != std::string::npos);
}

TEST_CASE("batch: others' labels are left alone unless asked, a study someone is editing is skipped naming them, and "
          "--slice K/N splits the cohort without overlap",
          "[cli][batch]") {
  ScratchDir dir("cli-batch-others");
  const auto studies = copyVolumes(dir, "in", kMice);
  if (studies.empty()) return;
  const fs::path root = initCliShare(dir);
  const std::string store = quoted(root.string());
  REQUIRE(cli(dir, "study import " + store + " " + quoted((dir / "in" / (studies[0] + ".nii.gz")).string()) +
                       " --study " + studies[0]).exitCode == 0);
  REQUIRE(cli(dir, "study import " + store + " " + quoted((dir / "in" / (studies[1] + ".nii.gz")).string()) +
                       " --study " + studies[1]).exitCode == 0);
  REQUIRE(cli(dir, "study import " + store + " " + quoted((dir / "in" / (studies[2] + ".nii.gz")).string()) +
                       " --study " + studies[2]).exitCode == 0);
  saveBytesRevision(root, studies[0], "auto", "alice", 7);  // a person's labels
  auto opened = io::ShareStore::open(root.string());
  REQUIRE(opened.ok());
  auto set = io::LabelSetRevisions::open(*opened, studies[1], "auto");
  REQUIRE(set.ok());
  auto lease = io::ShareLease::prepare(*opened, set->folder(), "bob");
  REQUIRE(lease.ok());
  REQUIRE(lease->acquire().ok());  // bob is editing it in his window (this process stands for it)

  auto run = cli(dir, "batch " + store + " --label-set auto --all");
  INFO(run.out << run.err);
  CHECK(run.exitCode == 0);  // nothing failed: what others hold is theirs
  CHECK(run.err.find(studies[0] + ": skipped: label set 'auto' already holds r1 by alice") != std::string::npos);
  CHECK(run.err.find(studies[1] + ": skipped: being edited by bob@") != std::string::npos);
  CHECK(revisions(root, studies[0], "auto").latest() == 1);
  CHECK(revisions(root, studies[1], "auto").latest() == 0);
  CHECK(revisions(root, studies[2], "auto").latest() == 1);

  REQUIRE(lease->release().ok());
  auto also = cli(dir, "batch " + store + " --label-set auto --all --also-labelled");
  INFO(also.out << also.err);
  CHECK(also.exitCode == 0);
  CHECK(revisions(root, studies[0], "auto").latest() == 2);  // on top of alice's, hers kept
  CHECK(revisions(root, studies[1], "auto").latest() == 1);
  CHECK(revisions(root, studies[2], "auto").latest() == 1);  // done before

  // Slices: 0/2 and 1/2 of the same list take each study exactly once.
  std::multiset<std::string> taken;
  for (const char* slice : {"0/2", "1/2"}) {
    auto part = cli(dir, "batch " + store + " --label-set sliced --all --json --slice " + slice);
    INFO(part.out << part.err);
    REQUIRE(part.exitCode == 0);
    for (const auto& line : jsonLines(part.out))
      if (line["event"] == "study") taken.insert(line["study"].get<std::string>());
  }
  CHECK(taken == std::multiset<std::string>(studies.begin(), studies.end()));

  for (const std::string& bad : {std::string("--all"), std::string("--label-set x --all --slice 2/2"),
                                 std::string("--label-set ../x --all"), std::string("--label-set x --engine nope"),
                                 std::string("--label-set x --watch --slice 0/2")}) {
    auto r = cli(dir, "batch " + store + " " + bad);
    INFO(bad << ": " << r.out << r.err);
    CHECK(r.exitCode == 2);
  }
}

TEST_CASE("batch --watch: studies imported while two watchers run are segmented once each, and a restarted watcher "
          "redoes nothing",
          "[cli][batch][watch]") {
  ScratchDir dir("cli-batch-watch");
  const auto studies = copyVolumes(dir, "in", kMice);
  if (studies.empty()) return;
  const fs::path root = initCliShare(dir);
  const std::string store = quoted(root.string());
  const std::string args = "batch " + store + " --label-set auto --watch --poll 0.3 --json";
  {
    // Two machines: each its own cache and catalogue index.
    BackgroundCli a(dir, args, "watcher-a", "cache-a");
    BackgroundCli b(dir, args, "watcher-b", "cache-b");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (const auto& study : studies)
      REQUIRE(cli(dir, "study import " + store + " " + quoted((dir / "in" / (study + ".nii.gz")).string()) +
                           " --study " + study).exitCode == 0);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    auto allThere = [&] {
      for (const auto& study : studies)
        if (revisions(root, study, "auto").latest() == 0) return false;
      return true;
    };
    while (!allThere() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // A little longer: a second segmentation of a study, if one were coming, would land now.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    INFO(a.errors() << b.errors());
    CHECK(a.kill(SIGTERM) == 0);
    CHECK(b.kill(SIGTERM) == 0);
    int segmented = 0;
    for (const auto* w : {&a, &b})
      for (const auto& line : jsonLines(w->output()))
        if (line["event"] == "study" && line["status"] == "segmented") ++segmented;
    CHECK(segmented == static_cast<int>(studies.size()));
    for (const auto& study : studies) CHECK(revisions(root, study, "auto").latest() == 1);
  }
  {
    BackgroundCli again(dir, args, "watcher-c", "cache-a");
    std::this_thread::sleep_for(std::chrono::seconds(3));
    INFO(again.errors());
    CHECK(again.kill(SIGTERM) == 0);
    for (const auto& line : jsonLines(again.output()))
      if (line["event"] == "study") CHECK(line["status"] == "done");
    for (const auto& study : studies) CHECK(revisions(root, study, "auto").latest() == 1);
  }
}

namespace {

bool onSlurm() {
  if (std::getenv("DELINEATE_TEST_SLURM")) return true;
  FAIL("needs the test Slurm cluster: run through tests/slurm/slurm_cluster.sh (ctest: 'cli: batch and training on a real Slurm')");
  return false;
}

// Twelve studies of the shared data: six mice, four CT and MR volumes, the CRLM CT (DICOM) and a damaged one.
std::vector<std::string> dozenStudies(const ScratchDir& dir, const fs::path& root) {
  std::vector<std::string> inputs;
  for (int i = 1; i <= 6; ++i)
    inputs.push_back("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_" + std::to_string(i) + ".nii.gz");
  for (const char* f : {"data/ct/totalseg-example/example_ct.nii.gz", "data/ct/totalseg-example/example_ct_sm.nii.gz",
                        "data/ct/totalseg-example/example_mr_sm.nii.gz", "data/mr/pyradiomics-mr-tumor/brain1_image.nrrd",
                        "data/mr/pyradiomics-mr-tumor/breast1_image.nrrd"})
    inputs.push_back(f);
  auto stems = copyVolumes(dir, "in", inputs);
  if (stems.empty()) return {};
  auto crlm = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!crlm) return {};
  fs::copy(*crlm, dir / "in" / "crlm", fs::copy_options::recursive);
  // The folder imported into the share (the batch's own --folder does it too; here the job gets a list).
  for (const auto& e : fs::directory_iterator(dir / "in")) {
    std::string args = "study import " + quoted(root.string()) + " " + quoted(e.path().string());
    if (e.is_regular_file()) {
      std::string stem = e.path().filename().string();
      stem = stem.substr(0, stem.find('.'));
      args += " --study " + stem;
    }
    auto r = cli(dir, args);
    INFO(r.out << r.err);
    REQUIRE(r.exitCode == 0);
  }
  stems.push_back(kCrlmStudyUid);
  std::sort(stems.begin(), stems.end());
  return stems;
}

json statusOf(const ScratchDir& dir, const fs::path& jobDir) {
  auto r = cli(dir, "batch status " + quoted(jobDir.string()) + " --json");
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  return json::parse(r.out);
}

// Waits until the job has left the queue (or `seconds` passed).
json waitForEnd(const ScratchDir& dir, const fs::path& jobDir, int seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  json s = statusOf(dir, jobDir);
  while (s["running"] == true && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    s = statusOf(dir, jobDir);
  }
  return s;
}

}  // namespace

TEST_CASE("batch --slurm: a job array over a dozen studies saves every revision, a damaged study fails alone and is "
          "named by status",
          "[.slurm][batch]") {
  if (!onSlurm()) return;
  ScratchDir dir("cli-batch-slurm");
  const fs::path root = initCliShare(dir);
  const auto studies = dozenStudies(dir, root);
  if (studies.empty()) return;
  REQUIRE(studies.size() == 12);
  damageSeries(root, "example_mr_sm");
  const fs::path jobDir = dir / "job";
  auto submitted = cli(dir, "batch " + quoted(root.string()) + " --label-set auto --all --slurm --job-dir " +
                                quoted(jobDir.string()) + " --array-tasks 4 --max-running 2 --cpus 1");
  INFO(submitted.out << submitted.err);
  REQUIRE(submitted.exitCode == 0);
  CHECK(submitted.out.find("submitted job ") != std::string::npos);
  const std::string script = readTextFile(jobDir / "batch.sbatch");
  // The job folder names the studies and gets their logs and statistics: not for other users.
  CHECK((fs::status(jobDir / "logs").permissions() & (fs::perms::others_all | fs::perms::group_write)) == fs::perms::none);
  CHECK(script.find("#SBATCH --array=0-3%2") != std::string::npos);
  CHECK(script.find("#SBATCH --cpus-per-task=1") != std::string::npos);

  const json s = waitForEnd(dir, jobDir, 240);
  INFO(s.dump(2));
  CHECK(s["running"] == false);
  CHECK(s["done"].size() == 11);
  REQUIRE(s["failed"].size() == 1);
  CHECK(s["failed"]["example_mr_sm"].get<std::string>().find("corrupt") != std::string::npos);
  CHECK(s["toDo"].empty());
  for (const auto& study : studies)
    CHECK(revisions(root, study, "auto").latest() == (study == "example_mr_sm" ? 0 : 1));
  // Every task wrote its summary and its log into the job folder.
  int logs = 0, results = 0;
  for (const auto& e : fs::directory_iterator(jobDir / "logs")) logs += e.is_regular_file();
  for (const auto& e : fs::directory_iterator(jobDir / "results")) results += e.is_regular_file();
  CHECK(logs == 4);
  CHECK(results == 4);
  // A revision knows the job and task that made it.
  const json extra = json::parse(revisions(root, studies[0], "auto").revisions[0].extraJson);
  CHECK(extra["batch"].contains("slurmJob"));
  CHECK(extra["batch"].contains("slurmTask"));
}

TEST_CASE("batch --slurm: a job cancelled with scancel mid-way is redone by resubmit, each study segmented once",
          "[.slurm][batch]") {
  if (!onSlurm()) return;
  ScratchDir dir("cli-batch-scancel");
  const fs::path root = initCliShare(dir);
  const auto studies = dozenStudies(dir, root);
  if (studies.empty()) return;
  const fs::path jobDir = dir / "job";
  // One task at a time over twelve: the CT (DICOM, about 3 s) is first, so the cancel lands mid-job.
  auto submitted = cli(dir, "batch " + quoted(root.string()) + " --label-set auto --all --slurm --job-dir " +
                                quoted(jobDir.string()) + " --array-tasks 12 --max-running 1");
  INFO(submitted.out << submitted.err);
  REQUIRE(submitted.exitCode == 0);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (statusOf(dir, jobDir)["done"].empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto cancelled = cli(dir, "batch cancel " + quoted(jobDir.string()));
  INFO(cancelled.out << cancelled.err);
  REQUIRE(cancelled.exitCode == 0);
  json s = waitForEnd(dir, jobDir, 60);
  INFO(s.dump(2));
  REQUIRE(s["running"] == false);
  const std::size_t doneBefore = s["done"].size();
  CHECK(doneBefore >= 1);
  CHECK(doneBefore < studies.size());
  auto status = cli(dir, "batch status " + quoted(jobDir.string()));
  CHECK(status.out.find("batch resubmit") != std::string::npos);

  auto resubmitted = cli(dir, "batch resubmit " + quoted(jobDir.string()));
  INFO(resubmitted.out << resubmitted.err);
  REQUIRE(resubmitted.exitCode == 0);
  s = waitForEnd(dir, jobDir, 240);
  INFO(s.dump(2));
  CHECK(s["done"].size() == studies.size());
  CHECK(s["jobs"].size() == 2);
  for (const auto& study : studies) CHECK(revisions(root, study, "auto").latest() == 1);
}
