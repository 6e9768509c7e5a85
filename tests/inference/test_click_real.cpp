// The classic click session under the simulated-click protocol on real scans with references: the tumours of the
// pyradiomics MR, structures of the mouse atlas, organs of TotalSegmentator's example CT. The floors sit below what
// the engine reaches today (the figures in the closing note), so a change that makes clicks worse fails here.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <optional>

#include "tests/common/test_support.h"
#include "inference/classic/click_session.h"
#include "inference/click_evaluator.h"
#include "io/volume/image_file.h"

using namespace delineate;

namespace {

// Dice after each of `clicks` clicks (the last value repeated when the object became perfect early).
std::vector<double> diceByClick(const core::ImageVolume& image, const core::LabelMap& labels, core::Label label, int clicks) {
  auto ref = core::Volume<std::uint8_t>::create(labels.geometry(), 0).value();
  for (std::size_t i = 0; i < labels.size(); ++i) ref[i] = labels[i] == label ? 1 : 0;
  auto session = inference::classic::ClickSession::begin(image);
  REQUIRE(session.ok());
  auto eval = inference::simulateClicks(**session, ref, clicks);
  REQUIRE(eval.ok());
  REQUIRE(!eval->clicks.empty());
  std::vector<double> out;
  for (const auto& c : eval->clicks) out.push_back(c.dice);
  while (static_cast<int>(out.size()) < clicks) out.push_back(out.back());
  return out;
}

struct Case {
  core::ImageVolume image;
  core::LabelMap labels;
};

std::optional<Case> load(const std::string& image, const std::string& labels) {
  auto ip = test::sharedFile(image), lp = test::sharedFile(labels);
  if (!ip || !lp) return std::nullopt;
  auto i = io::readImageFile(ip->string());
  auto l = io::readLabelFile(lp->string());
  REQUIRE(i.ok());
  REQUIRE(l.ok());
  return Case{std::move(i).value(), std::move(l).value()};
}

// Mean Dice over objects after each click.
std::vector<double> meanByClick(const std::vector<std::vector<double>>& perObject) {
  std::vector<double> mean(perObject.front().size(), 0);
  for (const auto& o : perObject)
    for (std::size_t k = 0; k < mean.size(); ++k) mean[k] += o[k] / static_cast<double>(perObject.size());
  return mean;
}

}  // namespace

TEST_CASE("click on real scans: MR tumours", "[classic][click][data]") {
  auto breast = load("data/mr/pyradiomics-mr-tumor/breast1_image.nrrd", "data/mr/pyradiomics-mr-tumor/breast1_label.nrrd");
  auto brain = load("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd", "data/mr/pyradiomics-mr-tumor/brain1_label.nrrd");
  if (!breast || !brain) return;
  const auto b = diceByClick(breast->image, breast->labels, 1, 10);
  CHECK(b[4] > 0.85);
  CHECK(b[9] > 0.85);
  const auto t = diceByClick(brain->image, brain->labels, 1, 10);
  CHECK(t[4] > 0.6);
  CHECK(t[9] > 0.7);
}

TEST_CASE("click on real scans: ten mouse atlas structures, Dice rising with the clicks", "[classic][click][data]") {
  auto mouse = load("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_2.nii.gz",
                    "data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_2.nii.gz");
  if (!mouse) return;
  // Right hippocampus, caudate putamen, thalamus, cerebellum, hypothalamus, neocortex, olfactory bulb, brain stem;
  // left cerebellum and olfactory bulb.
  std::vector<std::vector<double>> all;
  for (const core::Label l : std::initializer_list<core::Label>{1, 3, 7, 8, 11, 14, 16, 17, 28, 36})
    all.push_back(diceByClick(mouse->image, mouse->labels, l, 10));
  const auto mean = meanByClick(all);
  INFO("mean Dice after 1, 3, 5, 10 clicks: " << mean[0] << ", " << mean[2] << ", " << mean[4] << ", " << mean[9]);
  CHECK(mean[0] > 0.3);
  CHECK(mean[4] > 0.55);
  CHECK(mean[9] > 0.65);
  CHECK(mean[2] > mean[0]);
  CHECK(mean[4] > mean[2]);
  CHECK(mean[9] > mean[4]);
}

TEST_CASE("click on real scans: abdominal organs of a 3 mm CT", "[classic][click][data]") {
  auto ct = load("data/ct/totalseg-example/example_ct.nii.gz",
                 "data/ct/totalseg-example/example_seg_fast_force_split.nii.gz");
  if (!ct) return;
  // TotalSegmentator ids: spleen, right and left kidney, liver.
  std::vector<std::vector<double>> all;
  for (const core::Label l : std::initializer_list<core::Label>{1, 2, 3, 5})
    all.push_back(diceByClick(ct->image, ct->labels, l, 5));
  const auto mean = meanByClick(all);
  INFO("mean Dice after 1, 3, 5 clicks: " << mean[0] << ", " << mean[2] << ", " << mean[4]);
  CHECK(mean[0] > 0.5);
  CHECK(mean[4] > 0.75);
  for (const auto& o : all) CHECK(o[4] > 0.7);
}

