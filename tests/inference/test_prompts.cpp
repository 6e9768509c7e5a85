// Prompts other than points (issue 45): boxes, scribbles and lassos rasterised on a grid, in the classic click session
// and in the model-guided session, on synthetic volumes whose right answer is known; and the evaluator's box and
// scribble protocols.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/axis_order.h"
#include "inference/classic/click_session.h"
#include "inference/click_evaluator.h"
#include "inference/guided_session.h"

using namespace delineate;
using namespace delineate::core;
using inference::ObjectMask;
using inference::Prompt;

namespace {

// Two touching balls of the same brightness (centres in voxels, radius in voxels) in a dark noisy background: a
// click in one floods both; a box around one tells the engine its extent. 1 mm voxels.
struct TwoBalls {
  ImageVolume image;
  Volume<std::uint8_t> a, b;
};

TwoBalls twoBalls(float brightnessB = 100) {
  const Geometry g({64, 48, 40}, {1, 1, 1}, {0, 0, 0});
  TwoBalls t{ImageVolume::create(g).value(), Volume<std::uint8_t>::create(g, 0).value(), Volume<std::uint8_t>::create(g, 0).value()};
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0, 6);
  for (std::int64_t z = 0; z < 40; ++z)
    for (std::int64_t y = 0; y < 48; ++y)
      for (std::int64_t x = 0; x < 64; ++x) {
        auto in = [&](double cx, double r) {
          const double dx = double(x) - cx, dy = double(y) - 24, dz = double(z) - 20;
          return dx * dx + dy * dy + dz * dz <= r * r;
        };
        const bool inA = in(20, 10), inB = !inA && in(39, 10);
        t.image.at({x, y, z}) = (inA ? 100.0f : inB ? brightnessB : 0.0f) + noise(rng);
        t.a.at({x, y, z}) = inA ? 1 : 0;
        t.b.at({x, y, z}) = inB ? 1 : 0;
      }
  return t;
}

Prompt axialBox(const Geometry& g, const Index3& lo, const Index3& hi) {
  Prompt p;
  p.kind = Prompt::Kind::Box;
  p.pointsLps = {g.indexToLps(lo), g.indexToLps(hi)};
  p.normalLps = {0, 0, 1};
  return p;
}

std::size_t countOutside(const ObjectMask& m, const IndexBox& allowed) {
  std::size_t n = 0, o = 0;
  for (std::int64_t z = m.box.min[2]; z <= m.box.max[2]; ++z)
    for (std::int64_t y = m.box.min[1]; y <= m.box.max[1]; ++y)
      for (std::int64_t x = m.box.min[0]; x <= m.box.max[0]; ++x, ++o)
        if (m.voxels[o] && !allowed.contains(Index3{x, y, z})) ++n;
  return n;
}

// Voxels of `from` missing in `into`.
std::size_t lost(const ObjectMask& from, const ObjectMask& into) {
  std::size_t n = 0, o = 0;
  for (std::int64_t z = from.box.min[2]; z <= from.box.max[2]; ++z)
    for (std::int64_t y = from.box.min[1]; y <= from.box.max[1]; ++y)
      for (std::int64_t x = from.box.min[0]; x <= from.box.max[0]; ++x, ++o)
        if (from.voxels[o] && !into.contains(Index3{x, y, z})) ++n;
  return n;
}

ObjectMask maskOf(const Volume<std::uint8_t>& v) {
  ObjectMask m;
  const Size3 d = v.geometry().dimensions();
  m.box = IndexBox{{0, 0, 0}, {d[0] - 1, d[1] - 1, d[2] - 1}};
  m.voxels.assign(v.data(), v.data() + v.size());
  return m;
}

}  // namespace

