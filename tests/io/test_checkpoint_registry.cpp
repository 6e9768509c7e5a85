// The model registry's reading of checkpoint revisions (io/studies/checkpoint_fetch.h): what each revision's sidecar
// says (architecture, the dataset it learnt from, the best validation's Dice per structure under the user's label ids),
// every revision of every model, and a sidecar with notes in unexpected types read for what it does say.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "tests/common/sealed_files.h"
#include "tests/common/test_support.h"

using namespace delineate;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json atlasSidecar(int iteration, double best, const json& validations) {
  return {{"architecture", {{"name", "SegResNetDS"}}},
          {"labels", json::array({{{"class", 1}, {"id", 11}, {"name", "hippocampus"}}, {{"class", 2}, {"id", 40}, {"name", "cortex"}}})},
          {"bestDice", best},
          {"iteration", iteration},
          {"training", {{"iterations", 500}, {"device", "cuda"}, {"precision", "bf16"}}},
          {"data", {{"dataset", "mice"}, {"datasetRevision", 3},
                    {"cases", json::array({{{"split", "train"}}, {{"split", "train"}}, {{"split", "validation"}}})}}},
          {"validations", validations}};
}

// A file's content as io's readers see it (a sealed file decrypted).
std::string contentOf(const std::string& path) {
  auto in = io::openContentStream(path, "checkpoint");
  REQUIRE(in.ok());
  return std::string(std::istreambuf_iterator<char>(**in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("checkpoint registry: each revision's metrics, dataset and author, by the user's label ids", "[share][train]") {
  test::ScratchDir dir("checkpoint-registry");
  fs::create_directories(dir.path() / "share");
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(store.ok());
  test::writeTextFile(dir.path() / "w.pt", "weights");
  auto models = io::ModelCheckpoints::open(*store, "mice-model");
  REQUIRE(models.ok());
  // Two revisions of one model: the best of the first validations, then the final one whose best stays the first.
  const json v100{{"iteration", 100}, {"meanDice", 0.70}, {"perClass", {{"1", 0.8}, {"2", 0.6}}}};
  const json v200{{"iteration", 200}, {"meanDice", 0.65}, {"perClass", {{"1", 0.75}, {"2", 0.55}}}};
  REQUIRE(models->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 0, "iteration 100 (best so far)", atlasSidecar(100, 0.70, json::array({v100})).dump()}, ".pt").ok());
  REQUIRE(models->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 1, "iteration 200 (final)", atlasSidecar(200, 0.70, json::array({v100, v200})).dump()}, ".pt").ok());
  // A VISTA-3D fine-tune: its per-class keys are VISTA-3D ids, mapped back to the user's.
  auto vista = io::ModelCheckpoints::open(*store, "ct-organs");
  REQUIRE(vista.ok());
  const json vistaSidecar{{"architecture", {{"name", "VISTA3D"}}},
                          {"labels", json::array({{{"id", 7}, {"vista3d", 3}, {"name", "spleen"}}, {{"id", 300}, {"vista3d", 133}, {"name", "lesion"}}})},
                          {"bestDice", 0.5},
                          {"validations", json::array({{{"meanDice", 0.5}, {"perClass", {{"3", 0.9}, {"133", 0.1}}}}})}};
  REQUIRE(vista->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"bob", 0, "", vistaSidecar.dump()}, ".pt").ok());
  // A sidecar with notes in other types: read for what it says in the expected ones, never an error.
  auto odd = io::ModelCheckpoints::open(*store, "odd");
  REQUIRE(odd.ok());
  const json oddSidecar{{"architecture", "SegResNetDS"}, {"bestDice", "high"}, {"labels", json::array({1, 2})},
                        {"validations", json::array({{{"meanDice", 0.3}, {"perClass", {{"x", 0.5}, {"1", "good"}, {"2", 0.25}}}}})}};
  REQUIRE(odd->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"eve", 0, "", oddSidecar.dump()}, ".pt").ok());

  // Issue 41: weights saved between validations (a run stopped at 280, its last validation at 200, by a
  // delineate-train that did not validate when stopping): no Dice of its own, never iteration 200's.
  REQUIRE(models->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 2, "iteration 280 (final)", atlasSidecar(280, 0.70, json::array({v100, v200})).dump()}, ".pt").ok());

  auto all = io::listCheckpointRevisions(*store);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 5);
  const auto& stopped = (*all)[3];
  CHECK(stopped.revision == 3);
  CHECK(stopped.iteration == 280);
  CHECK(stopped.dice == -1);
  CHECK(stopped.perClass.empty());
  CHECK(stopped.validatedIteration == 0);
  CHECK(stopped.lastValidationIteration == 200);
  CHECK(stopped.bestDice == Approx(0.70));  // the run's best up to these weights, which it says as such
  all->erase(all->begin() + 3);
  const auto& ct = (*all)[0];
  CHECK(ct.model == "ct-organs");
  CHECK(ct.architecture == "VISTA3D");
  CHECK(ct.author == "bob");
  REQUIRE(ct.perClass.size() == 2);
  CHECK(ct.dice == Approx(0.5));
  CHECK(ct.perClass[0].id == 7);
  CHECK(ct.perClass[0].name == "spleen");
  CHECK(ct.perClass[0].dice == Approx(0.9));
  CHECK(ct.perClass[1].id == 300);
  CHECK(ct.perClass[1].dice == Approx(0.1));
  const auto& first = (*all)[1];
  const auto& final = (*all)[2];
  CHECK(first.model == "mice-model");
  CHECK(first.revision == 1);
  CHECK(final.revision == 2);
  CHECK(final.message == "iteration 200 (final)");
  CHECK(final.iteration == 200);
  CHECK(final.iterations == 500);
  CHECK(final.dataset == "mice");
  CHECK(final.datasetRevision == 3);
  CHECK(final.trainCases == 2);
  CHECK(final.validationCases == 1);
  CHECK(final.device == "cuda");
  CHECK(final.precision == "bf16");
  CHECK(final.classes == 2);
  CHECK(final.bestDice == Approx(0.70));
  // The validation of its own weights (iteration 200's, not the run's best), under the label ids the cases use.
  CHECK(final.dice == Approx(0.65));
  CHECK(final.validatedIteration == 200);
  CHECK(final.lastValidationIteration == 0);
  REQUIRE(final.perClass.size() == 2);
  CHECK(final.perClass[0].id == 11);
  CHECK(final.perClass[0].name == "hippocampus");
  CHECK(final.perClass[0].dice == Approx(0.75));
  CHECK(final.perClass[1].id == 40);
  CHECK(final.perClass[1].dice == Approx(0.55));
  CHECK(first.dice == Approx(0.70));
  REQUIRE(first.perClass.size() == 2);
  CHECK(first.perClass[0].dice == Approx(0.8));
  const auto& strange = (*all)[3];
  CHECK(strange.model == "odd");
  CHECK(strange.architecture.empty());
  CHECK(strange.bestDice == -1);
  CHECK(strange.classes == 2);
  CHECK(strange.dice == Approx(0.3));  // no iteration: its best
  REQUIRE(strange.perClass.size() == 1);  // "x" is no class, "good" no Dice
  CHECK(strange.perClass[0].id == 2);
  CHECK(strange.perClass[0].name.empty());

  // One model's revisions; the models by their newest.
  auto one = io::listCheckpointRevisions(*store, "mice-model");
  REQUIRE(one.ok());
  CHECK(one->size() == 3);
  auto none = io::listCheckpointRevisions(*store, "no-such-model");
  REQUIRE(none.ok());  // a model not trained yet has no revision
  CHECK(none->empty());
  auto newest = io::listCheckpointModels(*store);
  REQUIRE(newest.ok());
  REQUIRE(newest->size() == 3);
  CHECK((*newest)[1].model == "mice-model");
  CHECK((*newest)[1].revision == 3);
  CHECK((*newest)[1].dataset == "mice");
  CHECK((*newest)[1].perClass.empty());  // r3 was not validated
}

