// What the share store keeps: label maps as .nii.gz revisions (byte-exact voxels and geometry back), model
// checkpoints streamed in and out with their sidecar and hash, and the faults a real share throws at a save: a
// read-only share, permission denied for the saving user, and damage found when a checkpoint is loaded.
#include <catch2/catch.hpp>

#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/edit_transaction.h"
#include "io/volume/nifti.h"
#include "io/base/sha256.h"
#include "io/share/audit_log.h"
#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

core::LabelMap sampleLabels(int seed) {
  const core::Geometry g({40, 33, 21}, {0.8, 0.8, 2.5}, {-12.5, 30.0, 101.0}, test::rotationMatrix(0.2, -0.1, 0.05));
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  core::EditTransaction t(*map, "paint");
  t.fillBox(core::IndexBox{{2, 2, 2}, {20 + seed, 15, 10}}, 1);
  t.paintSphere(g.indexToLps(core::Vec3{25.0, 20.0, 12.0}), 6.0 + seed, static_cast<core::Label>(7 + seed));
  t.set({39, 32, 20}, 65535);
  REQUIRE(t.commit().has_value());
  return std::move(map).value();
}

void writeBytes(const fs::path& p, std::size_t size, unsigned seed) {
  std::ofstream out(p, std::ios::binary);
  std::vector<char> block(1 << 20);
  std::uint32_t x = seed * 2654435761u + 1;
  for (std::size_t done = 0; done < size;) {
    for (auto& c : block) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      c = static_cast<char>(x);
    }
    const std::size_t n = std::min(block.size(), size - done);
    out.write(block.data(), static_cast<std::streamsize>(n));
    done += n;
  }
}

std::string slurp(const fs::path& p) { return test::readTextFile(p); }

}  // namespace

