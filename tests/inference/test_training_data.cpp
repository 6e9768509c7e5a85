// Training's data path, torch-free: cases prepared the same whatever their storage order, the cache reading the same
// boxes from memory and from spill files, batches that depend on (seed, index) only (not on the number of workers),
// VISTA-3D prompts as the bundle samples them, the learning-rate schedule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "core/axis_order.h"
#include "inference/training/case_cache.h"
#include "inference/training/patch_loader.h"
#include "inference/training/prepared_case.h"
#include "inference/training/prompt_sampler.h"
#include "inference/training/trainer.h"
#include "io/base/scratch_cipher.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::inference::training;
namespace fs = std::filesystem;

namespace {

struct MouseCase {
  core::ImageVolume image;
  core::LabelMap labels;
};

std::optional<MouseCase> mouse(int subject) {
  const std::string n = std::to_string(subject);
  const auto image = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_" + n + ".nii.gz");
  const auto labels = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_" + n + ".nii.gz");
  if (!image || !labels) return std::nullopt;
  auto i = io::readImageFile(image->string());
  auto l = io::readLabelFile(labels->string());
  REQUIRE(i.ok());
  REQUIRE(l.ok());
  return MouseCase{std::move(*i), std::move(*l)};
}

PrepareSettings atlasSettings() {
  PrepareSettings s;
  for (int id = 1; id <= 40; ++id) s.labelMap.emplace_back(static_cast<std::uint16_t>(id), static_cast<std::uint16_t>(id));
  s.classes = 41;
  s.spacingMm = {0.2, 0.2, 0.2};  // resampled, so the linear and nearest paths run
  return s;
}

}  // namespace

TEST_CASE("training data: a case stored in another axis order is prepared to the same voxels", "[training][data]") {
  auto m = mouse(1);
  if (!m) return;
  auto reference = prepareCase("FVB1", m->image, m->labels, atlasSettings());
  REQUIRE(reference.ok());
  CHECK(reference->size == std::array<std::int64_t, 3>{84, 96, 60});
  for (const auto& order : {core::AxisOrder{{1, 0, 2}, {false, false, false}}, core::AxisOrder{{2, 1, 0}, {true, false, true}},
                            core::AxisOrder{{0, 1, 2}, {true, true, false}}}) {
    auto image = core::reorderedVolume(m->image, order);
    auto labels = core::reorderedVolume(m->labels.voxels(), order);
    REQUIRE(image.ok());
    REQUIRE(labels.ok());
    auto other = prepareCase("FVB1", *image, core::LabelMap(std::move(*labels)), atlasSettings());
    REQUIRE(other.ok());
    CHECK(other->size == reference->size);
    CHECK(other->labels == reference->labels);
    CHECK(other->image == reference->image);
  }
}

TEST_CASE("training data: bad cases are refused with the reason", "[training][data]") {
  auto m = mouse(1);
  auto n = mouse(2);
  if (!m || !n) return;
  PrepareSettings table = atlasSettings();
  table.labelMap.resize(2);  // ids 1 and 2 only
  auto unknown = prepareCase("FVB1", m->image, m->labels, table);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().subject == "FVB1");
  CHECK(unknown.error().detail == "label 3 is not in the run's label table");
  // Labels on another grid (the same voxels, half the spacing).
  auto g = m->labels.voxels().geometry();
  core::Geometry other(g.dimensions(), {g.spacingMm()[0] / 2, g.spacingMm()[1], g.spacingMm()[2]}, g.originLps(), g.direction());
  auto moved = core::Volume<core::Label>::adopt(other, m->labels.voxels().buffer());
  REQUIRE(moved.ok());
  auto mismatch = prepareCase("FVB1", m->image, core::LabelMap(std::move(*moved)), atlasSettings());
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().code == core::ErrorCode::GeometryMismatch);
}

