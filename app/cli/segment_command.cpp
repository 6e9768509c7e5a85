// segment: an engine's automatic segmentation of an image, written as a label file (headless batch work).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/segment_output.h"
#include "inference/engine.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {

int runSegment(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  std::string engineId = "classic";
  inference::SegmentationRequest request;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--engine" || a == "--class") {
      if (i + 1 >= args.size()) return usageError(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--engine") {
        engineId = v;
        continue;
      }
      try {
        const int l = std::stoi(v);
        if (l < 1 || l > 65535) return usageError("--class takes 1..65535");
        request.classes.push_back(static_cast<core::Label>(l));
      } catch (...) {
        return usageError("--class takes a label number");
      }
    } else if (a.rfind("--", 0) == 0) {
      return usageError("unknown option " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) return usageError("segment IMAGE OUTPUT [--engine ID] [--class N]...");
  auto engine = inference::createEngine(engineId);
  if (!engine) return usageError("unknown engine '" + engineId + "'");
  auto image = io::readImageFile(positional[0]);
  if (!image) return fileError(image.error());
  const auto t0 = std::chrono::steady_clock::now();
  auto patch = engine->segment(*image, request, nullptr);
  if (!patch) return fileError(core::makeError(patch.error().code, positional[0], patch.error().detail));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return writeSegmentation(positional[1], *image, *patch, engine->info(), seconds);
}

}  // namespace delineate::app::cli
