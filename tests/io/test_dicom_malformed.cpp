// DICOM folders with damaged, hostile or irregular content, built byte by byte with tests/common/dicom_builder.h:
// every case must end in a clear error or skipped entry naming the file and the reason, never a crash or a huge
// allocation. One valid series checks the builder (and the loader) on the way.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/progress.h"
#include "io/dicom/dicom.h"
#include "tests/common/dicom_builder.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace delineate;
using core::ErrorCode;
using test::CtSliceParams;
using test::DicomBuilder;
using test::ScratchDir;
using test::TransferSyntax;

namespace {

// The wording these tests rely on, in one place so the implementation can align with it. Each list holds
// alternatives (lowercase); the text checked (Error::describe() or DicomSkippedFile::reason, lowercased) must
// contain at least one of them.
namespace words {
const std::vector<std::string> kTruncated = {"truncated", "past the end", "beyond the end", "end of the file",
                                             "end of file"};
const std::vector<std::string> kLength = {"length"};
const std::vector<std::string> kRows = {"rows"};
const std::vector<std::string> kColumns = {"columns"};
// Rows x Columns x Frames x BitsAllocated too large: refused for its size or because the pixel data cannot back it.
const std::vector<std::string> kTooLarge = {"limit", "exceed", "too large", "overflow", "pixel data"};
const std::vector<std::string> kHighBit = {"highbit", "high bit"};
const std::vector<std::string> kBitsAllocated = {"bitsallocated", "bits allocated"};
const std::vector<std::string> kBits = {"bits"};
const std::vector<std::string> kNesting = {"nest", "depth"};
const std::vector<std::string> kMissing = {"missing"};
const std::vector<std::string> kDuplicate = {"duplicate"};
const std::vector<std::string> kSpacing = {"spacing", "gap", "uniform"};
const std::vector<std::string> kTilt = {"tilt"};
const std::vector<std::string> kPixelData = {"pixel data", "pixeldata", "(7fe0,0010)"};
const std::vector<std::string> kTooShort = {"short", "fewer", "truncated", "need", "expected", "holds"};
const std::vector<std::string> kPatientIdTag = {"0010,0020", "patientid", "patient id"};
}  // namespace words

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool mentionsAny(const std::string& text, const std::vector<std::string>& alternatives) {
  const std::string t = lower(text);
  return std::any_of(alternatives.begin(), alternatives.end(),
                     [&](const std::string& w) { return t.find(w) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "\"" : " | \"") + s + "\"";
  return out;
}

#define CHECK_MENTIONS(text, alternatives)                                          \
  do {                                                                              \
    INFO("text: " << (text) << "\nexpected one of: " << joined(alternatives));      \
    CHECK(mentionsAny((text), (alternatives)));                                     \
  } while (false)

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Caps the address space (RLIMIT_AS) at the current size plus `headroom` while alive, so an implementation that
// trusts a declared size and allocates gigabytes fails (bad_alloc / a crash) instead of passing unnoticed.
// Inactive under sanitizers, which reserve terabytes of shadow memory.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(std::uint64_t headroom) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)headroom;
    return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
    (void)headroom;
    return;
#endif
#endif
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    if (!(statm >> pages) || ::getrlimit(RLIMIT_AS, &m_old) != 0) return;
    const std::uint64_t now = pages * std::uint64_t(::sysconf(_SC_PAGESIZE));
    struct rlimit lim = m_old;
    const std::uint64_t want = now + headroom;
    if (m_old.rlim_cur != RLIM_INFINITY && m_old.rlim_cur <= want) return;
    lim.rlim_cur = rlim_t(want);
    if (m_old.rlim_max != RLIM_INFINITY && lim.rlim_cur > m_old.rlim_max) lim.rlim_cur = m_old.rlim_max;
    m_active = ::setrlimit(RLIMIT_AS, &lim) == 0;
  }
  ~AddressSpaceCap() {
    if (m_active) ::setrlimit(RLIMIT_AS, &m_old);
  }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;

 private:
  struct rlimit m_old {};
  bool m_active = false;
};
constexpr std::uint64_t kHeadroom = std::uint64_t(2) << 30;  // 2 GiB: threads and DCMTK fit, 8 GiB buffers do not

io::DicomIndex indexOk(const fs::path& dir, int threads = 2) {
  io::DicomScanOptions options;
  options.threads = threads;
  auto index = io::indexDicomFolder(dir.string(), options);
  if (!index) FAIL("indexing " << dir << " failed: " << index.error().describe());
  return std::move(index).value();
}

const io::DicomSkippedFile* findSkipped(const io::DicomIndex& index, const fs::path& file) {
  for (const auto& s : index.skipped) {
    std::error_code ec;
    if (fs::equivalent(s.path, file, ec)) return &s;
  }
  return nullptr;
}

bool seriesContains(const io::DicomIndex& index, const fs::path& file) {
  for (const io::DicomSeries* s : index.allSeries())
    for (const auto& slice : s->slices) {
      std::error_code ec;
      if (fs::equivalent(slice.path, file, ec)) return true;
    }
  return false;
}

std::string listSkipped(const io::DicomIndex& index) {
  std::string out;
  for (const auto& s : index.skipped) out += "\n  " + s.path + ": " + s.reason;
  return out.empty() ? "(none)" : out;
}

// The file must be listed in skipped (with its path) for a reason mentioning `alternatives`, and in no series.
void checkSkipped(const io::DicomIndex& index, const fs::path& file, const std::vector<std::string>& alternatives) {
  INFO("skipped:" << listSkipped(index));
  const io::DicomSkippedFile* s = findSkipped(index, file);
  REQUIRE(s != nullptr);
  CHECK(fs::path(s->path).filename() == file.filename());
  CHECK_MENTIONS(s->reason, alternatives);
  CHECK_FALSE(seriesContains(index, file));
}

bool hasIssue(const std::vector<io::SeriesIssue>& issues, io::SeriesIssueKind kind) {
  return std::any_of(issues.begin(), issues.end(), [&](const io::SeriesIssue& i) { return i.kind == kind; });
}

std::string listIssues(const std::vector<io::SeriesIssue>& issues) {
  std::string out;
  for (const auto& i : issues) out += std::string("\n  ") + io::seriesIssueName(i.kind) + ": " + i.detail;
  return out.empty() ? "(none)" : out;
}

