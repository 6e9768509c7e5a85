// Patient data sealed at rest (issue 47, item 2): AES-256-GCM files under an owner-only key, written by io for
// FileAccess::Sealed and read back transparently by every io reader; damaged, cut, reordered or foreign files are
// refused naming the file, and another account cannot read them even when it gets the bytes.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/file_source.h"
#include "core/label_map.h"
#include "io/autosave/autosave_journal.h"
#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/regular_file.h"
#include "io/base/scratch_cipher.h"
#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
#include "io/base/sha256.h"
#include "io/dicom/dicom.h"
#include "io/share/share_store.h"
#include "io/studies/study_import.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"
#include "tests/common/other_user.h"
#include "tests/common/sealed_files.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::EnvScope;
using test::ScratchDir;
using test::writeSealed;
namespace fs = std::filesystem;

namespace {

std::string randomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() & 0xff);
  return s;
}

std::string fileBytes(const fs::path& p) { return test::readTextFile(p); }

// Everything a reader gets through a descriptor from openRegularFile.
std::string readThroughDescriptor(const fs::path& p) {
  auto fd = io::openRegularFile(p.string(), "test file");
  REQUIRE(fd.ok());
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(*fd, buf, sizeof buf)) > 0;) out.append(buf, std::size_t(n));
  ::close(*fd);
  return out;
}

// The user's key and sealing switched on, in a folder of the test's own.
struct KeyScope {
  explicit KeyScope(const ScratchDir& dir, const std::string& name = "key")
      : key("DELINEATE_AT_REST_KEY_FILE", (dir.path() / name / "at-rest.key").string()), mode("DELINEATE_AT_REST", "sealed") {}
  EnvScope key, mode;
};

}  // namespace

TEST_CASE("sealed files: every size round-trips, nothing of the content is on disk, the key is made owner-only",
          "[sealed]") {
  ScratchDir dir("sealed-roundtrip");
  KeyScope keys(dir);
  const std::size_t chunk = io::kSealChunkBytes;
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4095), chunk - 1, chunk, chunk + 1, 3 * chunk + 5}) {
    INFO("content of " << n << " bytes");
    const std::string content = randomBytes(n, unsigned(n) + 7);
    const fs::path p = dir.path() / ("f" + std::to_string(n));
    REQUIRE(writeSealed(p, content).ok());
    const std::string onDisk = fileBytes(p);
    CHECK(onDisk.size() == io::sealedSize(n));
    CHECK(io::plainSizeOfSealed(onDisk.size()) == n);
    CHECK(io::looksSealed(onDisk.data(), onDisk.size()));
    if (n >= 64) CHECK(onDisk.find(content.substr(n / 2, 32)) == std::string::npos);  // no plaintext run
    CHECK(test::modeOf(p) == 0600);
    auto whole = io::readWholeFile(p.string(), std::uint64_t(64) << 20, "test file");
    REQUIRE(whole.ok());
    CHECK(*whole == content);
    CHECK(readThroughDescriptor(p) == content);
    auto hash = io::contentSha256(p.string());
    REQUIRE(hash.ok());
    CHECK(*hash == io::sha256Hex(content.data(), content.size()));
  }
  // The same content sealed twice differs (a random nonce per file): equal files are not told by their bytes.
  REQUIRE(writeSealed(dir.path() / "a", "same").ok());
  REQUIRE(writeSealed(dir.path() / "b", "same").ok());
  CHECK(fileBytes(dir.path() / "a") != fileBytes(dir.path() / "b"));
  // The key: made at the first seal, owner-only in an owner-only folder, and a key others may read is refused.
  const fs::path keyFile = dir.path() / "key" / "at-rest.key";
  CHECK(test::modeOf(keyFile) == 0600);
  CHECK(test::modeOf(keyFile.parent_path()) == 0700);
  REQUIRE(::chmod(keyFile.c_str(), 0644) == 0);
  ::utimensat(AT_FDCWD, keyFile.c_str(), nullptr, 0);  // a changed key file is read again
  auto refused = io::readWholeFile((dir.path() / "a").string(), 1024, "test file");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().describe().find("chmod 600") != std::string::npos);
  CHECK_FALSE(writeSealed(dir.path() / "c", "x").ok());
  REQUIRE(::chmod(keyFile.c_str(), 0600) == 0);
  // Sealing switched off: the same call writes the plain file (and reads of sealed files still work).
  {
    EnvScope plain("DELINEATE_AT_REST", "plain");
    REQUIRE(writeSealed(dir.path() / "plain", "visible").ok());
    CHECK(fileBytes(dir.path() / "plain") == "visible");
    auto a = io::readWholeFile((dir.path() / "a").string(), 1024, "test file");
    REQUIRE(a.ok());
    CHECK(*a == "same");
  }
}

