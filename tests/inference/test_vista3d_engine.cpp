// VISTA-3D behind inference/engine.h: the engine selection, click prompts through segment() and click sessions,
// on the parity reference's CT with its tiny model (roi 64), against the bundle's label files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>

#include "inference/engine.h"
#include "inference/interactive.h"
#include "inference/vista3d/network.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"

using namespace delineate;

namespace {

struct EngineCase {
  std::string checkpoint;
  core::ImageVolume image;
  std::filesystem::path dir;

  static std::optional<EngineCase> load() {
    auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
    auto ct = test::sharedFile("reference/vista3d/pipeline/input_ct.nii.gz");
    if (!pt || !ct || !inference::vista3d::torchAvailable()) return std::nullopt;
    auto image = io::readImageFile(ct->string());
    REQUIRE(image.ok());
    return EngineCase{pt->string(), std::move(image).value(), ct->parent_path()};
  }
  std::unique_ptr<inference::SegmentationEngine> cpuEngine() const {
    inference::Vista3dEngineOptions options;
    options.roi = 64;  // the reference ran with windows of 64
    options.device = "cpu";
    auto engine = inference::createVista3dEngine(checkpoint, options);
    REQUIRE(engine.ok());
    return std::move(engine).value();
  }
  // The reference README's clicks (voxels of the CT), as points in space.
  inference::PointPrompt click(double i, double j, double k, bool positive) const {
    return {image.geometry().indexToLps(core::Vec3{i, j, k}), positive};
  }
  std::vector<float> reference(const std::string& name) const {
    std::vector<std::int64_t> shape;
    return test::toXFastest(test::readNpy(dir / (name + "_labels_original.npy"), shape), 1, image.geometry().dimensions());
  }
};

// Voxels where the patch (whole image) and the reference disagree on "inside" (reference == object, 255 = outside).
std::size_t disagreement(const std::vector<core::Label>& ours, const std::vector<float>& ref, float object, core::Label inside) {
  REQUIRE(ours.size() == ref.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) differ += (ours[i] == inside) != (ref[i] == object) || (ours[i] != inside && ours[i] != 0);
  return differ;
}

}  // namespace

TEST_CASE("engine selection: classic without a checkpoint or a CUDA device, VISTA-3D on the CPU only when asked, "
          "clear errors otherwise", "[vista3d][engine][data]") {
  auto c = EngineCase::load();
  if (!c) return;
  inference::EngineSelection none;
  auto classic = inference::selectEngine(none);
  REQUIRE(classic.ok());
  CHECK(classic->engine->info().id == "classic");
  CHECK(classic->why.find("no VISTA-3D checkpoint") != std::string::npos);

  inference::EngineSelection configured;
  configured.checkpoint = c->checkpoint;
  configured.vista.roi = 64;
  if (!inference::vista3d::cudaAvailable()) {
    auto fallback = inference::selectEngine(configured);
    REQUIRE(fallback.ok());
    CHECK(fallback->engine->info().id == "classic");
    CHECK(fallback->why.find("no CUDA device") != std::string::npos);
    inference::EngineSelection cuda = configured;
    cuda.vista.device = "cuda";
    auto refused = inference::selectEngine(cuda);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == core::ErrorCode::Unsupported);
  } else {
    auto gpu = inference::selectEngine(configured);
    REQUIRE(gpu.ok());
    CHECK(gpu->engine->info().id == "vista3d");
    CHECK(gpu->engine->info().device.rfind("cuda", 0) == 0);
  }
  inference::EngineSelection cpu = configured;
  cpu.vista.device = "cpu";
  auto asked = inference::selectEngine(cpu);
  REQUIRE(asked.ok());
  CHECK(asked->engine->info().id == "vista3d");
  CHECK(asked->engine->info().device == "cpu fp32");
  CHECK(asked->engine->info().supportsPoints);

  // A configured checkpoint that is not one: an error naming it, never a silent fallback.
  test::ScratchDir tmp("engine-select");
  const auto bad = tmp / "model.pt";
  test::writeTextFile(bad, "not a checkpoint");
  inference::EngineSelection broken = cpu;
  broken.checkpoint = bad.string();
  auto failed = inference::selectEngine(broken);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().describe().find("model.pt") != std::string::npos);
  inference::EngineSelection badPrecision = cpu;
  badPrecision.vista.precision = "fp8";
  CHECK_FALSE(inference::selectEngine(badPrecision).ok());
}