// Slices of one series at `positions`; instance n (1-based) stores 100 n + 10 j + i.
std::vector<fs::path> writeSeries(const ScratchDir& dir, const std::string& prefix, CtSliceParams base,
                                  const std::vector<core::Vec3>& positions) {
  std::vector<fs::path> out;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    CtSliceParams p = base;
    p.instanceNumber = int(k) + 1;
    p.positionLps = positions[k];
    const int n = p.instanceNumber;
    p.pixel = [n](int i, int j) { return 100 * n + 10 * j + i; };
    const fs::path file = dir / (prefix + std::to_string(k + 1) + ".dcm");
    test::makeCtSlice(p).write(file);
    out.push_back(file);
  }
  return out;
}

std::vector<core::Vec3> axialPositions(int count, double gapMm, double z0 = 0) {
  std::vector<core::Vec3> out;
  for (int k = 0; k < count; ++k) out.push_back({-10, 20, z0 + gapMm * k});
  return out;
}

// Runs `work` on a fresh std::thread (default stack size) and returns its result; an exception becomes a failure.
template <class F>
auto onThread(F work) -> decltype(work()) {
  std::optional<decltype(work())> out;
  std::string thrown;
  std::thread t([&] {
    try {
      out.emplace(work());
    } catch (const std::exception& e) {
      thrown = e.what();
    } catch (...) {
      thrown = "unknown exception";
    }
  });
  t.join();
  if (!out) FAIL("exception on the worker thread: " << thrown);
  return std::move(*out);
}

// Cancels once it has seen one progress report.
class CancelAfterFirstReport final : public core::ProgressSink {
 public:
  void report(double, const std::string& stage) override {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stages.push_back(stage);
    m_reports.fetch_add(1);
  }
  bool cancelled() const override { return m_reports.load() > 0; }
  int reports() const { return m_reports.load(); }
  std::vector<std::string> stages() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stages;
  }

 private:
  mutable std::mutex m_mutex;
  std::vector<std::string> m_stages;
  std::atomic<int> m_reports{0};
};

std::string randomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = char(rng() & 0xFF);
  return out;
}

const char* syntaxName(TransferSyntax ts) {
  switch (ts) {
    case TransferSyntax::ExplicitLittle: return "explicit little endian";
    case TransferSyntax::ImplicitLittle: return "implicit little endian";
    case TransferSyntax::ExplicitBig: return "explicit big endian";
    case TransferSyntax::RleLossless: return "RLE lossless";
    case TransferSyntax::Jpeg2000Lossless: return "JPEG 2000 lossless";
  }
  return "?";
}

core::Vec3 cross(const core::Vec3& a, const core::Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

}  // namespace

// --- a valid series: the builder and the loader agree on geometry and values ----------------------------------------

TEST_CASE("dicom malformed: valid built series loads with exact geometry and HU and voxel order", "[dicom]") {
  for (TransferSyntax ts : {TransferSyntax::ExplicitLittle, TransferSyntax::ImplicitLittle, TransferSyntax::ExplicitBig,
                            TransferSyntax::RleLossless}) {
    INFO("transfer syntax: " << syntaxName(ts));
    ScratchDir dir("dicom-valid");
    // An oblique stack: rows and columns along two columns of a rotation, slices along their cross product.
    const core::Mat3 r = test::rotationMatrix(0.3, 0.2, 0.1);
    const core::Vec3 rowDir{r(0, 0), r(1, 0), r(2, 0)};
    const core::Vec3 colDir{r(0, 1), r(1, 1), r(2, 1)};
    const core::Vec3 normal = cross(rowDir, colDir);
    const core::Vec3 base{-120.5, 33.25, 410};
    const double gap = 2.5;
    // Instance numbers deliberately disagree with the order along the normal, and so do the file names.
    const int instanceOfK[3] = {3, 1, 2};
    const char* nameOfK[3] = {"b.dcm", "c.dcm", "a.dcm"};
    std::vector<core::Vec3> positions;
    for (int k = 0; k < 3; ++k) {
      CtSliceParams p;
      p.syntax = ts;
      p.rows = 4;
      p.columns = 5;
      p.rowDirection = rowDir;
      p.columnDirection = colDir;
      p.rowSpacingMm = 0.7;
      p.columnSpacingMm = 0.9;
      p.sliceThicknessMm = gap;
      p.positionLps = {base[0] + normal[0] * gap * k, base[1] + normal[1] * gap * k, base[2] + normal[2] * gap * k};
      p.instanceNumber = instanceOfK[k];
      p.rescaleSlope = 2;
      p.rescaleIntercept = -1024;
      p.pixel = [k](int i, int j) { return 100 * k + 10 * j + i; };
      test::makeCtSlice(p).write(dir / nameOfK[k]);
      positions.push_back(p.positionLps);
    }
    const io::DicomIndex index = indexOk(dir.path());
    INFO("skipped:" << listSkipped(index));
    CHECK(index.skipped.empty());
    CHECK(index.nonDicomFiles == 0);
    const auto all = index.allSeries();
    REQUIRE(all.size() == 1);
    const io::DicomSeries& s = *all[0];
    INFO("issues:" << listIssues(s.issues));
    CHECK(s.modality == "CT");
    CHECK(s.isImage);
    CHECK(s.isRegular());
    CHECK(s.issues.empty());
    CHECK(s.instanceCount == 3);
    CHECK(s.format.rows == 4);
    CHECK(s.format.columns == 5);
    CHECK(s.format.bitsAllocated == 16);
    CHECK(s.format.pixelRepresentation == 1);
    CHECK(s.format.transferSyntaxUid == test::transferSyntaxUid(ts));
    REQUIRE(s.slices.size() == 3);
    for (int k = 0; k < 3; ++k) {
      CHECK(s.slices[std::size_t(k)].instanceNumber == instanceOfK[k]);
      CHECK(fs::path(s.slices[std::size_t(k)].path).filename() == nameOfK[k]);
    }
    CHECK(s.sliceSpacingMm == Approx(gap).margin(1e-6));

    auto loaded = io::loadDicomSeries(s);
    if (!loaded) FAIL(loaded.error().describe());
    CHECK(loaded->regular);
    CHECK(loaded->issues.empty());
    const core::Geometry& g = loaded->image.geometry();
    CHECK(g.dimensions() == core::Size3{5, 4, 3});
    CHECK(g.spacingMm()[0] == Approx(0.9).margin(1e-9));  // i: between columns, PixelSpacing[1]
    CHECK(g.spacingMm()[1] == Approx(0.7).margin(1e-9));  // j: between rows, PixelSpacing[0]
    CHECK(g.spacingMm()[2] == Approx(gap).margin(1e-6));
    for (int a = 0; a < 3; ++a) {
      CHECK(g.originLps()[std::size_t(a)] == Approx(positions[0][std::size_t(a)]).margin(1e-6));
      CHECK(g.direction()(a, 0) == Approx(rowDir[std::size_t(a)]).margin(1e-9));
      CHECK(g.direction()(a, 1) == Approx(colDir[std::size_t(a)]).margin(1e-9));
      CHECK(g.direction()(a, 2) == Approx(normal[std::size_t(a)]).margin(1e-9));
    }
    // Every slice position lands on its k.
    for (int k = 0; k < 3; ++k) {
      const core::Vec3 p = g.indexToLps(core::Vec3{0, 0, double(k)});
      for (int a = 0; a < 3; ++a) CHECK(p[std::size_t(a)] == Approx(positions[std::size_t(k)][std::size_t(a)]).margin(1e-5));
    }
    if (g.dimensions() == core::Size3{5, 4, 3}) {
      int wrong = 0;
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 4; ++j)
          for (int i = 0; i < 5; ++i) {
            const float expected = float((100 * k + 10 * j + i) * 2 - 1024);
            if (loaded->image.at({i, j, k}) != expected) {
              if (++wrong <= 5) FAIL_CHECK("voxel (" << i << "," << j << "," << k << ") = " << loaded->image.at({i, j, k})
                                                     << ", expected " << expected);
            }
          }
      CHECK(wrong == 0);
    }
  }
}