TEST_CASE("sealed files: a changed, cut, lengthened or reordered file and another key are refused naming the file",
          "[sealed]") {
  ScratchDir dir("sealed-tamper");
  KeyScope keys(dir);
  const std::size_t chunk = io::kSealChunkBytes;
  const std::string content = randomBytes(2 * chunk + 100, 3);
  const fs::path good = dir.path() / "good";
  REQUIRE(writeSealed(good, content).ok());
  const std::string sealed = fileBytes(good);
  const std::size_t chunkOnDisk = chunk + io::kSealTagBytes;

  auto expectRefused = [&](const std::string& bytes, const std::string& what, core::ErrorCode code, const std::string& words) {
    INFO(what);
    const fs::path p = dir.path() / "bad";
    test::writeTextFile(p, bytes);
    auto r = io::readWholeFile(p.string(), std::uint64_t(64) << 20, "test file");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == code);
    CHECK(r.error().subject == p.string());
    CHECK(r.error().describe().find(words) != std::string::npos);
    auto fd = io::openRegularFile(p.string(), "test file");
    REQUIRE_FALSE(fd.ok());
    CHECK(fd.error().subject == p.string());
  };
  std::string b = sealed;
  b[io::kSealHeaderBytes + chunkOnDisk + 10] ^= 0x01;  // one bit of the second chunk
  expectRefused(b, "a flipped bit", core::ErrorCode::Corrupt, "fails its authentication at chunk 2 of 3");
  b = sealed;
  b[20] ^= 0x01;  // the nonce, in the header every chunk authenticates
  expectRefused(b, "a changed header", core::ErrorCode::Corrupt, "authentication at chunk 1");
  b = sealed;
  b[b.size() - 1] ^= 0x01;  // the last tag
  expectRefused(b, "a changed tag", core::ErrorCode::Corrupt, "chunk 3 of 3");
  // Cut after the second chunk: a whole number of chunks, but none of them is the last.
  expectRefused(sealed.substr(0, io::kSealHeaderBytes + 2 * chunkOnDisk), "cut at a chunk boundary",
                core::ErrorCode::Corrupt, "the sealed file");
  expectRefused(sealed.substr(0, io::kSealHeaderBytes + chunkOnDisk + io::kSealTagBytes), "cut, an empty last chunk",
                core::ErrorCode::Corrupt, "fails its authentication at chunk 2 of 2");
  expectRefused(sealed.substr(0, 20), "cut inside the header", core::ErrorCode::Corrupt, "shorter than its header");
  expectRefused(sealed + std::string(5, '\0'), "lengthened", core::ErrorCode::Corrupt, "fails its authentication");
  // Chunks 1 and 2 swapped: each is intact, but not in its place.
  b = sealed;
  std::copy(sealed.begin() + long(io::kSealHeaderBytes), sealed.begin() + long(io::kSealHeaderBytes + chunkOnDisk),
            b.begin() + long(io::kSealHeaderBytes + chunkOnDisk));
  std::copy(sealed.begin() + long(io::kSealHeaderBytes + chunkOnDisk),
            sealed.begin() + long(io::kSealHeaderBytes + 2 * chunkOnDisk), b.begin() + long(io::kSealHeaderBytes));
  expectRefused(b, "two chunks swapped", core::ErrorCode::Corrupt, "chunk 1 of 3");
  // Another user's key (or a replaced one): named as such, with both key ids, not as damage.
  {
    KeyScope other(dir, "other-key");
    REQUIRE(writeSealed(dir.path() / "other", "made under the other key").ok());
  }
  expectRefused(fileBytes(dir.path() / "other"), "another key", core::ErrorCode::InvalidArgument,
                "is sealed under another key");
  // No key at all: said, and nothing is made by a reader.
  EnvScope none("DELINEATE_AT_REST_KEY_FILE", (dir.path() / "none" / "at-rest.key").string());
  auto noKey = io::readWholeFile(good.string(), std::uint64_t(64) << 20, "test file");
  REQUIRE_FALSE(noKey.ok());
  CHECK(noKey.error().describe().find("this user has no at-rest key") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "none"));
}

