// Whether a trained model fits a study (inference/model_fit.h, issue 41): a profile built from the real mouse
// subjects, as delineate-train builds it, checked against the mouse subjects and the bundled human CT.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "inference/model_fit.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"

using namespace delineate;
using inference::ModelFit;
using inference::ModelFitIssue;

namespace {

bool has(const ModelFit& fit, ModelFitIssue::Kind kind) {
  return std::any_of(fit.issues.begin(), fit.issues.end(), [kind](const ModelFitIssue& i) { return i.kind == kind; });
}

}  // namespace

TEST_CASE("model fit: a mouse model fits mouse subjects and refuses a human CT, naming why", "[inference][fit]") {
  const std::string mouse = "data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_";
  const auto m1 = test::sharedFile(mouse + "1.nii.gz"), m2 = test::sharedFile(mouse + "2.nii.gz"),
             m4 = test::sharedFile(mouse + "4.nii.gz");
  if (!m1 || !m2 || !m4) return;
  inference::TrainingDataProfileBuilder builder;
  for (const auto& p : {*m1, *m2}) {
    auto image = io::readImageFile(p.string());
    REQUIRE(image.ok());
    float lowest = 0;
    for (std::size_t i = 0; i < image->size(); ++i) lowest = std::min(lowest, (*image)[i]);
    builder.add(image->geometry(), "", lowest);
  }
  const inference::TrainingDataProfile trained = builder.profile();
  CHECK(trained.images == 2);
  CHECK_FALSE(trained.hounsfield);  // MRI
  // Through the sidecar's JSON, as the window and the ranking read it.
  const std::string sidecar = R"({"architecture": {"name": "SegResNetDS"}, "preprocessing": {"spacingMm": [)" +
                              std::to_string(trained.spacingMinMm[0]) + "," + std::to_string(trained.spacingMinMm[1]) + "," +
                              std::to_string(trained.spacingMinMm[2]) + R"(]}, "trainingDataProfile": )" +
                              inference::trainingDataProfileJson(trained) + "}";
  auto profile = inference::parseModelFitProfile(sidecar, "it0000008.json");
  REQUIRE(profile.ok());
  REQUIRE(profile->data.has_value());
  CHECK(profile->data->images == 2);
  CHECK(profile->data->extentMaxMm[0] == Approx(trained.extentMaxMm[0]));

  // An unseen mouse: fits.
  auto unseen = io::readImageFile(m4->string());
  REQUIRE(unseen.ok());
  const ModelFit same = inference::checkModelFit(*profile, {unseen->geometry(), "", false});
  INFO(inference::describeModelFit(same, {unseen->geometry(), "", false}));
  CHECK(same.verdict == ModelFit::Verdict::Fits);

  // The human CT: a field of view many times larger, coarser voxels, another modality where one is known, and on
  // the model's grid far too many voxels: refused, not merely questioned.
  auto ct = io::readImageFile(std::string(DELINEATE_SOURCE_DIR) + "/resources/sample/example_ct.nii.gz");
  REQUIRE(ct.ok());
  const inference::StudyFitInput human{ct->geometry(), "CT", true};
  const ModelFit fit = inference::checkModelFit(*profile, human);
  const std::string why = inference::describeModelFit(fit, human);
  INFO(why);
  CHECK(fit.verdict == ModelFit::Verdict::Mismatch);
  CHECK(has(fit, ModelFitIssue::Kind::FieldOfViewLarger));
  CHECK(has(fit, ModelFitIssue::Kind::SpacingCoarser));
  CHECK(why.find("model trained on 2 images at ") != std::string::npos);
  CHECK(why.find("this CT is ") != std::string::npos);
  CHECK(why.find("field of view ") != std::string::npos);
  CHECK(why.find("x larger") != std::string::npos);
  // A model trained on CT data knows its modality: an MR study is another one.
  inference::TrainingDataProfileBuilder ctBuilder;
  ctBuilder.add(ct->geometry(), "CT", -1024);
  inference::ModelFitProfile ctModel;
  ctModel.data = ctBuilder.profile();
  ctModel.spacingMm = {1.5, 1.5, 1.5};
  CHECK(inference::checkModelFit(ctModel, {ct->geometry(), "CT", true}).verdict == ModelFit::Verdict::Fits);
  const ModelFit mr = inference::checkModelFit(ctModel, {ct->geometry(), "MR", false});
  CHECK(has(mr, ModelFitIssue::Kind::Modality));
  CHECK(has(mr, ModelFitIssue::Kind::NotHounsfield));
  CHECK_FALSE(mr.refused);  // questioned: the user may run it anyway

  // A checkpoint from before the profile was recorded: fit unknown (a warning), unless the study could not be
  // segmented on its grid at all.
  auto old = inference::parseModelFitProfile(R"({"architecture": {"name": "SegResNetDS"}, "preprocessing": {"spacingMm": [0.5, 0.5, 0.5]}})",
                                             "old.json");
  REQUIRE(old.ok());
  CHECK_FALSE(old->data.has_value());
  CHECK(inference::checkModelFit(*old, {unseen->geometry(), "", false}).verdict == ModelFit::Verdict::Unknown);
  old->spacingMm = {0.02, 0.02, 0.02};  // the CT at 20 micrometres: billions of voxels
  const ModelFit huge = inference::checkModelFit(*old, human);
  CHECK(huge.verdict == ModelFit::Verdict::Mismatch);
  CHECK(huge.refused);
  CHECK(inference::describeModelFit(huge, human).find("billion voxels") != std::string::npos);
  // A profile that is not one: named.
  auto bad = inference::parseModelFitProfile(R"({"architecture": {}, "trainingDataProfile": {"images": 0}})", "bad.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().describe().find("bad.json") != std::string::npos);
}
