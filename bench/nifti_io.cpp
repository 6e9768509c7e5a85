// Compressed volume file read and write, ours beside ITK 5.2's ImageIO, measured in the same run on the same volume:
// .nii.gz (io/volume/nifti.h vs itk::NiftiImageIO), .nrrd with gzip encoding (io/volume/nrrd.h vs itk::NrrdImageIO) and .mha with
// zlib compression (io/volume/metaimage.h vs itk::MetaImageIO).
//
// The volume is a synthetic 512^3 int16 CT: air around a body ellipse of soft tissue with smooth variation, lungs,
// a spine and a rib ring, and +-noise everywhere, so it compresses about as a real CT does (a constant volume would
// compress 1000:1 and measure nothing). Both sides store int16 (ours via int16WhenExact) at compression level 6.
// Each read is measured on both files, ours and ITK's, by both readers, so neither side gets an easier stream.
// ITK reads into itk::Image<short>; ours reads into core::ImageVolume (float), so our read includes the int16->float
// conversion every Delineate load does. Our writes fsync before renaming (io/base/atomic_file.h); ITK's do not.
//
// Usage: bench_nifti_io [size=512] [repeats=3] [folder=/tmp]

#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkMetaImageIO.h>
#include <itkNiftiImageIO.h>
#include <itkNrrdImageIO.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/volume/image_file.h"

using namespace delineate;
using Clock = std::chrono::steady_clock;
using ItkImage = itk::Image<short, 3>;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Fastest of `repeats` runs: the figure least disturbed by the rest of the machine.
double bestMs(int repeats, const std::function<bool()>& run) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    if (!run()) return std::nan("");
    best = std::min(best, msSince(t0));
  }
  return best;
}

std::vector<std::int16_t> syntheticCt(int n) {
  std::vector<std::int16_t> v(static_cast<std::size_t>(n) * n * n);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto noise = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<double>((state * 0x2545F4914F6CDD1Dull) >> 11) / 4503599627370496.0 - 1.0;
  };
  const double c = (n - 1) / 2.0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double dx = (x - c) / (0.42 * n), dy = (y - c) / (0.30 * n), dz = (z - c) / (0.5 * n);
        const double body = dx * dx + dy * dy;
        double hu = -1000;
        if (body < 1.0 && std::abs(dz) < 0.95) {
          hu = 40 + 25 * std::sin(x * 0.05) * std::cos(y * 0.04) + 15 * std::sin(z * 0.03);  // soft tissue
          const double lx = (std::abs(dx) - 0.45) / 0.3, ly = dy / 0.55;
          if (lx * lx + ly * ly < 1.0 && dz > -0.3) hu = -850 + 40 * std::sin(x * 0.2 + y * 0.1);  // lungs
          const double sx = dx / 0.08, sy = (dy - 0.6) / 0.12;
          if (sx * sx + sy * sy < 1.0) hu = 700 + 300 * std::cos(z * 0.15);  // spine
          if (body > 0.82 && body < 0.88 && std::fmod(z, 24.0) < 10) hu = 900;  // ribs
          hu += 12 * noise();
        } else {
          hu += 4 * noise();
        }
        v[static_cast<std::size_t>(x) + static_cast<std::size_t>(n) * (y + static_cast<std::size_t>(n) * z)] =
            static_cast<std::int16_t>(std::lround(hu));
      }
  return v;
}

struct Format {
  const char* name;
  const char* ext;
  std::function<itk::ImageIOBase::Pointer()> itkIo;
};