// --- structure: truncation and lying lengths -------------------------------------------------------------------------

TEST_CASE("dicom malformed: truncated files are skipped with the path and a truncation reason", "[dicom]") {
  for (TransferSyntax ts : {TransferSyntax::ExplicitLittle, TransferSyntax::ImplicitLittle, TransferSyntax::ExplicitBig}) {
    INFO("transfer syntax: " << syntaxName(ts));
    CtSliceParams p;
    p.syntax = ts;
    p.rows = 16;
    p.columns = 16;
    const DicomBuilder b = test::makeCtSlice(p);
    const std::string full = b.bytes();
    struct Cut {
      const char* what;
      std::size_t at;
    };
    const std::vector<Cut> cuts = {
        {"inside the file meta group", 132 + 30},
        {"inside an element header (ImagePositionPatient)", b.offsetOf(0x0020, 0x0032) + 5},
        {"inside an element value (PatientName)", b.valueOffsetOf(0x0010, 0x0010) + 3},
        {"inside an element value (ImageOrientationPatient)", b.valueOffsetOf(0x0020, 0x0037) + 1},
        {"inside the pixel data", b.valueOffsetOf(0x7FE0, 0x0010) + 256},
        {"one byte before the end", full.size() - 1},
    };
    for (const Cut& cut : cuts) {
      INFO("cut " << cut.what << " at byte " << cut.at << " of " << full.size());
      REQUIRE(cut.at < full.size());
      ScratchDir dir("dicom-trunc");
      const fs::path file = dir / "cut.dcm";
      test::writeFileBytes(file, full.substr(0, cut.at));
      const io::DicomIndex index = indexOk(dir.path());
      checkSkipped(index, file, words::kTruncated);
      CHECK(index.nonDicomFiles == 0);  // it has a preamble: it claims to be DICOM
      CHECK(index.allSeries().empty());
      auto frames = io::readDicomFrames(file.string());
      REQUIRE_FALSE(frames.ok());
      CHECK(contains(frames.error().describe(), file.string()));
    }
  }
}

TEST_CASE("dicom malformed: a value length running past the end of the file is refused", "[dicom]") {
  AddressSpaceCap cap(kHeadroom);
  struct Variant {
    const char* what;
    TransferSyntax ts;
    std::uint16_t group, element;
    std::uint32_t length;
    bool namesPatientId;
  };
  const std::vector<Variant> variants = {
      {"implicit VR LO PatientID declaring 0xFFFFFFF0", TransferSyntax::ImplicitLittle, 0x0010, 0x0020, 0xFFFFFFF0u,
       true},
      {"explicit VR LO PatientID declaring 0xFFF0", TransferSyntax::ExplicitLittle, 0x0010, 0x0020, 0xFFF0u, true},
      {"explicit VR big endian LO PatientID declaring 0xFFF0", TransferSyntax::ExplicitBig, 0x0010, 0x0020, 0xFFF0u,
       true},
      {"explicit VR UT (a 32-bit length) declaring 0xFFFFFFF0", TransferSyntax::ExplicitLittle, 0x0008, 0x2111,
       0xFFFFFFF0u, false},
      {"explicit VR OW pixel data declaring 0xFFFFFFF0", TransferSyntax::ExplicitLittle, 0x7FE0, 0x0010, 0xFFFFFFF0u,
       false},
  };
  for (const Variant& v : variants) {
    INFO(v.what);
    ScratchDir dir("dicom-len");
    CtSliceParams p;
    p.syntax = v.ts;
    DicomBuilder b = test::makeCtSlice(p);
    if (v.group == 0x0008 && v.element == 0x2111) b.str(0x0008, 0x2111, "UT", "derived from nothing");
    b.declareLength(v.group, v.element, v.length);
    const fs::path file = dir / "liar.dcm";
    b.write(file);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, words::kLength);
    if (const auto* s = findSkipped(index, file)) {
      CHECK_MENTIONS(s->reason, words::kTruncated);
      if (v.namesPatientId) CHECK_MENTIONS(s->reason, words::kPatientIdTag);
    }
    auto frames = io::readDicomFrames(file.string());
    REQUIRE_FALSE(frames.ok());
    CHECK(contains(frames.error().describe(), file.string()));
  }
}

// --- impossible image attributes -------------------------------------------------------------------------------------

TEST_CASE("dicom malformed: Rows = 0 or absent is refused naming rows", "[dicom]") {
  for (const bool absent : {false, true}) {
    INFO((absent ? "Rows absent" : "Rows = 0"));
    ScratchDir dir("dicom-rows");
    DicomBuilder b = test::makeCtSlice(CtSliceParams{});
    if (absent) b.remove(0x0028, 0x0010);
    else b.us(0x0028, 0x0010, 0);
    const fs::path file = dir / "rows.dcm";
    b.write(file);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, words::kRows);
    CHECK(index.allSeries().empty());
    auto frames = io::readDicomFrames(file.string());
    REQUIRE_FALSE(frames.ok());
    CHECK(contains(frames.error().describe(), file.string()));
    CHECK_MENTIONS(frames.error().describe(), words::kRows);
  }
}

