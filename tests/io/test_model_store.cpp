// The model cache's records (io/models/model_store.h) as someone else may have left them: a record is trusted only
// as far as it is checked. A downloaded model's file must lie in its own folder, a name is never a path, and a record
// that contradicts its folder or itself is an error naming it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/base/sha256.h"
#include "io/models/model_store.h"
#include "tests/common/test_support.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

void writeRecord(const fs::path& cache, const std::string& folder, const nlohmann::json& record) {
  fs::create_directories(cache / folder);
  std::ofstream(cache / folder / "model.json") << record.dump();
}

}  // namespace

TEST_CASE("model cache: edited records are refused by name, a registered file found where it is", "[io][model]") {
  test::ScratchDir dir("model-store");
  const fs::path cache = dir / "models";
  const std::string bytes(1000, 'w');
  std::ofstream(dir / "weights.pt", std::ios::binary) << bytes;
  const std::string hash = io::sha256Hex(bytes.data(), bytes.size());

  auto registered = io::registerModel(cache.string(), "mine", (dir / "weights.pt").string(), hash, "some licence");
  REQUIRE(registered.ok());
  CHECK(registered->verified);
  auto found = io::findCachedModel(cache.string(), "mine");
  REQUIRE(found.ok());
  CHECK(found->path == fs::canonical(dir / "weights.pt").string());
  auto resolved = io::resolveModelReference("model:mine", cache.string());
  REQUIRE(resolved.ok());
  CHECK(*resolved == found->path);
  CHECK(io::resolveModelReference("/a/file.pt", cache.string()).value() == "/a/file.pt");

  // A record claiming a download whose file lies outside its folder (an engine would be pointed at another file).
  nlohmann::json forged = {{"name", "forged"}, {"path", (dir / "weights.pt").string()}, {"sha256", hash},
                           {"size", 1000},     {"source", "download"}};
  writeRecord(cache, "forged", forged);
  auto f = io::findCachedModel(cache.string(), "forged");
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().subject.find("forged/model.json") != std::string::npos);
  CHECK(f.error().detail.find("must lie in its folder") != std::string::npos);
  // The listing names the bad record rather than skipping it.
  auto listed = io::listCachedModels(cache.string());
  REQUIRE_FALSE(listed.ok());
  CHECK(listed.error().subject.find("forged") != std::string::npos);
  fs::remove_all(cache / "forged");

  // A record naming another model than its folder, a hash that is none, a relative path: each refused, named.
  nlohmann::json other = forged;
  other["name"] = "someone";
  other["source"] = "register";
  writeRecord(cache, "renamed", other);
  CHECK(io::findCachedModel(cache.string(), "renamed").error().detail.find("names 'someone'") != std::string::npos);
  fs::remove_all(cache / "renamed");
  nlohmann::json badHash = forged;
  badHash["name"] = "badhash";
  badHash["source"] = "register";
  badHash["sha256"] = "abc";
  writeRecord(cache, "badhash", badHash);
  CHECK(io::findCachedModel(cache.string(), "badhash").error().detail.find("SHA-256") != std::string::npos);
  fs::remove_all(cache / "badhash");
  nlohmann::json relative = forged;
  relative["name"] = "relative";
  relative["source"] = "register";
  relative["path"] = "weights.pt";
  writeRecord(cache, "relative", relative);
  CHECK(io::findCachedModel(cache.string(), "relative").error().detail.find("absolute") != std::string::npos);
  fs::remove_all(cache / "relative");
  writeRecord(cache, "garbage", nlohmann::json::array({1, 2}));
  std::ofstream(cache / "garbage" / "model.json") << "{not json";
  CHECK_FALSE(io::findCachedModel(cache.string(), "garbage").ok());
  fs::remove_all(cache / "garbage");

  // Names that would be paths are refused before anything is read or written.
  for (const std::string& name : std::vector<std::string>{"../up", "a/b", ".hidden", "", std::string(65, 'x')}) {
    CHECK_FALSE(io::findCachedModel(cache.string(), name).ok());
    CHECK_FALSE(io::registerModel(cache.string(), name, (dir / "weights.pt").string()).ok());
  }
  CHECK_FALSE(fs::exists(dir / "up"));
  // A wrong expected hash registers nothing.
  CHECK_FALSE(io::registerModel(cache.string(), "wrong", (dir / "weights.pt").string(), std::string(64, '0')).ok());
  CHECK_FALSE(fs::exists(cache / "wrong" / "model.json"));
  REQUIRE(io::listCachedModels(cache.string()).ok());
  CHECK(io::listCachedModels(cache.string())->size() == 1);
}
