// Issue 22, item 1 ("A slice silently lost"): a series whose first, last or a middle file cannot be read (truncated,
// zero bytes, a garbage header) must never load as if complete, and every such file is named with its reason.
// Each case damages one file of a copy of the real TCIA CT series.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>

#include "io/dicom/dicom.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

enum class Damage { Truncated, ZeroBytes, GarbageStart, GarbageHeader };

const char* damageName(Damage d) {
  switch (d) {
    case Damage::Truncated: return "truncated to half";
    case Damage::ZeroBytes: return "zero bytes";
    case Damage::GarbageStart: return "first 1 KiB garbage (preamble and meta header)";
    case Damage::GarbageHeader: return "first 8 KiB garbage (the whole header)";
  }
  return "?";
}

std::string noise(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() & 0xFF);
  return s;
}

void damage(const fs::path& file, Damage d) {
  const std::string bytes = readFileBytes(file);
  switch (d) {
    case Damage::Truncated: writeFileBytes(file, bytes.substr(0, bytes.size() / 2)); break;
    case Damage::ZeroBytes: writeFileBytes(file, ""); break;
    case Damage::GarbageStart: writeFileBytes(file, noise(1024, 22) + bytes.substr(1024)); break;
    case Damage::GarbageHeader: writeFileBytes(file, noise(8192, 23) + bytes.substr(8192)); break;
  }
}