TEST_CASE("prompts: boxes, strokes and lassos become the voxels they cover, and bad ones are named", "[prompt]") {
  const Geometry g({20, 20, 10}, {0.5, 0.5, 2.0}, {0, 0, 0});
  // A lasso: a square of 4 x 4 voxel centres (indices 2..5) in slice 3, drawn a little outside them.
  Prompt lasso;
  lasso.kind = Prompt::Kind::Lasso;
  lasso.normalLps = {0, 0, 1};
  for (const Vec3 c : {Vec3{1.6, 1.6, 3}, Vec3{5.4, 1.6, 3}, Vec3{5.4, 5.4, 3}, Vec3{1.6, 5.4, 3}}) lasso.pointsLps.push_back(g.indexToLps(c));
  auto r = inference::rasterizePrompt(lasso, g);
  REQUIRE(r.ok());
  CHECK(r->voxels.size() == 16);
  CHECK(r->sliceAxis == 2);
  CHECK(r->box.min == Index3{2, 2, 3});
  CHECK(r->box.max == Index3{5, 5, 3});
  // A bow tie (crossing edges): even-odd keeps both lobes, and the lasso's slice is where it was drawn.
  Prompt bow = lasso;
  bow.pointsLps = {g.indexToLps(Vec3{0.6, 0.6, 7}), g.indexToLps(Vec3{10.4, 10.4, 7}), g.indexToLps(Vec3{10.4, 0.6, 7}),
                   g.indexToLps(Vec3{0.6, 10.4, 7})};
  auto rb = inference::rasterizePrompt(bow, g);
  REQUIRE(rb.ok());
  CHECK(rb->box.min[2] == 7);
  CHECK(rb->voxels.size() > 20);
  CHECK(rb->voxels.size() < 100);  // not the whole square
  // A stroke along a diagonal crosses every voxel on it, once.
  Prompt stroke;
  stroke.kind = Prompt::Kind::Scribble;
  stroke.pointsLps = {g.indexToLps(Index3{0, 0, 1}), g.indexToLps(Index3{9, 9, 1})};
  auto rs = inference::rasterizePrompt(stroke, g);
  REQUIRE(rs.ok());
  CHECK(rs->voxels.size() >= 10);
  CHECK(rs->voxels.front() == Index3{0, 0, 1});
  CHECK(rs->voxels.back() == Index3{9, 9, 1});
  // A 2D box: a rectangle in one slice; dragged past the image's edge it ends there.
  Prompt box = axialBox(g, {15, 3, 4}, {30, 6, 4});
  auto rx = inference::rasterizePrompt(box, g);
  REQUIRE(rx.ok());
  CHECK(rx->box.min == Index3{15, 3, 4});
  CHECK(rx->box.max == Index3{19, 6, 4});
  CHECK(rx->voxels.size() == 5 * 4);
  // Bad prompts are refused, naming the kind.
  Prompt two = lasso;
  two.pointsLps.resize(2);
  auto e1 = inference::rasterizePrompt(two, g);
  REQUIRE_FALSE(e1.ok());
  CHECK(e1.error().subject == "lasso");
  Prompt nan = stroke;
  nan.pointsLps[1][0] = std::nan("");
  CHECK_FALSE(inference::rasterizePrompt(nan, g).ok());
  CHECK_FALSE(inference::rasterizePrompt(axialBox(g, {40, 40, 4}, {50, 50, 4}), g).ok());
  Prompt flat = lasso;
  flat.normalLps = {0, 0, 0};
  CHECK_FALSE(inference::rasterizePrompt(flat, g).ok());
  Prompt tiny = lasso;  // a lasso between voxel centres holds none
  tiny.pointsLps = {g.indexToLps(Vec3{2.1, 2.1, 3}), g.indexToLps(Vec3{2.4, 2.1, 3}), g.indexToLps(Vec3{2.4, 2.4, 3})};
  CHECK_FALSE(inference::rasterizePrompt(tiny, g).ok());
}

