// Signature verification at share scale (issue 47): a signed share of N records (label revisions with a submit and an
// approval each, 100 studies) and its unsigned twin (the same files without signatures or roster), each checked by
// `delineate-cli trust verify` as a whole process; OpenSSL's own `openssl speed ed25519` beside it as the ceiling of
// what one core verifies. Goal: 10,000 records under 1 s.
//
//   bench_trust --cli PATH [--records N] [--out DIR]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_support.h"
#include "io/base/sha256.h"
#include "io/share/share_trust.h"
#include "io/trust/roster.h"
#include "io/trust/signing_key.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

using Outcome = bench::ProcessOutcome;
Outcome run(const std::string& command, const fs::path& log) { return bench::runProcess(command, log.string()); }

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_trust: %s\n", what.c_str());
  std::exit(1);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) die("cannot write " + p.string());
}

void sign(nlohmann::json& j, const io::SigningKey* key, const std::string& storeId, const std::string& rel) {
  if (!key) return;
  j["signature"] = {{"alg", "ed25519"}, {"key", key->publicKey().fingerprint()}};
  j["signature"]["value"] = key->sign(io::recordSigningMessage(storeId, rel, j.dump()));
}

// Revisions with a submit and an approval each, spread over 100 studies, written directly (no fsync: this measures
// reading). `ann`/`carol` null: unsigned.
void populate(const io::ShareStore& store, int revisions, const io::SigningKey* ann, const io::SigningKey* carol) {
  const std::string content(200, 'x');
  const std::string sha = io::sha256Hex(content.data(), content.size());
  for (int i = 0; i < revisions; ++i) {
    const int study = i % 100, number = i / 100 + 1;
    char stem[16];
    std::snprintf(stem, sizeof stem, "r%06d", number);
    const std::string set = "studies/s" + std::to_string(study) + "/labelsets/atlas";
    fs::create_directories(fs::path(store.root()) / set / "reviews");
    write(fs::path(store.root()) / set / (std::string(stem) + ".nii.gz"), content);
    nlohmann::json meta{{"format", 1},         {"content", std::string(stem) + ".nii.gz"}, {"sha256", sha},
                        {"bytes", content.size()}, {"author", "ann"}, {"time", "2026-11-28T10:00:00.000Z"},
                        {"base", number - 1},  {"message", "bench"}, {"conflict", false}, {"latestAtSave", number - 1}};
    sign(meta, ann, store.id(), set + "/" + stem + ".json");
    write(fs::path(store.root()) / set / (std::string(stem) + ".json"), meta.dump(2) + "\n");
    const char* steps[][2] = {{"submit", "ann"}, {"approve", "carol"}};
    for (int s = 0; s < 2; ++s) {
      char name[32];
      std::snprintf(name, sizeof name, "r%06d-%04d.json", number, s + 1);
      nlohmann::json j{{"revision", number}, {"sequence", s + 1}, {"action", steps[s][0]}, {"user", steps[s][1]},
                       {"host", "bench"},     {"time", "2026-11-28T10:00:01.000Z"}, {"comment", ""}};
      sign(j, s == 0 ? ann : carol, store.id(), set + "/reviews/" + name);
      write(fs::path(store.root()) / set / "reviews" / name, j.dump(2) + "\n");
    }
  }
}

io::SigningKey keyFor(const fs::path& out, const std::string& user) {
  auto key = io::SigningKey::generate();
  if (!key) die(key.error().describe());
  const fs::path path = out / "cfg" / user / "delineate" / "identity" / "ed25519.pem";
  fs::remove(path);
  if (core::Status s = key->saveNew(path.string()); !s) die(s.error().describe());
  return *key;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string cli;
  int records = 10000;
  fs::path out = "/tmp/delineate-bench-trust";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--cli") cli = argv[i + 1];
    else if (a == "--records") records = std::atoi(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
    else die("unknown option " + a);
  }
  if (cli.empty() || records < 3) die("usage: bench_trust --cli PATH [--records N] [--out DIR]");
  const int revisions = (records + 2) / 3;
  fs::remove_all(out);
  fs::create_directories(out / "signed");
  fs::create_directories(out / "unsigned");

  const io::SigningKey alice = keyFor(out, "alice"), ann = keyFor(out, "ann"), carol = keyFor(out, "carol");
  ::setenv("XDG_CONFIG_HOME", (out / "cfg" / "alice").c_str(), 1);
  auto signedStore = io::ShareStore::initialize((out / "signed").string());
  auto unsignedStore = io::ShareStore::initialize((out / "unsigned").string());
  if (!signedStore || !unsignedStore) die("cannot make the shares in " + out.string());
  if (auto v = io::createRoster(*signedStore, "alice", alice); !v) die(v.error().describe());
  if (auto v = io::updateRoster(*signedStore, alice, [&](io::Roster& r) {
        r.members.push_back({"ann", ann.publicKey().base64(), {"annotator"}, ann.boxPublicKey()});
        r.members.push_back({"carol", carol.publicKey().base64(), {"reviewer"}, carol.boxPublicKey()});
        return core::Status::success();
      });
      !v)
    die(v.error().describe());
  populate(*signedStore, revisions, &ann, &carol);
  populate(*unsignedStore, revisions, nullptr, nullptr);

  std::printf("signature verification: %d records (%d label revisions, each submitted and approved) in 100 studies, "
              "each check a whole process, median of 5 (after one warm-up run)\n\n",
              revisions * 3, revisions);
  std::printf("%-44s %9s %9s %8s\n", "", "wall s", "peak MB", "exit");
  const std::string env = "XDG_CONFIG_HOME=" + q(out / "cfg" / "ann") + " ";
  double signedSeconds = 0, unsignedSeconds = 0;
  for (const auto& [label, share] : {std::make_pair("trust verify, signed share (ours)", out / "signed"),
                                     std::make_pair("trust verify, unsigned twin (reading alone)", out / "unsigned")}) {
    const fs::path log = out / (share.filename().string() + ".json");
    run(env + q(cli) + " trust verify " + q(share) + " --json", log);
    std::vector<double> times;
    Outcome o;
    for (int i = 0; i < 5; ++i) {
      o = run(env + q(cli) + " trust verify " + q(share) + " --json", log);
      times.push_back(o.seconds);
    }
    std::printf("%-44s %9.3f %9ld %8d\n", label, median(times), o.peakMb, o.status);
    std::ifstream in(log);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || j.value("records", 0) != revisions * 3) die("unexpected report in " + log.string());
    if (share.filename() == "signed") {
      signedSeconds = median(times);
      if (j["counts"].value("signed", 0) != revisions * 3 || o.status != 0) die("not every record verified: " + log.string());
    } else {
      unsignedSeconds = median(times);
    }
  }
  std::printf("\nverification's own cost: %.3f s for %d signatures (%.1f us each, on %u cores)\n",
              signedSeconds - unsignedSeconds, revisions * 3, 1e6 * (signedSeconds - unsignedSeconds) / (revisions * 3),
              std::max(1u, std::thread::hardware_concurrency()));
  std::printf("goal: %d records under 1 s: %s\n\n", revisions * 3, signedSeconds < 1.0 ? "met" : "MISSED");
  std::printf("peer: OpenSSL's own Ed25519 benchmark on one core (openssl speed -seconds 2 ed25519):\n");
  std::fflush(stdout);
  std::system("openssl speed -seconds 2 ed25519 2>/dev/null | tail -n 2");
  return 0;
}