TEST_CASE("sealed files: another account given the bytes cannot read them, with its own key or without", "[sealed]") {
  const auto other = test::otherUser();
  if (!other) {
    WARN("no second account (" << test::kOtherUserName << "): run as root with useradd available");
    if (test::runningInCi()) FAIL("CI needs the second account");
    return;
  }
  ScratchDir dir("sealed-other");
  test::openToOthers(dir.path());
  KeyScope keys(dir);
  const fs::path sealed = dir.path() / "series.dcm";
  REQUIRE(writeSealed(sealed, "PATIENT^NAME and pixels").ok());
  // The worst case: the file copied somewhere the other account may read (a backup, a careless chmod).
  const fs::path leaked = dir.path() / "leaked.dcm";
  fs::copy_file(sealed, leaked);
  REQUIRE(::chmod(leaked.c_str(), 0644) == 0);
  CHECK(test::canRead(*other, leaked));
  CHECK_FALSE(test::canRead(*other, sealed));
  CHECK_FALSE(test::canRead(*other, dir.path() / "key" / "at-rest.key"));
  const fs::path otherKeys = dir.path() / "other-home";
  fs::create_directories(otherKeys);
  REQUIRE(::chown(otherKeys.c_str(), other->uid, other->gid) == 0);
  for (const bool withKey : {false, true}) {
    INFO((withKey ? "with a key of its own" : "without a key"));
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(other->gid) != 0 || ::setuid(other->uid) != 0) ::_exit(3);
      ::setenv("DELINEATE_AT_REST_KEY_FILE", (otherKeys / "at-rest.key").c_str(), 1);
      if (withKey && !writeSealed(otherKeys / "own", "x").ok()) ::_exit(4);  // makes its key
      auto r = io::readWholeFile(leaked.string(), 4096, "leaked file");
      if (r.ok()) ::_exit(1);
      const std::string why = r.error().describe();
      ::_exit(why.find(withKey ? "sealed under another key" : "this user has no at-rest key") != std::string::npos ? 0 : 2);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {
    }
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}

