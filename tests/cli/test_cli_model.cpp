// Models on this machine (issue 44, item 6): delineate-cli model fetch against a real HTTP server on loopback
// (tests/cli/http_range_server.py: ranges, a connection broken mid-file, 404), model register, list and path, and
// model:NAME as a checkpoint. No test reaches the internet.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "io/base/sha256.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/range_server.h"
#include "tests/common/test_support.h"

using namespace delineate;
namespace fs = std::filesystem;
using test::quoted;

namespace {

// delineate-cli with its cache in the test's folder and no terminal on stdin.
test::Run cli(const test::ScratchDir& dir, const std::string& args) {
  return test::runProgram("/usr/bin/env", "XDG_CACHE_HOME=" + quoted((dir / "cache").string()) + " " +
                                              quoted(DELINEATE_CLI_PATH) + " " + args + " </dev/null");
}

unsigned modeOf(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

}  // namespace

TEST_CASE("model fetch: a URL's file downloaded and verified, found as model:NAME, a wrong hash and a 404 refused by "
          "name, leaving nothing",
          "[cli][model]") {
  test::ScratchDir dir("cli-model-fetch");
  fs::create_directories(dir / "www");
  const std::string hash = test::writeRandomFile(dir / "www" / "weights.pt", 300000, 1);
  test::RangeServer server(dir, dir / "www", "", "server");

  const auto ok = cli(dir, "model fetch " + quoted(server.url("weights.pt")) + " --name tiny --sha256 " + hash + " --json");
  INFO(ok.out);
  REQUIRE(ok.exitCode == 0);
  const auto j = nlohmann::json::parse(ok.out.substr(ok.out.find('{')));
  const fs::path file = dir / "cache" / "delineate" / "models" / "tiny" / "weights.pt";
  CHECK(j["path"] == file.string());
  CHECK(j["sha256"] == hash);
  CHECK(j["verified"] == true);
  CHECK(j["size"] == 300000);
  CHECK(fs::file_size(file) == 300000);
  // Owner-only, as everything this user keeps locally.
  CHECK(modeOf(file) == 0600);
  CHECK(modeOf(file.parent_path()) == 0700);
  CHECK(modeOf(file.parent_path() / "model.json") == 0600);

  const auto path = cli(dir, "model path tiny");
  CHECK(path.exitCode == 0);
  CHECK(path.out == file.string() + "\n");
  const auto list = cli(dir, "model list --json");
  REQUIRE(list.exitCode == 0);
  const auto listed = nlohmann::json::parse(list.out);
  REQUIRE(listed["cached"].size() == 1);
  CHECK(listed["cached"][0]["name"] == "tiny");
  CHECK(listed["known"].size() >= 1);

  // A wrong hash: the download is deleted and the error names the URL and both hashes; the good model stays.
  const std::string wrong(64, 'a');
  const auto bad = cli(dir, "model fetch " + quoted(server.url("weights.pt")) + " --name other --sha256 " + wrong);
  INFO(bad.out);
  CHECK(bad.exitCode == 1);
  CHECK(bad.out.find(hash) != std::string::npos);
  CHECK(bad.out.find(wrong) != std::string::npos);
  CHECK(bad.out.find("weights.pt") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "cache" / "delineate" / "models" / "other" / "model.json"));
  CHECK_FALSE(fs::exists(dir / "cache" / "delineate" / "models" / "other" / "weights.pt.part"));
  CHECK(cli(dir, "model path other").exitCode == 1);

