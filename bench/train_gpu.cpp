// Training on a GPU machine (issue 25's GPU figures), where only core, inference and LibTorch build (no io: the GPU
// machine has no ITK, DCMTK or zlib headers). Two modes:
//
//   bench_train_gpu atlas DATA [--device cuda] [--precision bf16] [--seconds 240] [--init-filters 32]
//                   [--patch X,Y,Z] [--workers 8] [--seed 1]
//     The mouse atlas (../shared/data/mouse/fvb-ncrl-in-vivo as uncompressed MetaImage files DATA/FVB<i>_image.mhd
//     and DATA/FVB<i>_labels.mhd, made by scripts/gpu_train_check.sh prepare): SegResNetDS from scratch on subjects
//     1-4, the checkpoint chosen on subject 5, the per-structure Dice of the chosen weights on 5 and on 6 (never seen).
//     The settings are delineate-train's own defaults for CUDA (median spacing, z-score, the whole 112x128x80 case as
//     the patch, 32 filters, AdamW 1e-3 warm-up cosine, 10 validations); only the iteration count is chosen here: a
//     short probe measures the step rate and the run gets the iterations that fit in --seconds.
//
//   bench_train_gpu throughput segresnetds|vista3d [--device cuda] [--precisions fp32,bf16,fp16] [--iterations 20]
//                   [--patch 128,128,128] [--init-filters 32] [--classes 38] [--checkpoint FILE]
//     Optimizer steps per second on one fixed random batch, as bench/peers/monai_train_loop.py measures MONAI (same
//     model, patch, batch, prompts per step), for each precision. VISTA-3D starts from --checkpoint (the peer writes
//     its random initial weights there with save_init=FILE).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <array>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "core/label_map.h"
#include "core/volume.h"
#include "inference/training/case_cache.h"
#include "inference/training/prepared_case.h"
#include "inference/training/prompt_sampler.h"
#include "inference/training/trainable.h"
#include "inference/training/trainer.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"

using namespace delineate;
namespace tr = inference::training;
using inference::vista3d::Precision;

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_train_gpu: %s\n", m.c_str());
  std::exit(1);
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

