// delineate-vista3d: VISTA-3D automatic segmentation, headless. A program of its own because loading LibTorch costs
// a process about 0.34 s and 160 MB, which delineate-cli's other commands should not pay.
// Exit codes: 0 success, 1 a file or engine error ("error: <file>: <reason>"), 2 a usage error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "inference/engine.h"
#include "io/image_file.h"

using namespace delineate;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "error: %s\n"
               "usage: delineate-vista3d segment IMAGE OUTPUT --checkpoint FILE [--class N]... [--roi N] [--threads N]\n"
               "  VISTA-3D automatic segmentation on the CPU (no --class: the 117 'everything' classes; 2, 20 and 21\n"
               "  expand to the kidneys, lung lobes and bones). The official model takes about 90 s per 128^3 window on\n"
               "  two cores; a GPU build is to come.\n",
               why.c_str());
  return 2;
}

int fileError(const core::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.describe().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> positional;
    std::string checkpoint;
    std::vector<int> classes;
    inference::Vista3dEngineOptions options;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--checkpoint" || a == "--class" || a == "--roi" || a == "--threads") {
        if (i + 1 >= argc) return usage(a + " needs a value");
        const std::string v = argv[++i];
        if (a == "--checkpoint") {
          checkpoint = v;
          continue;
        }
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (!end || *end || n < 1) return usage(a + " takes a positive number");
        if (a == "--class") {
          if (n > 254) return usage("--class takes 1..254");
          classes.push_back(static_cast<int>(n));
        } else if (a == "--roi") {
          if (n % 16) return usage("--roi takes a multiple of 16");
          options.roi = n;
        } else {
          options.cpuThreads = static_cast<int>(n);
        }
      } else if (a.rfind("--", 0) == 0) {
        return usage("unknown option " + a);
      } else {
        positional.push_back(a);
      }
    }
    if (positional.size() != 3 || positional[0] != "segment") return usage("expected: segment IMAGE OUTPUT");
    if (checkpoint.empty()) return usage("--checkpoint FILE is required (model.pt or .safetensors)");
    auto engine = inference::createVista3dEngine(checkpoint, options);
    if (!engine) return fileError(engine.error());
    auto image = io::readImageFile(positional[1]);
    if (!image) return fileError(image.error());
    inference::SegmentationRequest request;
    for (const int c : classes) request.classes.push_back(static_cast<core::Label>(c));
    const auto t0 = std::chrono::steady_clock::now();
    auto patch = (*engine)->segment(*image, request, nullptr);
    if (!patch) return fileError(core::makeError(patch.error().code, positional[1], patch.error().detail));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto voxels = core::Volume<core::Label>::create(image->geometry(), 0);
    if (!voxels) return fileError(voxels.error());
    std::copy(patch->voxels.begin(), patch->voxels.end(), voxels->data());  // the patch covers the whole image
    const core::LabelMap labels(std::move(voxels).value());
    if (core::Status s = io::writeLabelFile(positional[2], labels); !s) return fileError(s.error());
    std::vector<std::size_t> counts(256, 0);
    for (std::size_t i = 0; i < labels.size(); ++i) ++counts[labels[i] & 0xFF];
    std::printf("%s: %s in %.1f s on %s\n", positional[2].c_str(), (*engine)->info().id.c_str(), seconds,
                (*engine)->info().device.c_str());
    for (std::size_t l = 1; l < counts.size(); ++l)
      if (counts[l]) std::printf("  %5zu %10zu voxels\n", l, counts[l]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
