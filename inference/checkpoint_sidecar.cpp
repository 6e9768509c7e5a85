// The sidecars of delineate-train's checkpoints, and whether a file is a checkpoint at all, read without LibTorch (the
// CLI checks both before a checkpoint is stored on a share or a plugin is loaded); the engines are checkpoint_engine.cpp.
#include "inference/checkpoint_engine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/file_source.h"
#include "inference/vista3d/checkpoint_reader.h"

namespace delineate::inference {

using core::ErrorCode;
using core::makeError;
using nlohmann::json;
core::LabelTable CheckpointModel::labelTable() const {
  core::LabelTable table;
  for (const auto& c : classes) {
    core::LabelEntry e;
    e.id = c.id;
    e.name = c.name.empty() ? "class " + std::to_string(c.id) : c.name;
    e.color = core::LabelTable::defaultColor(c.id);
    table.set(e);
  }
  table.assignDistinctColors();  // a trained model's classes in colours that stay apart (issue 41)
  return table;
}

std::string checkpointSidecarPath(const std::string& checkpointPath) {
  std::filesystem::path p(checkpointPath);
  return p.replace_extension(".json").string();
}

namespace {

core::Result<CheckpointModel> modelFromSidecar(const json& j, const std::string& subject) {
  if (!j.is_object()) return makeError(ErrorCode::ParseError, subject, "the checkpoint's sidecar is not a JSON object");
  try {
    CheckpointModel m;
    m.sidecarPath = subject;
    const std::string arch = j.at("architecture").at("name").get<std::string>();
    if (arch == "SegResNetDS") {
      m.kind = CheckpointModel::Kind::SegResNetDS;
      const json& a = j.at("architecture").at("monai");
      m.network.initFilters = a.at("init_filters").get<int>();
      m.network.inChannels = a.at("in_channels").get<int>();
      m.network.outChannels = a.at("out_channels").get<int>();
      m.network.blocksDown = a.at("blocks_down").get<std::vector<int>>();
      m.network.dsdepth = a.value("dsdepth", 1);
      const json& pre = j.at("preprocessing");
      const auto spacing = pre.at("spacingMm").get<std::vector<double>>();
      if (spacing.size() != 3) return makeError(ErrorCode::ParseError, subject, "preprocessing.spacingMm needs three values");
      for (std::size_t a3 = 0; a3 < 3; ++a3) m.prepare.spacingMm[a3] = spacing[a3];
      const std::string mode = pre.at("intensity").get<std::string>();
      m.prepare.intensity = mode == "range"            ? training::IntensityMode::Range
                            : mode == "zscore-nonzero" ? training::IntensityMode::ZScore
                            : mode == "none"           ? training::IntensityMode::None
                                                       : throw std::invalid_argument("preprocessing.intensity '" + mode + "' is not known");
      const auto range = pre.value("intensityRange", std::vector<double>{0, 1});
      if (range.size() == 2) {
        m.prepare.intensityMin = range[0];
        m.prepare.intensityMax = range[1];
      }
      m.prepare.classes = m.network.outChannels;
    } else if (arch == "VISTA3D") {
      m.kind = CheckpointModel::Kind::Vista3d;
    } else {
      return makeError(ErrorCode::Unsupported, subject, "architecture '" + arch + "' is not one this version runs");
    }
    // Segmented as it was validated: validation's window where one was set, else the training patch.
    const json& t = j.at("training");
    const auto patch = t.value("patch", std::vector<std::int64_t>{});
    const auto window = t.value("validationWindow", std::vector<std::int64_t>{});
    for (std::size_t a3 = 0; a3 < 3; ++a3) {
      if (patch.size() == 3) m.window[a3] = patch[a3];
      if (window.size() == 3 && window[a3] > 0) m.window[a3] = window[a3];
    }
    m.overlap = std::clamp(t.value("validationOverlap", 0.25), 0.0, 0.9);
    for (const json& l : j.at("labels")) {
      CheckpointModel::Class c;
      const int id = l.at("id").get<int>();
      const int network = m.kind == CheckpointModel::Kind::SegResNetDS ? l.at("class").get<int>() : l.at("vista3d").get<int>();
      if (id < 1 || id > 65535) return makeError(ErrorCode::ParseError, subject, "a label id outside 1..65535");
      if (network < 1 || (m.kind == CheckpointModel::Kind::SegResNetDS ? network >= m.network.outChannels : network > 254))
        return makeError(ErrorCode::ParseError, subject, "label " + std::to_string(id) + " maps to no output of the network");
      c.id = static_cast<core::Label>(id);
      c.networkClass = network;
      c.name = l.value("name", std::string());
      m.classes.push_back(std::move(c));
    }
    if (m.classes.empty()) return makeError(ErrorCode::ParseError, subject, "the sidecar lists no label");
    return m;
  } catch (const std::exception& e) {
    return makeError(ErrorCode::ParseError, subject, std::string("not a delineate-train sidecar: ") + e.what());
  }
}

}  // namespace

core::Result<CheckpointModel> parseCheckpointModel(const std::string& sidecarJson, const std::string& subject) {
  return modelFromSidecar(json::parse(sidecarJson, nullptr, false), subject);
}

core::Result<std::optional<CheckpointModel>> readCheckpointModel(const std::string& checkpointPath) {
  const std::string path = checkpointSidecarPath(checkpointPath);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<CheckpointModel>();
  auto text = core::readInputFile(path);
  if (!text) return text.error();
  // A sidecar that names no architecture (a checkpoint stored by hand with other notes) leaves a plain VISTA-3D one.
  const json j = json::parse(*text, nullptr, false);
  if (j.is_object() && !j.contains("architecture")) return std::optional<CheckpointModel>();
  auto parsed = modelFromSidecar(j, path);
  if (!parsed) return parsed.error();
  return std::optional<CheckpointModel>(std::move(*parsed));
}

core::Status checkCheckpointFile(const std::string& path) {
  auto checkpoint = vista3d::readCheckpoint(path);
  if (!checkpoint)
    return makeError(ErrorCode::ParseError, path,
                     "not a checkpoint (a torch.save state_dict or safetensors file): " + checkpoint.error().detail);
  if (checkpoint->tensors.empty()) return makeError(ErrorCode::ParseError, path, "a checkpoint without a tensor");
  return core::Status::success();
}

}  // namespace delineate::inference
