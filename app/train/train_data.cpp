#include "app/train/train_data.h"
#include "io/base/file_read.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/dicom/dicom.h"
#include "io/labels/label_table_io.h"
#include "inference/vista3d/preprocess.h"
#include "io/volume/image_file.h"

namespace delineate::app::train {

namespace fs = std::filesystem;
using nlohmann::json;
using core::ErrorCode;
using core::makeError;
namespace tr = inference::training;

namespace {

std::string resolve(const fs::path& base, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (base / p).lexically_normal().string();
}

// A DICOM folder's content hash: SHA-256 of the sorted "<relative path> <sha256>" lines of its files.
core::Result<std::string> folderSha256(const std::string& folder) {
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    auto h = io::contentSha256(it->path().string());  // a sealed cache copy: its content (io/base/sealed_file.h)
    if (!h) return h.error();
    files.emplace_back(fs::relative(it->path(), folder).generic_string(), *h);
  }
  if (ec) return makeError(ErrorCode::ReadFailed, folder, ec.message());
  std::sort(files.begin(), files.end());
  std::string lines;
  for (const auto& [name, hash] : files) lines += name + " " + hash + "\n";
  return io::sha256Hex(lines.data(), lines.size());
}

core::Result<std::string> contentSha256(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return folderSha256(path);
  return io::contentSha256(path);  // the same for a sealed fetched copy and a plain one
}

template <class T>
core::Result<T> get(const json& j, const char* key, T fallback) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    return makeError(ErrorCode::InvalidArgument, key, "has the wrong type in the configuration");
  }
}

core::Status requireRange(const char* key, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi))
    return makeError(ErrorCode::InvalidArgument, key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return core::Status::success();
}

}  // namespace

int failRun(const core::Error& e, bool jsonLines) {
  if (jsonLines) std::printf("%s\n", json{{"event", "error"}, {"subject", e.subject}, {"reason", e.detail}}.dump().c_str());
  std::fprintf(stderr, "error: %s\n", e.describe().c_str());
  return 1;
}

core::Result<core::ImageVolume> readImage(const std::string& path, std::string* modality) {
  if (io::imageFileFormatFromPath(path) != io::ImageFileFormat::Unknown) return io::readImageFile(path);
  auto index = io::indexDicomFolder(path);
  if (!index) return index.error();
  std::vector<const io::DicomSeries*> images;
  for (const auto* s : index->allSeries())
    if (s->isImage) images.push_back(s);
  if (images.empty()) return makeError(ErrorCode::NotFound, path, "no image file and no DICOM image series");
  if (images.size() > 1) return makeError(ErrorCode::InvalidArgument, path, "holds " + std::to_string(images.size()) + " image series; name one file or folder per case");
  auto loaded = io::loadDicomSeries(*images.front());
  if (!loaded) return loaded.error();
  if (modality && !images.front()->modality.empty()) *modality = images.front()->modality;
  return std::move(loaded->image);
}