TEST_CASE("prompts: a box around one of two touching balls segments that ball, where a click takes both",
          "[classic][prompt]") {
  TwoBalls t = twoBalls();
  const Geometry& g = t.image.geometry();
  auto clicked = inference::classic::ClickSession::begin(t.image);
  REQUIRE(clicked.ok());
  REQUIRE((*clicked)->addPoint({g.indexToLps(Index3{20, 24, 20}), true}).ok());
  const double clickDice = inference::diceOf((*clicked)->mask(), t.a);
  auto boxed = inference::classic::ClickSession::begin(t.image);
  REQUIRE(boxed.ok());
  // The ball's bounding rectangle on its middle axial slice.
  REQUIRE((*boxed)->addPrompt(axialBox(g, {10, 14, 20}, {30, 34, 20})).ok());
  const ObjectMask& m = (*boxed)->mask();
  const double boxDice = inference::diceOf(m, t.a);
  std::size_t inA = 0;
  for (std::size_t i = 0; i < t.a.size(); ++i) inA += t.a.data()[i];
  INFO("Dice of ball A: click " << clickDice << ", box " << boxDice << "; voxels " << m.count() << " of " << inA
                                << ", box " << m.box.min[0] << ".." << m.box.max[0] << " " << m.box.min[1] << ".."
                                << m.box.max[1] << " " << m.box.min[2] << ".." << m.box.max[2]);
  // The classic engine's band leaves the balls' blurred edge voxels out, box or click.
  CHECK(boxDice > 0.75);
  CHECK(boxDice > clickDice + 0.1);
  // Nothing outside the rectangle in-plane (the box says nothing of z).
  CHECK(countOutside(m, IndexBox{{10, 14, 0}, {30, 34, 39}}) == 0);
  REQUIRE((*boxed)->prompts().size() == 1);
  CHECK((*boxed)->prompts()[0].kind == Prompt::Kind::Box);
  // Undo returns to nothing; a negative box alone makes nothing.
  REQUIRE((*boxed)->undoPrompt());
  CHECK((*boxed)->mask().count() == 0);
  Prompt negative = axialBox(g, {10, 14, 20}, {30, 34, 20});
  negative.positive = false;
  REQUIRE((*boxed)->addPrompt(negative).ok());
  CHECK((*boxed)->mask().count() == 0);
}

TEST_CASE("prompts: scribbles and lassos are seeds and certain voxels, positive only adds, negative only removes",
          "[classic][prompt]") {
  TwoBalls t = twoBalls();
  const Geometry& g = t.image.geometry();
  auto s = inference::classic::ClickSession::begin(t.image);
  REQUIRE(s.ok());
  Prompt stroke;
  stroke.kind = Prompt::Kind::Scribble;
  stroke.pointsLps = {g.indexToLps(Index3{14, 24, 20}), g.indexToLps(Index3{26, 24, 20}), g.indexToLps(Index3{20, 24, 25})};
  REQUIRE((*s)->addPrompt(stroke).ok());
  const ObjectMask first = (*s)->mask();
  const auto strokeVoxels = inference::rasterizePrompt(stroke, g).value();
  for (const auto& q : strokeVoxels.voxels) CHECK(first.contains(q));
  CHECK(inference::diceOf(first, t.a) > 0.5);
  // A negative lasso over ball B's middle slice: its inside goes for certain, nothing is added.
  Prompt lasso;
  lasso.kind = Prompt::Kind::Lasso;
  lasso.positive = false;
  lasso.normalLps = {0, 0, 1};
  for (const Index3 c : {Index3{33, 18, 20}, Index3{45, 18, 20}, Index3{45, 30, 20}, Index3{33, 30, 20}}) lasso.pointsLps.push_back(g.indexToLps(c));
  REQUIRE((*s)->addPrompt(lasso).ok());
  const ObjectMask second = (*s)->mask();
  CHECK(lost(second, first) == 0);
  const auto cleared = inference::rasterizePrompt(lasso, g).value();  // a copy: the Result is a temporary
  for (const auto& q : cleared.voxels) CHECK_FALSE(second.contains(q));
  // A positive lasso adds its inside and removes nothing.
  lasso.positive = true;
  lasso.pointsLps = {g.indexToLps(Index3{18, 22, 30}), g.indexToLps(Index3{22, 22, 30}), g.indexToLps(Index3{20, 26, 30})};
  REQUIRE((*s)->addPrompt(lasso).ok());
  CHECK(lost(second, (*s)->mask()) == 0);
  const auto inside = inference::rasterizePrompt(lasso, g).value();
  CHECK(inside.voxels.size() >= 5);
  for (const auto& q : inside.voxels) CHECK((*s)->mask().contains(q));
  REQUIRE((*s)->prompts().size() == 3);
  REQUIRE((*s)->undoPrompt());
  REQUIRE((*s)->undoPrompt());
  CHECK(lost(first, (*s)->mask()) == 0);
  CHECK(lost((*s)->mask(), first) == 0);
}