TEST_CASE("content: a label map saved as a revision reads back with identical voxels and geometry, as a .nii.gz "
          "any NIfTI reader opens",
          "[share][share-suite][share-content]") {
  ScratchDir dir("content-labels");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "ct-001", "organs");
  REQUIRE(set.ok());
  const core::LabelMap first = sampleLabels(0), second = sampleLabels(3);
  auto r1 = set->saveLabels(first, {"alice", 0, "first pass", {}});
  REQUIRE(r1.ok());
  auto r2 = set->saveLabels(second, {"alice", 1, "liver fixed", {}});
  REQUIRE(r2.ok());
  CHECK(r2->content == "r000002.nii.gz");
  CHECK_FALSE(r2->conflict);

  for (const auto* expected : {&first, &second}) {
    const int rev = expected == &first ? 1 : 2;
    auto back = set->loadLabels(rev);
    REQUIRE(back.ok());
    CHECK(back->geometry().isCloseTo(expected->geometry()));
    CHECK(std::equal(back->data(), back->data() + back->size(), expected->data()));
  }
  // The revision file itself is an ordinary NIfTI label map.
  auto direct = io::readNiftiLabels((dir / "studies/ct-001/labelsets/organs/r000002.nii.gz").string());
  REQUIRE(direct.ok());
  CHECK(std::equal(direct->data(), direct->data() + direct->size(), second.data()));
  // Damage is found before decoding.
  {
    std::fstream f(dir / "studies/ct-001/labelsets/organs/r000001.nii.gz", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  auto bad = set->loadLabels(1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == core::ErrorCode::Corrupt);
  CHECK(bad.error().subject.find("r000001.nii.gz") != std::string::npos);
}

TEST_CASE("content: a checkpoint streams into the share with its sidecar, copies out verified, and a damaged one "
          "leaves the local copy untouched",
          "[share][share-suite][share-content]") {
  ScratchDir dir("content-ckpt");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto ckpts = io::ModelCheckpoints::open(*store, "vista3d-mouse");
  REQUIRE(ckpts.ok());
  const fs::path source = dir / "model.pt";
  writeBytes(source, (std::size_t(20) << 20) + 12345, 7);  // several 8 MiB blocks and a ragged tail
  const nlohmann::json sidecar{{"architecture", {{"name", "vista3d"}, {"width", 48}}},
                               {"metrics", {{"dice", 0.91}}},
                               {"provenance", {{"labelSet", "organs"}, {"revision", 4}}}};
  auto saved = ckpts->saveFile(source.string(), {"trainer", 0, "epoch 40", sidecar.dump()});
  REQUIRE(saved.ok());
  CHECK(saved->number == 1);
  CHECK(saved->content == "r000001.pt");
  CHECK(saved->bytes == fs::file_size(source));
  CHECK(saved->sha256 == *io::sha256OfFile(source.string()));
  // No staging file is left behind.
  for (const auto& e : fs::directory_iterator(dir / "checkpoints/vista3d-mouse"))
    CHECK(e.path().filename().string().rfind(".upload-", 0) != 0);

  auto listed = ckpts->list();
  REQUIRE(listed.ok());
  REQUIRE(listed->revisions.size() == 1);
  CHECK(nlohmann::json::parse(listed->revisions[0].extraJson) == sidecar);

  const fs::path local = dir / "local.pt";
  auto copied = ckpts->copyOut(1, local.string());
  REQUIRE(copied.ok());
  CHECK(slurp(local) == slurp(source));
  REQUIRE(ckpts->verify(1).ok());

  // A safetensors file keeps its suffix; a sidecar that is not an object is refused.
  writeBytes(dir / "m.safetensors", 1000, 9);
  auto st = ckpts->saveFile((dir / "m.safetensors").string(), {"trainer", 1, "", {}}, ".safetensors");
  REQUIRE(st.ok());
  CHECK(st->content == "r000002.safetensors");
  auto badSidecar = ckpts->saveFile(source.string(), {"trainer", 2, "", "[1,2]"});
  REQUIRE_FALSE(badSidecar.ok());
  CHECK(badSidecar.error().code == core::ErrorCode::InvalidArgument);

  // Bit rot in the share: copyOut refuses and the local copy stays as it was.
  {
    std::fstream f(dir / "checkpoints/vista3d-mouse/r000001.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(9) << 20);
    const char c = static_cast<char>(f.peek());
    f.put(static_cast<char>(c ^ 1));
  }
  const std::string before = slurp(local);
  auto damaged = ckpts->copyOut(1, local.string());
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.error().code == core::ErrorCode::Corrupt);
  CHECK(damaged.error().subject.find("r000001.pt") != std::string::npos);
  CHECK(slurp(local) == before);
  CHECK_FALSE(ckpts->verify(1).ok());
  // A truncated checkpoint is refused by size.
  fs::resize_file(dir / "checkpoints/vista3d-mouse/r000002.safetensors", 10);
  auto cut = ckpts->verify(2);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().detail.find("truncated") != std::string::npos);
  // A missing source names the file.
  auto missing = ckpts->saveFile((dir / "nope.pt").string(), {"trainer", 2, "", {}});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().subject.find("nope.pt") != std::string::npos);
  CHECK(ckpts->list()->latest() == 2);  // nothing was claimed for it
}