TEST_CASE("training data: spilled cases read the same boxes as cases in memory", "[training][data]") {
  auto m = mouse(3);
  if (!m) return;
  auto prepared = prepareCase("FVB3", m->image, m->labels, atlasSettings());
  REQUIRE(prepared.ok());
  test::ScratchDir dir("cache");
  CaseCache memory(std::size_t(1) << 30, (dir / "a").string());
  CaseCache spilled(0, (dir / "b").string());
  REQUIRE(memory.add(*prepared).ok());
  REQUIRE(spilled.add(*prepared).ok());
  CHECK(memory.residentBytes() == prepared->bytes());
  CHECK(memory.spilledBytes() == 0);
  CHECK(spilled.residentBytes() == 0);
  CHECK(spilled.spilledBytes() == prepared->bytes());
  CHECK(spilled.info(0).spilled);
  std::mt19937 rng(5);
  for (int k = 0; k < 20; ++k) {
    // Boxes inside, across the edges and wholly outside.
    const std::array<std::int64_t, 3> start{std::uniform_int_distribution<std::int64_t>(-40, 90)(rng),
                                            std::uniform_int_distribution<std::int64_t>(-40, 100)(rng),
                                            std::uniform_int_distribution<std::int64_t>(-40, 70)(rng)};
    const std::array<std::int64_t, 3> extent{32, 40, 24};
    const std::size_t n = 32 * 40 * 24;
    std::vector<float> ia(n), ib(n);
    std::vector<std::uint16_t> la(n), lb(n);
    REQUIRE(memory.readBox(0, start, extent, ia.data(), la.data()).ok());
    REQUIRE(spilled.readBox(0, start, extent, ib.data(), lb.data()).ok());
    CHECK(ia == ib);
    CHECK(la == lb);
  }
  // The whole case back, bit for bit.
  std::vector<float> image(static_cast<std::size_t>(prepared->voxels()));
  std::vector<std::uint16_t> labels(image.size());
  REQUIRE(spilled.readBox(0, {0, 0, 0}, prepared->size, image.data(), labels.data()).ok());
  CHECK(image == prepared->image);
  CHECK(labels == prepared->labels);
}

