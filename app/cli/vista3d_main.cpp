// delineate-vista3d: segmentation with the best engine here (VISTA-3D, or the classic engine), headless. A program of its own because loading LibTorch costs
// a process about 0.34 s and 160 MB, which delineate-cli's other commands should not pay.
// Exit codes: 0 success, 1 a file or engine error ("error: <file>: <reason>"), 2 a usage error.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/segment_output.h"
#include "inference/engine.h"
#include "io/volume/image_file.h"

using namespace delineate;
using delineate::app::cli::fileError;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "error: %s\n"
               "usage: delineate-vista3d segment IMAGE OUTPUT [--checkpoint FILE] [--device auto|cpu|cuda|cuda:N]\n"
               "         [--precision auto|fp32|fp16|bf16] [--batch N] [--class N]... [--point I,J,K[,-]]... [--roi N]\n"
               "         [--threads N]\n"
               "  Segments with the best engine here: VISTA-3D when a checkpoint is given (--checkpoint, or the\n"
               "  DELINEATE_VISTA3D_CHECKPOINT environment variable) and a CUDA device is present; on the CPU only with\n"
               "  --device cpu (the official model takes minutes per 128^3 window there; the estimate is printed);\n"
               "  otherwise the classic engine. No --class: the 117 'everything' classes (2, 20 and 21 expand to the\n"
               "  kidneys, lung lobes and bones). --point: a click on voxel I,J,K (',-' negative); with clicks the result\n"
               "  is the one object they mark (one --class at most, as its prompt).\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> positional;
    inference::EngineSelection selection;
    if (const char* env = std::getenv("DELINEATE_VISTA3D_CHECKPOINT")) selection.checkpoint = env;
    std::vector<int> classes;
    std::vector<std::array<double, 4>> points;  // i, j, k, positive
    inference::Vista3dEngineOptions& options = selection.vista;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--checkpoint" || a == "--class" || a == "--roi" || a == "--threads" || a == "--device" ||
          a == "--precision" || a == "--batch" || a == "--point") {
        if (i + 1 >= argc) return usage(a + " needs a value");
        const std::string v = argv[++i];
        if (a == "--checkpoint") {
          selection.checkpoint = v;
          continue;
        }
        if (a == "--device") {
          options.device = v;
          continue;
        }
        if (a == "--precision") {
          if (v != "auto" && v != "fp32" && v != "fp16" && v != "bf16") return usage("--precision takes auto, fp32, fp16 or bf16");
          options.precision = v;
          continue;
        }
        if (a == "--point") {
          std::array<double, 4> p{0, 0, 0, 1};
          char sign = '+';
          const int n = std::sscanf(v.c_str(), "%lf,%lf,%lf,%c", &p[0], &p[1], &p[2], &sign);
          if (n < 3 || (n == 4 && sign != '+' && sign != '-')) return usage("--point takes I,J,K or I,J,K,-");
          p[3] = sign == '-' ? 0 : 1;
          points.push_back(p);
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
        } else if (a == "--batch") {
          options.batch = static_cast<int>(n);
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
    if (!points.empty() && classes.size() > 1) return usage("clicks take at most one --class");
    auto image = io::readImageFile(positional[1]);
    if (!image) return fileError(image.error());
    auto choice = inference::selectEngine(selection);
    if (!choice) return fileError(choice.error());
    std::fprintf(stderr, "%s\n", choice->why.c_str());
    const auto info = choice->engine->info();
    if (info.id == "vista3d" && info.device.rfind("cpu", 0) == 0)
      std::fprintf(stderr, "estimate on this CPU: about %.0f s\n",
                   inference::estimateVista3dCpuSeconds(image->geometry(), !points.empty(), options.roi, options.cpuThreads));
    if (info.id == "vista3d" && !points.empty() && !classes.empty())
      if (const std::string note = inference::vista3dPromptNote(classes.front()); !note.empty())
        std::fprintf(stderr, "%s\n", note.c_str());
    inference::SegmentationRequest request;
    for (const int c : classes) request.classes.push_back(static_cast<core::Label>(c));
    for (const auto& p : points)
      request.points.push_back({image->geometry().indexToLps(core::Vec3{p[0], p[1], p[2]}), p[3] > 0});
    // The object is written as its class (or 1); the classic engine needs the label to be said.
    if (!request.points.empty()) request.targetLabel = static_cast<core::Label>(classes.empty() ? 1 : classes.front());
    const auto t0 = std::chrono::steady_clock::now();
    auto patch = choice->engine->segment(*image, request, nullptr);
    if (!patch) return fileError(core::makeError(patch.error().code, positional[1], patch.error().detail));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return app::cli::writeSegmentation(positional[2], *image, *patch, info, seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