std::uintmax_t fileSize(const std::string& p) {
  std::error_code ec;
  const auto s = std::filesystem::file_size(p, ec);
  return ec ? 0 : s;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string folder = argc > 3 ? argv[3] : "/tmp";
  const int level = 6;
  const double rawMb = static_cast<double>(n) * n * n * 2 / 1e6;

  std::printf("Building a synthetic %dx%dx%d int16 CT (%.0f MB)...\n", n, n, n, rawMb);
  const std::vector<std::int16_t> hu = syntheticCt(n);
  const core::Geometry g({n, n, n}, {0.8, 0.8, 1.0}, {-204.4, -204.4, -255.5});
  auto made = core::ImageVolume::create(g);
  if (!made) {
    std::fprintf(stderr, "%s\n", made.error().describe().c_str());
    return 1;
  }
  core::ImageVolume ours = std::move(made).value();
  std::transform(hu.begin(), hu.end(), ours.buffer().begin(), [](std::int16_t v) { return static_cast<float>(v); });

  auto theirs = ItkImage::New();
  ItkImage::RegionType region;
  region.SetSize({{static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n), static_cast<itk::SizeValueType>(n)}});
  theirs->SetRegions(region);
  theirs->SetSpacing(g.spacingMm().data());
  theirs->SetOrigin(g.originLps().data());
  theirs->Allocate();
  std::copy(hu.begin(), hu.end(), theirs->GetBufferPointer());

  const Format formats[] = {
      {"NIfTI .nii.gz", ".nii.gz", [] { return itk::ImageIOBase::Pointer(itk::NiftiImageIO::New()); }},
      {"NRRD .nrrd (gzip)", ".nrrd", [] { return itk::ImageIOBase::Pointer(itk::NrrdImageIO::New()); }},
      {"MetaImage .mha (zlib)", ".mha", [] { return itk::ImageIOBase::Pointer(itk::MetaImageIO::New()); }},
  };

  std::printf("%d repeats, fastest shown; MB/s counts the %.0f MB of int16 voxels; compression level %d both sides\n\n",
              repeats, rawMb, level);
  std::printf("%-22s %-22s %10s %9s %10s %9s %8s\n", "format", "operation", "ours ms", "MB/s", "ITK ms", "MB/s",
              "ITK/ours");
  bool allOk = true;
  for (const Format& f : formats) {
    const std::string ourPath = folder + "/bench_ours" + f.ext;
    const std::string itkPath = folder + "/bench_itk" + f.ext;
    io::ImageFileWriteOptions o;
    o.compressionLevel = level;
    o.int16WhenExact = true;

    const double ourWrite = bestMs(repeats, [&] {
      const core::Status s = io::writeImageFile(ourPath, ours, o);
      if (!s) std::fprintf(stderr, "%s\n", s.error().describe().c_str());
      return s.ok();
    });
    const double itkWrite = bestMs(repeats, [&] {
      auto w = itk::ImageFileWriter<ItkImage>::New();
      auto imageIo = f.itkIo();
      imageIo->SetCompressionLevel(level);
      w->SetImageIO(imageIo);
      w->SetFileName(itkPath);
      w->SetInput(theirs);
      w->SetUseCompression(true);
      w->Update();
      return true;
    });

    auto ourRead = [&](const std::string& p) {
      return bestMs(repeats, [&] {
        auto r = io::readImageFile(p);
        if (!r) std::fprintf(stderr, "%s\n", r.error().describe().c_str());
        return r.ok();
      });
    };
    auto itkRead = [&](const std::string& p) {
      return bestMs(repeats, [&] {
        auto r = itk::ImageFileReader<ItkImage>::New();
        r->SetImageIO(f.itkIo());
        r->SetFileName(p);
        r->Update();
        return true;
      });
    };
    const double oursOnOurs = ourRead(ourPath), itkOnOurs = itkRead(ourPath);
    const double oursOnItk = ourRead(itkPath), itkOnItk = itkRead(itkPath);

    // Each side reads the other's file back to the same voxels and grid, or the figures compare different work.
    auto crossOurs = io::readImageFile(itkPath);
    // (NIfTI-1 stores the grid as float32, so there the grid agrees within float precision.)
    bool same = crossOurs.ok() && crossOurs->buffer() == ours.buffer() && crossOurs->geometry().isCloseTo(g);
    auto crossItk = itk::ImageFileReader<ItkImage>::New();
    crossItk->SetImageIO(f.itkIo());
    crossItk->SetFileName(ourPath);
    crossItk->Update();
    same = same && std::equal(hu.begin(), hu.end(), crossItk->GetOutput()->GetBufferPointer());
    for (int a = 0; a < 3; ++a)
      same = same && std::abs(crossItk->GetOutput()->GetSpacing()[a] - g.spacingMm()[static_cast<std::size_t>(a)]) < 1e-6 &&
             std::abs(crossItk->GetOutput()->GetOrigin()[a] - g.originLps()[static_cast<std::size_t>(a)]) < 1e-4;
    allOk = allOk && same;

    auto row = [&](const char* op, double a, double b) {
      std::printf("%-22s %-22s %10.0f %9.0f %10.0f %9.0f %7.2fx\n", f.name, op, a, rawMb / (a / 1000), b,
                  rawMb / (b / 1000), b / a);
    };
    row("write", ourWrite, itkWrite);
    row("read our file", oursOnOurs, itkOnOurs);
    row("read ITK's file", oursOnItk, itkOnItk);
    const auto ourBytes = static_cast<double>(fileSize(ourPath)), itkBytes = static_cast<double>(fileSize(itkPath));
    std::printf("%-22s %-22s %10.1f MB (%.2f:1)   ITK's: %.1f MB (%.2f:1)   cross-read %s\n", f.name, "file size",
                ourBytes / 1e6, rawMb * 1e6 / std::max(ourBytes, 1.0), itkBytes / 1e6, rawMb * 1e6 / std::max(itkBytes, 1.0),
                same ? "identical" : "DIFFERENT");
    std::filesystem::remove(ourPath);
    std::filesystem::remove(itkPath);
  }
  return allOk ? 0 : 1;
}