void copySeries(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) fs::copy_file(e.path(), to / e.path().filename());
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const io::SeriesIssue* issueOf(const std::vector<io::SeriesIssue>& issues, io::SeriesIssueKind kind) {
  for (const auto& i : issues)
    if (i.kind == kind) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("dicom unreadable: a damaged first, middle or last file of a real series is named and refused", "[dicom]") {
  auto source = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  // The first, middle and last slice by position (file names need not follow positions).
  std::string seriesUid;
  struct Where {
    const char* what;
    std::string file;
    bool end;  // first or last: the grid stays regular without it
  };
  std::vector<Where> places;
  {
    auto clean = io::indexDicomFolder(source->string());
    REQUIRE(clean.ok());
    REQUIRE(clean->allSeries().size() == 1);
    const io::DicomSeries& full = *clean->allSeries().front();
    seriesUid = full.seriesInstanceUid;
    CHECK(full.isComplete());
    REQUIRE(full.slices.size() == 41);
    const auto name = [](const io::DicomSlice& s) { return fs::path(s.path).filename().string(); };
    places = {{"first", name(full.slices.front()), true}, {"middle", name(full.slices[20]), false},
              {"last", name(full.slices.back()), true}};
  }
  for (const Where& where : places) {
    for (Damage d : {Damage::Truncated, Damage::ZeroBytes, Damage::GarbageStart, Damage::GarbageHeader}) {
      INFO("the " << where.what << " file " << where.file << ", " << damageName(d));
      ScratchDir scratch("dicom-unreadable");
      const fs::path folder = scratch / "series";
      copySeries(*source, folder);
      const fs::path broken = folder / where.file;
      damage(broken, d);

      auto index = io::indexDicomFolder(folder.string());
      REQUIRE(index.ok());
      const auto all = index->allSeries();
      REQUIRE(all.size() == 1);
      const io::DicomSeries& series = *all.front();
      CHECK(series.slices.size() == 40);
      REQUIRE(index->skipped.size() == 1);
      CHECK(index->skipped.front().path == broken.string());
      CHECK(index->nonDicomFiles == 0);
      // A member of the series: by its UID where a byte search still finds it, else by lying in its folder.
      REQUIRE(series.unreadable.size() == 1);
      const io::DicomSkippedFile& member = series.unreadable.front();
      CHECK(member.path == broken.string());
      CHECK(contains(member.reason, broken.string()));
      if (d == Damage::ZeroBytes) CHECK(contains(member.reason, "empty file"));
      if (d == Damage::Truncated || d == Damage::GarbageStart) {
        CHECK(member.seriesInstanceUid == seriesUid);
        CHECK(member.instanceNumber.has_value());
        REQUIRE(member.positionLps.has_value());
      } else {
        CHECK(member.seriesInstanceUid.empty());
      }
      CHECK_FALSE(series.isComplete());
      const io::SeriesIssue* issue = issueOf(series.issues, io::SeriesIssueKind::UnreadableFiles);
      REQUIRE(issue != nullptr);
      CHECK(contains(issue->detail, broken.string()));
      if (member.positionLps) {
        INFO(issue->detail);
        if (where.end)
          CHECK((contains(issue->detail, "before the first slice") || contains(issue->detail, "after the last slice")));
        else
          CHECK(contains(issue->detail, "inside the stack"));
      }

      // Refused by default and with allowIrregular alone, naming the file (not the series' first readable file).
      for (bool irregular : {false, true}) {
        io::DicomLoadOptions options;
        options.threads = 2;
        options.allowIrregular = irregular;
        auto loaded = io::loadDicomSeries(series, options);
        REQUIRE_FALSE(loaded.ok());
        CHECK(loaded.error().subject == broken.string());
        CHECK(contains(loaded.error().describe(), "incomplete"));
        CHECK_FALSE(contains(loaded.error().describe(), "not a regular grid"));
      }

      // The opt-in loads the rest and says what was left out; a hole in the middle also needs allowIrregular.
      io::DicomLoadOptions rest;
      rest.threads = 2;
      rest.allowUnreadable = true;
      auto loaded = io::loadDicomSeries(series, rest);
      if (where.end) {
        if (!loaded) FAIL(loaded.error().describe());
        CHECK(loaded->image.geometry().dimensions()[2] == 40);
      } else {
        REQUIRE_FALSE(loaded.ok());
        CHECK(contains(loaded.error().describe(), "missing slices"));
        CHECK(contains(loaded.error().describe(), "unreadable file(s) of the series may be the missing slices"));
        CHECK(loaded.error().subject == folder.string());  // the series' folder, not a file that is not at fault
        rest.allowIrregular = true;
        loaded = io::loadDicomSeries(series, rest);
        if (!loaded) FAIL(loaded.error().describe());
        CHECK(loaded->image.geometry().dimensions()[2] == 41);  // the hole stays at its true position
        CHECK(issueOf(loaded->issues, io::SeriesIssueKind::MissingSlices) != nullptr);
      }
      CHECK_FALSE(loaded->complete);
      REQUIRE(issueOf(loaded->issues, io::SeriesIssueKind::UnreadableFiles) != nullptr);
      CHECK(contains(issueOf(loaded->issues, io::SeriesIssueKind::UnreadableFiles)->detail, broken.string()));
    }
  }
}

TEST_CASE("dicom unreadable: a file whose pixels fail after indexing fails the load naming that file", "[dicom]") {
  auto source = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  ScratchDir scratch("dicom-unreadable-pixels");
  const fs::path folder = scratch / "series";
  copySeries(*source, folder);
  auto index = io::indexDicomFolder(folder.string());
  REQUIRE(index.ok());
  REQUIRE(index->allSeries().size() == 1);
  const fs::path middle = folder / "1-21.dcm";
  const std::string bytes = readFileBytes(middle);
  writeFileBytes(middle, bytes.substr(0, bytes.size() - 1000));
  io::DicomLoadOptions options;
  options.threads = 2;
  auto loaded = io::loadDicomSeries(*index->allSeries().front(), options);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().subject == middle.string());
}

TEST_CASE("dicom unreadable: damaged files in another folder or of another series do not hold a series back",
          "[dicom]") {
  ScratchDir dir("dicom-unreadable-apart");
  CtSliceParams p;
  p.seriesUid = "2.25.22001";
  fs::create_directories(dir / "a");
  for (int k = 0; k < 3; ++k) {
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    makeCtSlice(p).write(dir / "a" / ("s" + std::to_string(k) + ".dcm"));
  }
  // Beside it, a truncated slice of another series (its UID still readable), and garbage in another folder.
  CtSliceParams other = p;
  other.seriesUid = "2.25.22002";
  const std::string otherBytes = makeCtSlice(other).bytes();
  writeFileBytes(dir / "a" / "other.dcm", otherBytes.substr(0, otherBytes.size() - 7));
  fs::create_directories(dir / "b");
  writeFileBytes(dir / "b" / "x.dcm", noise(700, 5));
  auto index = io::indexDicomFolder(dir.path().string());
  REQUIRE(index.ok());
  CHECK(index->skipped.size() == 2);
  const auto all = index->allSeries();
  REQUIRE(all.size() == 1);
  CHECK(all.front()->isComplete());
  for (const auto& s : index->skipped)
    if (fs::path(s.path).filename() == "other.dcm") CHECK(s.seriesInstanceUid == "2.25.22002");
  auto loaded = io::loadDicomSeries(*all.front());
  if (!loaded) FAIL(loaded.error().describe());
  CHECK(loaded->complete);
}