namespace {

// Runs the protocol through a session and records, click by click, whether the click changed the object the way a
// user expects: a positive click never removes a voxel, a negative click never adds one.
class RecordingSession final : public inference::InteractiveSession {
 public:
  explicit RecordingSession(inference::InteractiveSession& session) : m_session(session) {}
  core::Status addPrompt(const inference::Prompt& point, core::ProgressSink* progress) override {
    const inference::ObjectMask before = m_session.mask();
    core::Status s = m_session.addPrompt(point, progress);
    if (!s) return s;
    // A positive click: every voxel before is still in; a negative one: every voxel now was in before.
    const inference::ObjectMask& after = m_session.mask();
    const inference::ObjectMask& from = point.positive ? before : after;
    const inference::ObjectMask& into = point.positive ? after : before;
    std::size_t o = 0, lost = 0;
    for (std::int64_t z = from.box.min[2]; z <= from.box.max[2]; ++z)
      for (std::int64_t y = from.box.min[1]; y <= from.box.max[1]; ++y)
        for (std::int64_t x = from.box.min[0]; x <= from.box.max[0]; ++x, ++o)
          if (from.voxels[o] && !into.contains(core::Index3{x, y, z})) ++lost;
    if (lost > 0) ++(point.positive ? positiveRemoved : negativeAdded);
    return s;
  }
  bool undoPrompt() override { return m_session.undoPrompt(); }
  const std::vector<inference::Prompt>& prompts() const override { return m_session.prompts(); }
  const inference::ObjectMask& mask() const override { return m_session.mask(); }

  int positiveRemoved = 0;  // positive clicks that removed some voxel
  int negativeAdded = 0;    // negative clicks that added some voxel

 private:
  inference::InteractiveSession& m_session;
};

struct Setbacks {
  int pairs = 0;      // (structure, click) pairs after a first click
  int setbacks = 0;   // ... whose click lowered Dice by more than 0.05
  int positiveRemoved = 0, negativeAdded = 0;
};

void runEverything(const core::ImageVolume& image, const core::LabelMap& labels, Setbacks& out) {
  std::vector<bool> present(65536, false);
  for (std::size_t i = 0; i < labels.size(); ++i) present[labels[i]] = true;
  for (std::size_t l = 1; l < present.size(); ++l) {
    if (!present[l]) continue;
    auto ref = core::Volume<std::uint8_t>::create(labels.geometry(), 0).value();
    for (std::size_t i = 0; i < labels.size(); ++i) ref[i] = labels[i] == l ? 1 : 0;
    auto session = inference::classic::ClickSession::begin(image);
    REQUIRE(session.ok());
    RecordingSession recording(**session);
    auto eval = inference::simulateClicks(recording, ref, 10);
    REQUIRE(eval.ok());
    for (std::size_t k = 1; k < eval->clicks.size(); ++k) {
      ++out.pairs;
      if (eval->clicks[k].dice < eval->clicks[k - 1].dice - 0.05) ++out.setbacks;
    }
    out.positiveRemoved += recording.positiveRemoved;
    out.negativeAdded += recording.negativeAdded;
  }
}

}  // namespace

// Issue 22, item 3: under the protocol a positive click used to remove parts of the object far from it (the
// competition rerouted around the new seed) and a click lowered Dice by more than 0.05 for 7.3% of the (structure,
// click) pairs of these three sets (9.5% on the CT), mostly a later positive click flooding a low-contrast
// neighbourhood. Every structure of a 3 mm CT, of an MR and of a mouse subject, ten clicks each.
TEST_CASE("click on real scans: a click never sets the object back", "[classic][click][data]") {
  auto ct = load("data/ct/totalseg-example/example_ct_sm.nii.gz", "data/ct/totalseg-example/example_seg.nii.gz");
  auto mr = load("data/ct/totalseg-example/example_mr_sm.nii.gz", "data/ct/totalseg-example/example_seg_mr.nii.gz");
  auto mouse = load("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_2.nii.gz",
                    "data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_2.nii.gz");
  if (!ct || !mr || !mouse) return;
  Setbacks s;
  runEverything(ct->image, ct->labels, s);
  runEverything(mr->image, mr->labels, s);
  runEverything(mouse->image, mouse->labels, s);
  INFO(s.setbacks << " setbacks in " << s.pairs << " clicks");
  CHECK(s.pairs > 800);  // 41 + 23 + 37 structures
  CHECK(s.positiveRemoved == 0);
  CHECK(s.negativeAdded == 0);
  CHECK(static_cast<double>(s.setbacks) <= 0.05 * static_cast<double>(s.pairs));
}