core::Result<CaseList> readCaseList(const std::string& path) {
  // Through io: a fetched dataset's case list is sealed at rest (io/base/sealed_file.h).
  auto text = io::readWholeFile(path, std::uintmax_t(256) << 20, "case list");
  if (!text) return text.error();
  const json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return makeError(ErrorCode::ParseError, path, "not JSON");
  const json* cases = nullptr;
  if (j.is_array()) cases = &j;
  else if (j.is_object() && j.contains("cases") && j.at("cases").is_array()) cases = &j.at("cases");
  if (!cases) return makeError(ErrorCode::ParseError, path, "expected {\"cases\": [...]} or an array of cases");
  CaseList list;
  list.path = path;
  if (j.is_object()) {
    list.dataset = j.value("dataset", std::string());
    list.datasetRevision = j.value("revision", 0);
  }
  const fs::path base = fs::path(path).parent_path();
  std::set<std::string> ids;
  for (std::size_t i = 0; i < cases->size(); ++i) {
    const json& c = (*cases)[i];
    const std::string where = path + ": case " + std::to_string(i + 1);
    if (!c.is_object() || !c.contains("image") || !c.contains("labels") || !c.at("image").is_string() || !c.at("labels").is_string())
      return makeError(ErrorCode::ParseError, where, "needs \"image\" and \"labels\" paths");
    CaseEntry e;
    e.image = resolve(base, c.at("image").get<std::string>());
    e.labels = resolve(base, c.at("labels").get<std::string>());
    e.split = c.value("split", std::string());
    e.study = c.value("study", std::string());
    e.labelSet = c.value("labelSet", std::string());
    e.revision = c.value("revision", 0);
    e.modality = c.value("modality", std::string());
    e.imageSha256 = c.value("imageSha256", std::string());
    e.labelsSha256 = c.value("labelsSha256", std::string());
    e.id = c.value("id", std::string());
    if (e.id.empty()) e.id = !e.study.empty() ? e.study + "/" + e.labelSet + " r" + std::to_string(e.revision) : fs::path(e.labels).filename().string();
    if (!ids.insert(e.id).second) return makeError(ErrorCode::ParseError, where, "case id \"" + e.id + "\" is listed twice");
    list.cases.push_back(e);
  }
  if (list.cases.empty()) return makeError(ErrorCode::InvalidArgument, path, "lists no case");
  return list;
}

std::optional<double> parseDurationSeconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  std::size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (used == 0 || !(value >= 0)) return std::nullopt;
    i += used;
    double unit = 1;
    if (i < text.size()) {
      const char u = text[i];
      if (u == 'h') unit = 3600;
      else if (u == 'm') unit = 60;
      else if (u == 's') unit = 1;
      else return std::nullopt;
      ++i;
    } else if (any) {
      return std::nullopt;  // "1h30" is ambiguous: say "1h30m"
    }
    total += value * unit;
    any = true;
  }
  return total;
}