  // Not there: HTTP 404, named.
  const auto missing = cli(dir, "model fetch " + quoted(server.url("none.pt")) + " --name none --sha256 " + hash);
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("HTTP 404") != std::string::npos);
  CHECK(missing.out.find("none.pt") != std::string::npos);

  // A URL without a name, a name that would be a path, a hash that is not one: usage errors.
  CHECK(cli(dir, "model fetch " + quoted(server.url("weights.pt"))).exitCode == 2);
  const auto hostile = cli(dir, "model fetch " + quoted(server.url("weights.pt")) + " --name ../../x");
  CHECK(hostile.exitCode == 1);
  CHECK(hostile.out.find("not a model name") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "x"));
  CHECK(cli(dir, "model fetch " + quoted(server.url("weights.pt")) + " --name h --sha256 12ab").exitCode == 1);
  CHECK(cli(dir, "model fetch ftp://127.0.0.1/x --name f").exitCode == 2);  // neither http(s) nor a known name

  // model:NAME is what engines take: the recorded file (not a checkpoint an engine can read, so the engine says so
  // naming that file); an unknown name is named.
  const auto engine = cli(dir, "segment " + test::kSample + " " + quoted((dir / "out.nii.gz").string()) + " --engine model:tiny");
  CHECK(engine.exitCode != 0);
  CHECK(engine.out.find(file.string()) != std::string::npos);
  const auto unknown = cli(dir, "segment " + test::kSample + " " + quoted((dir / "out.nii.gz").string()) + " --engine model:nope");
  CHECK(unknown.exitCode == 1);
  CHECK(unknown.out.find("no such model") != std::string::npos);
}

TEST_CASE("model fetch: a connection broken mid-file is resumed, a part an earlier run left is resumed, a stale one "
          "and a server without ranges start over",
          "[cli][model]") {
  test::ScratchDir dir("cli-model-resume");
  fs::create_directories(dir / "www");
  const std::string hash = test::writeRandomFile(dir / "www" / "big.pt", 1000000, 2);
  {
    // The first two answers break after 100 kB: resumed from where each stopped (Range), then complete.
    test::RangeServer server(dir, dir / "www", "--break-after 100000 --break-times 2", "broken");
    const auto r = cli(dir, "model fetch " + quoted(server.url("big.pt")) + " --name big --sha256 " + hash + " --json");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    CHECK(j["reconnects"] == 2);
    CHECK(j["verified"] == true);
    CHECK(server.log().find("bytes=100000-") != std::string::npos);
    CHECK(server.log().find("bytes=200000-") != std::string::npos);
  }
  const fs::path folder = dir / "cache" / "delineate" / "models";
  test::RangeServer server(dir, dir / "www", "", "plain");
  {
    // A part an earlier run left (its first 400 kB): only the rest is asked for.
    fs::create_directories(folder / "again");
    std::ifstream whole(dir / "www" / "big.pt", std::ios::binary);
    std::string head(400000, '\0');
    whole.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(folder / "again" / "big.pt.part", std::ios::binary) << head;
    const auto r = cli(dir, "model fetch " + quoted(server.url("big.pt")) + " --name again --sha256 " + hash + " --json");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    CHECK(j["resumed_from"] == 400000);
    CHECK(j["restarted"] == false);
    CHECK(server.log().find("bytes=400000-") != std::string::npos);
    CHECK_FALSE(fs::exists(folder / "again" / "big.pt.part"));
  }
  {
    // A stale part (other bytes): the hash is wrong, so the download is made once more from the first byte.
    fs::create_directories(folder / "stale");
    std::ofstream(folder / "stale" / "big.pt.part", std::ios::binary) << std::string(300000, 'x');
    const auto r = cli(dir, "model fetch " + quoted(server.url("big.pt")) + " --name stale --sha256 " + hash + " --json");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    CHECK(j["restarted"] == true);
    CHECK(j["sha256"] == hash);
  }
  {
    // A server that ignores ranges sends the whole file again: the part starts over instead of doubling.
    test::RangeServer noRanges(dir, dir / "www", "--no-ranges", "noranges");
    fs::create_directories(folder / "whole");
    std::ofstream(folder / "whole" / "big.pt.part", std::ios::binary) << std::string(250000, 'y');
    const auto r = cli(dir, "model fetch " + quoted(noRanges.url("big.pt")) + " --name whole --sha256 " + hash + " --json");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    CHECK(fs::file_size(folder / "whole" / "big.pt") == 1000000);
  }
}