TEST_CASE("sealed files: a real CT series fetched to the cache is sealed and loads voxel for voxel as the plain copy",
          "[sealed]") {
  auto source = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  ScratchDir dir("sealed-series");
  KeyScope keys(dir);
  EnvScope cache("XDG_CACHE_HOME", (dir.path() / "cache").string());
  fs::create_directories(dir.path() / "share");
  auto made = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(made.ok());
  const io::ShareStore& store = *made;
  auto imported = io::importStudies(store, {source->string()});
  REQUIRE(imported.ok());
  REQUIRE(imported->series.size() == 1);
  const auto& s = imported->series[0];

  auto sealedCopy = io::fetchSeries(store, s.study, s.series, (dir.path() / "sealed").string());
  REQUIRE(sealedCopy.ok());
  auto plainCopy = io::fetchSeries(store, s.study, s.series, (dir.path() / "plain").string(), nullptr, io::FileAccess::Private);
  REQUIRE(plainCopy.ok());
  // On disk: no DICOM preamble and none of the patient's id in any sealed file; the plain copy has both.
  const std::string patientId = sealedCopy->manifest.patientId;
  REQUIRE_FALSE(patientId.empty());
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path() / "sealed")) {
    const std::string bytes = fileBytes(e.path());
    CHECK(io::looksSealed(bytes.data(), bytes.size()));
    CHECK(bytes.find("DICM") == std::string::npos);
    CHECK(bytes.find(patientId) == std::string::npos);
    CHECK(test::modeOf(e.path()) == 0600);
    ++files;
  }
  CHECK(files == int(sealedCopy->manifest.files.size()));
  const std::string plainFirst = fileBytes(dir.path() / "plain" / sealedCopy->manifest.files.front().name);
  CHECK(plainFirst.find(patientId) != std::string::npos);

  auto a = io::readFetchedSeries(*sealedCopy);
  auto b = io::readFetchedSeries(*plainCopy);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->geometry() == b->geometry());
  CHECK(a->type() == b->type());
  CHECK(a->byteSize() == b->byteSize());
  CHECK(std::memcmp(a->data(), b->data(), a->byteSize()) == 0);

  // A sealed copy is imported as its content, never as its ciphertext (nobody else could read that): the same files
  // under the same (content) hashes as the original's import, in the clear on a share that does not encrypt.
  {
    fs::create_directories(dir.path() / "share2");
    auto other = io::ShareStore::initialize((dir.path() / "share2").string());
    REQUIRE(other.ok());
    auto reimport = io::importStudies(*other, {(dir.path() / "sealed").string()});
    INFO((reimport ? std::string() : reimport.error().describe()));
    REQUIRE(reimport.ok());
    REQUIRE(reimport->series.size() == 1);
    CHECK(reimport->series[0].study == s.study);
    CHECK(reimport->series[0].series == s.series);
    const fs::path stored = dir.path() / "share2" / "studies" / s.study / "series" / s.series;
    const fs::path original = dir.path() / "share" / "studies" / s.study / "series" / s.series;
    for (const auto& f : sealedCopy->manifest.files) {
      INFO(f.name);
      CHECK(fileBytes(stored / f.name) == fileBytes(original / f.name));
    }
  }

  // Fetched again: the sealed files are reused; a plain copy in the cache folder (sealing switched on later) is
  // sealed anew, and a sealed copy in the plain folder is written plain.
  auto again = io::fetchSeries(store, s.study, s.series, (dir.path() / "sealed").string());
  REQUIRE(again.ok());
  CHECK(again->reused == files);
  auto toSealed = io::fetchSeries(store, s.study, s.series, (dir.path() / "plain").string());
  REQUIRE(toSealed.ok());
  CHECK(toSealed->copied == files);
  CHECK(io::looksSealed(fileBytes(dir.path() / "plain" / sealedCopy->manifest.files.front().name).data(), 8));

  // One slice changed on disk: the load is refused naming that file, never a volume with a wrong slice.
  const fs::path victim = dir.path() / "sealed" / sealedCopy->manifest.files[5].name;
  std::string bytes = fileBytes(victim);
  bytes[bytes.size() / 2] ^= 0x10;
  test::writeTextFile(victim, bytes);
  auto damaged = io::readFetchedSeries(*sealedCopy);
  REQUIRE_FALSE(damaged.ok());
  INFO(damaged.error().describe());
  CHECK(damaged.error().describe().find(sealedCopy->manifest.files[5].name) != std::string::npos);
  // Removed, it is fetched again and the series loads (a cache is only a copy).
  fs::remove(victim);
  auto repaired = io::fetchSeries(store, s.study, s.series, (dir.path() / "sealed").string());
  REQUIRE(repaired.ok());
  CHECK(repaired->copied == 1);
  auto c = io::readFetchedSeries(*repaired);
  REQUIRE(c.ok());
  CHECK(std::memcmp(c->data(), b->data(), b->byteSize()) == 0);
}

