// Datasets (issue 24, item 5): built from the newest approved revisions, split by a keyed hash per study (the same
// however the studies are listed, and a study added later moves no other), versioned on the share, and frozen by the
// hashes they name: a replaced label revision is found.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/share/share_datasets.h"
#include "io/share/share_reviews.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

// A store with `studies` studies, each with one revision of label set "atlas" (distinct bytes), all approved except
// those in `unapproved`.
io::ShareStore makeStore(const ScratchDir& dir, int studies, const std::vector<int>& unapproved = {}) {
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  for (int i = 1; i <= studies; ++i) {
    auto set = io::LabelSetRevisions::open(*store, "study-" + std::to_string(i), "atlas");
    REQUIRE(set.ok());
    const std::vector<std::uint8_t> bytes(200, static_cast<std::uint8_t>(i));
    REQUIRE(set->save(bytes.data(), bytes.size(), "ann", 0, "").ok());
    if (std::find(unapproved.begin(), unapproved.end(), i) != unapproved.end()) continue;
    const io::LabelSetReviews reviews(*set);
    REQUIRE(reviews.record(1, io::ReviewAction::Submit, "ann", "").ok());
    REQUIRE(reviews.record(1, io::ReviewAction::Approve, "bob", "").ok());
  }
  return std::move(store).value();
}

}  // namespace

TEST_CASE("datasets: the newest approved revisions, split per study by a keyed hash, saved and loaded as versions",
          "[share][share-suite]") {
  ScratchDir dir("datasets-basic");
  io::ShareStore store = makeStore(dir, 40, {7, 13});
  // Study 3 gets a second revision that is not approved: the approved first one is taken.
  {
    auto set = io::LabelSetRevisions::open(store, "study-3", "atlas");
    const std::vector<std::uint8_t> bytes(200, 99);
    REQUIRE(set->save(bytes.data(), bytes.size(), "ann", 1, "not yet approved").ok());
  }
  std::vector<std::string> skipped;
  auto entries = io::newestApprovedRevisions(store, "atlas", &skipped);
  REQUIRE(entries.ok());
  CHECK(entries->size() == 38);
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].find("study-13") == 0);
  CHECK(skipped[1].find("study-7") == 0);
  for (const auto& e : *entries) CHECK(e.revision == 1);

  const double fractions[3] = {0.7, 0.15, 0.15};
  io::assignSplits(*entries, fractions, "atlas-v1");
  std::map<std::string, int> counts;
  for (const auto& e : *entries) ++counts[e.split];
  CHECK(counts["train"] >= 18);  // 70% of 38, give or take a hash
  CHECK(counts["validation"] >= 1);
  CHECK(counts["test"] >= 1);
  // The same study gets the same split whatever the order and company: reversed, and with a new study added.
  std::vector<io::DatasetEntry> reversed(entries->rbegin(), entries->rend());
  reversed.push_back({"study-new", "atlas", 1, std::string(64, 'a'), "train"});
  io::assignSplits(reversed, fractions, "atlas-v1");
  for (const auto& e : *entries)
    for (const auto& r : reversed)
      if (r.study == e.study) CHECK(r.split == e.split);
  // Another key draws another split.
  std::vector<io::DatasetEntry> other = *entries;
  io::assignSplits(other, fractions, "atlas-v2");
  CHECK(other != *entries);

  auto set = io::DatasetRevisions::open(store, "atlas-training");
  REQUIRE(set.ok());
  io::Dataset d;
  d.source = "test";
  d.entries = *entries;
  io::SaveRequest request;
  request.author = "ann";
  auto saved = set->saveDataset(d, request);
  REQUIRE(saved.ok());
  CHECK(saved->number == 1);
  auto loaded = set->loadDataset(1);
  REQUIRE(loaded.ok());
  CHECK(loaded->name == "atlas-training");
  CHECK(loaded->entries == *entries);  // sorted by study as they were
  auto names = io::listDatasets(store);
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"atlas-training"});
  auto problems = io::verifyDataset(store, *loaded);
  REQUIRE(problems.ok());
  CHECK(problems->empty());
}