// Issue 40: a pinned checkpoint's cached copy is used only while it hashes to the revision's SHA-256: with the share
// offline, a changed copy is an error naming it (never loaded); online, it is replaced by a verified copy.
TEST_CASE("checkpoint cache: a changed copy is never used, offline an error naming it, online fetched again",
          "[share][train]") {
  test::ScratchDir dir("checkpoint-cache-hash");
  const fs::path share = dir.path() / "share", cache = dir.path() / "cache";
  fs::create_directories(share);
  auto store = io::ShareStore::initialize(share.string());
  REQUIRE(store.ok());
  test::writeTextFile(dir.path() / "w.pt", std::string(5000, 'w'));
  auto models = io::ModelCheckpoints::open(*store, "organs");
  REQUIRE(models.ok());
  REQUIRE(models->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 0, "", "{}"}, ".pt").ok());
  const std::string pinned = "share:" + share.string() + "#organs@1";
  auto first = io::resolveCheckpoint(pinned, cache.string());
  REQUIRE(first.ok());
  // Sealed at rest with its sidecar (weights learnt from patient data); engines read the content through io.
  CHECK(io::isSealedFile(*first));
  CHECK(io::isSealedFile(fs::path(*first).replace_extension(".json").string()));
  CHECK(test::readTextFile(*first).find(std::string(100, 'w')) == std::string::npos);
  CHECK(contentOf(*first) == std::string(5000, 'w'));

  // Changed in the cache (a plain copy of another content): online, the copy is fetched again from the share.
  test::writeTextFile(*first, std::string(4999, 'w') + "x");
  auto again = io::resolveCheckpoint(pinned, cache.string());
  REQUIRE(again.ok());
  CHECK(*again == *first);
  CHECK(io::isSealedFile(*again));
  CHECK(contentOf(*again) == std::string(5000, 'w'));
  // A sealed copy whose content was swapped for other content (sealed under the same key) is refetched too.
  REQUIRE(test::writeSealed(*first, std::string(4999, 'w') + "y").ok());
  auto swapped = io::resolveCheckpoint(pinned, cache.string());
  REQUIRE(swapped.ok());
  CHECK(contentOf(*swapped) == std::string(5000, 'w'));

  // Changed again, and the share unreachable: an error naming the copy, not its path to load.
  test::writeTextFile(*first, std::string(4999, 'w') + "x");
  fs::rename(share, dir.path() / "share-offline");
  std::string note;
  auto offline = io::resolveCheckpoint(pinned, cache.string(), &note);
  REQUIRE_FALSE(offline.ok());
  CHECK(offline.error().code == core::ErrorCode::Corrupt);
  CHECK(offline.error().subject == *first);
  CHECK(offline.error().detail.find("does not match the revision's SHA-256") != std::string::npos);
  CHECK(note.empty());

  // An intact copy is still used offline, and said.
  test::writeTextFile(*first, std::string(5000, 'w'));
  auto intact = io::resolveCheckpoint(pinned, cache.string(), &note);
  REQUIRE(intact.ok());
  CHECK(*intact == *first);
  CHECK(note.find("cannot be reached") != std::string::npos);
}
