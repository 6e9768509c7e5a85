#include "inference/vista3d/segment.h"

#include <algorithm>

#include "inference/vista3d/combine.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/sliding_window.h"

namespace delineate::inference::vista3d {

std::vector<int> everythingLabels() {
  std::vector<int> out;
  for (int c = 1; c <= 127; ++c)
    if (c != 2 && c != 16 && c != 18 && c != 20 && c != 21 && (c < 23 || c > 27)) out.push_back(c);
  return out;
}

bool isBundleSpecialClass(int c) { return (c >= 25 && c <= 29) || c == 117; }
bool isTrainingSpecialClass(int c) { return (c >= 23 && c <= 27) || c == 57 || c == 128; }

std::vector<int> expandLabelPrompts(const std::vector<int>& prompts) {
  std::vector<int> out;
  for (const int p : prompts) {
    if (p == 2) {
      out.insert(out.end(), {14, 5});
    } else if (p == 20) {
      for (int c = 28; c <= 32; ++c) out.push_back(c);
    } else if (p == 21) {
      for (int c = 33; c <= 56; ++c) out.push_back(c);
      for (int c = 63; c <= 97; ++c) out.push_back(c);
      out.insert(out.end(), {114, 120, 122});
    } else {
      out.push_back(p);
    }
  }
  return out;
}

core::Result<core::LabelMap> segmentWithVista3d(Vista3dModel& model, core::ImageView image,
                                                const std::vector<int>& labelPrompts, const SegmentOptions& options,
                                                core::ProgressSink* progress, SegmentDetails* details) {
  const std::vector<int> classes = labelPrompts.empty()  ? expandLabelPrompts(everythingLabels())
                                   : options.expandGroups ? expandLabelPrompts(labelPrompts)
                                                          : labelPrompts;
  for (const int c : classes)
    if (c < 1 || c > 254) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "label prompts are 1..254");
  auto in = preprocessForVista3d(image);
  if (!in) return in.error();
  const std::vector<std::int64_t> ids(classes.begin(), classes.end());
  auto sums = model.slabAccumulator(ids);
  StreamOptions stream;
  stream.roi = options.roi;
  stream.batch = options.batch;
  auto winners = slidingWindowWinners(in->image, static_cast<int>(classes.size()), *sums, stream, progress);
  if (!winners) return winners.error();
  if (details) *details = SegmentDetails{winners->batch, winners->windows, winners->accumulatorBytes};
  // Winner w (1-based channel) carries the class of its channel, as the bundle's label mapping.
  std::vector<float> labels(winners->winners.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::uint8_t w = winners->winners[i];
    labels[i] = w ? static_cast<float>(classes[static_cast<std::size_t>(w) - 1]) : 0.0f;
  }
  winners->winners = {};
  auto back = invertToOriginal(labels, in->grid, image.geometry());
  if (!back) return back.error();
  auto voxels = core::Volume<core::Label>::create(image.geometry(), 0);
  if (!voxels) return voxels.error();
  for (std::size_t i = 0; i < back->size(); ++i) (*voxels)[i] = (*back)[i] == 255 ? core::Label{0} : (*back)[i];
  return core::LabelMap(std::move(voxels).value());
}

core::Result<ClickLogits> clickLogitsWithVista3d(Vista3dModel& model, core::ImageView image,
                                                 const std::vector<ClickPrompt>& clicks, int classPrompt, std::int64_t roi,
                                                 core::ProgressSink* progress, std::shared_ptr<const Vista3dInput> input) {
  if (clicks.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "no click");
  if (classPrompt < 0 || classPrompt > 254)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the class prompt is 1..254 (0 for none)");
  const auto dims = image.geometry().dimensions();
  for (const auto& c : clicks)
    for (std::size_t a = 0; a < 3; ++a)
      if (!(c.ijk[a] > -0.5 && c.ijk[a] < static_cast<double>(dims[a]) - 0.5))
        return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "a click lies outside the image");
  if (!input) {
    auto in = preprocessForVista3d(image);
    if (!in) return in.error();
    input = std::make_shared<const Vista3dInput>(std::move(in).value());
  }
  const Vista3dInput* in = input.get();
  const bool special = isBundleSpecialClass(classPrompt);
  std::vector<ClickPoint> points;
  std::vector<ModelPoint> modelPoints;
  for (const auto& c : clicks) {
    const core::Vec3 m = toModelGrid(c.ijk, image.geometry(), in->image.geometry());
    ClickPoint p;
    for (std::size_t a = 0; a < 3; ++a) p.ijk[a] = static_cast<float>(m[a]);
    p.label = (c.positive ? 1 : 0) + (special && classPrompt > 0 ? 2 : 0);
    points.push_back(p);
    modelPoints.push_back({m, p.label});
  }
  // A class up to 132 runs both heads and merges them; above it the class is a zero-shot token for the point head.
  const bool withClass = classPrompt > 0 && classPrompt <= 132;
  const PointWindowFn network = [&](const std::vector<float>& window, const std::int64_t size[3],
                                    const std::vector<ClickPoint>& inside) -> core::Result<std::vector<float>> {
    std::vector<Vista3dModel::WindowPoint> pts;
    for (const auto& c : inside) pts.push_back({{c.ijk[0], c.ijk[1], c.ijk[2]}, c.label});
    if (!withClass) return model.pointLogits(window, size, pts, classPrompt);
    auto both = model.bothLogits(window, size, pts, classPrompt);
    if (!both) return both.error();
    return connectedComponentsCombine(both->classLogits, both->pointLogits, size, pts);
  };
  auto logits = pointWindowLogits(in->image, points, network, roi, progress);
  if (!logits) return logits.error();
  return ClickLogits{std::move(input), std::move(logits).value(), std::move(modelPoints)};
}

core::Result<core::Volume<std::uint8_t>> segmentClicksWithVista3d(Vista3dModel& model, core::ImageView image,
                                                                  const std::vector<ClickPrompt>& clicks, int classPrompt,
                                                                  std::int64_t roi, core::ProgressSink* progress,
                                                                  std::shared_ptr<const Vista3dInput> input) {
  auto r = clickLogitsWithVista3d(model, image, clicks, classPrompt, roi, progress, std::move(input));
  if (!r) return r.error();
  // With a class prompt the bundle keeps every component; point-only results keep those holding a positive click.
  const std::vector<int> prompt = classPrompt > 0 ? std::vector<int>{classPrompt} : std::vector<int>{};
  auto labels = vistaPostTransform(r->logits, 1, r->in->image.geometry().dimensions(), prompt,
                                   prompt.empty() ? r->points : std::vector<ModelPoint>{});
  if (!labels) return labels.error();
  return invertToOriginal(*labels, r->in->grid, image.geometry());
}

}  // namespace delineate::inference::vista3d