TEST_CASE("datasets: a label revision replaced on the share is found by the hash the dataset names",
          "[share][share-suite]") {
  ScratchDir dir("datasets-frozen");
  io::ShareStore store = makeStore(dir, 3);
  auto entries = io::newestApprovedRevisions(store, "atlas");
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 3);
  io::Dataset d;
  d.entries = *entries;
  // Someone replaces study-2's revision content behind the store's back (same size, other bytes).
  const fs::path content = dir / "studies" / "study-2" / "labelsets" / "atlas" / "r000001.bin";
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(content.parent_path()))
    if (f.path().filename().string().rfind("r000001.", 0) == 0 && f.path().extension() != ".json") files.push_back(f.path());
  REQUIRE(files.size() == 1);
  {
    std::ofstream out(files[0], std::ios::binary | std::ios::trunc);
    const std::vector<char> other(200, 42);
    out.write(other.data(), static_cast<std::streamsize>(other.size()));
  }
  auto problems = io::verifyDataset(store, d);
  REQUIRE(problems.ok());
  REQUIRE(problems->size() == 1);
  CHECK((*problems)[0].find("study-2/atlas r1") == 0);
  // A dataset file that is not one is refused naming it.
  CHECK_FALSE(io::parseDataset("{\"format\": 1, \"entries\": [{\"study\": \"s\"}]}", "x.dataset.json").ok());
  CHECK(io::parseDataset("[]", "x.dataset.json").error().describe().find("x.dataset.json") != std::string::npos);
}

// Issue 41: three studies at 20% validation drew no validation study (0.8^3 of the time), and the model trained from
// it was never measured. A validation share that draws none while two or more train gets one: the training study
// nearest the validation range, the same whatever the order.
TEST_CASE("datasets: a small dataset whose validation share draws no study still validates one", "[share][share-suite]") {
  auto entries = [](std::vector<std::string> studies) {
    std::vector<io::DatasetEntry> out;
    for (const auto& s : studies) out.push_back({s, "atlas", 1, std::string(64, 'a'), "train"});
    return out;
  };
  const double twenty[3] = {0.8, 0.2, 0.0};
  // Keyed by "atlas-small", the three hash to 0.09, 0.46 and 0.73: below 0.8, all train by the fractions alone.
  auto three = entries({"mouse1", "mouse2", "mouse3"});
  CHECK(io::assignSplits(three, twenty, "atlas-small"));
  CHECK(three[0].split == "train");
  CHECK(three[1].split == "train");
  CHECK(three[2].split == "validation");  // the highest, nearest the validation range
  auto reversed = entries({"mouse3", "mouse2", "mouse1"});
  CHECK(io::assignSplits(reversed, twenty, "atlas-small"));
  CHECK(reversed[0].split == "validation");
  CHECK(reversed[2].split == "train");
  // Keyed by "mice", mouse3 draws validation itself: nothing is moved.
  auto drawn = entries({"mouse1", "mouse2", "mouse3"});
  CHECK_FALSE(io::assignSplits(drawn, twenty, "mice"));
  CHECK(drawn[2].split == "validation");
  CHECK(drawn[0].split == "train");
  CHECK(drawn[1].split == "train");
  // One study cannot both train and validate; no validation asked for, none made.
  auto one = entries({"mouse1"});
  CHECK_FALSE(io::assignSplits(one, twenty, "atlas-small"));
  CHECK(one[0].split == "train");
  const double none[3] = {1.0, 0.0, 0.0};
  auto all = entries({"mouse1", "mouse2", "mouse3"});
  CHECK_FALSE(io::assignSplits(all, none, "atlas-small"));
  for (const auto& e : all) CHECK(e.split == "train");
}
