// segment: an engine's automatic segmentation of an image, written as a label file (headless batch work).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "inference/engine.h"
#include "io/image_file.h"

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
  auto voxels = core::Volume<core::Label>::create(image->geometry(), 0);
  if (!voxels) return fileError(voxels.error());
  const auto dims = image->geometry().dimensions();
  std::size_t o = 0;
  for (std::int64_t z = patch->box.min[2]; z <= patch->box.max[2]; ++z)
    for (std::int64_t y = patch->box.min[1]; y <= patch->box.max[1]; ++y)
      for (std::int64_t x = patch->box.min[0]; x <= patch->box.max[0]; ++x)
        (*voxels)[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)] = patch->voxels[o++];
  const core::LabelMap labels(std::move(voxels).value());
  if (core::Status s = io::writeLabelFile(positional[1], labels); !s) return fileError(s.error());
  const auto info = engine->info();
  std::vector<std::size_t> counts(65536, 0);
  for (const auto v : patch->voxels) ++counts[v];
  std::printf("%s: %s in %.2f s on %s\n", positional[1].c_str(), info.id.c_str(), seconds, info.device.empty() ? "cpu" : info.device.c_str());
  for (std::size_t l = 1; l < counts.size(); ++l)
    if (counts[l]) {
      const auto* e = info.classes.find(static_cast<core::Label>(l));
      std::printf("  %5zu  %-20s %10zu voxels\n", l, e ? e->name.c_str() : "", counts[l]);
    }
  return 0;
}

}  // namespace delineate::app::cli