TEST_CASE("dicom malformed: Columns = 0 is refused naming columns", "[dicom]") {
  ScratchDir dir("dicom-cols");
  DicomBuilder b = test::makeCtSlice(CtSliceParams{});
  b.us(0x0028, 0x0011, 0);
  const fs::path file = dir / "cols.dcm";
  b.write(file);
  const io::DicomIndex index = indexOk(dir.path());
  checkSkipped(index, file, words::kColumns);
  CHECK(index.allSeries().empty());
  auto frames = io::readDicomFrames(file.string());
  REQUIRE_FALSE(frames.ok());
  CHECK(contains(frames.error().describe(), file.string()));
  CHECK_MENTIONS(frames.error().describe(), words::kColumns);
}

TEST_CASE("dicom malformed: Rows x Columns x Frames x BitsAllocated beyond 32 bits is refused without allocating",
          "[dicom]") {
  struct Variant {
    const char* what;
    std::uint16_t rows, columns;
    const char* frames;
    bool emptyPixelData;
  };
  const std::vector<Variant> variants = {
      {"65535 x 65535 x 65535 frames x 16 bits", 65535, 65535, "65535", false},
      // 2^33 bytes: exactly 0 in 32-bit arithmetic, and the pixel data is empty, so a 32-bit check would pass.
      {"32768 x 32768 x 4 frames x 16 bits (2^33 bytes, 0 mod 2^32) with empty pixel data", 32768, 32768, "4", true},
      // Within the voxel limit, but no pixel data to back it.
      {"512 x 512 x 200000 frames x 16 bits", 512, 512, "200000", false},
  };
  for (const Variant& v : variants) {
    INFO(v.what);
    ScratchDir dir("dicom-huge");
    DicomBuilder b = test::makeCtSlice(CtSliceParams{});
    b.us(0x0028, 0x0010, v.rows).us(0x0028, 0x0011, v.columns).str(0x0028, 0x0008, "IS", v.frames);
    if (v.emptyPixelData) b.pixelsNative(std::vector<std::int16_t>{});
    const fs::path file = dir / "huge.dcm";
    b.write(file);
    AddressSpaceCap cap(kHeadroom);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, words::kTooLarge);
    CHECK(index.allSeries().empty());
    auto frames = io::readDicomFrames(file.string());
    REQUIRE_FALSE(frames.ok());
    CHECK(frames.error().code != ErrorCode::OutOfMemory);
    CHECK(contains(frames.error().describe(), file.string()));
    CHECK_MENTIONS(frames.error().describe(), words::kTooLarge);
  }
}

TEST_CASE("dicom malformed: HighBit at or above BitsAllocated is refused", "[dicom]") {
  for (const std::uint16_t highBit : {std::uint16_t(16), std::uint16_t(40)}) {
    INFO("HighBit " << highBit << " with BitsAllocated 16");
    ScratchDir dir("dicom-highbit");
    DicomBuilder b = test::makeCtSlice(CtSliceParams{});
    b.us(0x0028, 0x0102, highBit);
    const fs::path file = dir / "highbit.dcm";
    b.write(file);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, words::kHighBit);
    auto frames = io::readDicomFrames(file.string());
    REQUIRE_FALSE(frames.ok());
    CHECK(contains(frames.error().describe(), file.string()));
    CHECK_MENTIONS(frames.error().describe(), words::kHighBit);
  }
}

TEST_CASE("dicom malformed: BitsAllocated other than 8 or 16 or 32 is refused for an image", "[dicom]") {
  struct Variant {
    std::uint16_t allocated, stored, high;
  };
  for (const Variant v : {Variant{12, 12, 11}, Variant{64, 16, 15}, Variant{0, 0, 0}, Variant{24, 24, 23}}) {
    INFO("BitsAllocated " << v.allocated << ", BitsStored " << v.stored << ", HighBit " << v.high);
    ScratchDir dir("dicom-bits");
    DicomBuilder b = test::makeCtSlice(CtSliceParams{});
    b.us(0x0028, 0x0100, v.allocated).us(0x0028, 0x0101, v.stored).us(0x0028, 0x0102, v.high);
    // Enough pixel bytes for the declared size, so the bit depth is the only thing wrong.
    b.pixelsNative(std::vector<std::uint16_t>(4 * 5 * 4, 7));
    const fs::path file = dir / "bits.dcm";
    b.write(file);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, v.allocated == 0 ? words::kBits : words::kBitsAllocated);
    CHECK(index.allSeries().empty());
  }
}

// --- nesting ---------------------------------------------------------------------------------------------------------

TEST_CASE("dicom malformed: sequences nested 10000 deep are refused without overflowing the stack", "[dicom]") {
  struct Variant {
    const char* what;
    TransferSyntax ts;
    int depth;
    bool undefinedLength;
  };
  const std::vector<Variant> variants = {
      {"10000 undefined-length levels, explicit VR", TransferSyntax::ExplicitLittle, 10000, true},
      {"10000 defined-length levels, explicit VR", TransferSyntax::ExplicitLittle, 10000, false},
      {"10000 undefined-length levels, implicit VR", TransferSyntax::ImplicitLittle, 10000, true},
      {"100000 undefined-length levels, explicit VR", TransferSyntax::ExplicitLittle, 100000, true},
  };
  for (const Variant& v : variants) {
    INFO(v.what);
    ScratchDir dir("dicom-deep");
    CtSliceParams p;
    p.syntax = v.ts;
    DicomBuilder b = test::makeCtSlice(p);
    b.nestedSequences(0x0040, 0xA730, v.depth, v.undefinedLength);  // ContentSequence
    const fs::path file = dir / "deep.dcm";
    b.write(file);
    // Indexed and read on a thread with the default stack: a parser recursing per level would overflow it.
    const auto index = onThread([&] { return indexOk(dir.path()); });
    checkSkipped(index, file, words::kNesting);
    const auto frames = onThread([&] { return io::readDicomFrames(file.string()); });
    REQUIRE_FALSE(frames.ok());
    CHECK(contains(frames.error().describe(), file.string()));
    CHECK_MENTIONS(frames.error().describe(), words::kNesting);
  }
}