core::Result<RunSettings> readRunSettings(const json& c) {
  RunSettings s;
  s.config = c;
#define DELINEATE_GET(var, key)          \
  {                                      \
    auto v = get(c, key, var);           \
    if (!v) return v.error();            \
    var = *v;                            \
  }
  DELINEATE_GET(s.model, "model");
  if (s.model != "segresnetds" && s.model != "vista3d")
    return makeError(ErrorCode::InvalidArgument, "model", "must be \"segresnetds\" (an atlas network from scratch) or \"vista3d\" (fine-tuning)");
  DELINEATE_GET(s.checkpoint, "checkpoint");
  if (s.model == "vista3d" && s.checkpoint.empty())
    return makeError(ErrorCode::InvalidArgument, "checkpoint", "VISTA-3D fine-tuning starts from a checkpoint (--checkpoint)");
  DELINEATE_GET(s.output, "output");
  DELINEATE_GET(s.device, "device");
  DELINEATE_GET(s.precision, "precision");
  if (s.precision != "fp32" && s.precision != "bf16" && s.precision != "fp16")
    return makeError(ErrorCode::InvalidArgument, "precision", "must be fp32, bf16 or fp16");
  DELINEATE_GET(s.threads, "threads");
  DELINEATE_GET(s.keepLast, "keepLast");
  double budgetMb = static_cast<double>(s.memoryBudgetBytes >> 20);
  DELINEATE_GET(budgetMb, "memoryBudgetMB");
  if (core::Status st = requireRange("memoryBudgetMB", budgetMb, 0, 1e7); !st) return st.error();
  s.memoryBudgetBytes = static_cast<std::size_t>(budgetMb * 1024 * 1024);
  DELINEATE_GET(s.holdOut, "holdOut");
  DELINEATE_GET(s.stopOnBadCase, "stopOnBadCase");
  DELINEATE_GET(s.share, "share");
  DELINEATE_GET(s.modelName, "modelName");
  // The network.
  auto& n = s.network;
  s.initFiltersGiven = c.contains("initFilters");
  DELINEATE_GET(n.initFilters, "initFilters");
  DELINEATE_GET(n.blocksDown, "blocksDown");
  DELINEATE_GET(n.dsdepth, "dsdepth");
  // Data.
  std::vector<double> spacing;
  DELINEATE_GET(spacing, "spacing");
  if (!spacing.empty()) {
    if (spacing.size() != 3) return makeError(ErrorCode::InvalidArgument, "spacing", "needs three values in mm (0 keeps an axis)");
    for (int a = 0; a < 3; ++a) s.prepare.spacingMm[static_cast<std::size_t>(a)] = spacing[static_cast<std::size_t>(a)];
    s.spacingGiven = true;
  }
  DELINEATE_GET(s.intensity, "intensity");
  if (s.model == "vista3d" && (s.spacingGiven || s.intensity != "auto" || c.contains("intensityRange")))
    return makeError(ErrorCode::InvalidArgument, s.spacingGiven ? "spacing" : "intensity",
                     "VISTA-3D trains on its engine's own preprocessing (1.5 mm, RAS, the bundle's CT scaling), which "
                     "the fine-tuned model will be run with; leave it unset");
  if (s.intensity != "auto" && s.intensity != "zscore" && s.intensity != "ct" && s.intensity != "range" && s.intensity != "none")
    return makeError(ErrorCode::InvalidArgument, "intensity", "must be auto, zscore, ct, range or none");
  std::vector<double> range;
  DELINEATE_GET(range, "intensityRange");
  if (s.intensity == "range" && range.size() != 2) return makeError(ErrorCode::InvalidArgument, "intensityRange", "needs [min, max]");
  if (range.size() == 2) {
    s.prepare.intensityMin = range[0];
    s.prepare.intensityMax = range[1];
  }
  // Training.
  auto& t = s.trainer;
  DELINEATE_GET(t.iterations, "iterations");
  if (t.iterations < 1 || t.iterations > 10000000) return makeError(ErrorCode::InvalidArgument, "iterations", "must be 1..10000000");
  DELINEATE_GET(t.validationInterval, "validationInterval");
  DELINEATE_GET(t.earlyStopPatience, "earlyStopPatience");
  DELINEATE_GET(t.warmupIterations, "warmupIterations");
  DELINEATE_GET(t.checkpointInterval, "checkpointInterval");
  // A time budget: seconds, or a text with units ("55m", "1h30m", "90s", "600").
  if (c.contains("timeBudget") && !c["timeBudget"].is_null()) {
    const json& b = c["timeBudget"];
    std::optional<double> seconds;
    if (b.is_number()) seconds = b.get<double>();
    else if (b.is_string()) seconds = parseDurationSeconds(b.get<std::string>());
    if (!seconds || *seconds <= 0 || *seconds > 366.0 * 86400)
      return makeError(ErrorCode::InvalidArgument, "timeBudget",
                       "must be a duration such as 600 (seconds), \"55m\", \"1h30m\" or \"90s\"");
    t.timeBudgetSeconds = *seconds;
  }
  DELINEATE_GET(t.budgetProbeIterations, "budgetProbeIterations");
  if (t.budgetProbeIterations < 1 || t.budgetProbeIterations > 100000)
    return makeError(ErrorCode::InvalidArgument, "budgetProbeIterations", "must be 1..100000");
  std::string schedule = "cosine";
  DELINEATE_GET(schedule, "schedule");
  if (schedule != "cosine" && schedule != "constant") return makeError(ErrorCode::InvalidArgument, "schedule", "must be cosine or constant");
  t.cosine = schedule == "cosine";
  t.optimizer.learningRate = s.model == "vista3d" ? 5e-5 : 1e-3;
  DELINEATE_GET(t.optimizer.learningRate, "learningRate");
  if (core::Status st = requireRange("learningRate", t.optimizer.learningRate, 1e-12, 1e9); !st) return st.error();
  DELINEATE_GET(t.optimizer.weightDecay, "weightDecay");
  DELINEATE_GET(t.optimizer.gradientClip, "gradientClip");
  DELINEATE_GET(t.loss.smoothNr, "smoothNr");
  DELINEATE_GET(t.loss.smoothDr, "smoothDr");
  std::vector<std::int64_t> patch;
  DELINEATE_GET(patch, "patch");
  if (!patch.empty()) {
    if (patch.size() != 3) return makeError(ErrorCode::InvalidArgument, "patch", "needs three sides in voxels");
    for (int a = 0; a < 3; ++a) t.patches.patch[static_cast<std::size_t>(a)] = patch[static_cast<std::size_t>(a)];
    s.patchGiven = true;
  }
  DELINEATE_GET(t.patches.batch, "batch");
  if (t.patches.batch < 1 || t.patches.batch > 64) return makeError(ErrorCode::InvalidArgument, "batch", "must be 1..64");
  if (s.model == "vista3d" && t.patches.batch != 1)
    return makeError(ErrorCode::InvalidArgument, "batch", "VISTA-3D trains one patch per step (its prompts are per patch)");
  DELINEATE_GET(t.patches.foregroundRatio, "foregroundRatio");
  if (core::Status st = requireRange("foregroundRatio", t.patches.foregroundRatio, 0, 1); !st) return st.error();
  DELINEATE_GET(t.patches.classBalanced, "classBalanced");
  DELINEATE_GET(t.patches.augment.enabled, "augment");
  DELINEATE_GET(t.patches.augment.flipProbability, "flipProbability");
  DELINEATE_GET(t.patches.augment.rotate90Probability, "rotate90Probability");
  DELINEATE_GET(t.patches.augment.affineProbability, "affineProbability");
  if (core::Status st = requireRange("flipProbability", t.patches.augment.flipProbability, 0, 1); !st) return st.error();
  if (core::Status st = requireRange("rotate90Probability", t.patches.augment.rotate90Probability, 0, 1); !st) return st.error();
  if (core::Status st = requireRange("affineProbability", t.patches.augment.affineProbability, 0, 1); !st) return st.error();
  DELINEATE_GET(t.patches.workers, "workers");
  if (t.patches.workers < 1 || t.patches.workers > 64) return makeError(ErrorCode::InvalidArgument, "workers", "must be 1..64");
  int seed = 0;
  DELINEATE_GET(seed, "seed");
  t.patches.seed = static_cast<std::uint64_t>(seed);
  DELINEATE_GET(t.validationOverlap, "validationOverlap");
  if (core::Status st = requireRange("validationOverlap", t.validationOverlap, 0, 0.9); !st) return st.error();
  std::vector<std::int64_t> window;
  DELINEATE_GET(window, "validationWindow");
  if (!window.empty()) {
    if (window.size() != 3) return makeError(ErrorCode::InvalidArgument, "validationWindow", "needs three sides in voxels");
    for (int a = 0; a < 3; ++a) t.validationWindow[static_cast<std::size_t>(a)] = window[static_cast<std::size_t>(a)];
  }
  // VISTA-3D prompts and labels.
  DELINEATE_GET(t.prompts.maxPoint, "maxPoint");
  if (t.prompts.maxPoint < 1 || t.prompts.maxPoint > 100) return makeError(ErrorCode::InvalidArgument, "maxPoint", "must be 1..100");
  DELINEATE_GET(t.prompts.dropLabelProbability, "dropLabelProbability");
  DELINEATE_GET(t.prompts.dropPointProbability, "dropPointProbability");
  DELINEATE_GET(t.prompts.maxBackprompt, "maxBackprompt");
  DELINEATE_GET(t.prompts.maxForeprompt, "maxForeprompt");
  DELINEATE_GET(s.freeze, "freeze");
  if (c.contains("labelMapping")) {
    std::vector<std::pair<int, int>> pairs;
    DELINEATE_GET(pairs, "labelMapping");
    for (const auto& [from, to] : pairs) {
      if (from < 1 || from > 65535) return makeError(ErrorCode::InvalidArgument, "labelMapping", "source ids are 1..65535");
      if (to < 1 || to > 254)
        return makeError(ErrorCode::InvalidArgument, "labelMapping", "VISTA-3D ids are 1..132 (its classes) or 133..254 (new ones)");
      s.labelMapping.emplace_back(static_cast<std::uint16_t>(from), static_cast<std::uint16_t>(to));
    }
  }
  DELINEATE_GET(s.labelTablePath, "labels");
  if (!s.labelTablePath.empty()) {
    auto table = io::readLabelTableFile(s.labelTablePath);
    if (!table) return table.error();
    s.labelTable = std::move(*table);
  }
#undef DELINEATE_GET
  return s;
}