TEST_CASE("dicom unreadable: a first slice deleted outright is found by ImagesInAcquisition", "[dicom]") {
  // A deleted file leaves nothing to salvage, and its stack stays a regular grid: only the count the scanner wrote
  // into every slice tells that one is gone.
  ScratchDir dir("dicom-unreadable-count");
  CtSliceParams p;
  p.seriesUid = "2.25.22003";
  std::vector<fs::path> files;
  for (int k = 0; k < 6; ++k) {
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    files.push_back(dir / ("s" + std::to_string(k) + ".dcm"));
    makeCtSlice(p).is(0x0020, 0x1002, 6).write(files.back());
  }
  {
    auto index = io::indexDicomFolder(dir.path().string());
    REQUIRE(index.ok());
    REQUIRE(index->allSeries().size() == 1);
    CHECK(index->allSeries().front()->isRegular());
  }
  fs::remove(files.front());
  auto index = io::indexDicomFolder(dir.path().string());
  REQUIRE(index.ok());
  REQUIRE(index->allSeries().size() == 1);
  const io::DicomSeries& series = *index->allSeries().front();
  CHECK_FALSE(series.isRegular());
  const io::SeriesIssue* issue = issueOf(series.issues, io::SeriesIssueKind::MissingSlices);
  REQUIRE(issue != nullptr);
  CHECK(contains(issue->detail, "ImagesInAcquisition says 6"));
  CHECK_FALSE(io::loadDicomSeries(series).ok());
  io::DicomLoadOptions options;
  options.allowIrregular = true;
  auto loaded = io::loadDicomSeries(series, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK(loaded->image.geometry().dimensions()[2] == 5);
  CHECK_FALSE(loaded->regular);
}

TEST_CASE("dicom unreadable: a file without a DICOM name whose header start is garbage still joins its series",
          "[dicom]") {
  // Files named IM0001 and the like: without preamble or meta header the file is "not DICOM" to the pre-scan, but its
  // SeriesInstanceUID is still in the bytes, so it is a lost slice of that series, not a stray file.
  ScratchDir dir("dicom-unreadable-noname");
  CtSliceParams p;
  p.seriesUid = "2.25.22004";
  for (int k = 0; k < 4; ++k) {
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    makeCtSlice(p).write(dir / ("IM000" + std::to_string(k + 1)));
  }
  const fs::path broken = dir / "IM0004";
  const std::string bytes = readFileBytes(broken);
  writeFileBytes(broken, std::string(200, '\x7F') + bytes.substr(200));
  test::writeTextFile(dir / "notes.txt", "not DICOM\n");
  auto index = io::indexDicomFolder(dir.path().string());
  REQUIRE(index.ok());
  CHECK(index->nonDicomFiles == 1);
  REQUIRE(index->allSeries().size() == 1);
  const io::DicomSeries& series = *index->allSeries().front();
  CHECK(series.slices.size() == 3);
  REQUIRE(series.unreadable.size() == 1);
  CHECK(series.unreadable.front().path == broken.string());
  CHECK(series.unreadable.front().seriesInstanceUid == "2.25.22004");
  CHECK(series.unreadable.front().instanceNumber == 4);
  const io::SeriesIssue* issue = issueOf(series.issues, io::SeriesIssueKind::UnreadableFiles);
  REQUIRE(issue != nullptr);
  CHECK(contains(issue->detail, "after the last slice"));
  auto loaded = io::loadDicomSeries(series);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().subject == broken.string());
}