TEST_CASE("dicom malformed: nesting beyond kMaxSequenceDepth is refused and up to it accepted", "[dicom]") {
  struct Variant {
    int depth;
    bool undefinedLength;
    bool accepted;
  };
  const std::vector<Variant> variants = {
      {100, true, false},
      {100, false, false},
      {io::kMaxSequenceDepth + 1, true, false},
      {io::kMaxSequenceDepth, true, true},
      {io::kMaxSequenceDepth, false, true},
  };
  for (const Variant& v : variants) {
    INFO(v.depth << " levels, " << (v.undefinedLength ? "undefined" : "defined") << " lengths (kMaxSequenceDepth "
                 << io::kMaxSequenceDepth << ")");
    ScratchDir dir("dicom-depth");
    DicomBuilder b = test::makeCtSlice(CtSliceParams{});
    b.nestedSequences(0x0040, 0xA730, v.depth, v.undefinedLength);
    const fs::path file = dir / "nested.dcm";
    b.write(file);
    const auto index = onThread([&] { return indexOk(dir.path()); });
    if (v.accepted) {
      INFO("skipped:" << listSkipped(index));
      CHECK(index.skipped.empty());
      const auto all = index.allSeries();
      REQUIRE(all.size() == 1);
      auto loaded = io::loadDicomSeries(*all[0]);
      if (!loaded) FAIL(loaded.error().describe());
      CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 1});
    } else {
      checkSkipped(index, file, words::kNesting);
    }
  }
}

// --- grouping and slice geometry -------------------------------------------------------------------------------------

TEST_CASE("dicom malformed: two series in one folder are indexed apart and each loads", "[dicom]") {
  ScratchDir dir("dicom-two");
  CtSliceParams a;
  a.seriesUid = "2.25.5001";
  a.seriesNumber = "1";
  CtSliceParams b = a;
  b.seriesUid = "2.25.5002";
  b.seriesNumber = "2";
  b.rows = 6;
  b.columns = 3;
  writeSeries(dir, "a", a, axialPositions(3, 2));
  writeSeries(dir, "b", b, axialPositions(4, 1.25, 50));
  const io::DicomIndex index = indexOk(dir.path());
  CHECK(index.skipped.empty());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 2);
  const io::DicomSeries* sa = index.findSeries("2.25.5001");
  const io::DicomSeries* sb = index.findSeries("2.25.5002");
  REQUIRE(sa != nullptr);
  REQUIRE(sb != nullptr);
  CHECK(sa->slices.size() == 3);
  CHECK(sb->slices.size() == 4);
  CHECK(sa->splitIndex == 0);
  CHECK(sb->splitIndex == 0);
  CHECK(sa->isRegular());
  CHECK(sb->isRegular());
  auto la = io::loadDicomSeries(*sa);
  auto lb = io::loadDicomSeries(*sb);
  if (!la) FAIL(la.error().describe());
  if (!lb) FAIL(lb.error().describe());
  CHECK(la->image.geometry().dimensions() == core::Size3{5, 4, 3});
  CHECK(lb->image.geometry().dimensions() == core::Size3{3, 6, 4});
  CHECK(lb->image.geometry().spacingMm()[2] == Approx(1.25).margin(1e-6));
  CHECK(la->image.at({1, 2, 2}) == float(300 + 20 + 1 - 1024));
  CHECK(lb->image.at({2, 5, 3}) == float(400 + 50 + 2 - 1024));
}

TEST_CASE("dicom malformed: one SeriesInstanceUID with two orientations is split with a Split issue", "[dicom]") {
  ScratchDir dir("dicom-split");
  CtSliceParams axial;
  axial.seriesUid = "2.25.6001";
  CtSliceParams coronal = axial;
  coronal.rowDirection = {1, 0, 0};
  coronal.columnDirection = {0, 0, -1};
  writeSeries(dir, "ax", axial, axialPositions(3, 2));
  writeSeries(dir, "co", coronal, {{-10, 0, 30}, {-10, 2, 30}, {-10, 4, 30}});
  const io::DicomIndex index = indexOk(dir.path());
  CHECK(index.skipped.empty());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 2);
  CHECK(all[0]->seriesInstanceUid == "2.25.6001");
  CHECK(all[1]->seriesInstanceUid == "2.25.6001");
  CHECK(all[0]->key() != all[1]->key());
  for (const io::DicomSeries* s : all) {
    INFO("series " << s->key() << " issues:" << listIssues(s->issues));
    CHECK(s->splitIndex > 0);
    CHECK(contains(lower(s->splitReason), "orientation"));
    CHECK(hasIssue(s->issues, io::SeriesIssueKind::Split));
    CHECK(s->isRegular());  // a split is not an irregular grid
    CHECK(s->slices.size() == 3);
    CHECK(index.findSeries(s->key()) == s);
    auto loaded = io::loadDicomSeries(*s);
    if (!loaded) FAIL(loaded.error().describe());
    CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 3});
    CHECK(hasIssue(loaded->issues, io::SeriesIssueKind::Split));
  }
  CHECK(all[0]->splitIndex != all[1]->splitIndex);
}

TEST_CASE("dicom malformed: a missing slice is reported and refused by default and loads with allowIrregular",
          "[dicom]") {
  ScratchDir dir("dicom-missing");
  CtSliceParams base;
  base.seriesUid = "2.25.7001";
  const auto files = writeSeries(dir, "s", base, axialPositions(10, 2));  // z = 0, 2, ..., 18
  fs::remove(files[5]);                                                     // z = 10 is gone
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  const io::DicomSeries& s = *all[0];
  INFO("issues:" << listIssues(s.issues));
  CHECK(s.slices.size() == 9);
  CHECK(hasIssue(s.issues, io::SeriesIssueKind::MissingSlices));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::NonUniformSpacing));
  CHECK_FALSE(s.isRegular());
  CHECK(s.sliceSpacingMm == Approx(2).margin(1e-6));

  auto refused = io::loadDicomSeries(s);
  REQUIRE_FALSE(refused.ok());
  CHECK_MENTIONS(refused.error().describe(), words::kMissing);
  CHECK((contains(refused.error().describe(), dir.path().string()) || contains(refused.error().describe(), "2.25.7001")));

  io::DicomLoadOptions options;
  options.allowIrregular = true;
  auto loaded = io::loadDicomSeries(s, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK_FALSE(loaded->regular);
  CHECK(hasIssue(loaded->issues, io::SeriesIssueKind::MissingSlices));
  const core::Geometry& g = loaded->image.geometry();
  REQUIRE(g.dimensions() == core::Size3{5, 4, 10});
  CHECK(g.spacingMm()[2] == Approx(2).margin(1e-6));
  CHECK(g.originLps()[2] == Approx(0).margin(1e-6));
  // Every acquired slice stays where it was scanned: instance n (z = 2 (n - 1)) at k = n - 1.
  for (int k : {0, 4, 6, 9}) CHECK(loaded->image.at({3, 2, k}) == float(100 * (k + 1) + 23 - 1024));
  // The gap holds the series' lowest value.
  float lowest = loaded->image.at({0, 0, 0});
  for (std::size_t v = 0; v < loaded->image.size(); ++v) lowest = std::min(lowest, loaded->image[v]);
  CHECK(lowest == float(100 - 1024));
  CHECK(loaded->image.at({0, 0, 5}) == lowest);
  CHECK(loaded->image.at({4, 3, 5}) == lowest);
}

