#include "inference/model_fit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/file_source.h"
#include "inference/checkpoint_engine.h"

namespace delineate::inference {

using core::ErrorCode;
using core::makeError;
using nlohmann::json;

namespace {

constexpr double kLargerFactor = 2.0, kSmallerFactor = 3.0, kSpacingFactor = 4.0;

core::Vec3 ascending(core::Vec3 v) {
  std::sort(v.begin(), v.end());
  return v;
}
core::Vec3 descending(core::Vec3 v) {
  std::sort(v.begin(), v.end(), std::greater<>());
  return v;
}
core::Vec3 extentOf(const core::Geometry& g) {
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  return {static_cast<double>(d[0]) * s[0], static_cast<double>(d[1]) * s[1], static_cast<double>(d[2]) * s[2]};
}
double product(const core::Vec3& v) { return v[0] * v[1] * v[2]; }

core::Vec3 vec3(const json& j, const char* key) {
  const auto v = j.at(key).get<std::vector<double>>();
  if (v.size() != 3) throw std::invalid_argument(std::string(key) + " needs three values");
  for (double x : v)
    if (!std::isfinite(x) || x <= 0) throw std::invalid_argument(std::string(key) + " needs positive values");
  return {v[0], v[1], v[2]};
}

// "0.1", "0.25", "1.5": three significant digits, no trailing zeros.
std::string mm(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}
std::string triple(const core::Vec3& v) { return mm(v[0]) + " x " + mm(v[1]) + " x " + mm(v[2]); }
std::string factorText(double f) {
  char b[32];
  std::snprintf(b, sizeof b, f < 10 ? "%.1fx" : "%.0fx", f);
  return b;
}

}  // namespace

void TrainingDataProfileBuilder::add(const core::Geometry& geometry, const std::string& modality, float lowestIntensity) {
  TrainingDataProfile& p = m_profile;
  const core::Vec3 spacing = ascending(geometry.spacingMm()), extent = descending(extentOf(geometry));
  for (std::size_t a = 0; a < 3; ++a) {
    p.spacingMinMm[a] = p.images ? std::min(p.spacingMinMm[a], spacing[a]) : spacing[a];
    p.spacingMaxMm[a] = p.images ? std::max(p.spacingMaxMm[a], spacing[a]) : spacing[a];
    p.extentMinMm[a] = p.images ? std::min(p.extentMinMm[a], extent[a]) : extent[a];
    p.extentMaxMm[a] = p.images ? std::max(p.extentMaxMm[a], extent[a]) : extent[a];
  }
  if (!modality.empty() && std::find(p.modalities.begin(), p.modalities.end(), modality) == p.modalities.end()) {
    p.modalities.push_back(modality);
    std::sort(p.modalities.begin(), p.modalities.end());
  }
  m_allHounsfield = m_allHounsfield && lowestIntensity < -500;
  ++p.images;
}

TrainingDataProfile TrainingDataProfileBuilder::profile() const {
  TrainingDataProfile p = m_profile;
  p.hounsfield = p.images > 0 && m_allHounsfield;
  return p;
}

std::string trainingDataProfileJson(const TrainingDataProfile& p) {
  return json{{"images", p.images},
              {"modalities", p.modalities},
              {"hounsfield", p.hounsfield},
              {"spacingMm", {{"finestFirst", true}, {"min", p.spacingMinMm}, {"max", p.spacingMaxMm}}},
              {"fieldOfViewMm", {{"largestFirst", true}, {"min", p.extentMinMm}, {"max", p.extentMaxMm}}}}
      .dump();
}

core::Result<ModelFitProfile> parseModelFitProfile(const std::string& sidecarJson, const std::string& subject) {
  const json j = json::parse(sidecarJson, nullptr, false);
  if (!j.is_object()) return makeError(ErrorCode::ParseError, subject, "the checkpoint's sidecar is not a JSON object");
  try {
    ModelFitProfile m;
    if (j.contains("preprocessing") && j.at("preprocessing").contains("spacingMm"))
      m.spacingMm = vec3(j.at("preprocessing"), "spacingMm");
    if (j.contains("trainingDataProfile")) {
      const json& t = j.at("trainingDataProfile");
      TrainingDataProfile p;
      p.images = t.at("images").get<int>();
      p.modalities = t.value("modalities", std::vector<std::string>{});
      p.hounsfield = t.value("hounsfield", false);
      p.spacingMinMm = vec3(t.at("spacingMm"), "min");
      p.spacingMaxMm = vec3(t.at("spacingMm"), "max");
      p.extentMinMm = vec3(t.at("fieldOfViewMm"), "min");
      p.extentMaxMm = vec3(t.at("fieldOfViewMm"), "max");
      if (p.images < 1) throw std::invalid_argument("trainingDataProfile.images must be at least 1");
      m.data = p;
    }
    return m;
  } catch (const std::exception& e) {
    return makeError(ErrorCode::ParseError, subject, std::string("the sidecar's training data profile: ") + e.what());
  }
}

core::Result<std::optional<ModelFitProfile>> readModelFitProfile(const std::string& checkpointPath) {
  const std::string path = checkpointSidecarPath(checkpointPath);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<ModelFitProfile>();
  auto text = core::readInputFile(path);
  if (!text) return text.error();
  const json j = json::parse(*text, nullptr, false);
  if (j.is_object() && !j.contains("architecture")) return std::optional<ModelFitProfile>();  // notes, not a sidecar
  auto parsed = parseModelFitProfile(*text, path);
  if (!parsed) return parsed.error();
  return std::optional<ModelFitProfile>(std::move(*parsed));
}

ModelFit checkModelFit(const ModelFitProfile& model, const StudyFitInput& study) {
  ModelFit fit;
  fit.studySpacingMm = ascending(study.geometry.spacingMm());
  fit.studyExtentMm = descending(extentOf(study.geometry));
  const double studyVolume = product(fit.studyExtentMm);
  if (model.spacingMm[0] > 0) fit.preparedVoxels = studyVolume / product(model.spacingMm);
  auto issue = [&](ModelFitIssue::Kind kind, double factor = 0) { fit.issues.push_back({kind, factor}); };
  // Known without the profile: a study too large on the model's grid to run at all.
  if (fit.preparedVoxels > kMaxPreparedVoxels) {
    issue(ModelFitIssue::Kind::GridTooLarge, fit.preparedVoxels);
    fit.refused = true;
  }
  if (!model.data) {
    fit.verdict = fit.issues.empty() ? ModelFit::Verdict::Unknown : ModelFit::Verdict::Mismatch;
    return fit;
  }
  const TrainingDataProfile& p = *model.data;
  fit.model = p;
  const double larger = std::cbrt(studyVolume / product(p.extentMaxMm));
  const double smaller = std::cbrt(product(p.extentMinMm) / studyVolume);
  if (larger > kLargerFactor) issue(ModelFitIssue::Kind::FieldOfViewLarger, larger);
  else if (smaller > kSmallerFactor) issue(ModelFitIssue::Kind::FieldOfViewSmaller, smaller);
  const double coarser = fit.studySpacingMm[0] / p.spacingMaxMm[0];
  const double finer = p.spacingMinMm[0] / fit.studySpacingMm[0];
  if (coarser > kSpacingFactor) issue(ModelFitIssue::Kind::SpacingCoarser, coarser);
  else if (finer > kSpacingFactor) issue(ModelFitIssue::Kind::SpacingFiner, finer);
  if (!study.modality.empty() && !p.modalities.empty() &&
      std::find(p.modalities.begin(), p.modalities.end(), study.modality) == p.modalities.end())
    issue(ModelFitIssue::Kind::Modality);
  if (p.hounsfield && study.hounsfield && !*study.hounsfield) issue(ModelFitIssue::Kind::NotHounsfield);
  // The refusal first: it is the reason that no confirmation overrides.
  std::stable_sort(fit.issues.begin(), fit.issues.end(), [](const ModelFitIssue& a, const ModelFitIssue& b) {
    return (a.kind == ModelFitIssue::Kind::GridTooLarge) > (b.kind == ModelFitIssue::Kind::GridTooLarge);
  });
  fit.verdict = fit.issues.empty() ? ModelFit::Verdict::Fits : ModelFit::Verdict::Mismatch;
  return fit;
}

std::string describeModelFit(const ModelFit& fit, const StudyFitInput& study) {
  if (fit.verdict == ModelFit::Verdict::Fits) return {};
  const std::string kind = study.modality.empty() ? "image" : study.modality;
  const auto& d = study.geometry.dimensions();
  const std::string studyText = "this " + kind + " is " + mm(fit.studySpacingMm[0]) + " mm, " + std::to_string(d[0]) + " x " +
                                std::to_string(d[1]) + " x " + std::to_string(d[2]) + " voxels (" + triple(fit.studyExtentMm) + " mm)";
  std::string out;
  if (fit.model.images > 0) {
    const TrainingDataProfile& p = fit.model;
    std::string modalities;
    for (const auto& m : p.modalities) modalities += (modalities.empty() ? "" : "/") + m;
    const std::string spacing = mm(p.spacingMinMm[0]) == mm(p.spacingMaxMm[0]) ? mm(p.spacingMinMm[0])
                                                                                : mm(p.spacingMinMm[0]) + "-" + mm(p.spacingMaxMm[0]);
    out = "model trained on " + std::to_string(p.images) + (modalities.empty() ? "" : " " + modalities) +
          (p.images == 1 ? " image" : " images") + " at " + spacing + " mm, field of view up to " + triple(p.extentMaxMm) +
          " mm; " + studyText;
  } else if (fit.verdict == ModelFit::Verdict::Unknown) {
    return "fit unknown: the model's sidecar records no training data profile (a checkpoint from before it was recorded)";
  } else {
    out = studyText;
  }
  std::string why;
  for (const auto& i : fit.issues) {
    std::string part;
    switch (i.kind) {
      case ModelFitIssue::Kind::FieldOfViewLarger: part = "field of view " + factorText(i.factor) + " larger"; break;
      case ModelFitIssue::Kind::FieldOfViewSmaller: part = "field of view " + factorText(i.factor) + " smaller"; break;
      case ModelFitIssue::Kind::SpacingCoarser: part = "voxels " + factorText(i.factor) + " coarser"; break;
      case ModelFitIssue::Kind::SpacingFiner: part = "voxels " + factorText(i.factor) + " finer"; break;
      case ModelFitIssue::Kind::Modality: part = "another modality"; break;
      case ModelFitIssue::Kind::NotHounsfield: part = "no CT intensities (Hounsfield units)"; break;
      case ModelFitIssue::Kind::GridTooLarge: {
        char b[64];
        std::snprintf(b, sizeof b, "%.3g", i.factor / 1e9);
        part = std::string("resampled to the model's grid it would be ") + b + " billion voxels, too large to segment";
        break;
      }
    }
    why += (why.empty() ? "" : ", ") + part;
  }
  return out + ": " + why;
}

}  // namespace delineate::inference