TEST_CASE("engine selection: the CPU time estimate grows with the image and counts one window per click run",
          "[vista3d][engine]") {
  const core::Geometry small({100, 100, 60}, {1.5, 1.5, 1.5}, {0, 0, 0});
  const core::Geometry ct({512, 512, 300}, {0.8, 0.8, 1.0}, {0, 0, 0});
  const double oneWindow = inference::estimateVista3dCpuSeconds(small, false, 128, 2);
  CHECK(oneWindow == Approx(185.0 / 2));  // 100 x 100 x 60 pads into one window
  // 512 x 512 x 300 at 0.8 / 1.0 mm is 273 x 273 x 200 at 1.5 mm: 3 x 3 x 2 windows.
  CHECK(inference::estimateVista3dCpuSeconds(ct, false, 128, 2) == Approx(18 * 185.0 / 2));
  CHECK(inference::estimateVista3dCpuSeconds(ct, true, 128, 2) == Approx(305.0 / 2));
  CHECK(inference::estimateVista3dCpuSeconds(ct, false, 128, 4) < inference::estimateVista3dCpuSeconds(ct, false, 128, 2));
}

TEST_CASE("vista3d engine: clicks through segment() give the bundle's object, with and without a class prompt",
          "[vista3d][engine][data]") {
  auto c = EngineCase::load();
  if (!c) return;
  auto engine = c->cpuEngine();
  inference::SegmentationRequest request;
  request.points = {c->click(30, 40, 16, true), c->click(10, 50, 25, false)};
  auto plain = engine->segment(c->image, request, nullptr);
  REQUIRE(plain.ok());
  const auto refClick = c->reference("click");
  CHECK(disagreement(plain->voxels, refClick, 1, 1) <= refClick.size() / 10000);
  // Class 3 prompt, written as label 7.
  request.classes = {3};
  request.targetLabel = 7;
  auto withClass = engine->segment(c->image, request, nullptr);
  REQUIRE(withClass.ok());
  const auto refClass = c->reference("click_class");
  CHECK(disagreement(withClass->voxels, refClass, 3, 7) <= refClass.size() / 10000);
  // Bad prompts: two classes, a click off the image.
  request.classes = {3, 5};
  CHECK_FALSE(engine->segment(c->image, request, nullptr).ok());
  request.classes = {};
  request.points = {c->click(-20, 40, 16, true)};
  CHECK_FALSE(engine->segment(c->image, request, nullptr).ok());
}

TEST_CASE("vista3d engine: a click session adds, refuses and undoes clicks and accepts the bundle's object",
          "[vista3d][engine][data]") {
  auto c = EngineCase::load();
  if (!c) return;
  auto engine = c->cpuEngine();
  auto session = engine->beginSession(c->image);
  REQUIRE(session.ok());
  auto& s = **session;
  // A negative first click has nothing to carve from.
  CHECK_FALSE(s.addPoint(c->click(10, 50, 25, false)).ok());
  CHECK(s.prompts().empty());
  REQUIRE(s.addPoint(c->click(30, 40, 16, true)).ok());
  // (The reference's tiny model is not trained: one click alone may give no object; the pair below gives the
  // reference's.)
  const std::size_t first = s.mask().count();
  const core::IndexBox firstBox = s.mask().box;
  // Off the image: refused, the session as it was.
  CHECK_FALSE(s.addPoint(c->click(30, 400, 16, true)).ok());
  CHECK(s.prompts().size() == 1);
  CHECK(s.mask().count() == first);
  REQUIRE(s.addPoint(c->click(10, 50, 25, false)).ok());
  // After both clicks: the bundle's object of the click case.
  const auto ref = c->reference("click");
  std::size_t refCount = 0, differ = 0;
  const auto d = c->image.geometry().dimensions();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        const bool expect = ref[static_cast<std::size_t>((z * d[1] + y) * d[0] + x)] == 1;
        refCount += expect;
        differ += expect != s.mask().contains({x, y, z});
      }
  INFO("one click: " << first << " voxels; two: " << s.mask().count() << " (the bundle's: " << refCount << ")");
  CHECK(refCount > 0);
  CHECK(s.mask().count() != first);
  CHECK(differ <= ref.size() / 10000);
  auto patch = s.accept(9);
  REQUIRE(patch.ok());
  CHECK(static_cast<std::size_t>(std::count(patch->voxels.begin(), patch->voxels.end(), core::Label{9})) == s.mask().count());
  REQUIRE(s.undoPrompt());
  CHECK(s.prompts().size() == 1);
  CHECK(s.mask().count() == first);
  CHECK(s.mask().box == firstBox);
  REQUIRE(s.undoPrompt());
  CHECK(s.mask().count() == 0);
  CHECK_FALSE(s.undoPrompt());
}