TEST_CASE("dicom malformed: duplicate positions are reported and the first by InstanceNumber is kept", "[dicom]") {
  ScratchDir dir("dicom-dup");
  CtSliceParams base;
  base.seriesUid = "2.25.7002";
  writeSeries(dir, "s", base, axialPositions(5, 2));  // instances 1..5 at z = 0..8
  CtSliceParams extra = base;
  extra.instanceNumber = 6;
  extra.positionLps = {-10, 20, 4};  // where instance 3 is
  extra.pixel = [](int i, int j) { return 9000 + 10 * j + i; };
  test::makeCtSlice(extra).write(dir / "s0-duplicate.dcm");
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  const io::DicomSeries& s = *all[0];
  INFO("issues:" << listIssues(s.issues));
  CHECK(s.slices.size() == 6);
  CHECK(hasIssue(s.issues, io::SeriesIssueKind::DuplicatePositions));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::MissingSlices));
  CHECK_FALSE(s.isRegular());
  auto refused = io::loadDicomSeries(s);
  REQUIRE_FALSE(refused.ok());
  CHECK_MENTIONS(refused.error().describe(), words::kDuplicate);

  io::DicomLoadOptions options;
  options.allowIrregular = true;
  auto loaded = io::loadDicomSeries(s, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK_FALSE(loaded->regular);
  CHECK(hasIssue(loaded->issues, io::SeriesIssueKind::DuplicatePositions));
  REQUIRE(loaded->image.geometry().dimensions() == core::Size3{5, 4, 5});
  CHECK(loaded->image.at({1, 1, 2}) == float(300 + 11 - 1024));  // instance 3, not 6
  CHECK(loaded->image.at({1, 1, 3}) == float(400 + 11 - 1024));
}

TEST_CASE("dicom malformed: non-uniform slice spacing is reported and refused by default", "[dicom]") {
  ScratchDir dir("dicom-nonuniform");
  CtSliceParams base;
  base.seriesUid = "2.25.7003";
  writeSeries(dir, "s", base, {{0, 0, 0}, {0, 0, 2}, {0, 0, 4}, {0, 0, 7}, {0, 0, 9}, {0, 0, 11}});
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  const io::DicomSeries& s = *all[0];
  INFO("issues:" << listIssues(s.issues));
  CHECK(hasIssue(s.issues, io::SeriesIssueKind::NonUniformSpacing));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::MissingSlices));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::GantryTilt));
  CHECK_FALSE(s.isRegular());
  CHECK(s.sliceSpacingMm == Approx(2).margin(1e-6));
  auto refused = io::loadDicomSeries(s);
  REQUIRE_FALSE(refused.ok());
  CHECK_MENTIONS(refused.error().describe(), words::kSpacing);

  io::DicomLoadOptions options;
  options.allowIrregular = true;
  auto loaded = io::loadDicomSeries(s, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK_FALSE(loaded->regular);
  CHECK(hasIssue(loaded->issues, io::SeriesIssueKind::NonUniformSpacing));
  CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 6});
}

TEST_CASE("dicom malformed: a 15 degree gantry tilt is reported with its angle", "[dicom]") {
  ScratchDir dir("dicom-tilt");
  CtSliceParams base;
  base.seriesUid = "2.25.7004";
  const double kPi = 3.14159265358979323846;
  const double shear = std::tan(15.0 * kPi / 180.0);
  std::vector<core::Vec3> positions;
  for (int k = 0; k < 6; ++k) positions.push_back({5, -30 + 2.0 * shear * k, 100 + 2.0 * k});
  writeSeries(dir, "s", base, positions);
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  const io::DicomSeries& s = *all[0];
  INFO("issues:" << listIssues(s.issues));
  CHECK(hasIssue(s.issues, io::SeriesIssueKind::GantryTilt));
  CHECK(s.gantryTiltDegrees == Approx(15).margin(0.5));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::MissingSlices));
  CHECK_FALSE(hasIssue(s.issues, io::SeriesIssueKind::NonUniformSpacing));
  CHECK(s.sliceSpacingMm == Approx(2).margin(1e-3));
  CHECK_FALSE(s.isRegular());
  auto refused = io::loadDicomSeries(s);
  REQUIRE_FALSE(refused.ok());
  CHECK_MENTIONS(refused.error().describe(), words::kTilt);
  io::DicomLoadOptions options;
  options.allowIrregular = true;
  auto loaded = io::loadDicomSeries(s, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK(hasIssue(loaded->issues, io::SeriesIssueKind::GantryTilt));
  CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 6});
}

// --- damaged files among good ones -----------------------------------------------------------------------------------

