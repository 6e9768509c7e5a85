#pragma once
// delineate-train's inputs: the cases (cases.json from `dataset fetch`, or any JSON list of image/label pairs), each
// read, hash-checked and prepared; the run's settings from its JSON configuration and flags. Errors name the case or
// the setting.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_table.h"
#include "inference/model_fit.h"
#include "inference/training/case_cache.h"
#include "inference/training/trainer.h"

namespace delineate::app::train {

// "600", "90s", "55m", "1h30m" in seconds; nullopt for anything else.
std::optional<double> parseDurationSeconds(const std::string& text);

struct CaseEntry {
  std::string id, image, labels, split;
  std::string imageSha256, labelsSha256;  // expected (from cases.json), empty when not given
  std::string study, labelSet;
  int revision = 0;
  std::string modality;  // optional ("CT", "MR"): cases.json's, else a DICOM image folder's (trainingDataProfile)
};

struct CaseList {
  std::string path;
  std::string dataset;  // the dataset's name and revision when cases.json came from `dataset fetch`
  int datasetRevision = 0;
  std::vector<CaseEntry> cases;
};

// cases.json: {"cases": [{"image", "labels", "split"?, "id"? , "imageSha256"?, "labelsSha256"?, ...}]} or a bare
// array of such objects. Relative paths are relative to the file's folder.
core::Result<CaseList> readCaseList(const std::string& path);

// A run's error: a JSON "error" line on stdout (with --json) and "error: ..." on stderr; returns the exit code 1.
int failRun(const core::Error& e, bool jsonLines);

// A volume file, or the one image series of a DICOM folder (errors name the path); `modality`, when given, gets the
// DICOM series' modality (left as it was for a volume file, which names none).
core::Result<core::ImageVolume> readImage(const std::string& path, std::string* modality = nullptr);

// The run's settings: every key of the configuration (docs: README "Training"), flags already merged in.
struct RunSettings {
  std::string model = "segresnetds";  // or "vista3d"
  std::string checkpoint;             // VISTA-3D: the base; SegResNetDS: optional initial weights
  std::string output;
  std::string device = "cpu";
  std::string precision = "fp32";
  int threads = 0;
  int keepLast = 2;
  std::size_t memoryBudgetBytes = std::size_t(4) << 30;
  int holdOut = 0;
  bool stopOnBadCase = false;
  inference::training::SegResNetDSConfig network;
  bool initFiltersGiven = false, patchGiven = false, spacingGiven = false;
  inference::training::PrepareSettings prepare;
  std::string intensity = "auto";
  inference::training::TrainerSettings trainer;
  std::vector<std::pair<std::uint16_t, std::uint16_t>> labelMapping;  // VISTA-3D: user id -> VISTA-3D id
  std::string labelTablePath;
  core::LabelTable labelTable;  // names (optional)
  std::vector<std::string> freeze;
  std::string share, modelName;
  nlohmann::json config;  // what was given, for the sidecar
};

// Reads the settings from `config` (the merged JSON). Errors name the key and what it must be.
core::Result<RunSettings> readRunSettings(const nlohmann::json& config);

struct LoadedCase {
  CaseEntry entry;
  std::string imageSha256, labelsSha256;  // as read
};

// Reads, checks and prepares every case into `cache` (spilling past its budget). A bad case (unreadable, changed
// since its hash was taken, on another grid, an unknown label) is named on stderr and skipped, or stops the run with
// stopOnBadCase. Sets the class mapping and the automatic settings (spacing, patch, width) from the data.
struct PreparedData {
  std::vector<LoadedCase> cases;  // those in the cache, in cache order
  std::vector<std::size_t> train, validation;
  std::vector<std::string> skipped;
  std::vector<std::pair<int, core::Label>> classes;  // SegResNetDS class -> source label id
  inference::TrainingDataProfile trainingDataProfile;  // what the cases in the cache are (the sidecar's, model_fit.h)
};
core::Result<PreparedData> loadCases(const CaseList& list, RunSettings& settings, inference::training::CaseCache& cache,
                                     bool quiet);

// The sidecar every checkpoint starts from: architecture, settings, labels, data provenance, software, device.
nlohmann::json sidecarBase(const RunSettings& settings, const CaseList& list, const PreparedData& data,
                           std::int64_t parameters);

}  // namespace delineate::app::train