TEST_CASE("vista3d engine: boxes, strokes and lassos become clicks, a box bounds the object, drawn voxels are certain",
          "[vista3d][engine][prompt][data]") {
  auto c = EngineCase::load();
  if (!c) return;
  auto engine = c->cpuEngine();
  auto session = engine->beginSession(c->image);
  REQUIRE(session.ok());
  auto& s = **session;
  const core::Geometry& g = c->image.geometry();
  // A box around the reference README's click (voxel 30, 40, 16) in its axial slice.
  inference::Prompt box;
  box.kind = inference::Prompt::Kind::Box;
  box.pointsLps = {g.indexToLps(core::Index3{22, 32, 16}), g.indexToLps(core::Index3{38, 48, 16})};
  box.normalLps = {0, 0, 1};
  REQUIRE(s.addPrompt(box).ok());
  CHECK(s.prompts().size() == 1);
  const inference::ObjectMask& m = s.mask();
  std::size_t outside = 0, o = 0;
  for (std::int64_t z = m.box.min[2]; z <= m.box.max[2]; ++z)
    for (std::int64_t y = m.box.min[1]; y <= m.box.max[1]; ++y)
      for (std::int64_t x = m.box.min[0]; x <= m.box.max[0]; ++x, ++o)
        if (m.voxels[o] && (x < 22 || x > 38 || y < 32 || y > 48)) ++outside;
  CHECK(outside == 0);
  // A negative lasso: its inside is cleared for certain; undo returns the box's object.
  const std::size_t afterBox = s.mask().count();
  inference::Prompt lasso;
  lasso.kind = inference::Prompt::Kind::Lasso;
  lasso.positive = false;
  lasso.normalLps = {0, 0, 1};
  for (const core::Index3 q : {core::Index3{28, 38, 16}, core::Index3{33, 38, 16}, core::Index3{33, 43, 16}, core::Index3{28, 43, 16}})
    lasso.pointsLps.push_back(g.indexToLps(q));
  REQUIRE(s.addPrompt(lasso).ok());
  const auto inside = inference::rasterizePrompt(lasso, g).value();
  for (const auto& q : inside.voxels) CHECK_FALSE(s.mask().contains(q));
  REQUIRE(s.undoPrompt());
  CHECK(s.mask().count() == afterBox);
  // A positive stroke: its voxels are object.
  inference::Prompt stroke;
  stroke.kind = inference::Prompt::Kind::Scribble;
  stroke.pointsLps = {g.indexToLps(core::Index3{26, 36, 16}), g.indexToLps(core::Index3{34, 44, 16})};
  REQUIRE(s.addPrompt(stroke).ok());
  const auto drawn = inference::rasterizePrompt(stroke, g).value();
  for (const auto& q : drawn.voxels) CHECK(s.mask().contains(q));
  CHECK(s.prompts().size() == 2);
}

TEST_CASE("vista3d prompt note: classes on which the bundle's and training's special lists disagree are flagged",
          "[vista3d][engine]") {
  CHECK(inference::vista3dPromptNote(3).empty());    // spleen: special in neither
  CHECK(inference::vista3dPromptNote(25).empty());   // special in both
  CHECK(inference::vista3dPromptNote(28).find("is a 'special' class for the VISTA-3D bundle") != std::string::npos);
  CHECK(inference::vista3dPromptNote(117).find("was not one in training") != std::string::npos);
  CHECK(inference::vista3dPromptNote(23).find("is not a 'special' class") != std::string::npos);
  CHECK(inference::vista3dPromptNote(128).find("was one in training") != std::string::npos);
}