Precision precisionOf(const std::string& p) {
  auto parsed = inference::vista3d::parsePrecision(p);
  if (!parsed) die(parsed.error().describe());
  return *parsed;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::array<std::int64_t, 3> parseSides(const std::string& s) {
  const auto v = split(s, ',');
  if (v.size() != 3) die("a patch needs three sides X,Y,Z, not " + s);
  return {std::atoll(v[0].c_str()), std::atoll(v[1].c_str()), std::atoll(v[2].c_str())};
}

// An uncompressed MetaImage (.mhd with its .raw, MET_FLOAT / MET_SHORT / MET_USHORT / MET_UCHAR, little endian) as
// float voxels on its grid.
struct RawVolume {
  core::Geometry geometry;
  std::vector<float> voxels;
};

RawVolume readMetaImage(const std::string& path) {
  std::ifstream header(path);
  if (!header) die(path + ": cannot open");
  std::map<std::string, std::string> keys;
  for (std::string line; std::getline(header, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(" \t\r"));
      t.erase(t.find_last_not_of(" \t\r") + 1);
      return t;
    };
    keys[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  auto numbers = [&](const char* key, std::size_t count) {
    std::vector<double> v;
    std::stringstream in(keys[key]);
    for (double x; in >> x;) v.push_back(x);
    if (v.size() != count) die(path + ": " + key + " needs " + std::to_string(count) + " numbers");
    return v;
  };
  if (keys["CompressedData"] == "True") die(path + ": compressed (scripts/gpu_train_check.sh prepare writes it raw)");
  if (keys["BinaryDataByteOrderMSB"] == "True") die(path + ": big endian");
  const auto dims = numbers("DimSize", 3), spacing = numbers("ElementSpacing", 3), origin = numbers("Offset", 3),
             matrix = numbers("TransformMatrix", 9);
  // MetaImage's TransformMatrix lists the axes' directions one after another (column by column of ours).
  core::Mat3 direction;
  for (int axis = 0; axis < 3; ++axis)
    for (int row = 0; row < 3; ++row) direction(row, axis) = matrix[static_cast<std::size_t>(axis * 3 + row)];
  RawVolume v;
  v.geometry = core::Geometry({static_cast<std::int64_t>(dims[0]), static_cast<std::int64_t>(dims[1]), static_cast<std::int64_t>(dims[2])},
                              {spacing[0], spacing[1], spacing[2]}, {origin[0], origin[1], origin[2]}, direction);
  const std::size_t n = static_cast<std::size_t>(dims[0] * dims[1] * dims[2]);
  const std::string type = keys["ElementType"];
  const std::size_t bytesPer = type == "MET_FLOAT" ? 4 : type == "MET_SHORT" || type == "MET_USHORT" ? 2 : type == "MET_UCHAR" ? 1 : 0;
  if (!bytesPer) die(path + ": element type " + type + " not read here");
  std::string dataPath = keys["ElementDataFile"];
  if (dataPath.empty() || dataPath == "LOCAL") die(path + ": the data must be a separate .raw file");
  if (dataPath[0] != '/') {
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos) dataPath = path.substr(0, slash + 1) + dataPath;
  }
  std::ifstream data(dataPath, std::ios::binary);
  std::vector<char> bytes(n * bytesPer);
  if (!data.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) die(dataPath + ": shorter than " + std::to_string(bytes.size()) + " bytes");
  v.voxels.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = bytes.data() + i * bytesPer;
    if (type == "MET_FLOAT") {
      float f;
      std::memcpy(&f, p, 4);
      v.voxels[i] = f;
    } else if (type == "MET_SHORT") {
      std::int16_t s;
      std::memcpy(&s, p, 2);
      v.voxels[i] = s;
    } else if (type == "MET_USHORT") {
      std::uint16_t s;
      std::memcpy(&s, p, 2);
      v.voxels[i] = s;
    } else {
      v.voxels[i] = static_cast<unsigned char>(*p);
    }
  }
  return v;
}

// One fixed batch as the peer's: normal intensities, labels uniform over `classes`.
void randomBatch(const std::array<std::int64_t, 3>& patch, int classes, std::vector<float>& x, std::vector<std::uint16_t>& y) {
  const auto n = static_cast<std::size_t>(patch[0] * patch[1] * patch[2]);
  x.resize(n);
  y.resize(n);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (auto& v : x) v = normal(rng);
  for (auto& v : y) v = static_cast<std::uint16_t>(rng() % static_cast<unsigned>(classes));
}

// The best weights of the run, kept in memory (the benchmark writes no files).
class BestInMemory : public tr::CheckpointSink {
 public:
  void save(tr::CheckpointState state) override {
    if (state.best) {
      best = std::move(state.model);
      bestIteration = state.iteration;
    }
  }
  std::string lastSaved() const override { return bestIteration < 0 ? std::string() : "it" + std::to_string(bestIteration) + " (memory)"; }
  std::vector<tr::NamedTensor> best;
  int bestIteration = -1;
};

