// click-eval: the simulated-click protocol (inference/click_evaluator.h) on an image and its reference labels, for
// the classic click engine: Dice after each click and per-click latency, per label and on average, and how many
// clicks set the object back (lowered its Dice by more than kSetback).
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "inference/classic/click_session.h"
#include "inference/click_evaluator.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {
namespace {
constexpr double kSetback = 0.05;  // a click that lowers Dice by more than this sets the object back
}  // namespace

int runClickEval(const ClickEvalOptions& o) {
  const int clicks = o.clicks;
  const bool json = o.json;
  std::vector<core::Label> labels = o.labelIds;
  auto image = std::make_unique<core::ScalarImage>();  // in its stored type: the click session reads any
  if (int code = readInputImage(o.image, o.dicom.series, o.dicom.allowIrregular, o.dicom.allowUnreadable, 0, *image);
      code != 0)
    return code;
  if (core::Status s = core::requireFiniteVoxels(*image, o.image); !s) return fileError(s.error());
  auto reference = io::readLabelFile(o.labels);
  if (!reference) return fileError(reference.error());
  if (reference->geometry().dimensions() != image->geometry().dimensions() ||
      !reference->geometry().isCloseTo(image->geometry()))
    return fileError(core::makeError(core::ErrorCode::GeometryMismatch, o.labels,
                                     "the labels are not on the image's grid"));
  // Nothing to click on is an error, not a table of zeros (an empty map, a --label the map does not have).
  const std::vector<core::Label> present = labelsPresent(*reference);
  if (core::Status s = requireLabels(present, labels, o.labels); !s) return fileError(s.error());
  if (labels.empty()) labels = present;

  nlohmann::json out{{"image", o.image}, {"labels", o.labels}, {"engine", "classic.click"}, {"first", o.first},
                     {"seed", o.seed},
                     {"objects", nlohmann::json::array()}};
  std::vector<std::vector<double>> diceByClick(static_cast<std::size_t>(clicks));
  std::vector<double> latencies;
  std::size_t laterClicks = 0, setbacks = 0;  // clicks after an object's first, and those that set it back
  if (!json) {
    std::printf("label  voxels  ");
    for (int k = 1; k <= clicks; ++k) std::printf(" dice@%-2d", k);
    std::printf("  mean ms  max ms\n");
  }
  for (core::Label l : labels) {
    auto ref = core::Volume<std::uint8_t>::create(reference->geometry(), 0);
    if (!ref) return fileError(ref.error());
    std::size_t count = 0;
    for (std::size_t i = 0; i < reference->size(); ++i)
      if ((*reference)[i] == l) {
        ref->data()[i] = 1;
        ++count;
      }
    if (count == 0) {
      std::fprintf(stderr, "warning: label %u is not in %s\n", l, o.labels.c_str());
      continue;
    }
    auto session = inference::classic::ClickSession::begin(*image);
    if (!session) return fileError(session.error());
    inference::ClickProtocol protocol;
    protocol.first = o.first == "interior" ? inference::FirstClick::Interior : inference::FirstClick::Deepest;
    protocol.seed = o.seed + l;
    auto eval = inference::simulateClicks(**session, *ref, clicks, nullptr, protocol);
    if (!eval) return fileError(eval.error());
    // A protocol that stopped early (perfect object) keeps its last Dice for the remaining clicks.
    std::vector<double> dice;
    for (const auto& c : eval->clicks) dice.push_back(c.dice);
    while (static_cast<int>(dice.size()) < clicks) dice.push_back(dice.empty() ? 0.0 : dice.back());
    double sumMs = 0, maxMs = 0;
    for (const auto& c : eval->clicks) {
      sumMs += c.latencyMs;
      maxMs = std::max(maxMs, c.latencyMs);
      latencies.push_back(c.latencyMs);
    }
    const double meanMs = eval->clicks.empty() ? 0 : sumMs / static_cast<double>(eval->clicks.size());
    for (std::size_t k = 1; k < eval->clicks.size(); ++k) {
      ++laterClicks;
      if (eval->clicks[k].dice < eval->clicks[k - 1].dice - kSetback) ++setbacks;
    }
    for (int k = 0; k < clicks; ++k) diceByClick[static_cast<std::size_t>(k)].push_back(dice[static_cast<std::size_t>(k)]);
    nlohmann::json obj{{"label", l}, {"voxels", count}, {"dice", dice}, {"clicks", nlohmann::json::array()}};
    for (const auto& c : eval->clicks)
      obj["clicks"].push_back({{"positive", c.point.positive},
                               {"voxel", {c.voxel[0], c.voxel[1], c.voxel[2]}},
                               {"dice", c.dice},
                               {"latencyMs", c.latencyMs}});
    out["objects"].push_back(obj);
    if (!json) {
      std::printf("%5u %7zu  ", l, count);
      for (double d : dice) std::printf("  %.3f", d);
      std::printf("  %7.1f %7.1f\n", meanMs, maxMs);
    }
  }
  std::vector<double> mean;
  for (const auto& v : diceByClick) {
    double s = 0;
    for (double d : v) s += d;
    mean.push_back(v.empty() ? 0 : s / static_cast<double>(v.size()));
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    if (latencies.empty()) return 0.0;
    return latencies[std::min(latencies.size() - 1, static_cast<std::size_t>(p * static_cast<double>(latencies.size())))];
  };
  out["meanDice"] = mean;
  out["setbacks"] = {{"threshold", kSetback}, {"laterClicks", laterClicks}, {"count", setbacks}};
  out["latencyMs"] = {{"p50", pct(0.5)}, {"p95", pct(0.95)}, {"max", latencies.empty() ? 0.0 : latencies.back()}};
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf(" mean          ");
    for (double d : mean) std::printf("  %.3f", d);
    std::printf("\nclicks after the first that lowered Dice by more than %.2f: %zu of %zu (%.1f%%)", kSetback, setbacks,
                laterClicks, laterClicks ? 100.0 * static_cast<double>(setbacks) / static_cast<double>(laterClicks) : 0.0);
    std::printf("\nper-click latency: p50 %.1f ms, p95 %.1f ms, max %.1f ms (%zu clicks)\n", pct(0.5), pct(0.95),
                latencies.empty() ? 0.0 : latencies.back(), latencies.size());
  }
  return 0;
}

}  // namespace delineate::app::cli