TEST_CASE("prompts: a session started from an object edits it, and a negative click removes the part it is in",
          "[classic][prompt]") {
  TwoBalls t = twoBalls(170);  // ball B brighter: a click there takes B alone
  const Geometry& g = t.image.geometry();
  // The start: both balls (a model that took the neighbour too).
  ObjectMask start = maskOf(t.a);
  start = inference::combineMasks(start, maskOf(t.b), true);
  auto s = inference::classic::ClickSession::begin(t.image);
  REQUIRE(s.ok());
  REQUIRE((*s)->setStart(start).ok());
  CHECK((*s)->mask().count() == start.count());
  REQUIRE((*s)->addPoint({g.indexToLps(Index3{40, 24, 20}), false}).ok());
  const ObjectMask after = (*s)->mask();
  CHECK(lost(after, start) == 0);  // only removes
  INFO("Dice of ball A: start " << inference::diceOf(start, t.a) << ", after " << inference::diceOf(after, t.a));
  // B's blurred rim (between the two bands) stays: 0.85 here.
  CHECK(inference::diceOf(after, t.a) > 0.8);
  CHECK(inference::diceOf(after, t.a) > inference::diceOf(start, t.a) + 0.15);
  // A start after a prompt is refused; undo returns to the start exactly.
  CHECK_FALSE((*s)->setStart(start).ok());
  REQUIRE((*s)->undoPrompt());
  CHECK((*s)->mask().count() == start.count());
  CHECK(lost(start, (*s)->mask()) == 0);
}

TEST_CASE("prompts: the same box on a scan stored in another axis order gives the same voxels", "[classic][prompt][axis]") {
  TwoBalls t = twoBalls();
  const Geometry& g = t.image.geometry();
  const Prompt box = axialBox(g, {10, 14, 20}, {30, 34, 20});
  auto s = inference::classic::ClickSession::begin(t.image);
  REQUIRE(s.ok());
  REQUIRE((*s)->addPrompt(box).ok());
  AxisOrder order;
  order.axis = {1, 2, 0};
  order.flip = {true, false, true};
  const ImageVolume stored = reorderedVolume(t.image, order).value();
  auto s2 = inference::classic::ClickSession::begin(stored);
  REQUIRE(s2.ok());
  REQUIRE((*s2)->addPrompt(box).ok());  // the same physical corners and normal
  // Compare voxel by voxel through LPS positions.
  const ObjectMask& a = (*s)->mask();
  const ObjectMask& b = (*s2)->mask();
  CHECK(a.count() == b.count());
  std::size_t differ = 0, o = 0;
  for (std::int64_t z = a.box.min[2]; z <= a.box.max[2]; ++z)
    for (std::int64_t y = a.box.min[1]; y <= a.box.max[1]; ++y)
      for (std::int64_t x = a.box.min[0]; x <= a.box.max[0]; ++x, ++o) {
        const Index3 q = stored.geometry().lpsToNearestIndex(g.indexToLps(Index3{x, y, z}));
        if ((a.voxels[o] != 0) != b.contains(q)) ++differ;
      }
  CHECK(differ == 0);
}