int atlas(const std::string& data, const std::map<std::string, std::string>& opt) {
  const auto t0 = Clock::now();
  auto get = [&](const char* k, const std::string& fallback) {
    auto it = opt.find(k);
    return it == opt.end() ? fallback : it->second;
  };
  const std::string device = get("device", "cuda"), precisionName = get("precision", "bf16");
  const double budgetSeconds = std::atof(get("seconds", "240").c_str());
  const int seed = std::atoi(get("seed", "1").c_str());

  // The cases, labels as read (ids), the union of ids as delineate-train finds them.
  std::vector<core::ImageVolume> images;
  std::vector<core::LabelMap> labels;
  std::set<core::Label> ids;
  std::vector<core::Vec3> spacings;
  for (int i = 1; i <= 6; ++i) {
    const std::string base = data + "/FVB" + std::to_string(i);
    RawVolume image = readMetaImage(base + "_image.mhd"), label = readMetaImage(base + "_labels.mhd");
    auto volume = core::ImageVolume::create(image.geometry).value();
    std::copy(image.voxels.begin(), image.voxels.end(), volume.data());
    auto map = core::Volume<core::Label>::create(label.geometry).value();
    for (std::size_t k = 0; k < label.voxels.size(); ++k) {
      const auto id = static_cast<core::Label>(label.voxels[k]);
      map.data()[k] = id;
      if (id) ids.insert(id);
    }
    spacings.push_back(image.geometry.spacingMm());
    images.push_back(std::move(volume));
    labels.emplace_back(std::move(map));
  }
  tr::PrepareSettings prepare;
  int classes = 0;
  for (const auto id : ids) prepare.labelMap.emplace_back(id, static_cast<std::uint16_t>(++classes));
  prepare.classes = classes + 1;
  prepare.intensity = tr::IntensityMode::ZScore;  // MR (delineate-train's automatic choice without Hounsfield air)
  for (std::size_t a = 0; a < 3; ++a) {
    std::vector<double> v;
    for (const auto& s : spacings) v.push_back(s[a]);
    std::sort(v.begin(), v.end());
    prepare.spacingMm[a] = v[v.size() / 2];
  }
  tr::CaseCache cache(std::size_t(8) << 30, "/tmp/bench-train-gpu-spill");
  for (int i = 0; i < 6; ++i) {
    auto prepared = tr::prepareCase("FVB" + std::to_string(i + 1), images[static_cast<std::size_t>(i)],
                                    labels[static_cast<std::size_t>(i)], prepare);
    if (!prepared) die(prepared.error().describe());
    prepared->split = i < 4 ? "train" : i == 4 ? "validation" : "test";
    if (core::Status s = cache.add(std::move(*prepared)); !s) die(s.error().describe());
  }
  images.clear();
  labels.clear();
  const std::vector<std::size_t> train{0, 1, 2, 3}, validation{4};

  tr::SegResNetDSConfig network;
  network.initFilters = std::atoi(get("init-filters", device == "cpu" ? "16" : "32").c_str());
  network.outChannels = classes + 1;
  tr::TrainerSettings settings;
  settings.optimizer.learningRate = 1e-3;
  settings.warmupIterations = 20;
  settings.patches.seed = static_cast<std::uint64_t>(seed);
  settings.patches.workers = std::atoi(get("workers", "2").c_str());
  if (opt.count("patch")) {
    settings.patches.patch = parseSides(opt.at("patch"));
  } else {  // delineate-train's choice: the cases' size rounded up to the network's factor, at most 128 (96 on a CPU)
    const std::int64_t factor = network.sizeFactor(), cap = device == "cpu" ? 96 : 128;
    for (std::size_t a = 0; a < 3; ++a) {
      std::int64_t largest = 0;
      for (const auto k : train) largest = std::max(largest, cache.info(k).size[a]);
      const std::int64_t side = std::min(cap, largest);
      settings.patches.patch[a] = std::max(factor, (side + factor - 1) / factor * factor);
    }
  }
  const auto& patch = settings.patches.patch;
  const Precision precision = precisionOf(precisionName);
  tr::seedTorch(static_cast<std::uint64_t>(seed));
  auto model = tr::TrainableModel::segResNetDS(network, nullptr, static_cast<std::uint64_t>(seed));
  if (!model) die(model.error().describe());
  if (core::Status s = (*model)->setDevice(device, precision); !s) die(s.error().describe());
  (*model)->setOptimizer(settings.optimizer);
  std::printf("atlas: %d structures, %lld parameters, patch %lldx%lldx%lld, %s %s, %d patch workers, prepared in %.1f s\n", classes,
              static_cast<long long>((*model)->parameterCount()), static_cast<long long>(patch[0]), static_cast<long long>(patch[1]),
              static_cast<long long>(patch[2]), (*model)->device().c_str(), precisionName.c_str(), settings.patches.workers, since(t0));

  // The probe: the step rate on a throwaway copy of the network (same size, random batch), so the run's own weights
  // and batches are those of a run of that length.
  double rate = 0;
  {
    auto probe = tr::TrainableModel::segResNetDS(network, nullptr, 99);
    if (!probe || !(*probe)->setDevice(device, precision)) die("probe network");
    (*probe)->setOptimizer(settings.optimizer);
    std::vector<float> x;
    std::vector<std::uint16_t> y;
    randomBatch(patch, classes + 1, x, y);
    const std::int64_t size[3] = {patch[0], patch[1], patch[2]};
    for (int i = 0; i < 5; ++i)
      if (!(*probe)->stepSegResNetDS(x, 1, size, y)) die("probe step");
    const auto p0 = Clock::now();
    const int steps = 20;
    for (int i = 0; i < steps; ++i)
      if (!(*probe)->stepSegResNetDS(x, 1, size, y)) die("probe step");
    rate = steps / since(p0);
  }
  settings.iterations = opt.count("iterations") ? std::atoi(opt.at("iterations").c_str())
                                                : std::max(50, static_cast<int>(rate * budgetSeconds * 0.85));
  settings.validationInterval = std::max(1, settings.iterations / 10);
  std::printf("atlas: probe %.2f it/s on a fixed batch -> %d iterations for %.0f s (validation every %d)\n", rate,
              settings.iterations, budgetSeconds, settings.validationInterval);
  std::fflush(stdout);

  BestInMemory sink;
  const auto trainStart = Clock::now();
  auto report = [&](const tr::Progress& p) {
    if (p.validation)
      std::printf("  it %5d  %6.1f s  loss %.4f  %.2f it/s  data wait %.2f%%  val Dice %.4f (%.2f s)\n", p.iteration, p.elapsedSeconds,
                  p.loss, p.iterationsPerSecond, 100 * p.dataWaitFraction, p.validation->meanDice, p.validation->seconds);
    std::fflush(stdout);
  };
  auto result = tr::train(**model, cache, train, validation, settings, report, &sink, nullptr);
  if (!result) die(result.error().describe());
  const double trainSeconds = since(trainStart);
  std::printf("atlas: %d iterations in %.1f s (%.2f it/s), waiting for data %.2f%% of the loop, best validation Dice %.4f at it %d\n",
              result->iterations, trainSeconds, result->iterations / trainSeconds,
              result->wallSeconds > 0 ? 100 * result->dataWaitSeconds / result->wallSeconds : 0.0, result->bestDice, sink.bestIteration);
  if (!sink.best.empty())
    if (core::Status s = (*model)->loadStateDict(sink.best); !s) die(s.error().describe());
  std::map<std::int64_t, std::array<double, 2>> perStructure;  // FVB5, FVB6
  for (std::size_t k = 0; k < cache.size(); ++k) {
    auto dice = tr::validateCase(**model, cache, k, settings);
    if (!dice) die(dice.error().describe());
    double sum = 0;
    for (const auto& [cls, d] : *dice) {
      sum += d;
      if (k >= 4) {
        auto& row = perStructure.try_emplace(prepare.labelMap[static_cast<std::size_t>(cls - 1)].first, std::array<double, 2>{NAN, NAN}).first->second;
        row[k - 4] = d;
      }
    }
    std::printf("  %s (%s): mean Dice %.4f over %zu structures\n", cache.info(k).id.c_str(), cache.info(k).split.c_str(),
                dice->empty() ? 0.0 : sum / static_cast<double>(dice->size()), dice->size());
  }
  std::printf("  per structure id (FVB5 / FVB6):");
  int column = 0;
  for (const auto& [id, d] : perStructure) {
    if (column++ % 6 == 0) std::printf("\n   ");
    std::printf("  %3lld %.3f/%.3f", static_cast<long long>(id), d[0], d[1]);
  }
  std::printf("\natlas: whole process %.1f s, peak RSS %.0f MB\n", since(t0), peakRssMb());
  return 0;
}