TEST_CASE("dicom malformed: damaged files next to good ones are skipped, and the series loads only when told", "[dicom]") {
  ScratchDir dir("dicom-damaged");
  CtSliceParams base;
  base.seriesUid = "2.25.8001";
  writeSeries(dir, "good", base, axialPositions(3, 2));
  // The fourth slice of the same series, cut inside its pixel data.
  CtSliceParams fourth = base;
  fourth.instanceNumber = 4;
  fourth.positionLps = {-10, 20, 6};
  const std::string bytes = test::makeCtSlice(fourth).bytes();
  const fs::path truncated = dir / "damaged-truncated.dcm";
  test::writeFileBytes(truncated, bytes.substr(0, bytes.size() - 7));
  // A preamble and DICM, then garbage.
  const fs::path garbage = dir / "damaged-garbage.dcm";
  test::writeFileBytes(garbage, std::string(128, '\0') + "DICM" + randomBytes(600, 7));

  const io::DicomIndex index = indexOk(dir.path());
  CHECK(index.filesVisited == 5);
  CHECK(index.nonDicomFiles == 0);
  CHECK(index.skipped.size() == 2);
  checkSkipped(index, truncated, words::kTruncated);
  {
    INFO("skipped:" << listSkipped(index));
    CHECK(findSkipped(index, garbage) != nullptr);
    CHECK_FALSE(seriesContains(index, garbage));
  }
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  CHECK(all[0]->slices.size() == 3);
  CHECK(all[0]->isRegular());
  // Issue 22: both may be slices of this series (the truncated one says so, the garbage lies beside it), so the
  // series is incomplete: refused naming both, loaded without them only when asked.
  REQUIRE(all[0]->unreadable.size() == 2);
  auto refused = io::loadDicomSeries(*all[0]);
  REQUIRE_FALSE(refused.ok());
  CHECK(contains(refused.error().describe(), truncated.string()));
  CHECK(contains(refused.error().describe(), garbage.string()));
  io::DicomLoadOptions rest;
  rest.allowUnreadable = true;
  auto loaded = io::loadDicomSeries(*all[0], rest);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 3});
  CHECK_FALSE(loaded->complete);
}

TEST_CASE("dicom malformed: a slice cut right before its pixel data does not spoil its series", "[dicom]") {
  // Cut exactly at an element boundary, the file is structurally sound but a CT image without its (type 1) pixel
  // data: it must be skipped as damaged, not turn the whole series into a non-image series.
  ScratchDir dir("dicom-nopixels");
  CtSliceParams base;
  base.seriesUid = "2.25.8004";
  writeSeries(dir, "good", base, axialPositions(3, 2));
  CtSliceParams fourth = base;
  fourth.instanceNumber = 4;
  fourth.positionLps = {-10, 20, 6};
  const DicomBuilder b = test::makeCtSlice(fourth);
  const fs::path cut = dir / "no-pixel-data.dcm";
  test::writeFileBytes(cut, b.bytes().substr(0, b.offsetOf(0x7FE0, 0x0010)));
  const io::DicomIndex index = indexOk(dir.path());
  INFO("skipped:" << listSkipped(index));
  // Preferred: skipped as damaged. Tolerated: listed apart as a non-image series. Required: the good slices load.
  if (const io::DicomSkippedFile* s = findSkipped(index, cut)) CHECK_MENTIONS(s->reason, words::kPixelData);
  const io::DicomSeries* images = nullptr;
  for (const io::DicomSeries* s : index.allSeries()) {
    INFO("series " << s->key() << " isImage " << s->isImage << ", " << s->slices.size() << " slices, split reason \""
                   << s->splitReason << "\"");
    if (s->isImage) {
      CHECK(images == nullptr);
      images = s;
    } else {
      CHECK(s->slices.size() == 1);
    }
  }
  REQUIRE(images != nullptr);
  CHECK(images->slices.size() == 3);
  // Skipped as damaged, it is an unreadable member (issue 22): the good slices load only when that is asked for.
  io::DicomLoadOptions options;
  options.allowUnreadable = true;
  if (!images->isComplete()) CHECK_FALSE(io::loadDicomSeries(*images).ok());
  auto loaded = io::loadDicomSeries(*images, options);
  if (!loaded) FAIL(loaded.error().describe());
  CHECK(loaded->image.geometry().dimensions() == core::Size3{5, 4, 3});
}

TEST_CASE("dicom malformed: a file damaged after indexing fails the load with its path", "[dicom]") {
  ScratchDir dir("dicom-changed");
  CtSliceParams base;
  base.seriesUid = "2.25.8002";
  const auto files = writeSeries(dir, "s", base, axialPositions(4, 2));
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  // The share changes under us: one slice loses the end of its pixel data.
  const std::string bytes = test::readFileBytes(files[2]);
  test::writeFileBytes(files[2], bytes.substr(0, bytes.size() - 10));
  AddressSpaceCap cap(kHeadroom);
  io::DicomLoadOptions options;
  options.threads = 2;
  auto loaded = io::loadDicomSeries(*all[0], options);
  REQUIRE_FALSE(loaded.ok());
  CHECK(contains(loaded.error().describe(), files[2].filename().string()));
  CHECK_MENTIONS(loaded.error().describe(), words::kTruncated);
}

TEST_CASE("dicom malformed: non-DICOM files are counted and not listed as skipped", "[dicom]") {
  ScratchDir dir("dicom-nondicom");
  CtSliceParams base;
  base.seriesUid = "2.25.8003";
  writeSeries(dir, "s", base, axialPositions(2, 2));
  test::writeTextFile(dir / "notes.txt", "Scanned on the old CT.\nDo not use for dosimetry.\n");
  test::writeFileBytes(dir / "empty", "");
  test::writeFileBytes(dir / "thumbnail.png", std::string("\x89PNG\r\n\x1a\n", 8) + randomBytes(200, 11));
  const io::DicomIndex index = indexOk(dir.path());
  INFO("skipped:" << listSkipped(index));
  CHECK(index.filesVisited == 5);
  CHECK(index.nonDicomFiles == 3);
  CHECK(index.skipped.empty());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  CHECK(all[0]->slices.size() == 2);
  auto loaded = io::loadDicomSeries(*all[0]);
  if (!loaded) FAIL(loaded.error().describe());
}

TEST_CASE("dicom malformed: pixel data shorter than Rows x Columns x BitsAllocated is refused", "[dicom]") {
  for (TransferSyntax ts : {TransferSyntax::ExplicitLittle, TransferSyntax::ImplicitLittle, TransferSyntax::ExplicitBig}) {
    INFO("transfer syntax: " << syntaxName(ts));
    ScratchDir dir("dicom-short");
    CtSliceParams p;
    p.syntax = ts;
    DicomBuilder b = test::makeCtSlice(p);
    auto values = test::ctPixels(p);
    values.resize(values.size() - std::size_t(p.columns));  // one row short, and the file is consistent with that
    b.pixelsNative(values);
    const fs::path file = dir / "short.dcm";
    b.write(file);
    AddressSpaceCap cap(kHeadroom);
    const io::DicomIndex index = indexOk(dir.path());
    checkSkipped(index, file, words::kPixelData);
    if (const auto* s = findSkipped(index, file)) CHECK_MENTIONS(s->reason, words::kTooShort);
    auto frames = io::readDicomFrames(file.string());
    REQUIRE_FALSE(frames.ok());
    CHECK(contains(frames.error().describe(), file.string()));
    CHECK_MENTIONS(frames.error().describe(), words::kPixelData);
  }
}

