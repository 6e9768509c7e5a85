// click-eval through the program: the same scan and reference stored with their axes in other orders (LPS vs LAS,
// i and j swapped, a mixed order; every voxel keeping its LPS position) give the same Dice curve.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/axis_order.h"
#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/storage_order_support.h"
#include "tests/common/test_support.h"

using namespace delineate;

TEST_CASE("click-eval gives the same Dice curve whatever order the file stores its axes in", "[cli][click]") {
  auto ip = test::sharedFile("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd");
  auto lp = test::sharedFile("data/mr/pyradiomics-mr-tumor/brain1_label.nrrd");
  if (!ip || !lp) return;
  auto image = io::readImageFile(ip->string());
  auto labels = io::readLabelFile(lp->string());
  REQUIRE(image.ok());
  REQUIRE(labels.ok());
  // The tumour and a margin, so the protocol runs in a second.
  core::IndexBox box;
  const auto dims = labels->geometry().dimensions();
  for (std::int64_t z = 0; z < dims[2]; ++z)
    for (std::int64_t y = 0; y < dims[1]; ++y)
      for (std::int64_t x = 0; x < dims[0]; ++x)
        if (labels->at(core::Index3{x, y, z}) == 1) box.include(core::Index3{x, y, z});
  REQUIRE(!box.empty());
  for (std::size_t a = 0; a < 3; ++a) {
    box.min[a] = std::max<std::int64_t>(0, box.min[a] - 8);
    box.max[a] = std::min(dims[a] - 1, box.max[a] + 8);
  }
  const auto img = test::cropVolume(*image, box);
  const auto lab = test::cropVolume(labels->voxels(), box);

  test::ScratchDir dir("click-eval-axes");
  auto curve = [&](const core::AxisOrder& order, const std::string& name) {
    const auto i = core::reorderedVolume(img, order).value();
    const auto l = core::reorderedVolume(lab, order).value();
    REQUIRE(io::writeImageFile((dir / (name + "_image.nii")).string(), i).ok());
    REQUIRE(io::writeLabelFile((dir / (name + "_label.nii")).string(), core::LabelMap(l)).ok());
    const auto r = test::runCli("click-eval '" + (dir / (name + "_image.nii")).string() + "' '" +
                                (dir / (name + "_label.nii")).string() + "' --label 1 --clicks 5 --json");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    return j["objects"][0]["dice"].get<std::vector<double>>();
  };
  core::AxisOrder las, swapped, mixed;
  las.flip = {true, false, false};
  swapped.axis = {1, 0, 2};
  mixed.axis = {2, 0, 1};
  mixed.flip = {false, true, true};
  const auto expected = curve(core::AxisOrder{}, "stored");
  INFO("Dice after 5 clicks: " << expected.back());
  CHECK(expected.back() > 0.5);
  CHECK(curve(las, "las") == expected);
  CHECK(curve(swapped, "swapped") == expected);
  CHECK(curve(mixed, "mixed") == expected);
}

