// Builds a long synthetic CT series from the 41-slice TCIA CRLM-CT-1004 series, for DICOM load benchmarks and for
// tests that need a large or gapped series: slice k copies a source slice in ping-pong order (0..40, 39..1, 0..40,
// ...) so the anatomy stays continuous, gets a new SOPInstanceUID, InstanceNumber k + 1 and
// ImagePositionPatient z = z0 + k * spacing (x and y kept), SliceLocation = z; all slices share one new
// SeriesInstanceUID (one per run) and keep the source's StudyInstanceUID and FrameOfReferenceUID. File names are
// scrambled 8-hex-digit names without extension, as PACS exports write them, so listing order says nothing about
// position.
//
// Usage: bench_make_ct_series OUT_DIR [--slices N] [--spacing MM] [--missing K]... [--source DIR] [--studies N]
//   --missing K   leave out slice K (0-based, InstanceNumber K + 1); may be repeated. The series then has a gap.
//   --studies N   N studies of --slices slices each (PACS query benchmarks): each its own StudyInstanceUID,
//                 SeriesInstanceUID and PatientID "BENCH-00001", ...
// Exit codes: 0 success, 1 a file error, 2 a usage error.

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>
#include <dcmtk/dcmdata/dcuid.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

#ifndef DELINEATE_SHARED_DIR
#define DELINEATE_SHARED_DIR "../shared"
#endif

namespace {

struct SourceSlice {
  std::string path;
  std::unique_ptr<DcmFileFormat> file;
  std::string x, y;  // ImagePositionPatient x and y, kept verbatim
  double z = 0;
};

int usage(const char* msg) {
  if (msg) std::fprintf(stderr, "error: %s\n", msg);
  std::fprintf(stderr,
               "usage: bench_make_ct_series OUT_DIR [--slices N] [--spacing MM] [--missing K]... [--source DIR]\n"
               "  --slices N    number of slices (default 512)\n"
               "  --spacing MM  slice spacing along z (default 1.25)\n"
               "  --missing K   leave out slice K (0-based); may be repeated\n"
               "  --source DIR  source series (default %s/data/ct/tcia-crlm-ct-series/CRLM-CT-1004)\n"
               "  --studies N   N studies of N slices each, each its own study, series and patient ID\n",
               DELINEATE_SHARED_DIR);
  return 2;
}

bool parseInt(const char* s, long& out) {
  char* end = nullptr;
  out = std::strtol(s, &end, 10);
  return end != s && *end == '\0';
}

bool parseDouble(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end != s && *end == '\0';
}

// DS values are at most 16 characters.
std::string formatDs(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s.size() <= 16 ? s : std::string(buf).substr(0, 16);
}

// Odd multiplier and xor are both bijections on 32 bits, so names are unique and unrelated to position.
std::string scrambledName(std::uint32_t k) {
  const std::uint32_t h = (k + 1u) * 2654435761u ^ 0x5bd1e995u;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08X", h);
  return buf;
}

std::string newUid() {
  char uid[100];
  dcmGenerateUniqueIdentifier(uid, SITE_INSTANCE_UID_ROOT);
  return uid;
}

}  // namespace