// --- encapsulated pixel data -----------------------------------------------------------------------------------------

namespace {

std::string be16(std::uint16_t v) { return std::string{char(v >> 8), char(v & 0xFF)}; }
std::string be32(std::uint32_t v) {
  return std::string{char(v >> 24), char((v >> 16) & 0xFF), char((v >> 8) & 0xFF), char(v & 0xFF)};
}
std::string le32(std::uint32_t v) {
  return std::string{char(v & 0xFF), char((v >> 8) & 0xFF), char((v >> 16) & 0xFF), char(v >> 24)};
}

// SOC + SIZ of a one-component JPEG 2000 code stream declaring width x height, with nothing after it.
std::string j2kHeaderOnly(std::uint32_t width, std::uint32_t height) {
  std::string s = be16(0xFF4F) + be16(0xFF51) + be16(41) + be16(0);
  s += be32(width) + be32(height) + be32(0) + be32(0) + be32(width) + be32(height) + be32(0) + be32(0);
  s += be16(1) + std::string{char(15), char(1), char(1)};  // 16-bit signed, no subsampling
  return s;
}

struct EncapsulatedVariant {
  const char* what;
  std::vector<std::string> fragments;
};

// Indexing may refuse the file (then it is listed with its path); otherwise loading it must fail naming the file.
// Either way readDicomFrames fails naming it, and nothing crashes or allocates gigabytes.
void checkEncapsulatedGarbage(TransferSyntax ts, const EncapsulatedVariant& v) {
  ScratchDir dir("dicom-encaps");
  CtSliceParams p;
  p.syntax = ts;
  p.seriesUid = "2.25.9001";
  DicomBuilder b = test::makeCtSlice(p);
  b.pixelsEncapsulated(v.fragments);
  const fs::path file = dir / "encapsulated.dcm";
  b.write(file);
  AddressSpaceCap cap(kHeadroom);
  const io::DicomIndex index = indexOk(dir.path());
  INFO("skipped:" << listSkipped(index));
  if (findSkipped(index, file)) {
    CHECK(index.allSeries().empty());
  } else {
    const auto all = index.allSeries();
    REQUIRE(all.size() == 1);
    io::DicomLoadOptions options;
    options.threads = 1;
    auto loaded = io::loadDicomSeries(*all[0], options);
    REQUIRE_FALSE(loaded.ok());
    CHECK(loaded.error().code != ErrorCode::OutOfMemory);
    CHECK(contains(loaded.error().describe(), file.filename().string()));
  }
  auto frames = io::readDicomFrames(file.string());
  REQUIRE_FALSE(frames.ok());
  CHECK(contains(frames.error().describe(), file.string()));
}

}  // namespace

TEST_CASE("dicom malformed: RLE pixel data with garbage fragments fails naming the file", "[dicom]") {
  // RLE header: number of segments, then 15 segment offsets.
  std::string farOffsets = le32(2) + le32(64) + le32(0x7FFFFFF0u);
  farOffsets += std::string(64 - farOffsets.size(), '\0') + randomBytes(36, 3);
  std::string overrun = le32(2) + le32(64) + le32(64 + 40);
  overrun += std::string(64 - overrun.size(), '\0');
  for (int n = 0; n < 40; ++n) overrun += std::string{char(0x81), char(0x55)};  // each run repeats 128 bytes
  std::string cutShort = test::rleEncode16(test::ctPixels(CtSliceParams{}), 4, 5);
  cutShort.resize(64 + 6);  // the header still points the second segment at byte 88
  const std::vector<EncapsulatedVariant> variants = {
      {"random bytes", {randomBytes(200, 1)}},
      {"segment offsets far past the fragment", {farOffsets}},
      // Each segment decodes to 5120 bytes where 20 are needed.
      {"runs that expand far beyond the frame", {overrun}},
      {"segments cut short", {cutShort}},
      {"no fragment at all", {}},
  };
  for (const EncapsulatedVariant& v : variants) {
    // One section per variant, so `-c "<variant>"` runs one alone.
    DYNAMIC_SECTION(v.what) { checkEncapsulatedGarbage(TransferSyntax::RleLossless, v); }
  }
}

TEST_CASE("dicom malformed: JPEG 2000 pixel data with garbage fragments fails naming the file", "[dicom]") {
  const std::vector<EncapsulatedVariant> variants = {
      {"random bytes", {randomBytes(300, 2)}},
      {"a code stream cut after its SIZ marker", {j2kHeaderOnly(5, 4)}},
      {"SIZ declaring 60000 x 60000", {j2kHeaderOnly(60000, 60000)}},
      {"no fragment at all", {}},
  };
  for (const EncapsulatedVariant& v : variants) {
    DYNAMIC_SECTION(v.what) { checkEncapsulatedGarbage(TransferSyntax::Jpeg2000Lossless, v); }
  }
}

// --- cancel ----------------------------------------------------------------------------------------------------------

TEST_CASE("dicom malformed: cancelling after the first progress report stops the load with Cancelled", "[dicom]") {
  ScratchDir dir("dicom-cancel-load");
  CtSliceParams base;
  base.seriesUid = "2.25.9101";
  writeSeries(dir, "s", base, axialPositions(6, 2));
  const io::DicomIndex index = indexOk(dir.path());
  const auto all = index.allSeries();
  REQUIRE(all.size() == 1);
  CancelAfterFirstReport sink;
  io::DicomLoadOptions options;
  options.threads = 1;  // one file at a time, so the cancel is seen before the second file
  options.progress = &sink;
  auto loaded = io::loadDicomSeries(*all[0], options);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().code == ErrorCode::Cancelled);
  CHECK(sink.reports() >= 1);
  const auto stages = sink.stages();
  CHECK(std::find(stages.begin(), stages.end(), "read") != stages.end());
}

TEST_CASE("dicom malformed: cancelling after the first progress report stops the index with Cancelled", "[dicom]") {
  ScratchDir dir("dicom-cancel-index");
  CtSliceParams base;
  base.seriesUid = "2.25.9102";
  writeSeries(dir, "s", base, axialPositions(6, 2));
  CancelAfterFirstReport sink;
  io::DicomScanOptions options;
  options.threads = 1;
  options.progress = &sink;
  auto index = io::indexDicomFolder(dir.path().string(), options);
  REQUIRE_FALSE(index.ok());
  CHECK(index.error().code == ErrorCode::Cancelled);
  CHECK(sink.reports() >= 1);
}