TEST_CASE("sealed files: the catalogue index is sealed, shared between processes, and an earlier plain one is replaced",
          "[sealed]") {
  auto source = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  ScratchDir dir("sealed-index");
  KeyScope keys(dir);
  fs::create_directories(dir.path() / "share");
  auto made = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(made.ok());
  const io::ShareStore& store = *made;
  const fs::path path = dir.path() / "index.sqlite";
  auto other = io::StudyIndex::open(store, path.string());  // another process's index, opened first
  REQUIRE(other.ok());
  auto imported = io::importStudies(store, {source->string()});
  REQUIRE(imported.ok());
  auto manifest = io::readSeriesManifest(store, imported->series.at(0).study, imported->series.at(0).series);
  REQUIRE(manifest.ok());
  const std::string patientId = manifest->patientId;
  REQUIRE(patientId.size() >= 4);
  auto index = io::StudyIndex::open(store, path.string());
  REQUIRE(index.ok());
  auto first = index->refresh();
  REQUIRE(first.ok());
  CHECK(first->segmentsRead > 0);
  REQUIRE(index->studyCount().value() == 1);
  // On disk: sealed, no patient id, owner-only; no WAL companions.
  const std::string bytes = fileBytes(path);
  CHECK(io::looksSealed(bytes.data(), bytes.size()));
  CHECK(bytes.find(patientId) == std::string::npos);
  CHECK(bytes.find("SQLite format") == std::string::npos);
  CHECK(test::modeOf(path) == 0600);
  CHECK_FALSE(fs::exists(path.string() + "-wal"));
  // The other process sees what this one saved (as with a shared database file), and its refresh takes it up
  // instead of reading the share again.
  CHECK(other->studyCount().value() == 1);
  auto caughtUp = other->refresh();
  REQUIRE(caughtUp.ok());
  CHECK(caughtUp->segmentsRead == 0);
  CHECK(other->studyCount().value() == 1);

  // An index an earlier version left plain (with sealing off) is read, then replaced by a sealed one.
  const fs::path plainPath = dir.path() / "plain.sqlite";
  {
    EnvScope plain("DELINEATE_AT_REST", "plain");
    auto old = io::StudyIndex::open(store, plainPath.string());
    REQUIRE(old.ok());
    REQUIRE(old->refresh().ok());
    CHECK(fileBytes(plainPath).rfind("SQLite format 3", 0) == 0);
  }
  {
    auto upgraded = io::StudyIndex::open(store, plainPath.string());
    REQUIRE(upgraded.ok());
    CHECK(upgraded->studyCount().value() == 1);
    CHECK(io::looksSealed(fileBytes(plainPath).data(), 8));
    CHECK_FALSE(fs::exists(plainPath.string() + "-wal"));
    CHECK_FALSE(fs::exists(plainPath.string() + "-shm"));
  }
  // Sealed under a key this user no longer has: set aside and built again from the share (it is a cache).
  {
    KeyScope replaced(dir, "replaced-key");
    auto rebuilt = io::StudyIndex::open(store, path.string());
    REQUIRE(rebuilt.ok());
    CHECK_FALSE(rebuilt->setAside().empty());
    REQUIRE(rebuilt->refresh().ok());
    CHECK(rebuilt->studyCount().value() == 1);
  }
}