int main(int argc, char** argv) {
  std::string outDir;
  long slices = 512;
  long studies = 1;
  double spacing = 1.25;
  std::set<long> missing;
  std::string sourceDir = std::string(DELINEATE_SHARED_DIR) + "/data/ct/tcia-crlm-ct-series/CRLM-CT-1004";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--slices") {
      const char* v = next();
      if (!v || !parseInt(v, slices) || slices < 1 || slices > 100000) return usage("--slices needs 1..100000");
    } else if (a == "--spacing") {
      const char* v = next();
      if (!v || !parseDouble(v, spacing) || !(spacing > 0) || spacing > 1000) return usage("--spacing needs a positive number of mm");
    } else if (a == "--missing") {
      long k = 0;
      const char* v = next();
      if (!v || !parseInt(v, k) || k < 0) return usage("--missing needs a slice index >= 0");
      missing.insert(k);
    } else if (a == "--studies") {
      const char* v = next();
      if (!v || !parseInt(v, studies) || studies < 1 || studies > 100000) return usage("--studies needs 1..100000");
    } else if (a == "--source") {
      const char* v = next();
      if (!v) return usage("--source needs a folder");
      sourceDir = v;
    } else if (a == "-h" || a == "--help") {
      usage(nullptr);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else if (outDir.empty()) {
      outDir = a;
    } else {
      return usage("more than one OUT_DIR");
    }
  }
  if (outDir.empty()) return usage("OUT_DIR missing");
  for (long k : missing)
    if (k >= slices) return usage(("--missing " + std::to_string(k) + " is not below --slices").c_str());

  // Source slices, sorted by z (ascending).
  std::vector<SourceSlice> source;
  std::error_code ec;
  for (fs::directory_iterator it(sourceDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    SourceSlice s;
    s.path = it->path().string();
    s.file = std::make_unique<DcmFileFormat>();
    const OFCondition c = s.file->loadFile(s.path.c_str());
    if (c.bad()) {
      std::fprintf(stderr, "error: %s: %s\n", s.path.c_str(), c.text());
      return 1;
    }
    DcmDataset* ds = s.file->getDataset();
    OFString x, y, z;
    if (ds->findAndGetOFString(DCM_ImagePositionPatient, x, 0).bad() ||
        ds->findAndGetOFString(DCM_ImagePositionPatient, y, 1).bad() ||
        ds->findAndGetOFString(DCM_ImagePositionPatient, z, 2).bad()) {
      std::fprintf(stderr, "error: %s: no ImagePositionPatient\n", s.path.c_str());
      return 1;
    }
    s.x = x.c_str();
    s.y = y.c_str();
    s.z = std::atof(z.c_str());
    source.push_back(std::move(s));
  }
  if (ec) {
    std::fprintf(stderr, "error: %s: %s\n", sourceDir.c_str(), ec.message().c_str());
    return 1;
  }
  if (source.empty()) {
    std::fprintf(stderr, "error: %s: no DICOM files\n", sourceDir.c_str());
    return 1;
  }
  std::sort(source.begin(), source.end(), [](const SourceSlice& a, const SourceSlice& b) { return a.z < b.z; });

  fs::create_directories(outDir, ec);
  if (ec) {
    std::fprintf(stderr, "error: %s: %s\n", outDir.c_str(), ec.message().c_str());
    return 1;
  }
  // Files of an earlier run would form a second series in the folder.
  if (fs::directory_iterator(outDir, ec) != fs::directory_iterator()) {
    std::fprintf(stderr, "error: %s: folder is not empty\n", outDir.c_str());
    return 1;
  }

  std::string seriesUid = newUid();
  const double z0 = source.front().z;
  const long n = static_cast<long>(source.size());
  const long period = n > 1 ? 2 * (n - 1) : 1;
  char description[64];
  std::snprintf(description, sizeof description, "synthetic %ld x %s mm", slices, formatDs(spacing).c_str());
  long written = 0;
  for (long study = 0; study < studies; ++study) {
  if (studies > 1) {
    char patient[32];
    std::snprintf(patient, sizeof patient, "BENCH-%05ld", study + 1);
    seriesUid = newUid();
    const std::string studyUid = newUid();
    for (SourceSlice& s : source) {
      s.file->getDataset()->putAndInsertString(DCM_StudyInstanceUID, studyUid.c_str());
      s.file->getDataset()->putAndInsertString(DCM_PatientID, patient);
      s.file->getDataset()->putAndInsertString(DCM_PatientName, (std::string("Bench^") + patient).c_str());
    }
  }
  for (long k = 0; k < slices; ++k) {
    if (missing.count(k)) continue;
    const long phase = k % period;
    SourceSlice& s = source[static_cast<std::size_t>(phase < n ? phase : period - phase)];
    DcmDataset* ds = s.file->getDataset();
    const std::string sopUid = newUid();
    const std::string z = formatDs(z0 + double(k) * spacing);
    const std::string ipp = s.x + "\\" + s.y + "\\" + z;
    OFCondition c = ds->putAndInsertString(DCM_SeriesInstanceUID, seriesUid.c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_SOPInstanceUID, sopUid.c_str());
    if (c.good()) c = s.file->getMetaInfo()->putAndInsertString(DCM_MediaStorageSOPInstanceUID, sopUid.c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_InstanceNumber, std::to_string(k + 1).c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_ImagePositionPatient, ipp.c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_SliceLocation, z.c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_SliceThickness, formatDs(spacing).c_str());
    if (c.good()) c = ds->putAndInsertString(DCM_SeriesDescription, description);
    const std::string path =
        (fs::path(outDir) / scrambledName(static_cast<std::uint32_t>(study * slices + k))).string();
    if (c.good()) c = s.file->saveFile(path.c_str(), EXS_LittleEndianExplicit);
    if (c.bad()) {
      std::fprintf(stderr, "error: %s: %s\n", path.c_str(), c.text());
      return 1;
    }
    ++written;
  }
  }
  std::printf("wrote %ld of %ld slices to %s: series %s, z %s .. %s mm, spacing %s mm, source %ld slices%s\n",
              written, slices * studies, outDir.c_str(), seriesUid.c_str(), formatDs(z0).c_str(),
              formatDs(z0 + double(slices - 1) * spacing).c_str(), formatDs(spacing).c_str(), n,
              missing.empty() ? "" : " (with missing slices)");
  return 0;
}
