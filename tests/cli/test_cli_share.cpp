// The share store through the CLI: save, list, show, diff, restore, get, conflicts, checkpoints and audit
// verification, with the results checked against label maps and files read independently through io/.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/edit_transaction.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/volume/nifti.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"

namespace {

core::LabelMap makeLabels(int variant) {
  const core::Geometry g({30, 20, 10}, {1.0, 1.0, 2.0}, {0.0, 0.0, 0.0});
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  core::EditTransaction t(*map, "paint");
  t.fillBox(core::IndexBox{{0, 0, 0}, {9, 9, 4}}, 1);
  if (variant >= 1) t.fillBox(core::IndexBox{{5, 5, 0}, {14, 14, 4}}, 2);
  if (variant >= 2) t.fillBox(core::IndexBox{{20, 0, 5}, {29, 19, 9}}, 3);
  REQUIRE(t.commit().has_value());
  return std::move(map).value();
}

fs::path writeLabels(const fs::path& p, const core::LabelMap& m) {
  REQUIRE(io::writeNiftiLabels(p.string(), m).ok());
  return p;
}

nlohmann::json jsonOf(const Run& r) {
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("cli share: save, list, show, diff, restore and get agree with the label maps", "[cli][share]") {
  ScratchDir dir("cli-share");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  const std::string r = quoted(root.string());
  REQUIRE(runCli("share init " + r).exitCode == 0);
  const auto v0 = makeLabels(0), v1 = makeLabels(1);
  const fs::path f0 = writeLabels(dir / "v0.nii.gz", v0), f1 = writeLabels(dir / "v1.nii.gz", v1);

  Run s1 = runCli("share save " + r + " ct1 organs " + quoted(f0.string()) + " --message 'first pass' --author ann");
  INFO(s1.out);
  REQUIRE(s1.exitCode == 0);
  CHECK(s1.out.find("saved revision 1") != std::string::npos);
  // Without --author: $DELINEATE_AUTHOR, as the window sets it for the programs it runs (issue 41).
  const auto saved2 = jsonOf(runShell("DELINEATE_AUTHOR='Ada Lovelace' '" DELINEATE_CLI_PATH "' share save " + r + " ct1 organs " +
                                      quoted(f1.string()) + " --json"));
  CHECK(saved2["revision"] == 2);
  CHECK(saved2["base"] == 1);
  CHECK(saved2["conflict"] == false);

  const auto list = jsonOf(runCli("share list " + r + " ct1 organs --json"));
  REQUIRE(list["revisions"].size() == 2);
  CHECK(list["revisions"][0]["author"] == "ann");
  CHECK(list["revisions"][0]["message"] == "first pass");
  CHECK(list["revisions"][1]["author"] == "Ada Lovelace");

  // diff: computed here voxel by voxel.
  std::map<int, std::pair<std::uint64_t, std::uint64_t>> expected;
  std::uint64_t changed = 0;
  for (std::size_t i = 0; i < v0.size(); ++i)
    if (v0[i] != v1[i]) ++changed, ++expected[v1[i]].first, ++expected[v0[i]].second;
  const auto diff = jsonOf(runCli("share diff " + r + " ct1 organs 1 2 --json"));
  CHECK(diff["changedVoxels"] == changed);
  REQUIRE(diff["labels"].size() == expected.size());
  for (const auto& l : diff["labels"]) {
    CHECK(l["gained"] == expected[l["label"].get<int>()].first);
    CHECK(l["lost"] == expected[l["label"].get<int>()].second);
  }
  CHECK(changed == 100 * 5 - 25 * 5 + 25 * 5);  // label 2 box (10x10x5) takes 25x5 voxels of label 1

  const auto show = jsonOf(runCli("share show " + r + " ct1 organs 2 --json"));
  REQUIRE(show["labels"].size() == 2);
  CHECK(show["labels"][1]["label"] == 2);
  CHECK(show["labels"][1]["voxels"] == 500);
  CHECK(show["labels"][1]["volumeMl"].get<double>() == Approx(500 * 2.0 / 1000.0));
  // The text: volumes in a unit that fits them, three significant digits (issue 41: "0.000" for mouse structures).
  const Run shown = runCli("share show " + r + " ct1 organs 2");
  INFO(shown.out);
  REQUIRE(shown.exitCode == 0);
  CHECK(shown.out.find("    1        375       750 mm3") != std::string::npos);  // 375 voxels of 2 mm3
  CHECK(shown.out.find("    2        500      1.00 mL") != std::string::npos);
  {
    // A mouse structure: 12 voxels of 0.1 mm.
    const core::Geometry mouse({20, 20, 20}, {0.1, 0.1, 0.1}, {0.0, 0.0, 0.0});
    auto small = core::LabelMap::create(mouse);
    REQUIRE(small.ok());
    core::EditTransaction t(*small, "paint");
    t.fillBox(core::IndexBox{{0, 0, 0}, {3, 2, 0}}, 7);
    REQUIRE(t.commit().has_value());
    const fs::path f = writeLabels(dir / "mouse.nii.gz", *small);
    REQUIRE(runCli("share save " + r + " mouse1 atlas " + quoted(f.string()) + " --author ann").exitCode == 0);
    const Run mouseShown = runCli("share show " + r + " mouse1 atlas 1");
    INFO(mouseShown.out);
    REQUIRE(mouseShown.exitCode == 0);
    CHECK(mouseShown.out.find("    7         12    0.0120 mm3") != std::string::npos);
    CHECK(mouseShown.out.find("0.000") == std::string::npos);
  }

  // restore r1 as r3, then get r3: the voxels of v0.
  Run restored = runCli("share restore " + r + " ct1 organs 1");
  INFO(restored.out);
  REQUIRE(restored.exitCode == 0);
  CHECK(restored.out.find("as revision 3") != std::string::npos);
  const fs::path out = dir / "out.nrrd";
  REQUIRE(runCli("share get " + r + " ct1 organs 3 " + quoted(out.string())).exitCode == 0);
  auto back = io::readNiftiLabels(f0.string());
  REQUIRE(back.ok());
  const fs::path outNii = dir / "out.nii.gz";
  REQUIRE(runCli("share get " + r + " ct1 organs 3 " + quoted(outNii.string())).exitCode == 0);
  auto got = io::readNiftiLabels(outNii.string());
  REQUIRE(got.ok());
  CHECK(std::equal(got->data(), got->data() + got->size(), v0.data()));
  CHECK(fs::exists(out));

  // A save based on r1 while r3 exists: kept, marked, told.
  Run conflict = runCli("share save " + r + " ct1 organs " + quoted(f1.string()) + " --base 1");
  INFO(conflict.out);
  REQUIRE(conflict.exitCode == 0);
  CHECK(conflict.out.find("CONFLICT") != std::string::npos);
  const auto after = jsonOf(runCli("share list " + r + " ct1 organs --json"));
  REQUIRE(after["revisions"].size() == 4);
  CHECK(after["revisions"][3]["conflict"] == true);
  CHECK(after["revisions"][3]["latestAtSave"] == 3);

  // The audit log has every save (3 here, 1 of the mouse structure), the restore and both exports, and every read of
  // a label revision (issue 47): show, diff, restore, get and the exports each read what they name; it verifies.
  Run verified = runCli("audit verify " + r);
  INFO(verified.out);
  REQUIRE(verified.exitCode == 0);
  const auto reads = jsonOf(runCli("audit show " + r + " --action read --json"))["records"];
  const auto all = jsonOf(runCli("audit show " + r + " --json"))["records"];
  CHECK(all.size() - reads.size() == 7);
  CHECK(verified.out.find("OK, " + std::to_string(all.size()) + " record(s)") != std::string::npos);
  std::set<std::string> readDetails;
  for (const auto& rec : reads) {
    CHECK(rec["study"] != "");
    readDetails.insert(rec["detail"].get<std::string>().substr(0, 6));
  }
  CHECK(readDetails.count("loaded") == 1);
  CHECK(readDetails.count("copied") == 1);
}

TEST_CASE("cli share: errors name the file and the reason, with exit codes 1 and 2", "[cli][share]") {
  ScratchDir dir("cli-share-err");
  const std::string r = quoted(dir.path().string());
  Run notStore = runCli("share list " + r + " ct1 organs");
  CHECK(notStore.exitCode == 1);
  CHECK(notStore.out.find("not mounted") != std::string::npos);
  REQUIRE(runCli("share init " + r).exitCode == 0);
  Run missing = runCli("share show " + r + " ct1 organs 5");
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("r000005.json") != std::string::npos);
  CHECK(runCli("share show " + r + " ct1 organs five").exitCode == 2);
  CHECK(runCli("share diff " + r + " ct1 organs 1").exitCode == 2);
  CHECK(runCli("share save " + r + " ct1 organs /nonexistent.nii.gz").exitCode == 1);
  CHECK(runCli("share list " + r + " ../x organs").exitCode == 1);
  CHECK(runCli("share frobnicate " + r).exitCode == 2);
}

TEST_CASE("cli checkpoint and audit: checkpoints round-trip with their sidecar, damage and tampering are reported",
          "[cli][share]") {
  ScratchDir dir("cli-ckpt");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  const std::string r = quoted(root.string());
  REQUIRE(runCli("share init " + r).exitCode == 0);
  // A safetensors file of one float32 tensor (300,000 bytes of data).
  const fs::path model = dir / "model.safetensors";
  {
    const std::string header = R"({"w":{"dtype":"F32","shape":[75000],"data_offsets":[0,300000]}})";
    std::ofstream out(model, std::ios::binary);
    const std::uint64_t n = header.size();
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
    out << header;
    for (int i = 0; i < 300000; ++i) out.put(static_cast<char>(i * 7 + i / 251));
  }
  writeTextFile(dir / "sidecar.json", R"({"notes":"by hand","metrics":{"dice":0.9}})");
  Run put = runCli("checkpoint put " + r + " mouse " + quoted(model.string()) + " --sidecar " +
                   quoted((dir / "sidecar.json").string()) + " --message 'epoch 10'");
  INFO(put.out);
  REQUIRE(put.exitCode == 0);
  const auto list = jsonOf(runCli("checkpoint list " + r + " mouse --json"));
  REQUIRE(list["revisions"].size() == 1);
  CHECK(list["revisions"][0]["content"] == "r000001.safetensors");
  CHECK(list["revisions"][0]["extra"]["metrics"]["dice"] == 0.9);
  const fs::path got = dir / "got.safetensors";
  REQUIRE(runCli("checkpoint get " + r + " mouse 1 " + quoted(got.string())).exitCode == 0);
  CHECK(readTextFile(got) == readTextFile(model));

  // Issue 40: only checkpoints go on the share. A 12-byte text file is refused naming it, and so is a sidecar that
  // names an architecture engines cannot read; nothing is stored.
  writeTextFile(dir / "notes.pt", "hello world\n");
  Run notes = runCli("checkpoint put " + r + " mouse " + quoted((dir / "notes.pt").string()));
  INFO(notes.out);
  CHECK(notes.exitCode == 1);
  CHECK(notes.out.find("error: " + (dir / "notes.pt").string() + ": parse error: not a checkpoint") != std::string::npos);
  writeTextFile(dir / "foreign.json", R"({"architecture":{"name":"vista3d"}})");
  Run foreign = runCli("checkpoint put " + r + " mouse " + quoted(model.string()) + " --sidecar " +
                       quoted((dir / "foreign.json").string()));
  INFO(foreign.out);
  CHECK(foreign.exitCode == 1);
  CHECK(foreign.out.find("error: " + (dir / "foreign.json").string()) != std::string::npos);
  CHECK(jsonOf(runCli("checkpoint list " + r + " mouse --json"))["revisions"].size() == 1);

  {
    std::fstream f(root / "checkpoints/mouse/r000001.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1234);
    f.put('\0');
    f.put('\1');
  }
  Run damaged = runCli("checkpoint get " + r + " mouse 1 " + quoted((dir / "again.safetensors").string()));
  CHECK(damaged.exitCode == 1);
  CHECK(damaged.out.find("SHA-256") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "again.safetensors"));

  // Tamper with the audit log's first record: verification names line 1.
  fs::path log;
  for (const auto& e : fs::directory_iterator(root / "audit")) log = e.path();
  REQUIRE_FALSE(log.empty());
  std::string text = readTextFile(log);
  const auto at = text.find("\"mouse\"");
  REQUIRE(at != std::string::npos);
  REQUIRE(at < text.find('\n'));
  text[at + 1] = 'M';
  writeTextFile(log, text);
  Run tampered = runCli("audit verify " + quoted(log.string()));
  INFO(tampered.out);
  CHECK(tampered.exitCode == 1);
  CHECK(tampered.out.find("line 1") != std::string::npos);
}

TEST_CASE("cli share save: the label table travels with every revision, from beside the file or the base revision",
          "[cli][share][label-tables]") {
  // Issue 41 item 7: a revision saved by the CLI had no table, so the window opened it unnamed.
  ScratchDir dir("cli-share-table");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  fs::create_directories(dir / "bare");
  const std::string r = quoted(root.string());
  REQUIRE(runCli("share init " + r).exitCode == 0);
  const fs::path f0 = writeLabels(dir / "v0.nii.gz", makeLabels(0)), f1 = writeLabels(dir / "bare" / "v1.nii.gz", makeLabels(1));
  core::LabelTable table;
  for (int id = 1; id <= 3; ++id) {
    core::LabelEntry e;
    e.id = static_cast<core::Label>(id);
    e.name = "structure " + std::to_string(id);
    e.color = core::LabelTable::defaultColor(e.id);
    REQUIRE(table.add(e).ok());
  }
  REQUIRE(io::writeLabelTableFile(dir / "v0.label", table).ok());
  REQUIRE(runCli("share save " + r + " ct1 organs " + quoted(f0.string())).exitCode == 0);
  REQUIRE(runCli("share save " + r + " ct1 organs " + quoted(f1.string())).exitCode == 0);
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "ct1", "organs");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  REQUIRE(list->latest() == 2);
  for (int n : {1, 2}) {
    INFO("revision " << n);
    const auto extra = nlohmann::json::parse(list->find(n)->extraJson, nullptr, false);
    REQUIRE(extra.is_object());
    REQUIRE(extra.contains("labelTable"));
    auto read = io::readSlicerCsvString(extra["labelTable"].get<std::string>(), "revision table");
    REQUIRE(read.ok());
    REQUIRE(read->find(2));
    CHECK(read->find(2)->name == "structure 2");
  }
}