TEST_CASE("sealed: a scratch cipher decrypts any piece at any offset alone, and two processes' keys differ", "[sealed]") {
  std::vector<std::uint8_t> plain(100003);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = std::uint8_t(i * 31 + (i >> 9));
  auto cipher = io::ScratchCipher::create();
  REQUIRE(cipher.ok());
  std::vector<std::uint8_t> whole = plain;
  REQUIRE(cipher->apply(whole.data(), whole.size(), 0, 7).ok());
  CHECK(whole != plain);
  std::size_t same = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) same += whole[i] == plain[i];
  CHECK(same < plain.size() / 100);  // about 1 in 256 by chance
  // Pieces at offsets inside and across 16-byte blocks decrypt alone to the plaintext's pieces.
  std::mt19937 rng(3);
  for (int k = 0; k < 200; ++k) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, plain.size() - 1)(rng);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(999, plain.size() - at))(rng);
    std::vector<std::uint8_t> piece(whole.begin() + std::ptrdiff_t(at), whole.begin() + std::ptrdiff_t(at + n));
    REQUIRE(cipher->apply(piece.data(), piece.size(), at, 7).ok());
    CHECK(std::equal(piece.begin(), piece.end(), plain.begin() + std::ptrdiff_t(at)));
  }
  // Another file (stream) under the same cipher, and another cipher, share no key stream with it: the XOR of two
  // ciphertexts of one plaintext is not zero anywhere much.
  const auto sharedStream = [&](const std::vector<std::uint8_t>& a) {
    std::size_t equal = 0;
    for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == whole[i];
    return equal;
  };
  std::vector<std::uint8_t> otherFile = plain;
  REQUIRE(cipher->apply(otherFile.data(), otherFile.size(), 0, 8).ok());
  CHECK(sharedStream(otherFile) < plain.size() / 100);
  auto other = io::ScratchCipher::create();
  REQUIRE(other.ok());
  std::vector<std::uint8_t> second = plain;
  REQUIRE(other->apply(second.data(), second.size(), 0, 7).ok());
  CHECK(sharedStream(second) < plain.size() / 100);
}

