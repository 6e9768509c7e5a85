// click-eval: the simulated-click protocol (inference/click_evaluator.h) on an image and its reference labels, for
// the classic click engine: Dice after each click and per-click latency, per label and on average, and how many
// clicks set the object back (lowered its Dice by more than kSetback).
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "app/cli/segment_output.h"
#include "inference/classic/click_session.h"
#include "inference/click_evaluator.h"
#include "inference/guided_session.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {
namespace {
constexpr double kSetback = 0.05;  // a click that lowers Dice by more than this sets the object back
constexpr double kSmallSetback = 0.01;  // ... and the model-guided goal's stricter measure

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
  // The start: a label map on the image's grid, or the model's own segmentation.
  std::unique_ptr<inference::SegmentationEngine> engine;
  std::optional<core::Volume<core::Label>> start;
  if (!o.engine.empty()) {
    std::string checkpoint;
    if (int code = createSegmentationEngine(o.engine, o.device, "click-eval", engine, checkpoint); code != 0) return code;
  }
  if (!o.start.empty()) {
    auto s = io::readLabelFile(o.start);
    if (!s) return fileError(s.error());
    if (s->geometry().dimensions() != image->geometry().dimensions() || !s->geometry().isCloseTo(image->geometry()))
      return fileError(core::makeError(core::ErrorCode::GeometryMismatch, o.start, "the start labels are not on the image's grid"));
    auto copy = core::Volume<core::Label>::create(s->geometry(), 0);
    if (!copy) return fileError(copy.error());
    for (std::size_t i = 0; i < s->size(); ++i) copy->data()[i] = (*s)[i];
    start = std::move(copy).value();
  } else if (engine) {
    auto patch = engine->segment(*image, {}, nullptr);
    if (!patch) return fileError(patch.error());
    auto map = core::Volume<core::Label>::create(image->geometry(), 0);
    if (!map) return fileError(map.error());
    const core::IndexBox& b = patch->box;
    std::size_t k = 0;
    for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
      for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y)
        for (std::int64_t x = b.min[0]; x <= b.max[0]; ++x, ++k) map->data()[map->geometry().linearIndex({x, y, z})] = patch->voxels[k];
    start = std::move(map).value();
  }
  // Nothing to click on is an error, not a table of zeros (an empty map, a --label the map does not have).
  const std::vector<core::Label> present = labelsPresent(*reference);
  if (core::Status s = requireLabels(present, labels, o.labels); !s) return fileError(s.error());
  if (labels.empty()) labels = present;

  const bool box = o.prompts == "box";
  const int prompts = clicks + (box ? 1 : 0);
  nlohmann::json out{{"image", o.image},
                     {"labels", o.labels},
                     {"engine", engine ? "model-guided" : "classic.click"},
                     {"prompts", o.prompts},
                     {"first", o.first},
                     {"seed", o.seed},
                     {"objects", nlohmann::json::array()}};
  if (!o.start.empty()) out["start"] = o.start;
  if (engine) out["model"] = o.engine;
  std::vector<std::vector<double>> diceByClick(static_cast<std::size_t>(prompts));
  std::vector<double> startDice, latencies;
  // Prompts measured against the object before them (every one after an object's first, and the first too when
  // there is a start), and those that set it back.
  std::size_t laterClicks = 0, setbacks = 0, smallSetbacks = 0, guided = 0, fallback = 0;
  if (!json) {
    std::printf("label  voxels  ");
    if (start) std::printf("  start");
    if (box) std::printf("    box");
    for (int k = 1; k <= clicks; ++k) std::printf(o.prompts == "scribble" ? " strk@%-2d" : " dice@%-2d", k);
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
    const inference::ObjectMask startObject = start ? inference::objectOfLabel(*start, l) : inference::ObjectMask{};
    std::unique_ptr<inference::InteractiveSession> session;
    inference::GuidedSession* guidedSession = nullptr;
    if (engine) {
      auto probability = engine->classProbability(*image, l, nullptr);
      if (!probability) return fileError(probability.error());
      auto g = inference::GuidedSession::begin(*image, std::move(probability).value(), startObject);
      if (!g) return fileError(g.error());
      guidedSession = g->get();
      session = std::move(g).value();
    } else {
      auto c = inference::classic::ClickSession::begin(*image);
      if (!c) return fileError(c.error());
      if (start)
        if (core::Status st = (*c)->setStart(startObject); !st) return fileError(st.error());
      session = std::move(c).value();
    }
    inference::ClickProtocol protocol;
    protocol.first = o.first == "interior" ? inference::FirstClick::Interior : inference::FirstClick::Deepest;
    protocol.seed = o.seed + l;
    protocol.prompts = box ? inference::PromptProtocol::Box
                           : o.prompts == "scribble" ? inference::PromptProtocol::Scribble : inference::PromptProtocol::Clicks;
    auto eval = inference::simulateClicks(*session, *ref, clicks, nullptr, protocol);
    if (!eval) return fileError(eval.error());
    if (guidedSession) {
      guided += guidedSession->guidedPrompts();
      fallback += guidedSession->fallbackPrompts();
    }
    if (start) startDice.push_back(eval->startDice);
    // A protocol that stopped early (perfect object) keeps its last Dice for the remaining clicks.
    std::vector<double> dice;
    for (const auto& c : eval->clicks) dice.push_back(c.dice);
    while (static_cast<int>(dice.size()) < prompts) dice.push_back(dice.empty() ? eval->startDice : dice.back());
    double sumMs = 0, maxMs = 0;
    for (const auto& c : eval->clicks) {
      sumMs += c.latencyMs;
      maxMs = std::max(maxMs, c.latencyMs);
      latencies.push_back(c.latencyMs);
    }
    const double meanMs = eval->clicks.empty() ? 0 : sumMs / static_cast<double>(eval->clicks.size());
    for (std::size_t k = start ? 0 : 1; k < eval->clicks.size(); ++k) {
      ++laterClicks;
      const double before = k == 0 ? eval->startDice : eval->clicks[k - 1].dice;
      if (eval->clicks[k].dice < before - kSetback) ++setbacks;
      if (eval->clicks[k].dice < before - kSmallSetback) ++smallSetbacks;
    }
    for (int k = 0; k < prompts; ++k) diceByClick[static_cast<std::size_t>(k)].push_back(dice[static_cast<std::size_t>(k)]);
    nlohmann::json obj{{"label", l}, {"voxels", count}, {"dice", dice}, {"clicks", nlohmann::json::array()}};
    if (start) obj["startDice"] = eval->startDice;
    for (const auto& c : eval->clicks)
      obj["clicks"].push_back({{"prompt", inference::promptKindName(c.prompt.kind)},
                               {"positive", c.point.positive},
                               {"voxel", {c.voxel[0], c.voxel[1], c.voxel[2]}},
                               {"dice", c.dice},
                               {"latencyMs", c.latencyMs}});
    out["objects"].push_back(obj);
    if (!json) {
      std::printf("%5u %7zu  ", l, count);
      if (start) std::printf("  %.3f", eval->startDice);
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
  double meanStart = 0;
  for (double d : startDice) meanStart += d / static_cast<double>(startDice.size());
  out["meanDice"] = mean;
  if (start) out["meanStartDice"] = meanStart;
  if (engine) out["guidedPrompts"] = {{"model", guided}, {"classic", fallback}};
  out["setbacks"] = {{"threshold", kSetback}, {"laterClicks", laterClicks}, {"count", setbacks},
                     {"small", {{"threshold", kSmallSetback}, {"count", smallSetbacks}}}};
  out["latencyMs"] = {{"p50", pct(0.5)}, {"p95", pct(0.95)}, {"max", latencies.empty() ? 0.0 : latencies.back()}};
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf(" mean          ");
    if (start) std::printf("  %.3f", meanStart);
    for (double d : mean) std::printf("  %.3f", d);
    auto share = [&](std::size_t n) { return laterClicks ? 100.0 * static_cast<double>(n) / static_cast<double>(laterClicks) : 0.0; };
    std::printf("\n%s that lowered Dice by more than %.2f: %zu of %zu (%.1f%%)",
                start ? "prompts" : "prompts after the first", kSetback, setbacks, laterClicks, share(setbacks));
    std::printf("\n... by more than %.2f: %zu (%.1f%%)", kSmallSetback, smallSetbacks, share(smallSetbacks));
    if (engine) std::printf("\nprompts decided by the model's probabilities: %zu, by the classic engine (model blind there): %zu", guided, fallback);
    std::printf("\nper-click latency: p50 %.1f ms, p95 %.1f ms, max %.1f ms (%zu clicks)\n", pct(0.5), pct(0.95),
                latencies.empty() ? 0.0 : latencies.back(), latencies.size());
  }
  return 0;
}

}  // namespace delineate::app::cli