TEST_CASE("prompts: model-guided clicks move the model's own probabilities, and a blind model hands over to intensities",
          "[prompt][guided]") {
  TwoBalls t = twoBalls();
  const Geometry& g = t.image.geometry();
  // The model: ball A likely (220), a shell 1-3 voxels around it less so (150), ball B sure (255) and wrong, the rest 0.
  auto prob = Volume<std::uint8_t>::create(g, 0).value();
  for (std::int64_t z = 0; z < 40; ++z)
    for (std::int64_t y = 0; y < 48; ++y)
      for (std::int64_t x = 0; x < 64; ++x) {
        const double dx = double(x) - 20, dy = double(y) - 24, dz = double(z) - 20;
        const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
        std::uint8_t p = 0;
        if (r <= 7) p = 220;
        else if (r <= 10) p = 150;
        else if (t.b.at({x, y, z})) p = 255;
        prob.at({x, y, z}) = p;
      }
  // The start: what an argmax gives without the shell: A's core and B.
  auto core = Volume<std::uint8_t>::create(g, 0).value();
  for (std::size_t i = 0; i < prob.size(); ++i) core.data()[i] = prob.data()[i] == 220 ? 1 : 0;
  ObjectMask start = inference::combineMasks(maskOf(core), maskOf(t.b), true);
  inference::GuidedOptions withFallback;
  withFallback.blindBelow = 13;  // below 5 % the classic engine decides (off by default)
  auto s = inference::GuidedSession::begin(t.image, prob, start, withFallback);
  REQUIRE(s.ok());
  const double startDice = inference::diceOf((*s)->mask(), t.a);
  // A positive click in the shell: the shell (as likely) near it joins; nothing is lost.
  REQUIRE((*s)->addPoint({g.indexToLps(Index3{20, 24, 29}), true}).ok());
  const ObjectMask afterAdd = (*s)->mask();
  CHECK(lost(start, afterAdd) == 0);
  CHECK(afterAdd.count() > start.count());
  CHECK(inference::diceOf(afterAdd, t.a) > startDice);
  CHECK((*s)->guidedPrompts() == 1);
  // A negative click in B, where the model was sure: the part as sure as there goes (all of B), A stays.
  REQUIRE((*s)->addPoint({g.indexToLps(Index3{40, 24, 20}), false}).ok());
  const ObjectMask afterRemove = (*s)->mask();
  CHECK(lost(afterRemove, afterAdd) == 0);  // only removes
  CHECK(inference::diceOf(afterRemove, t.b) < 0.05);
  CHECK(lost(maskOf(core), afterRemove) == 0);
  CHECK(inference::diceOf(afterRemove, t.a) > inference::diceOf(afterAdd, t.a) + 0.2);
  // A negative click in the shell (150): only what the model found less likely than there (0.9 of it) goes, here
  // nothing but the clicked voxel; never the core.
  REQUIRE((*s)->addPoint({g.indexToLps(Index3{20, 24, 29}), false}).ok());
  CHECK(lost((*s)->mask(), afterRemove) == 0);
  CHECK(lost(afterRemove, (*s)->mask()) == 1);
  CHECK(lost(maskOf(core), (*s)->mask()) == 0);
  // Where the model is blind (0 outside both balls) the classic engine decides: a click in the dark background adds
  // little of it, and the count says who decided.
  const std::size_t before = (*s)->mask().count();
  REQUIRE((*s)->addPoint({g.indexToLps(Index3{60, 4, 4}), true}).ok());
  CHECK((*s)->fallbackPrompts() == 1);
  CHECK(lost(ObjectMask{}, (*s)->mask()) == 0);
  CHECK((*s)->mask().count() >= before);
  REQUIRE((*s)->undoPrompt());
  CHECK((*s)->fallbackPrompts() == 0);
  CHECK((*s)->mask().count() == before);
  // Probabilities on another grid are refused.
  const Geometry other({10, 10, 10}, {1, 1, 1}, {0, 0, 0});
  CHECK_FALSE(inference::GuidedSession::begin(t.image, Volume<std::uint8_t>::create(other, 0).value(), ObjectMask{}).ok());
}