int throughput(const std::string& kind, const std::map<std::string, std::string>& opt) {
  auto get = [&](const char* k, const std::string& fallback) {
    auto it = opt.find(k);
    return it == opt.end() ? fallback : it->second;
  };
  const std::string device = get("device", "cuda");
  const int iterations = std::atoi(get("iterations", "20").c_str());
  const auto patch = parseSides(get("patch", "128,128,128"));
  const int classes = std::atoi(get("classes", "38").c_str());
  const std::int64_t size[3] = {patch[0], patch[1], patch[2]};
  std::vector<float> x;
  std::vector<std::uint16_t> y;
  randomBatch(patch, classes, x, y);
  std::optional<inference::vista3d::Checkpoint> checkpoint;
  if (kind == "vista3d") {
    if (!opt.count("checkpoint")) die("vista3d needs --checkpoint");
    auto ck = inference::vista3d::readCheckpoint(opt.at("checkpoint"));
    if (!ck) die(ck.error().describe());
    checkpoint = std::move(*ck);
  } else if (kind != "segresnetds") {
    die("throughput of segresnetds or vista3d, not " + kind);
  }
  tr::PromptSettings prompts;
  for (int c = 0; c < classes; ++c) prompts.labelSet.push_back(c);
  prompts.maxForeprompt = std::atoi(get("fore", "4").c_str());
  prompts.maxBackprompt = std::atoi(get("back", "1").c_str());
  for (const auto& p : split(get("precisions", "fp32,bf16,fp16"), ',')) {
    tr::seedTorch(0);
    tr::SegResNetDSConfig network;
    network.initFilters = std::atoi(get("init-filters", "32").c_str());
    network.outChannels = classes;
    auto model = kind == "vista3d" ? tr::TrainableModel::vista3d(*checkpoint) : tr::TrainableModel::segResNetDS(network, nullptr, 0);
    if (!model) die(model.error().describe());
    if (core::Status s = (*model)->setDevice(device, precisionOf(p)); !s) die(s.error().describe());
    tr::OptimizerSettings optimizer;
    optimizer.learningRate = kind == "vista3d" ? 1e-4 : 2e-4;  // as the peer
    (*model)->setOptimizer(optimizer);
    std::mt19937_64 promptRng(7);
    std::vector<double> times;
    int skipped = 0;
    for (int i = 0; i < iterations + 3; ++i) {  // the first three steps pay for allocations and cuDNN's choices
      const auto s0 = Clock::now();
      core::Result<tr::TrainableModel::StepResult> step = core::makeError(core::ErrorCode::InvalidArgument, "step", "none");
      if (kind == "vista3d") {
        const tr::VistaPrompts pr = tr::samplePrompts(y, size, prompts, promptRng);
        if (pr.promptClass.empty()) continue;
        step = (*model)->stepVista(x, size, y, pr);
      } else {
        step = (*model)->stepSegResNetDS(x, 1, size, y);
      }
      if (!step) die(step.error().describe());
      if (step->skipped) ++skipped;
      if (i >= 3) times.push_back(since(s0));
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    std::printf("{\"peer\": \"delineate\", \"model\": \"%s\", \"precision\": \"%s\", \"iterationsPerSecond\": %.3f, \"medianSeconds\": %.4f, "
                "\"iterations\": %zu, \"skippedSteps\": %d, \"peakRssMB\": %.0f}\n",
                kind.c_str(), p.c_str(), 1 / median, median, times.size(), skipped, peakRssMb());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_train_gpu atlas DATA [options] | throughput segresnetds|vista3d [options]\n");
    return 2;
  }
  const std::string mode = argv[1], what = argv[2];
  std::map<std::string, std::string> opt;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || i + 1 >= argc) die("options are --name value, not " + a);
    opt[a.substr(2)] = argv[++i];
  }
  if (opt.count("threads")) inference::vista3d::Vista3dModel::setCpuThreads(std::atoi(opt.at("threads").c_str()));
  if (mode == "atlas") return atlas(what, opt);
  if (mode == "throughput") return throughput(what, opt);
  die("mode atlas or throughput, not " + mode);
}