TEST_CASE("content: a share remounted read-only refuses the save with the reason, earlier revisions still load",
          "[share][share-content]") {
  ScratchDir dir("content-ro");
  const fs::path mountPoint = dir / "share";
  fs::create_directories(mountPoint);
  if (::mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=8m,mode=0755") != 0) {
    const std::string why = std::strerror(errno);
    if (test::runningInCi()) FAIL("cannot mount a tmpfs for this test under CI: " << why);
    WARN("skipped: cannot mount a tmpfs here (" << why << ")");
    return;
  }
  struct Unmount {
    fs::path p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mountPoint};
  auto store = io::ShareStore::initialize(mountPoint.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "s", "l");
  REQUIRE(set.ok());
  const auto labels = sampleLabels(1);
  REQUIRE(set->saveLabels(labels, {"a", 0, "", {}}).ok());
  REQUIRE(::mount(nullptr, mountPoint.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0);

  auto r = set->saveLabels(sampleLabels(2), {"a", 1, "", {}});
  REQUIRE_FALSE(r.ok());
  INFO(r.error().describe());
  CHECK(r.error().code == core::ErrorCode::WriteFailed);
  CHECK(r.error().describe().find("Read-only file system") != std::string::npos);
  CHECK(r.error().subject.find(mountPoint.string()) == 0);
  // The read is still audited: the share takes no record, so this user's own log of the share does (issue 47).
  const std::string oldCache = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  auto back = set->loadLabels(1);
  if (oldCache.empty()) ::unsetenv("XDG_CACHE_HOME");
  else ::setenv("XDG_CACHE_HOME", oldCache.c_str(), 1);
  REQUIRE(back.ok());
  CHECK(std::equal(back->data(), back->data() + back->size(), labels.data()));
  CHECK(set->list()->revisions.size() == 1);
  const fs::path local = dir / "cache" / "delineate" / "audit" / store->id() / ("audit-" + io::localHostName() + ".jsonl");
  std::ifstream localLog(local);
  const std::string logged((std::istreambuf_iterator<char>(localLog)), {});
  CHECK(logged.find("\"action\":\"read\"") != std::string::npos);
  CHECK(logged.find("\"labelSet\":\"l\"") != std::string::npos);
  CHECK(io::verifyAuditLog(local.string())->ok());
}

TEST_CASE("content: a user without write permission on the share gets permission denied naming the file, nothing "
          "changes",
          "[share][share-content]") {
  ScratchDir dir("content-perm");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "s", "l");
  REQUIRE(set.ok());
  REQUIRE(set->saveLabels(sampleLabels(1), {"a", 0, "", {}}).ok());
  if (::geteuid() != 0) {
    WARN("skipped: the test drops to user 'nobody', which needs root");
    if (test::runningInCi()) FAIL("needs root under CI");
    return;
  }
  // The share is readable by all and writable by its owner (root) only; a child process becomes 'nobody'. (Not in the
  // sshfs run: a FUSE mount without allow_other hides itself from other users entirely.)
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  for (const auto& e : fs::recursive_directory_iterator(dir.path()))
    if (e.is_directory()) fs::permissions(e.path(), fs::perms(0755));
    else fs::permissions(e.path(), fs::perms(0644));
  fs::create_directories(dir.path() / "nobody-cache");
  fs::permissions(dir.path() / "nobody-cache", fs::perms::all);
  int pipeFd[2];
  REQUIRE(::pipe(pipeFd) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipeFd[0]);
    std::string report;
    // Its own cache folder, where its record of the read goes (the share takes no writes from it).
    ::setenv("XDG_CACHE_HOME", (dir.path() / "nobody-cache").c_str(), 1);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
      report = "setuid failed";
    } else {
      auto s = io::ShareStore::open(dir.path().string());
      if (!s) report = "open failed: " + s.error().describe();
      else {
        auto l = io::LabelSetRevisions::open(*s, "s", "l");
        auto readable = l->loadLabels(1);  // reading is allowed
        auto r = l->saveLabels(sampleLabels(2), {"nobody", 1, "", {}});
        report = std::string(readable ? "read-ok|" : "read-failed|") + (r ? "saved" : r.error().describe());
      }
    }
    (void)!::write(pipeFd[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(pipeFd[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipeFd[0], buf, sizeof buf)) > 0;) report.append(buf, static_cast<std::size_t>(n));
  ::close(pipeFd[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  INFO(report);
  CHECK(report.rfind("read-ok|", 0) == 0);
  CHECK(report.find("Permission denied") != std::string::npos);
  std::ifstream nobodyLog(dir.path() / "nobody-cache" / "delineate" / "audit" / store->id() /
                          ("audit-" + io::localHostName() + ".jsonl"));
  const std::string nobodyRead((std::istreambuf_iterator<char>(nobodyLog)), {});
  CHECK(nobodyRead.find("\"action\":\"read\"") != std::string::npos);
  CHECK(nobodyRead.find("\"user\":\"nobody\"") != std::string::npos);
  CHECK(report.find("studies/s/labelsets/l") != std::string::npos);
  auto listed = set->list();
  REQUIRE(listed.ok());
  CHECK(listed->revisions.size() == 1);
  CHECK(listed->incomplete.empty());
}
