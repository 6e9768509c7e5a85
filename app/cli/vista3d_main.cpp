// delineate-vista3d: segmentation with the best engine here (VISTA-3D, or the classic engine), headless. A program of
// its own because loading LibTorch costs a process about 0.34 s and 160 MB, which delineate-cli's other commands
// should not pay.
// Exit codes: 0 success, 1 a file or engine error ("error: <file>: <reason>"), 2 a usage error.
#include <array>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "app/command_line/command_parser.h"
#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "app/cli/segment_output.h"
#include "core/file_source.h"
#include "inference/engine.h"
#include "io/base/sealed_stream.h"
#include "io/volume/image_file.h"

using namespace delineate;
using delineate::app::cli::fileError;

namespace {

// "I,J,K" or "I,J,K,-" (a negative click) or "I,J,K,+"; nullopt otherwise.
std::optional<std::array<double, 4>> parsePoint(const std::string& text) {
  std::array<double, 4> p{0, 0, 0, 1};
  char sign = '+';
  char extra = 0;
  const int n = std::sscanf(text.c_str(), "%lf,%lf,%lf,%c%c", &p[0], &p[1], &p[2], &sign, &extra);
  if (n < 3 || n > 4 || (n == 4 && sign != '+' && sign != '-')) return std::nullopt;
  p[3] = sign == '-' ? 0 : 1;
  return p;
}

struct SegmentArguments {
  std::string image, output;
  std::vector<int> classes;
  std::vector<std::string> pointTexts;  // I,J,K[,-], checked while parsing
};

}  // namespace

int main(int argc, char** argv) {
  try {
    core::setFileSource(io::atRestFileSource());  // a sealed checkpoint copy reads as its content
    inference::EngineSelection selection;
    if (const char* env = std::getenv("DELINEATE_VISTA3D_CHECKPOINT")) selection.checkpoint = env;
    inference::Vista3dEngineOptions& options = selection.vista;
    SegmentArguments a;

    CLI::App app("Segmentation with the best engine here (VISTA-3D, or the classic engine), headless.",
                 "delineate-vista3d");
    app::command_line::configureProgram(app);
    app.require_subcommand(1);
    CLI::App* segment = app.add_subcommand(
        "segment",
        "segments with the best engine here: VISTA-3D when a checkpoint is given (--checkpoint, or the "
        "DELINEATE_VISTA3D_CHECKPOINT environment variable) and a CUDA device is present; on the CPU only with "
        "--device cpu (the official model takes minutes per 128^3 window there; the estimate is printed); otherwise "
        "the classic engine. A delineate-train checkpoint (its .json sidecar beside it) is an engine of its own: an atlas "
        "network segments its classes automatically (CPU or CUDA), a fine-tuned VISTA-3D takes and writes the label ids "
        "it was trained with. No --class: the 117 'everything' classes (2, 20 and 21 expand to the kidneys, lung lobes "
        "and bones), or a trained model's classes. With clicks (--point) the result is the one object they mark (one --class at most, as its "
        "prompt). The names of the labels written go beside OUTPUT, as delineate-cli segment writes them.");
    using app::command_line::checkedBy;
    using app::command_line::repeatable;
    using app::command_line::valueName;
    segment->add_option("IMAGE", a.image, "the image to segment")->required();
    segment->add_option("OUTPUT", a.output, "the label file to write")->required();
    valueName(segment->add_option("--checkpoint", selection.checkpoint,
                                  "the checkpoint: VISTA-3D's (model.pt or .safetensors), or delineate-train's (an atlas network or a "
                                  "fine-tuned VISTA-3D, with its .json sidecar); a file, share:ROOT#MODEL[@REV] or model:NAME"),
              "FILE");
    valueName(segment->add_option("--device", options.device, "where the network runs (default auto)"),
              "auto|cpu|cuda|cuda:N");
    valueName(segment->add_option("--precision", options.precision,
                                  "arithmetic (default auto: fp16 on CUDA, fp32 on the CPU)"),
              "auto|fp32|fp16|bf16")
        ->check(CLI::IsMember({"auto", "fp32", "fp16", "bf16"}));
    valueName(segment->add_option("--batch", options.batch, "windows per pass (default 4 on CUDA, 1 on the CPU)"), "N")
        ->check(CLI::Range(1, INT_MAX));
    repeatable(valueName(segment->add_option("--class", a.classes, "a class to segment: VISTA-3D's 1..254, or a trained "
                                                                   "model's own label ids"),
                         "N"))
        ->check(CLI::Range(1, 65535));
    repeatable(valueName(
                   segment->add_option("--point", a.pointTexts, "a click on voxel I,J,K (',-': a negative click)"),
                   "I,J,K[,-]"))
        ->check(checkedBy([](const std::string& t) { return parsePoint(t).has_value(); }, "takes I,J,K or I,J,K,-"));
    valueName(segment->add_option("--roi", options.roi, "the sliding window's size, a multiple of 16 (default 128)"),
              "N")
        ->check(checkedBy(
            [](const std::string& t) {
              char* end = nullptr;
              const long n = std::strtol(t.c_str(), &end, 10);
              return end && !*end && n >= 16 && n % 16 == 0;
            },
            "takes a positive multiple of 16"));
    valueName(segment->add_option("--threads", options.cpuThreads, "CPU threads (default: one per hardware thread)"),
              "N")
        ->check(CLI::Range(1, INT_MAX));

    if (argc < 2) {
      std::fputs(app.help().c_str(), stderr);
      return 2;
    }
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (const std::optional<int> done = app::command_line::parseCommandLine(app, args)) return *done;
    if (!a.pointTexts.empty() && a.classes.size() > 1) {
      std::fprintf(stderr, "error: clicks take at most one --class (see 'delineate-vista3d segment --help')\n");
      return 2;
    }
    const std::vector<int>& classes = a.classes;
    std::vector<std::array<double, 4>> points;  // i, j, k, positive
    for (const std::string& text : a.pointTexts) points.push_back(*parsePoint(text));
    auto image = io::readImageFile(a.image);
    if (!image) return fileError(image.error());
    if (core::Status s = core::requireFiniteVoxels(*image, a.image); !s) return fileError(s.error());
    if (!selection.checkpoint.empty())  // a file, or a share's checkpoint fetched (verified) into the cache
      if (int code = app::cli::resolveCheckpointArgument(selection.checkpoint); code != 0) return code;
    auto choice = inference::selectEngine(selection);
    if (!choice) return fileError(choice.error());
    std::fprintf(stderr, "%s\n", choice->why.c_str());
    const auto info = choice->engine->info();
    if (info.id == "vista3d" && info.device.rfind("cpu", 0) == 0)
      std::fprintf(stderr, "estimate on this CPU: about %.0f s\n",
                   inference::estimateVista3dCpuSeconds(image->geometry(), !points.empty(), options.roi,
                                                        options.cpuThreads));
    if (info.id == "vista3d" && info.classes.empty() && !points.empty() && !classes.empty())  // not for a fine-tuned model's own ids
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
    if (!patch) return fileError(core::makeError(patch.error().code, a.image, patch.error().detail));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return app::cli::writeSegmentation(a.output, image->geometry(), *patch, info, seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