TEST_CASE("click-eval counts the clicks that set an object back", "[cli][click]") {
  auto ip = test::sharedFile("data/ct/totalseg-example/example_mr_sm.nii.gz");
  auto lp = test::sharedFile("data/ct/totalseg-example/example_seg_mr.nii.gz");
  if (!ip || !lp) return;
  const auto r = test::runCli("click-eval '" + ip->string() + "' '" + lp->string() + "' --clicks 6 --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  // The count is the one of the per-click Dice it prints: later clicks, and those lowering Dice by more than 0.05.
  std::size_t later = 0, back = 0;
  for (const auto& o : j["objects"]) {
    const auto& clicks = o["clicks"];
    for (std::size_t k = 1; k < clicks.size(); ++k) {
      ++later;
      if (clicks[k]["dice"].get<double>() < clicks[k - 1]["dice"].get<double>() - 0.05) ++back;
    }
  }
  CHECK(j["objects"].size() == 23);
  CHECK(later > 23 * 3);
  CHECK(j["setbacks"]["laterClicks"].get<std::size_t>() == later);
  CHECK(j["setbacks"]["count"].get<std::size_t>() == back);
  CHECK(j["setbacks"]["threshold"].get<double>() == 0.05);
  // The text table says it in a line.
  const auto t = test::runCli("click-eval '" + ip->string() + "' '" + lp->string() + "' --clicks 6 --label 1");
  REQUIRE(t.exitCode == 0);
  CHECK(t.out.find("prompts after the first that lowered Dice by more than 0.05:") != std::string::npos);
}

TEST_CASE("click-eval runs the box and scribble protocols and corrects a start segmentation", "[cli][click][prompt]") {
  auto ip = test::sharedFile("data/ct/totalseg-example/example_mr_sm.nii.gz");
  auto lp = test::sharedFile("data/ct/totalseg-example/example_seg_mr.nii.gz");
  if (!ip || !lp) return;
  const std::string files = "'" + ip->string() + "' '" + lp->string() + "' --label 1 --label 5";
  auto run = [&](const std::string& extra) {
    const auto r = test::runCli("click-eval " + files + " --clicks 3 --json " + extra);
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    return nlohmann::json::parse(r.out.substr(r.out.find('{')));
  };
  // Box: a box, then 3 clicks: 4 Dice per object; the first prompt is the box.
  const auto box = run("--prompts box");
  CHECK(box["prompts"] == "box");
  REQUIRE(box["objects"].size() == 2);
  for (const auto& o : box["objects"]) {
    CHECK(o["dice"].size() == 4);
    CHECK(o["clicks"][0]["prompt"] == "box");
    for (std::size_t k = 1; k < o["clicks"].size(); ++k) CHECK(o["clicks"][k]["prompt"] == "point");
  }
  const auto points = run("");
  INFO("box alone " << box["meanDice"][0] << " vs one click " << points["meanDice"][0]);
  CHECK(box["meanDice"].size() == 4);
  CHECK(box["meanDice"][0].get<double>() > 0.2);
  // Scribbles: strokes.
  const auto strokes = run("--prompts scribble");
  for (const auto& o : strokes["objects"]) CHECK(o["clicks"][0]["prompt"] == "scribble");
  CHECK(strokes["meanDice"][0].get<double>() > 0.2);

  // A start: the reference itself, with label 5 shifted away: its Dice starts below 1 and the clicks correct it; a
  // start equal to the reference for label 1 is perfect before any prompt (no prompt is given).
  auto labels = io::readLabelFile(lp->string());
  REQUIRE(labels.ok());
  const auto dims = labels->geometry().dimensions();
  auto start = core::Volume<core::Label>::create(labels->geometry(), 0).value();
  for (std::int64_t z = 0; z < dims[2]; ++z)
    for (std::int64_t y = 0; y < dims[1]; ++y)
      for (std::int64_t x = 0; x < dims[0]; ++x) {
        const core::Label v = labels->at(core::Index3{x, y, z});
        if (v == 1) start.at({x, y, z}) = 1;
        if (v == 5 && x + 3 < dims[0]) start.at({x + 3, y, z}) = 5;
      }
  test::ScratchDir dir("click-eval-start");
  const std::string startFile = (dir / "start.nii.gz").string();
  REQUIRE(io::writeLabelFile(startFile, core::LabelMap(start)).ok());
  const auto corrected = run("--start '" + startFile + "'");
  REQUIRE(corrected["objects"].size() == 2);
  const auto& perfect = corrected["objects"][0];
  CHECK(perfect["startDice"].get<double>() == 1.0);
  CHECK(perfect["clicks"].empty());
  const auto& shifted = corrected["objects"][1];
  INFO("label 5: start " << shifted["startDice"] << ", then " << shifted["dice"]);
  CHECK(shifted["startDice"].get<double>() < 0.95);
  CHECK(shifted["dice"].back().get<double>() > shifted["startDice"].get<double>());
  CHECK(corrected.contains("meanStartDice"));
  // Every prompt counts against the object before it, the first too (there is a start).
  CHECK(corrected["setbacks"]["laterClicks"].get<std::size_t>() == shifted["clicks"].size());

  // Bad inputs are named: a start on another grid, an engine that is no model.
  auto other = core::Volume<core::Label>::create(core::Geometry({4, 4, 4}, {1, 1, 1}, {0, 0, 0}), 1).value();
  const std::string otherFile = (dir / "other.nii.gz").string();
  REQUIRE(io::writeLabelFile(otherFile, core::LabelMap(other)).ok());
  const auto bad = test::runCliSplit("click-eval " + files + " --start '" + otherFile + "'");
  CHECK(bad.exitCode != 0);
  CHECK(bad.err.find("other.nii.gz") != std::string::npos);
  CHECK(bad.err.find("not on the image's grid") != std::string::npos);
  const auto noModel = test::runCliSplit("click-eval " + files + " --engine '" + startFile + "'");
  CHECK(noModel.exitCode != 0);
  CHECK(noModel.err.find("start.nii.gz") != std::string::npos);
}
