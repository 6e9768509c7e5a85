// The share store's foundation on real file systems: a real tmpfs mount for disk-full and for a share that is
// detached after opening (mount(2) needs root; where it is refused the case says so and is skipped, except under CI).
#include <catch2/catch.hpp>

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "io/base/sha256.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

// A tmpfs of `size` mounted at `where` for the lifetime of the object.
class TmpfsMount {
 public:
  TmpfsMount(const fs::path& where, const std::string& size) : m_where(where) {
    fs::create_directories(where);
    const std::string options = "size=" + size + ",mode=0755";
    m_mounted = ::mount("tmpfs", where.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!m_mounted) m_error = std::strerror(errno);
  }
  ~TmpfsMount() { unmount(); }
  void unmount() {
    if (m_mounted) ::umount2(m_where.c_str(), MNT_DETACH);
    m_mounted = false;
  }
  bool mounted() const { return m_mounted; }
  const std::string& error() const { return m_error; }

 private:
  fs::path m_where;
  bool m_mounted = false;
  std::string m_error;
};

bool canMount(const TmpfsMount& m) {
  if (m.mounted()) return true;
  if (test::runningInCi()) FAIL("cannot mount a tmpfs for this test under CI: " << m.error());
  WARN("skipped: cannot mount a tmpfs here (" << m.error() << ")");
  return false;
}

std::vector<std::string> listFolder(const fs::path& p) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(p)) names.push_back(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("share: initialize lays out the store, open finds it, and the write path returns the content hash", "[share][share-suite]") {
  ScratchDir dir("share-init");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  for (const char* f : {"studies", "checkpoints", "reports", "audit"}) CHECK(fs::is_directory(dir / f));
  CHECK(fs::exists(dir / io::ShareStore::kSentinel));
  auto again = io::ShareStore::initialize(dir.path().string());
  REQUIRE(again.ok());
  CHECK(again->id() == store->id());
  auto opened = io::ShareStore::open(dir.path().string());
  REQUIRE(opened.ok());
  CHECK(opened->id() == store->id());

  const std::string text = "label set revision 1\n";
  auto hash = store->writeFile("studies/s1/labelsets/organs/r000001.txt", text.data(), text.size(), true);
  REQUIRE(hash.ok());
  CHECK(*hash == io::sha256Hex(text.data(), text.size()));
  CHECK(test::readTextFile(dir / "studies/s1/labelsets/organs/r000001.txt") == text);
  // No temporary file is left beside it.
  CHECK(listFolder(dir / "studies/s1/labelsets/organs") == std::vector<std::string>{"r000001.txt"});
}

TEST_CASE("share: a revision is never overwritten, and paths cannot leave the store", "[share][share-suite]") {
  ScratchDir dir("share-new");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  const std::string first = "first", second = "second";
  REQUIRE(store->writeFile("studies/a/r1", first.data(), first.size(), true).ok());
  auto again = store->writeFile("studies/a/r1", second.data(), second.size(), true);
  REQUIRE_FALSE(again.ok());
  INFO(again.error().describe());
  CHECK(again.error().describe().find("already exists") != std::string::npos);
  CHECK(again.error().subject.find("studies/a/r1") != std::string::npos);
  CHECK(test::readTextFile(dir / "studies/a/r1") == first);
  CHECK(listFolder(dir / "studies/a") == std::vector<std::string>{"r1"});
  // Replacing is allowed where asked for (e.g. a manifest), atomically.
  REQUIRE(store->writeFile("studies/a/r1", second.data(), second.size(), false).ok());
  CHECK(test::readTextFile(dir / "studies/a/r1") == second);

  for (const char* bad : {"../outside", "/etc/passwd", "studies/../../x", ""}) {
    INFO(bad);
    auto r = store->writeFile(bad, first.data(), first.size());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::InvalidArgument);
  }
  CHECK_FALSE(fs::exists(dir.path().parent_path() / "outside"));
}

TEST_CASE("share: a folder without the sentinel is not a mounted store, and nothing is written there", "[share][share-suite]") {
  ScratchDir dir("share-none");
  auto r = io::ShareStore::open(dir.path().string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::NotFound);
  CHECK(r.error().describe().find("not mounted") != std::string::npos);
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("share: a share detached after opening refuses writes instead of filling the local mount point", "[share]") {
  ScratchDir dir("share-detach");
  const fs::path mountPoint = dir / "share";
  TmpfsMount share(mountPoint, "4m");
  if (!canMount(share)) return;
  auto store = io::ShareStore::initialize(mountPoint.string());
  REQUIRE(store.ok());
  const std::string data = "edits";
  REQUIRE(store->writeFile("studies/x/r1", data.data(), data.size(), true).ok());

  share.unmount();  // the mount vanishes: the folder is now the empty local directory underneath
  REQUIRE(fs::is_empty(mountPoint));
  auto r = store->writeFile("studies/x/r2", data.data(), data.size(), true);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().describe());
  CHECK(r.error().describe().find("not mounted") != std::string::npos);
  CHECK(fs::is_empty(mountPoint));  // nothing landed on the local disk
}

TEST_CASE("share: disk full fails the save with the reason, leaves the previous file and no temporary", "[share]") {
  ScratchDir dir("share-full");
  const fs::path mountPoint = dir / "share";
  TmpfsMount share(mountPoint, "256k");
  if (!canMount(share)) return;
  auto store = io::ShareStore::initialize(mountPoint.string());
  REQUIRE(store.ok());
  const std::string previous(1000, 'p');
  REQUIRE(store->writeFile("studies/x/labels", previous.data(), previous.size()).ok());

  const std::vector<char> big(2 << 20, 'n');  // 2 MiB into a 256 KiB file system
  auto r = store->writeFile("studies/x/labels", big.data(), big.size());
  REQUIRE_FALSE(r.ok());
  INFO(r.error().describe());
  CHECK(r.error().code == core::ErrorCode::WriteFailed);
  CHECK(r.error().subject.find("studies/x/labels") != std::string::npos);
  CHECK(r.error().describe().find(std::strerror(ENOSPC)) != std::string::npos);
  CHECK(test::readTextFile(mountPoint / "studies/x/labels") == previous);
  CHECK(listFolder(mountPoint / "studies/x") == std::vector<std::string>{"labels"});
}