TEST_CASE("training data: spill files are encrypted under a key of the process alone, and read the same boxes",
          "[training][data][sealed]") {
  auto m = mouse(3);
  if (!m) return;
  auto prepared = prepareCase("FVB3", m->image, m->labels, atlasSettings());
  REQUIRE(prepared.ok());
  test::ScratchDir dir("cache-sealed");
  struct Cipher : inference::training::SpillCipher {
    io::ScratchCipher c;
    explicit Cipher(io::ScratchCipher cipher) : c(std::move(cipher)) {}
    core::Status apply(void* data, std::size_t n, std::uint64_t offset, std::uint32_t file) const override {
      return c.apply(data, n, offset, file);
    }
  };
  CaseCache plain(0, (dir / "plain").string());
  CaseCache sealed(0, (dir / "sealed").string(), std::make_shared<const Cipher>(io::ScratchCipher::create().value()));
  REQUIRE(plain.add(*prepared).ok());
  REQUIRE(sealed.add(*prepared).ok());
  // A second spill file of the same case under the same cipher: not the same bytes (no key stream is used twice).
  test::ScratchDir second("cache-sealed-2");
  auto cipher = std::make_shared<const Cipher>(io::ScratchCipher::create().value());
  CaseCache twice(0, (second / "spill").string(), cipher);
  REQUIRE(twice.add(*prepared).ok());
  REQUIRE(twice.add(*prepared).ok());
  {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(second / "spill")) {
      std::ifstream in(e.path(), std::ios::binary);
      files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    REQUIRE(files.size() == 2);
    REQUIRE(files[0].size() == files[1].size());
    std::size_t equal = 0;
    for (std::size_t i = 0; i < files[0].size(); ++i) equal += files[0][i] == files[1][i];
    CHECK(equal < files[0].size() / 100);
  }
  const auto fileIn = [](const fs::path& folder) {
    for (const auto& e : fs::directory_iterator(folder)) {
      std::ifstream in(e.path(), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }
    return std::string();
  };
  const std::string plainBytes = fileIn(dir / "plain"), sealedBytes = fileIn(dir / "sealed");
  REQUIRE(plainBytes.size() == prepared->bytes());
  REQUIRE(sealedBytes.size() == plainBytes.size());
  // No run of the image's or labels' bytes survives (any 64 bytes of the case, at the start, middle and end).
  for (std::size_t at : {std::size_t(0), plainBytes.size() / 3, plainBytes.size() / 2, plainBytes.size() - 64})
    CHECK(sealedBytes.find(plainBytes.substr(at, 64)) == std::string::npos);
  CHECK((fs::status(dir / "sealed").permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  std::mt19937 rng(7);
  for (int k = 0; k < 20; ++k) {
    const std::array<std::int64_t, 3> start{std::uniform_int_distribution<std::int64_t>(-40, 90)(rng),
                                            std::uniform_int_distribution<std::int64_t>(-40, 100)(rng),
                                            std::uniform_int_distribution<std::int64_t>(-40, 70)(rng)};
    const std::array<std::int64_t, 3> extent{31, 40, 23};  // odd: rows start inside the cipher's 16-byte blocks
    const std::size_t n = 31 * 40 * 23;
    std::vector<float> ia(n), ib(n);
    std::vector<std::uint16_t> la(n), lb(n);
    REQUIRE(plain.readBox(0, start, extent, ia.data(), la.data()).ok());
    REQUIRE(sealed.readBox(0, start, extent, ib.data(), lb.data()).ok());
    CHECK(ia == ib);
    CHECK(la == lb);
  }
  std::vector<float> image(static_cast<std::size_t>(prepared->voxels()));
  std::vector<std::uint16_t> labels(image.size());
  REQUIRE(sealed.readBox(0, {0, 0, 0}, prepared->size, image.data(), labels.data()).ok());
  CHECK(image == prepared->image);
  CHECK(labels == prepared->labels);
}

TEST_CASE("training data: batches depend on the seed and their index, not on the workers", "[training][data]") {
  auto a = mouse(1);
  auto b = mouse(2);
  if (!a || !b) return;
  test::ScratchDir dir("loader");
  CaseCache cache(std::size_t(1) << 30, (dir / "spill").string());
  REQUIRE(cache.add(*prepareCase("FVB1", a->image, a->labels, atlasSettings())).ok());
  REQUIRE(cache.add(*prepareCase("FVB2", b->image, b->labels, atlasSettings())).ok());
  PatchSettings settings;
  settings.patch = {32, 32, 24};
  settings.batch = 2;
  settings.seed = 11;
  settings.augment.affineProbability = 0.5;  // every augmentation runs in these few batches
  settings.augment.flipProbability = 0.5;
  settings.augment.rotate90Probability = 0.5;
  std::vector<Batch> serial;
  for (int i = 0; i < 6; ++i) {
    auto batch = PatchLoader::make(cache, {0, 1}, settings, i);
    REQUIRE(batch.ok());
    serial.push_back(std::move(*batch));
  }
  for (const int workers : {1, 3}) {
    settings.workers = workers;
    PatchLoader loader(cache, {0, 1}, settings);
    loader.start(2);  // a resumed run starting at batch 2
    for (int i = 2; i < 6; ++i) {
      auto batch = loader.next();
      REQUIRE(batch.ok());
      CHECK(batch->index == i);
      CHECK(batch->images == serial[static_cast<std::size_t>(i)].images);
      CHECK(batch->labels == serial[static_cast<std::size_t>(i)].labels);
    }
  }
  // Another seed, other patches; the foreground ratio puts most centres on a structure.
  settings.seed = 12;
  auto other = PatchLoader::make(cache, {0, 1}, settings, 0);
  REQUIRE(other.ok());
  CHECK(other->images != serial[0].images);
  std::size_t labelled = 0;
  for (const auto& s : serial)
    for (const auto l : s.labels) labelled += l != 0;
  CHECK(labelled > serial.size() * serial[0].labels.size() / 10);
  // Augmented intensities stay finite, labels stay labels of the table.
  for (const auto& s : serial) {
    for (const float v : s.images) REQUIRE(std::isfinite(v));
    for (const auto l : s.labels) REQUIRE(l <= 40);
  }
}

TEST_CASE("training data: VISTA-3D prompts as the bundle samples them", "[training][data]") {
  // A 16^3 patch with classes 1 (a block), 5 (a smaller block), background elsewhere.
  const std::int64_t size[3] = {16, 16, 16};
  std::vector<std::uint16_t> labels(16 * 16 * 16, 0);
  for (int x = 2; x < 8; ++x)
    for (int y = 2; y < 8; ++y)
      for (int z = 2; z < 8; ++z) labels[static_cast<std::size_t>((x * 16 + y) * 16 + z)] = 1;
  for (int x = 10; x < 13; ++x)
    for (int y = 10; y < 13; ++y)
      for (int z = 10; z < 13; ++z) labels[static_cast<std::size_t>((x * 16 + y) * 16 + z)] = 5;
  PromptSettings s;
  s.labelSet = {0, 1, 3, 5};
  s.dropLabelProbability = 0;
  s.dropPointProbability = 0;
  std::mt19937_64 rng(3);
  for (int round = 0; round < 20; ++round) {
    const VistaPrompts p = samplePrompts(labels, size, s, rng);
    // Foreground prompts: the present classes of the set without 0; background: the absent ones (3, and 0).
    REQUIRE(p.promptClass.size() == 4);
    CHECK(std::set<std::int64_t>(p.promptClass.begin(), p.promptClass.begin() + 2) == std::set<std::int64_t>{1, 5});
    CHECK(std::set<std::int64_t>(p.promptClass.begin() + 2, p.promptClass.end()) == std::set<std::int64_t>{0, 3});
    CHECK(p.labelPrompt == p.promptClass);
    REQUIRE(p.pointsPerObject >= 1);
    REQUIRE(p.pointsPerObject <= 2 * s.maxPoint);
    for (std::size_t b = 0; b < 4; ++b)
      for (int n = 0; n < p.pointsPerObject; ++n) {
        const auto k = b * static_cast<std::size_t>(p.pointsPerObject) + static_cast<std::size_t>(n);
        const int l = p.pointLabels[k];
        const auto at = [&](int a) { return static_cast<std::int64_t>(p.pointCoords[3 * k + static_cast<std::size_t>(a)]); };
        const std::uint16_t under = labels[static_cast<std::size_t>((at(0) * 16 + at(1)) * 16 + at(2))];
        if (b >= 2) CHECK(l == -1);                                   // background objects carry no point
        if (l == 1) CHECK(under == p.promptClass[b]);                 // a positive point lies on its class
        if (l == 0) CHECK(under != p.promptClass[b]);                 // a negative one off it
      }
    // At least one positive point per foreground object.
    for (std::size_t b = 0; b < 2; ++b) CHECK(p.pointLabels[b * static_cast<std::size_t>(p.pointsPerObject)] == 1);
  }
  s.dropLabelProbability = 1;  // points only: the background objects go
  const VistaPrompts pointsOnly = samplePrompts(labels, size, s, rng);
  CHECK(pointsOnly.labelPrompt.empty());
  CHECK(pointsOnly.promptClass.size() == 2);
  s.dropLabelProbability = 0;
  s.dropPointProbability = 1;  // class prompts only
  const VistaPrompts classOnly = samplePrompts(labels, size, s, rng);
  CHECK(classOnly.pointsPerObject == 0);
  CHECK(classOnly.labelPrompt.size() == 4);
  s.maxBackprompt = 1;
  s.dropPointProbability = 0;
  CHECK(samplePrompts(labels, size, s, rng).promptClass.size() == 3);
  CHECK(isSpecialClass(23));
  CHECK_FALSE(isSpecialClass(1));
}

TEST_CASE("training: warm-up then cosine learning rate", "[training]") {
  TrainerSettings s;
  s.iterations = 110;
  s.warmupIterations = 10;
  s.optimizer.learningRate = 1e-3;
  CHECK(learningRateAt(s, 0) == Approx(1e-3 / 11));
  CHECK(learningRateAt(s, 9) == Approx(1e-3 * 10 / 11));
  CHECK(learningRateAt(s, 10) == Approx(1e-3));
  CHECK(learningRateAt(s, 60) == Approx(0.5e-3));
  CHECK(learningRateAt(s, 110) == Approx(0).margin(1e-12));
  s.cosine = false;
  CHECK(learningRateAt(s, 100) == Approx(1e-3));
}

TEST_CASE("training: the sliding window's slab gives the labels of sums over the whole image, and their uncertainty", "[training]") {
  if (!trainingAvailable()) return;
  // A small SegResNetDS (random weights: the labels vary everywhere) on an image of 3 x 2 x 2 overlapping windows
  // with uneven steps (the last start is size - window) and padding in Z, against every window's logits summed over
  // the whole image and decided at the end.
  SegResNetDSConfig config;
  config.initFilters = 4;
  config.outChannels = 5;
  auto model = TrainableModel::segResNetDS(config, nullptr, 11);
  REQUIRE(model.ok());
  const std::array<std::int64_t, 3> size{40, 28, 12}, window{16, 16, 16};
  std::vector<float> image(static_cast<std::size_t>(size[0] * size[1] * size[2]));
  std::mt19937 rng(4);
  std::normal_distribution<float> normal;
  for (auto& v : image) v = normal(rng);
  int calls = 0;
  UncertaintyStats stats;
  auto labels = segmentPrepared(
      **model, image, size, window, 0.25, {},
      [&](double f) {
        CHECK(f >= 0);
        CHECK(f < 1);
        ++calls;
        return true;
      },
      &stats);
  REQUIRE(labels.ok());
  // The same windows: X starts 0, 12, 24 (and the last, 24); Y 0, 12; Z 0 (padded to 16).
  const std::vector<std::int64_t> xs{0, 12, 24}, ys{0, 12}, zs{0};
  CHECK(calls == 6);
  const std::array<std::int64_t, 3> p{40, 28, 16};
  std::vector<double> sum(static_cast<std::size_t>(5 * p[0] * p[1] * p[2]), 0.0);
  std::vector<float> win(static_cast<std::size_t>(16 * 16 * 16));
  for (const auto a : xs)
    for (const auto b : ys)
      for (const auto c : zs) {
        for (std::int64_t i = 0; i < 16; ++i)
          for (std::int64_t j = 0; j < 16; ++j)
            for (std::int64_t k = 0; k < 16; ++k) {
              const std::int64_t x = a + i, y = b + j, z = c + k;
              win[static_cast<std::size_t>((i * 16 + j) * 16 + k)] =
                  z < size[2] ? image[static_cast<std::size_t>((x * size[1] + y) * size[2] + z)] : 0.0f;
            }
        const std::int64_t roi[3] = {16, 16, 16};
        auto logits = (*model)->evalLogits(win, roi);
        REQUIRE(logits.ok());
        for (std::int64_t ch = 0; ch < 5; ++ch)
          for (std::int64_t i = 0; i < 16; ++i)
            for (std::int64_t j = 0; j < 16; ++j)
              for (std::int64_t k = 0; k < 16; ++k)
                sum[static_cast<std::size_t>(((ch * p[0] + a + i) * p[1] + b + j) * p[2] + c + k)] +=
                    (*logits)[static_cast<std::size_t>(((ch * 16 + i) * 16 + j) * 16 + k)];
      }
  std::set<std::uint16_t> seen;
  std::size_t differ = 0;
  // The uncertainty from the same sums: each voxel's logits averaged over the windows covering it (counted here from
  // the starts), softmax, entropy over log 5.
  auto covering = [](const std::vector<std::int64_t>& starts, std::int64_t v) {
    return static_cast<double>(std::count_if(starts.begin(), starts.end(), [&](std::int64_t s) { return v >= s && v < s + 16; }));
  };
  double entropySum = 0, consideredSum = 0;
  std::int64_t foreground = 0, considered = 0;
  for (std::int64_t x = 0; x < size[0]; ++x)
    for (std::int64_t y = 0; y < size[1]; ++y)
      for (std::int64_t z = 0; z < size[2]; ++z) {
        int best = 0;
        for (int ch = 1; ch < 5; ++ch)
          if (sum[static_cast<std::size_t>(((ch * p[0] + x) * p[1] + y) * p[2] + z)] >
              sum[static_cast<std::size_t>(((best * p[0] + x) * p[1] + y) * p[2] + z)])
            best = ch;
        const std::uint16_t got = (*labels)[static_cast<std::size_t>((x * size[1] + y) * size[2] + z)];
        differ += got != best;
        seen.insert(got);
        const double n = covering(xs, x) * covering(ys, y) * covering(zs, z);
        double z0 = 0, probabilities[5];
        for (int ch = 0; ch < 5; ++ch) z0 += probabilities[ch] = std::exp(sum[static_cast<std::size_t>(((ch * p[0] + x) * p[1] + y) * p[2] + z)] / n);
        double h = 0;
        for (const double q : probabilities) h -= q / z0 * std::log(q / z0);
        h /= std::log(5.0);
        entropySum += h;
        if (best != 0) ++foreground;
        if (best != 0 || h > 0.5) {
          ++considered;
          consideredSum += h;
        }
      }
  CHECK(seen.size() >= 3);
  CHECK(differ <= 2);  // float vs double sums may tip a near tie
  CHECK(stats.voxels == size[0] * size[1] * size[2]);
  CHECK(std::abs(stats.foregroundVoxels - foreground) <= 2);
  CHECK(std::abs(stats.consideredVoxels - considered) <= 4);
  CHECK(stats.entropySum == Approx(entropySum).epsilon(1e-4));
  CHECK(stats.score() == Approx(consideredSum / static_cast<double>(considered)).epsilon(1e-3));
  CHECK(stats.score() > 0.1);  // random weights hesitate
  CHECK(stats.score() <= 1.0);
  CHECK(stats.meanEntropy() == Approx(entropySum / static_cast<double>(stats.voxels)).epsilon(1e-4));
}