TEST_CASE("model register and the known models: a file recorded where it is, checked against a known model's hash, "
          "a known model's licence must be accepted, one without a download names its page",
          "[cli][model]") {
  test::ScratchDir dir("cli-model-register");
  fs::create_directories(dir / "www");
  const std::string hash = test::writeRandomFile(dir / "mine.pt", 50000, 3);
  const std::string knownHash = test::writeRandomFile(dir / "www" / "known.pt", 60000, 4);
  test::RangeServer server(dir, dir / "www", "", "server");
  const fs::path list = dir / "known.json";
  nlohmann::json knownNet = {{"name", "knownnet"}, {"title", "A known net"}, {"url", server.url("known.pt")},
                             {"file", "known.pt"}, {"sha256", knownHash}, {"size", 60000},
                             {"licence", "Test licence, research only"}};
  nlohmann::json pageOnly = {{"name", "pageonly"}, {"page", "https://example.invalid/get-it"}, {"licence", "Another licence"}};
  nlohmann::json known;
  known["models"] = nlohmann::json::array({knownNet, pageOnly});
  std::ofstream(list) << known.dump();

  const auto reg = cli(dir, "model register " + quoted((dir / "mine.pt").string()) + " --name mine --json");
  INFO(reg.out);
  REQUIRE(reg.exitCode == 0);
  const auto j = nlohmann::json::parse(reg.out);
  CHECK(j["path"] == fs::canonical(dir / "mine.pt").string());
  CHECK(j["sha256"] == hash);
  CHECK(j["verified"] == false);
  CHECK(j["source"] == "register");
  CHECK(cli(dir, "model path mine").out == fs::canonical(dir / "mine.pt").string() + "\n");
  // Registered under a known model's name, the file must have its published hash.
  const auto wrong = cli(dir, "model register " + quoted((dir / "mine.pt").string()) + " --name knownnet --known " +
                                  quoted(list.string()));
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.out.find(knownHash) != std::string::npos);
  // A file changed since it was registered is refused by name.
  std::ofstream(dir / "mine.pt", std::ios::app) << "more";
  const auto changed = cli(dir, "model path mine");
  CHECK(changed.exitCode == 1);
  CHECK(changed.out.find("changed since") != std::string::npos);

  // A known model: the licence is shown, and without a terminal --yes is needed; nothing is fetched before.
  const auto ask = cli(dir, "model fetch knownnet --known " + quoted(list.string()));
  CHECK(ask.exitCode == 2);
  CHECK(ask.out.find("Test licence, research only") != std::string::npos);
  CHECK(ask.out.find("--yes") != std::string::npos);
  CHECK(server.log().empty());
  const auto yes = cli(dir, "model fetch knownnet --yes --known " + quoted(list.string()) + " --json");
  INFO(yes.out);
  REQUIRE(yes.exitCode == 0);
  const auto fetched = nlohmann::json::parse(yes.out.substr(yes.out.find('{')));
  CHECK(fetched["verified"] == true);
  CHECK(fetched["licence"] == "Test licence, research only");
  // One without a direct download names where to get it and how to register it.
  const auto page = cli(dir, "model fetch pageonly --yes --known " + quoted(list.string()));
  CHECK(page.exitCode == 1);
  CHECK(page.out.find("https://example.invalid/get-it") != std::string::npos);
  CHECK(page.out.find("model register") != std::string::npos);
  // The installed list parses, and lists VISTA-3D with its licence.
  const auto installed = cli(dir, "model list");
  CHECK(installed.exitCode == 0);
  CHECK(installed.out.find("vista3d") != std::string::npos);
  CHECK(installed.out.find("non-commercial") != std::string::npos);
  // A list with a path for a name is refused naming the entry.
  std::ofstream(dir / "hostile.json") << R"({"models": [{"name": "../up", "url": "http://127.0.0.1/x", "licence": "x"}]})";
  const auto hostile = cli(dir, "model list --known " + quoted((dir / "hostile.json").string()));
  CHECK(hostile.exitCode == 1);
  CHECK(hostile.out.find("../up") != std::string::npos);
}