TEST_CASE("prompts: the evaluator's box protocol gives a box and then clicks, the scribble protocol strokes",
          "[prompt][evaluator]") {
  TwoBalls t = twoBalls();
  auto s = inference::classic::ClickSession::begin(t.image);
  REQUIRE(s.ok());
  inference::ClickProtocol protocol;
  protocol.prompts = inference::PromptProtocol::Box;
  auto eval = inference::simulateClicks(**s, t.a, 3, nullptr, protocol);
  REQUIRE(eval.ok());
  REQUIRE(!eval->clicks.empty());
  CHECK(eval->clicks.size() <= 4);
  const Prompt& box = eval->clicks[0].prompt;
  CHECK(box.kind == Prompt::Kind::Box);
  // The ball's largest axial slice is its middle one (z = 20), its rectangle 10..30 x 14..34.
  const auto r = inference::rasterizePrompt(box, t.image.geometry()).value();
  CHECK(r.box.min == Index3{10, 14, 20});
  CHECK(r.box.max == Index3{30, 34, 20});
  for (std::size_t k = 1; k < eval->clicks.size(); ++k) CHECK(eval->clicks[k].prompt.kind == Prompt::Kind::Point);
  CHECK(eval->clicks[0].dice > 0.75);

  auto s2 = inference::classic::ClickSession::begin(t.image);
  REQUIRE(s2.ok());
  protocol.prompts = inference::PromptProtocol::Scribble;
  auto strokes = inference::simulateClicks(**s2, t.a, 2, nullptr, protocol);
  REQUIRE(strokes.ok());
  REQUIRE(!strokes->clicks.empty());
  const Prompt& first = strokes->clicks[0].prompt;
  CHECK(first.kind == Prompt::Kind::Scribble);
  CHECK(first.positive);
  const auto rs = inference::rasterizePrompt(first, t.image.geometry()).value();
  CHECK(rs.voxels.size() >= 8);  // a stroke, not a dot
  for (const auto& q : rs.voxels) CHECK(t.a.at(q) == 1);
}

TEST_CASE("prompts: model-guided prompts flood from their own voxels along the model's probabilities",
          "[prompt][guided]") {
  TwoBalls t = twoBalls();
  const Geometry& g = t.image.geometry();
  // The model's probability falls with the distance r (voxels) from ball A's centre: 255 - 15 r out to r = 10.
  auto prob = Volume<std::uint8_t>::create(g, 0).value();
  auto radius = [](const Index3& q) {
    const double dx = double(q[0]) - 20, dy = double(q[1]) - 24, dz = double(q[2]) - 20;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
  };
  for (std::int64_t z = 0; z < 40; ++z)
    for (std::int64_t y = 0; y < 48; ++y)
      for (std::int64_t x = 0; x < 64; ++x) {
        const double r = radius({x, y, z});
        prob.at({x, y, z}) = r <= 10 ? static_cast<std::uint8_t>(std::lround(255 - 15 * r)) : 0;
      }
  // A negative click near the edge (p 120) removes the object's voxels connected to it that the model found less
  // likely than 0.9 of that (the outer rim near it), not just the clicked voxel, and nothing more likely.
  auto s = inference::GuidedSession::begin(t.image, prob, maskOf(t.a));
  REQUIRE(s.ok());
  const Index3 rim{20, 24, 29};  // r = 9
  REQUIRE((*s)->addPoint({g.indexToLps(rim), false}).ok());
  const ObjectMask after = (*s)->mask();
  const std::size_t removed = lost(maskOf(t.a), after);
  INFO("removed " << removed);
  CHECK(removed > 1);
  std::size_t tooLikely = 0, o = 0;
  const ObjectMask start = maskOf(t.a);
  for (std::int64_t z = start.box.min[2]; z <= start.box.max[2]; ++z)
    for (std::int64_t y = start.box.min[1]; y <= start.box.max[1]; ++y)
      for (std::int64_t x = start.box.min[0]; x <= start.box.max[0]; ++x, ++o)
        if (start.voxels[o] && !after.contains({x, y, z}) && Index3{x, y, z} != rim && prob.at({x, y, z}) > 108) ++tooLikely;
  CHECK(tooLikely == 0);
  // A stroke from the core of a small start object out into what it missed (the model: 200 out to r = 8): its level
  // is that of its missed voxels, not of the core, so the flood adds the missed layer near it, more than the stroke.
  auto plateau = Volume<std::uint8_t>::create(g, 0).value();
  auto coreMask = Volume<std::uint8_t>::create(g, 0).value();
  for (std::int64_t z = 0; z < 40; ++z)
    for (std::int64_t y = 0; y < 48; ++y)
      for (std::int64_t x = 0; x < 64; ++x) {
        plateau.at({x, y, z}) = radius({x, y, z}) <= 8 ? 200 : (radius({x, y, z}) <= 10 ? 255 : 0);
        coreMask.at({x, y, z}) = radius({x, y, z}) <= 4 ? 1 : 0;
      }
  auto s2 = inference::GuidedSession::begin(t.image, plateau, maskOf(coreMask));
  REQUIRE(s2.ok());
  Prompt stroke;
  stroke.kind = Prompt::Kind::Scribble;
  stroke.pointsLps = {g.indexToLps(Index3{20, 24, 20}), g.indexToLps(Index3{27, 24, 20})};
  REQUIRE((*s2)->addPrompt(stroke).ok());
  const std::size_t added = lost((*s2)->mask(), maskOf(coreMask));
  INFO("added " << added);
  CHECK(added > 20);
  CHECK(lost(maskOf(coreMask), (*s2)->mask()) == 0);
  CHECK((*s2)->guidedPrompts() == 1);
}