core::Result<PreparedData> loadCases(const CaseList& list, RunSettings& settings, tr::CaseCache& cache, bool quiet) {
  PreparedData data;
  auto bad = [&](const CaseEntry& e, const std::string& why) -> core::Status {
    const std::string line = e.id + ": " + why;
    if (settings.stopOnBadCase) return makeError(ErrorCode::InvalidArgument, e.id, why + " (the run stops on a bad case)");
    data.skipped.push_back(line);
    if (!quiet) std::fprintf(stderr, "warning: case skipped: %s\n", line.c_str());
    return core::Status::success();
  };
  // Pass 1, one case in memory at a time: hashes checked, the pair read and checked, what the automatic settings need
  // (ids, spacing, lowest intensity) noted. Only the usable cases go on.
  struct Usable {
    CaseEntry entry;
    std::string imageSha, labelsSha;
  };
  std::vector<Usable> usable;
  std::vector<std::set<core::Label>> caseIds;
  std::vector<core::Vec3> spacings;
  float lowest = 0;
  auto readPair = [&](const CaseEntry& e, core::ImageVolume& image, core::LabelMap& labels,
                      std::string* modality = nullptr) -> core::Result<bool> {
    auto i = readImage(e.image, modality);
    if (!i) {
      if (core::Status s = bad(e, i.error().describe()); !s) return s.error();
      return false;
    }
    auto l = io::readLabelFile(e.labels);
    if (!l) {
      if (core::Status s = bad(e, l.error().describe()); !s) return s.error();
      return false;
    }
    if (!l->voxels().geometry().isCloseTo(i->geometry())) {
      if (core::Status s = bad(e, "the labels (" + e.labels + ") are on another grid than the image"); !s) return s.error();
      return false;
    }
    image = std::move(*i);
    labels = std::move(*l);
    return true;
  };
  for (const auto& e : list.cases) {
    auto labelsSha = contentSha256(e.labels);
    std::string why;
    if (!labelsSha) why = labelsSha.error().describe();
    else if (!e.labelsSha256.empty() && *labelsSha != e.labelsSha256) why = e.labels + " changed since the case list was made (its SHA-256 differs)";
    auto imageSha = why.empty() ? contentSha256(e.image) : core::Result<std::string>(std::string());
    if (why.empty() && !imageSha) why = imageSha.error().describe();
    else if (why.empty() && !e.imageSha256.empty() && *imageSha != e.imageSha256)
      why = e.image + " changed since the case list was made (its SHA-256 differs)";
    if (!why.empty()) {
      if (core::Status s = bad(e, why); !s) return s.error();
      continue;
    }
    core::ImageVolume image;
    core::LabelMap labels;
    auto ok = readPair(e, image, labels);
    if (!ok) return ok.error();
    if (!*ok) continue;
    std::set<core::Label> ids;
    std::vector<bool> seen(65536, false);
    for (std::size_t i = 0; i < labels.voxels().size(); ++i) seen[labels.voxels()[i]] = true;
    for (std::size_t i = 1; i < seen.size(); ++i)
      if (seen[i]) ids.insert(static_cast<core::Label>(i));
    for (std::size_t i = 0; i < image.size(); ++i) lowest = std::min(lowest, image[i]);
    caseIds.push_back(std::move(ids));
    spacings.push_back(image.geometry().spacingMm());
    usable.push_back(Usable{e, *imageSha, *labelsSha});
  }
  if (usable.empty()) return makeError(ErrorCode::InvalidArgument, list.path, "no usable case");

  // Which labels train, and as what.
  const bool vista = settings.model == "vista3d";
  std::set<core::Label> known, ids;
  if (!settings.labelTable.empty())
    for (const auto& entry : settings.labelTable.entries())
      if (entry.id) known.insert(entry.id);
  for (const auto& c : caseIds)
    for (const auto id : c)
      if (known.empty() || known.count(id)) ids.insert(id);
  if (vista) {
    std::map<core::Label, core::Label> mapping(settings.labelMapping.begin(), settings.labelMapping.end());
    if (settings.labelMapping.empty())  // the user's ids are VISTA-3D's own
      for (const auto id : ids) {
        if (id > 254) return makeError(ErrorCode::InvalidArgument, "labelMapping", "label " + std::to_string(id) + " is above VISTA-3D's 254 ids: map it (labelMapping)");
        mapping[id] = id;
      }
    settings.prepare.labelMap.assign(mapping.begin(), mapping.end());
    settings.prepare.classes = 0;
    settings.trainer.prompts.labelSet = {0};
    for (const auto& [from, to] : mapping) settings.trainer.prompts.labelSet.push_back(to);
  } else {
    // The classes are the ids the cases hold; with a label table, only its ids (a case with another is refused
    // when it is prepared, so no label trains silently as background).
    int cls = 0;
    settings.prepare.labelMap.clear();
    for (const auto id : ids) {
      settings.prepare.labelMap.emplace_back(id, static_cast<std::uint16_t>(++cls));
      data.classes.emplace_back(cls, id);
    }
    settings.network.outChannels = cls + 1;
    settings.prepare.classes = cls + 1;
    if (cls < 1) return makeError(ErrorCode::InvalidArgument, list.path, "no labelled voxel in any case");
  }

  // Automatic settings: the median spacing (Auto3DSeg's target), intensity by modality. VISTA-3D is prepared as its
  // engine prepares (1.5 mm, RAS, the bundle's CT scaling).
  if (!vista && !settings.spacingGiven)
    for (std::size_t a = 0; a < 3; ++a) {
      std::vector<double> v;
      for (const auto& sp : spacings) v.push_back(sp[a]);
      std::sort(v.begin(), v.end());
      settings.prepare.spacingMm[a] = v[v.size() / 2];
    }
  if (vista) {
    settings.prepare.intensity = tr::IntensityMode::Range;
    settings.prepare.intensityMin = inference::vista3d::kIntensityMin;
    settings.prepare.intensityMax = inference::vista3d::kIntensityMax;
    settings.prepare.spacingMm = {inference::vista3d::kTargetSpacingMm, inference::vista3d::kTargetSpacingMm,
                                  inference::vista3d::kTargetSpacingMm};
    settings.intensity = "ct";
  } else if (settings.intensity == "ct") {
    settings.prepare.intensity = tr::IntensityMode::Range;
    if (!settings.config.contains("intensityRange")) {
      settings.prepare.intensityMin = -1000;
      settings.prepare.intensityMax = 1000;
    }
  } else if (settings.intensity == "range") {
    settings.prepare.intensity = tr::IntensityMode::Range;
  } else if (settings.intensity == "none") {
    settings.prepare.intensity = tr::IntensityMode::None;
  } else if (settings.intensity == "zscore") {
    settings.prepare.intensity = tr::IntensityMode::ZScore;
  } else if (lowest < -500) {  // auto: CT when the images hold Hounsfield air, else z-scored (MR, micro-CT units)
    settings.prepare.intensity = tr::IntensityMode::Range;
    settings.prepare.intensityMin = -1000;
    settings.prepare.intensityMax = 1000;
    settings.intensity = "ct";
  } else {
    settings.prepare.intensity = tr::IntensityMode::ZScore;
    settings.intensity = "zscore";
  }

  // Pass 2, one case at a time again: read, prepare, into the cache (which keeps its budget).
  std::vector<std::size_t> unmarked;
  inference::TrainingDataProfileBuilder profile;
  for (const auto& u : usable) {
    core::ImageVolume image;
    core::LabelMap labels;
    std::string modality = u.entry.modality;
    auto ok = readPair(u.entry, image, labels, &modality);
    if (!ok) return ok.error();
    if (!*ok) continue;
    const core::Geometry imageGeometry = image.geometry();
    float imageLowest = 0;
    for (std::size_t i = 0; i < image.size(); ++i) imageLowest = std::min(imageLowest, image[i]);
    auto prepared = vista ? tr::prepareVista3dCase(u.entry.id, image, labels, settings.prepare)
                          : tr::prepareCase(u.entry.id, image, labels, settings.prepare);
    image = core::ImageVolume();
    labels = core::LabelMap();
    if (!prepared) {
      if (core::Status s = bad(u.entry, prepared.error().detail); !s) return s.error();
      continue;
    }
    std::string split = u.entry.split;
    std::transform(split.begin(), split.end(), split.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    prepared->split = split;
    if (core::Status s = cache.add(std::move(*prepared)); !s) return s.error();
    profile.add(imageGeometry, modality, imageLowest);
    const std::size_t k = cache.size() - 1;
    if (split == "validation" || split == "val") data.validation.push_back(k);
    else if (split == "train" || split == "training") data.train.push_back(k);
    else if (split != "test") unmarked.push_back(k);  // test cases stay out of training and validation
    data.cases.push_back(LoadedCase{u.entry, u.imageSha, u.labelsSha});
  }
  if (data.cases.empty()) return makeError(ErrorCode::InvalidArgument, list.path, "no usable case: every case was skipped (above)");
  data.trainingDataProfile = profile.profile();
  // Unmarked cases train, except the last `holdOut` by id, which validate.
  std::sort(unmarked.begin(), unmarked.end(), [&](std::size_t a, std::size_t b) { return cache.info(a).id < cache.info(b).id; });
  const auto hold = static_cast<std::size_t>(std::max(0, settings.holdOut));
  if (hold >= unmarked.size() && hold > 0 && data.train.empty())
    return makeError(ErrorCode::InvalidArgument, "holdOut", "holds out every case: none would train");
  for (std::size_t i = 0; i < unmarked.size(); ++i)
    (i + hold >= unmarked.size() ? data.validation : data.train).push_back(unmarked[i]);
  if (data.train.empty()) return makeError(ErrorCode::InvalidArgument, list.path, "no training case (every case is marked validation or test)");

  // The patch: the cases' size (rounded up to the network's factor) within a voxel budget; the width by device.
  if (!settings.patchGiven) {
    const std::int64_t factor = vista ? 16 : settings.network.sizeFactor();
    // On the CPU 64^3: the mouse atlas ran 0.59 it/s there at 64^3 and 0.07-0.18 it/s at 96x96x80 (issue 41), so a
    // run of an hour is a usable model on the CPU; a GPU takes up to 128^3.
    const std::int64_t cap = vista ? 128 : (settings.device == "cpu" ? 64 : 128);
    std::array<std::int64_t, 3> largest{0, 0, 0};
    for (const auto k : data.train)
      for (std::size_t a = 0; a < 3; ++a) largest[a] = std::max(largest[a], cache.info(k).size[a]);
    for (std::size_t a = 0; a < 3; ++a) {
      const std::int64_t side = std::min(cap, largest[a]);
      settings.trainer.patches.patch[a] = std::max(factor, (side + factor - 1) / factor * factor);
    }
  }
  if (!settings.initFiltersGiven) settings.network.initFilters = settings.device == "cpu" ? 16 : 32;
  return data;
}

json sidecarBase(const RunSettings& s, const CaseList& list, const PreparedData& data, std::int64_t parameters) {
  json j;
  j["format"] = 1;
  j["software"] = {{"name", "delineate-train"}, {"version", DELINEATE_VERSION}};
  const bool vista = s.model == "vista3d";
  if (vista) {
    j["architecture"] = {{"name", "VISTA3D"}, {"base", s.checkpoint}, {"parameters", parameters}, {"freeze", s.freeze}};
  } else {
    j["architecture"] = {{"name", "SegResNetDS"},
                         {"monai", {{"spatial_dims", 3}, {"init_filters", s.network.initFilters}, {"in_channels", s.network.inChannels},
                                    {"out_channels", s.network.outChannels}, {"blocks_down", s.network.blocksDown},
                                    {"norm", "instance"}, {"dsdepth", s.network.dsdepth}}},
                         {"parameters", parameters}};
  }
  json labels = json::array();
  if (vista) {
    for (const auto& [from, to] : s.prepare.labelMap) {
      const auto* entry = s.labelTable.find(from);
      labels.push_back({{"id", from}, {"vista3d", to}, {"name", entry ? entry->name : std::string()}});
    }
  } else {
    for (const auto& [cls, id] : data.classes) {
      const auto* entry = s.labelTable.find(id);
      labels.push_back({{"class", cls}, {"id", id}, {"name", entry ? entry->name : std::string()}});
    }
  }
  j["labels"] = labels;
  const char* mode = s.prepare.intensity == tr::IntensityMode::Range ? "range" : s.prepare.intensity == tr::IntensityMode::ZScore ? "zscore-nonzero" : "none";
  j["preprocessing"] = {{"orientation", "canonical (closest to LPS, axes permuted and flipped)"},
                        {"spacingMm", s.prepare.spacingMm},
                        {"intensity", mode},
                        {"intensityRange", {s.prepare.intensityMin, s.prepare.intensityMax}},
                        {"tensorOrder", "[X, Y, Z], Z fastest"}};
  const auto& t = s.trainer;
  j["training"] = {{"iterations", t.iterations},
                   {"timeBudgetSeconds", t.timeBudgetSeconds},
                   {"learningRate", t.optimizer.learningRate},
                   {"weightDecay", t.optimizer.weightDecay},
                   {"optimizer", "AdamW"},
                   {"schedule", t.cosine ? "warmup-cosine" : "constant"},
                   {"warmupIterations", t.warmupIterations},
                   {"gradientClip", t.optimizer.gradientClip},
                   {"loss", vista ? "per-prompt sigmoid DiceCE" : "deep-supervised softmax DiceCE"},
                   {"smoothNr", t.loss.smoothNr},
                   {"smoothDr", t.loss.smoothDr},
                   {"patch", t.patches.patch},
                   {"batch", t.patches.batch},
                   {"foregroundRatio", t.patches.foregroundRatio},
                   {"classBalanced", t.patches.classBalanced},
                   {"augment", t.patches.augment.enabled},
                   {"affineProbability", t.patches.augment.affineProbability},
                   {"flipProbability", t.patches.augment.flipProbability},
                   {"rotate90Probability", t.patches.augment.rotate90Probability},
                   {"seed", t.patches.seed},
                   {"validationInterval", t.validationInterval},
                   {"validationWindow", t.validationWindow},
                   {"validationOverlap", t.validationOverlap},
                   {"device", s.device},
                   {"precision", s.precision}};
  if (vista)
    j["training"]["prompts"] = {{"labelSet", t.prompts.labelSet}, {"maxPoint", t.prompts.maxPoint},
                                {"dropLabelProbability", t.prompts.dropLabelProbability},
                                {"dropPointProbability", t.prompts.dropPointProbability}};
  json cases = json::array();
  for (const auto& c : data.cases)
    cases.push_back({{"id", c.entry.id}, {"split", c.entry.split}, {"image", c.entry.image}, {"imageSha256", c.imageSha256},
                     {"labels", c.entry.labels}, {"labelsSha256", c.labelsSha256}});
  j["data"] = {{"caseList", list.path}, {"dataset", list.dataset}, {"datasetRevision", list.datasetRevision},
               {"cases", cases}, {"skipped", data.skipped}};
  j["config"] = s.config;
  // What the cases were (issue 41): the window and the ranking check a study against it before the model runs there.
  j["trainingDataProfile"] = json::parse(inference::trainingDataProfileJson(data.trainingDataProfile));
  return j;
}

}  // namespace delineate::app::train