// Issue 47, item 2: engines below io read checkpoints by path (core/file_source.h). Through io's source a sealed file
// reads as its content at any offset and seek, as the plain file does; a damaged chunk fails the stream instead of
// ending it quietly; a training run's outputs are written sealed and owner-only, or plain where the user chose.
TEST_CASE("sealed: engines' files through io's file source: seeks and reads across chunks, a damaged chunk, sealed "
          "or plain outputs", "[sealed]") {
  ScratchDir dir("sealed-source");
  KeyScope keys(dir);
  const auto source = io::atRestFileSource(io::OutputFiles::Sealed);
  for (const std::size_t size : {std::size_t(0), std::size_t(1), io::kSealChunkBytes, 3 * io::kSealChunkBytes + 17}) {
    INFO("size " << size);
    const std::string plain = randomBytes(size, unsigned(size) + 1);
    REQUIRE(writeSealed(dir.path() / "s.bin", plain).ok());
    test::writeTextFile(dir.path() / "p.bin", plain);
    REQUIRE(io::isSealedFile((dir.path() / "s.bin").string()));
    for (const char* name : {"s.bin", "p.bin"}) {
      INFO(name);
      auto in = source->openRead((dir.path() / name).string());
      REQUIRE(in.ok());
      std::istream& s = **in;
      s.seekg(0, std::ios::end);
      CHECK(std::size_t(s.tellg()) == size);
      // Random seeks and reads, small (through the window) and large (straight into the caller's memory).
      std::mt19937 rng(unsigned(size) + 5);
      for (int k = 0; k < 60 && size > 0; ++k) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, size - 1)(rng);
        const std::size_t n = k % 3 == 0 ? size - at : std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(size - at, 300))(rng);
        s.clear();
        s.seekg(std::streamoff(at));
        std::string got(n, '\0');
        s.read(got.data(), std::streamsize(n));
        REQUIRE(std::size_t(s.gcount()) == n);
        CHECK(got == plain.substr(at, n));
        CHECK(std::size_t(s.tellg()) == at + n);
        if (at + n < size) CHECK(s.get() == std::istream::traits_type::to_int_type(plain[at + n]));
      }
      auto text = core::readInputFile((dir.path() / name).string());
      core::setFileSource(source);
      auto viaCore = core::readInputFile((dir.path() / name).string());
      core::setFileSource(nullptr);
      REQUIRE(viaCore.ok());
      CHECK(*viaCore == plain);
      REQUIRE(text.ok());  // without a source: the file's bytes
      CHECK(*text == (std::string(name) == "p.bin" ? plain : fileBytes(dir.path() / name)));
    }
  }

  // A chunk changed in the middle: the reader of a tensor gets a failed stream (badbit), not fewer bytes.
  const std::string plain = randomBytes(3 * io::kSealChunkBytes, 9);
  const fs::path damaged = dir.path() / "damaged.bin";
  REQUIRE(writeSealed(damaged, plain).ok());
  std::string bytes = fileBytes(damaged);
  bytes[io::kSealHeaderBytes + io::kSealChunkBytes + io::kSealTagBytes + 100] ^= 1;  // inside the second chunk
  test::writeTextFile(damaged, bytes);
  auto in = source->openRead(damaged.string());
  REQUIRE(in.ok());
  std::string got(plain.size(), '\0');
  (*in)->read(got.data(), std::streamsize(got.size()));
  CHECK((*in)->bad());
  CHECK(std::size_t((*in)->gcount()) < plain.size());
  core::setFileSource(source);
  auto whole = core::readInputFile(damaged.string());
  core::setFileSource(nullptr);
  REQUIRE_FALSE(whole.ok());
  CHECK(whole.error().subject == damaged.string());
  // A path that is no regular file is refused by name, never opened (a pipe would block).
  REQUIRE(::mkfifo((dir.path() / "pipe.pt").c_str(), 0600) == 0);
  auto pipe = source->openRead((dir.path() / "pipe.pt").string());
  REQUIRE_FALSE(pipe.ok());
  CHECK(pipe.error().detail.find("named pipe") != std::string::npos);

  // Outputs: sealed and 0600 whatever the umask; plain and 0640 narrowed by the umask for a folder the user chose.
  const mode_t old = ::umask(000);
  for (const auto outputs : {io::OutputFiles::Sealed, io::OutputFiles::Personal}) {
    const fs::path out = dir.path() / (outputs == io::OutputFiles::Sealed ? "sealed.pt" : "personal.pt");
    auto file = io::atRestFileSource(outputs)->create(out.string());
    REQUIRE(file.ok());
    REQUIRE((*file)->write(plain.data(), 1000).ok());
    REQUIRE((*file)->write(plain.data() + 1000, plain.size() - 1000).ok());
    REQUIRE((*file)->finish().ok());
    CHECK(io::isSealedFile(out.string()) == (outputs == io::OutputFiles::Sealed));
    CHECK(test::modeOf(out) == (outputs == io::OutputFiles::Sealed ? 0600u : 0640u));
    auto back = source->openRead(out.string());
    REQUIRE(back.ok());
    std::string text(plain.size(), '\0');
    (*back)->read(text.data(), std::streamsize(text.size()));
    CHECK(text == plain);
    if (outputs == io::OutputFiles::Sealed) CHECK(fileBytes(out).find(plain.substr(70000, 64)) == std::string::npos);
  }
  ::umask(old);
  // Sealing switched off ($DELINEATE_AT_REST=plain): owner-only, plain.
  EnvScope off("DELINEATE_AT_REST", "plain");
  auto file = source->create((dir.path() / "off.pt").string());
  REQUIRE(file.ok());
  REQUIRE((*file)->write(plain.data(), 10).ok());
  REQUIRE((*file)->finish().ok());
  CHECK_FALSE(io::isSealedFile((dir.path() / "off.pt").string()));
  CHECK(test::modeOf(dir.path() / "off.pt") == 0600u);
}