TEST_CASE("combineMasks and objectOfLabel agree with a voxel-by-voxel reference on random boxes", "[prompt]") {
  // combineMasks works row by row over the overlap of the two boxes: every case of overlap (inside, across an edge,
  // disjoint, around) is compared with setting or clearing voxel by voxel on the full grid.
  const core::Size3 dims{23, 19, 17};
  std::mt19937 rng(45);
  auto randomBox = [&]() {
    IndexBox b;
    for (std::size_t a = 0; a < 3; ++a) {
      std::uniform_int_distribution<std::int64_t> at(0, dims[a] - 1);
      std::int64_t lo = at(rng), hi = at(rng);
      if (lo > hi) std::swap(lo, hi);
      b.min[a] = lo;
      b.max[a] = hi;
    }
    return b;
  };
  auto randomMask = [&](const IndexBox& b) {
    ObjectMask m;
    m.box = b;
    std::bernoulli_distribution on(0.4);
    for (std::int64_t i = 0; i < b.voxelCount(); ++i) m.voxels.push_back(on(rng) ? 1 : 0);
    return m;
  };
  auto onGrid = [&](const ObjectMask& m) {
    std::vector<std::uint8_t> full(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]), 0);
    for (std::int64_t z = 0; z < dims[2]; ++z)
      for (std::int64_t y = 0; y < dims[1]; ++y)
        for (std::int64_t x = 0; x < dims[0]; ++x)
          full[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)] = m.contains(Index3{x, y, z}) ? 1 : 0;
    return full;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const ObjectMask mask = randomMask(randomBox()), other = randomMask(randomBox());
    const bool add = trial % 2 == 0;
    std::vector<std::uint8_t> expected = onGrid(mask);
    const std::vector<std::uint8_t> o = onGrid(other);
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (o[i]) expected[i] = add ? 1 : 0;
    const ObjectMask got = inference::combineMasks(mask, other, add);
    INFO("trial " << trial);
    REQUIRE(onGrid(got) == expected);
    if (!add) CHECK(got.box == mask.box);  // removing never grows the box
  }
  // A label map's object: its voxels over their box, exactly.
  const Geometry g({23, 19, 17}, {1, 1, 1}, {0, 0, 0});
  auto labels = Volume<Label>::create(g, 0).value();
  std::uniform_int_distribution<int> label(0, 3);
  for (std::size_t i = 0; i < labels.size(); ++i) labels.data()[i] = static_cast<Label>(label(rng) == 3 ? 7 : 0);
  labels.at(Index3{2, 3, 4}) = 9;
  const ObjectMask seven = inference::objectOfLabel(labels, 7), nine = inference::objectOfLabel(labels, 9);
  CHECK(inference::objectOfLabel(labels, 5).box.empty());
  CHECK(nine.box == IndexBox{{2, 3, 4}, {2, 3, 4}});
  CHECK(nine.voxels == std::vector<std::uint8_t>{1});
  std::size_t count = 0;
  for (std::int64_t z = 0; z < 17; ++z)
    for (std::int64_t y = 0; y < 19; ++y)
      for (std::int64_t x = 0; x < 23; ++x) {
        CHECK(seven.contains(Index3{x, y, z}) == (labels.at(Index3{x, y, z}) == 7));
        count += labels.at(Index3{x, y, z}) == 7;
      }
  CHECK(seven.count() == count);
}
