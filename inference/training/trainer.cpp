#include "inference/training/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace delineate::inference::training {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<std::int64_t> starts(std::int64_t size, std::int64_t roi, double overlap) {
  if (size <= roi) return {0};
  const auto stride = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(roi) * (1 - overlap)));
  std::vector<std::int64_t> out;
  for (std::int64_t s = 0;; s += stride) {
    if (s + roi >= size) {
      out.push_back(size - roi);
      break;
    }
    out.push_back(s);
  }
  return out;
}

std::array<std::int64_t, 3> windowFor(const TrainableModel& model, const TrainerSettings& settings) {
  std::array<std::int64_t, 3> w = settings.validationWindow;
  const std::int64_t factor = model.kind() == ModelKind::SegResNetDS ? model.segResNetDSConfig().sizeFactor() : 16;
  for (std::size_t a = 0; a < 3; ++a) {
    if (w[a] <= 0) w[a] = settings.patches.patch[a];
    w[a] = (w[a] + factor - 1) / factor * factor;
  }
  return w;
}

std::vector<std::int64_t> classesFor(const TrainableModel& model, const TrainerSettings& settings) {
  if (!settings.validationClasses.empty()) return settings.validationClasses;
  std::vector<std::int64_t> out;
  if (model.kind() == ModelKind::SegResNetDS) {
    for (int c = 1; c < model.segResNetDSConfig().outChannels; ++c) out.push_back(c);
  } else {
    for (const auto c : settings.prompts.labelSet)
      if (c != 0) out.push_back(c);
  }
  return out;
}

}  // namespace

double learningRateAt(const TrainerSettings& settings, int iteration) {
  const double base = settings.optimizer.learningRate;
  if (settings.warmupIterations > 0 && iteration < settings.warmupIterations)
    return base * static_cast<double>(iteration + 1) / static_cast<double>(settings.warmupIterations + 1);
  if (!settings.cosine) return base;
  const int span = std::max(1, settings.iterations - settings.warmupIterations);
  const double t = std::clamp(static_cast<double>(iteration - settings.warmupIterations) / static_cast<double>(span), 0.0, 1.0);
  return base * 0.5 * (1 + std::cos(3.14159265358979323846 * t));
}

core::Result<std::vector<std::uint16_t>> segmentPrepared(TrainableModel& model, const std::vector<float>& image,
                                                         const std::array<std::int64_t, 3>& size,
                                                         const std::array<std::int64_t, 3>& window, double overlap,
                                                         const std::vector<std::int64_t>& classes,
                                                         const std::function<bool(double)>& progress,
                                                         UncertaintyStats* uncertainty,
                                                         std::vector<std::uint8_t>* probabilities) {
  const bool vista = model.kind() == ModelKind::Vista3d;
  const int channels = vista ? static_cast<int>(classes.size()) : model.segResNetDSConfig().outChannels;
  if (channels < 1) return core::makeError(core::ErrorCode::InvalidArgument, "training", "no class to segment");
  const std::int64_t voxels = size[0] * size[1] * size[2];
  if (static_cast<std::int64_t>(image.size()) != voxels)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "the image does not match its size");
  try {
    // The image padded with zeros to at least one window per axis (the network's sides).
    std::array<std::int64_t, 3> p{};
    for (std::size_t a = 0; a < 3; ++a) p[a] = std::max(size[a], window[a]);
    const std::int64_t cells = p[0] * p[1] * p[2];
    std::vector<float> padded(static_cast<std::size_t>(cells), 0.0f);
    for (std::int64_t x = 0; x < size[0]; ++x)
      for (std::int64_t y = 0; y < size[1]; ++y)
        std::copy_n(image.data() + (x * size[1] + y) * size[2], size[2], padded.data() + (x * p[1] + y) * p[2]);
    // Logits summed over the windows in a slab of one window's X extent: windows run in order of their X start, and
    // rows before the next start are complete (no later window reaches them), so they are decided and the slab moves
    // on. The sums take channels x w0 x p1 x p2 floats instead of that for the whole image (an argmax of sums needs
    // no division by the window count, which is positive).
    const auto w = window;
    const std::int64_t slabCells = w[0] * p[1] * p[2];
    std::vector<float> sum(static_cast<std::size_t>(slabCells) * static_cast<std::size_t>(channels), 0.0f);
    std::vector<std::uint16_t> out(static_cast<std::size_t>(voxels), 0);
    const auto startsA = starts(p[0], w[0], overlap), startsB = starts(p[1], w[1], overlap), startsC = starts(p[2], w[2], overlap);
    // How many windows cover each row, column and plane (their product: a voxel's), to average the logits for the
    // uncertainty.
    auto coverage = [](const std::vector<std::int64_t>& s, std::int64_t extent, std::int64_t side) {
      std::vector<float> n(static_cast<std::size_t>(extent), 0.0f);
      for (const auto a : s)
        for (std::int64_t i = a; i < a + side && i < extent; ++i) n[static_cast<std::size_t>(i)] += 1.0f;
      return n;
    };
    std::vector<float> coverA, coverB, coverC, meanLogits;
    if (probabilities && vista)
      return core::makeError(core::ErrorCode::Unsupported, "training", "probabilities come from SegResNetDS (softmax) networks");
    if (probabilities) probabilities->assign(static_cast<std::size_t>(voxels) * static_cast<std::size_t>(channels), 0);
    if (uncertainty) *uncertainty = UncertaintyStats{};
    if (uncertainty || probabilities) {
      coverA = coverage(startsA, p[0], w[0]);
      coverB = coverage(startsB, p[1], w[1]);
      coverC = coverage(startsC, p[2], w[2]);
      meanLogits.resize(static_cast<std::size_t>(channels));
    }
    if (uncertainty && vista)
      return core::makeError(core::ErrorCode::Unsupported, "training", "the uncertainty is measured for SegResNetDS (softmax) networks");
    const double entropyScale = channels > 1 ? 1.0 / std::log(static_cast<double>(channels)) : 0.0;
    // The normalised entropy of the softmax of a voxel's logits averaged over the windows covering it (`cell` in the
    // slab); NaN when a logit is not finite.
    auto entropyOf = [&](std::size_t cell, float windowCount) {
      double top = -std::numeric_limits<double>::infinity();
      for (int ch = 0; ch < channels; ++ch) {
        const float v = sum[static_cast<std::size_t>(ch) * static_cast<std::size_t>(slabCells) + cell] / windowCount;
        if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
        meanLogits[static_cast<std::size_t>(ch)] = v;
        top = std::max(top, static_cast<double>(v));
      }
      double z = 0, weighted = 0;
      for (int ch = 0; ch < channels; ++ch) {
        const double d = meanLogits[static_cast<std::size_t>(ch)] - top;
        const double e = std::exp(d);
        z += e;
        weighted += e * d;
      }
      const double h = std::log(z) - weighted / z;  // -sum p log p with p = e^d / z
      return std::clamp(h * entropyScale, 0.0, 1.0);
    };
    // Decides slab rows [0, rows) (image rows base..), those inside the image.
    auto decide = [&](std::int64_t base, std::int64_t rows) {
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t x = base + r;
        if (x >= size[0]) break;
        for (std::int64_t y = 0; y < size[1]; ++y)
          for (std::int64_t z = 0; z < size[2]; ++z) {
            const auto cell = static_cast<std::size_t>((r * p[1] + y) * p[2] + z);
            int best = -1;
            float bestValue = vista ? 0.0f : -std::numeric_limits<float>::infinity();
            for (int ch = 0; ch < channels; ++ch) {
              const float v = sum[static_cast<std::size_t>(ch) * static_cast<std::size_t>(slabCells) + cell];
              if (v > bestValue) {
                bestValue = v;
                best = ch;
              }
            }
            std::uint16_t label = 0;
            if (best >= 0) label = vista ? static_cast<std::uint16_t>(classes[static_cast<std::size_t>(best)]) : static_cast<std::uint16_t>(best);
            const auto at = static_cast<std::size_t>((x * size[1] + y) * size[2] + z);
            out[at] = label;
            if (probabilities) {
              // The softmax of the logits averaged over the windows, as 0..255.
              const float count = coverA[static_cast<std::size_t>(x)] * coverB[static_cast<std::size_t>(y)] * coverC[static_cast<std::size_t>(z)];
              float top = -std::numeric_limits<float>::infinity();
              for (int ch = 0; ch < channels; ++ch) {
                meanLogits[static_cast<std::size_t>(ch)] = sum[static_cast<std::size_t>(ch) * static_cast<std::size_t>(slabCells) + cell] / count;
                top = std::max(top, meanLogits[static_cast<std::size_t>(ch)]);
              }
              if (std::isfinite(top)) {
                double z2 = 0;
                for (int ch = 0; ch < channels; ++ch) z2 += std::exp(static_cast<double>(meanLogits[static_cast<std::size_t>(ch)] - top));
                for (int ch = 0; ch < channels; ++ch)
                  (*probabilities)[static_cast<std::size_t>(ch) * static_cast<std::size_t>(voxels) + at] = static_cast<std::uint8_t>(
                      std::lround(255.0 * std::exp(static_cast<double>(meanLogits[static_cast<std::size_t>(ch)] - top)) / z2));
              }
            }
            if (uncertainty) {
              const double h = entropyOf(cell, coverA[static_cast<std::size_t>(x)] * coverB[static_cast<std::size_t>(y)] *
                                                   coverC[static_cast<std::size_t>(z)]);
              if (std::isnan(h)) {
                ++uncertainty->nonFiniteVoxels;
                continue;
              }
              ++uncertainty->voxels;
              uncertainty->entropySum += h;
              if (label != 0) ++uncertainty->foregroundVoxels;
              if (label != 0 || h > 0.5) {
                ++uncertainty->consideredVoxels;
                uncertainty->consideredEntropySum += h;
              }
            }
          }
      }
    };
    // Moves the slab `shift` rows on: the first rows leave, zeros come in at the end.
    auto advance = [&](std::int64_t shift) {
      const auto keep = static_cast<std::size_t>(std::max<std::int64_t>(0, w[0] - shift) * p[1] * p[2]);
      const auto drop = static_cast<std::size_t>(slabCells) - keep;
      for (int ch = 0; ch < channels; ++ch) {
        float* plane = sum.data() + static_cast<std::size_t>(ch) * static_cast<std::size_t>(slabCells);
        std::copy(plane + drop, plane + slabCells, plane);
        std::fill(plane + keep, plane + slabCells, 0.0f);
      }
    };
    std::vector<float> win(static_cast<std::size_t>(w[0] * w[1] * w[2]));
    const double windows = static_cast<double>(startsA.size() * startsB.size() * startsC.size());
    int done = 0;
    std::int64_t base = startsA.empty() ? 0 : startsA.front();
    for (const auto a : startsA) {
      if (a > base) {  // rows [base, a) are complete
        decide(base, std::min(a - base, w[0]));
        advance(a - base);
        base = a;
      }
      for (const auto b : startsB)
        for (const auto c : startsC) {
          if (progress && !progress(done++ / windows))
            return core::makeError(core::ErrorCode::Cancelled, "segmentation", "cancelled");
          for (std::int64_t i = 0; i < w[0]; ++i)
            for (std::int64_t j = 0; j < w[1]; ++j)
              std::copy_n(padded.data() + ((a + i) * p[1] + b + j) * p[2] + c, w[2], win.data() + (i * w[1] + j) * w[2]);
          const std::int64_t roi[3] = {w[0], w[1], w[2]};
          auto logits = model.evalLogits(win, roi, classes);
          if (!logits) return logits.error();
          if (logits->size() != win.size() * static_cast<std::size_t>(channels))
            return core::makeError(core::ErrorCode::InvalidArgument, "training", "the network returned the wrong size");
          for (int ch = 0; ch < channels; ++ch)
            for (std::int64_t i = 0; i < w[0]; ++i)
              for (std::int64_t j = 0; j < w[1]; ++j) {
                float* dst = sum.data() + static_cast<std::size_t>(ch) * static_cast<std::size_t>(slabCells) +
                             static_cast<std::size_t>((i * p[1] + b + j) * p[2] + c);
                const float* src = logits->data() + static_cast<std::size_t>(((ch * w[0] + i) * w[1] + j) * w[2]);
                for (std::int64_t k = 0; k < w[2]; ++k) dst[k] += src[k];
              }
        }
    }
    decide(base, w[0]);
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "training", "out of memory for the sliding window");
  }
}

core::Result<std::vector<std::pair<std::int64_t, double>>> validateCase(TrainableModel& model, const CaseCache& cache, std::size_t k,
                                                                        const TrainerSettings& settings) {
  const CaseInfo& info = cache.info(k);
  const auto voxels = static_cast<std::size_t>(info.size[0] * info.size[1] * info.size[2]);
  std::vector<float> image(voxels);
  std::vector<std::uint16_t> truth(voxels);
  if (core::Status s = cache.readBox(k, {0, 0, 0}, info.size, image.data(), truth.data()); !s) return s.error();
  const auto classes = classesFor(model, settings);
  auto predicted = segmentPrepared(model, image, info.size, windowFor(model, settings), settings.validationOverlap, classes);
  if (!predicted) return predicted.error();
  std::map<std::int64_t, std::array<std::int64_t, 3>> counts;  // class -> (both, truth, predicted)
  for (const auto c : classes) counts[c] = {0, 0, 0};
  for (std::size_t i = 0; i < voxels; ++i) {
    const std::int64_t t = truth[i], p = (*predicted)[i];
    if (t == p) {
      if (auto it = counts.find(t); it != counts.end()) ++it->second[0];
    }
    if (auto it = counts.find(t); it != counts.end()) ++it->second[1];
    if (auto it = counts.find(p); it != counts.end()) ++it->second[2];
  }
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& [c, n] : counts)
    if (n[1] > 0) out.emplace_back(c, 2.0 * static_cast<double>(n[0]) / static_cast<double>(n[1] + n[2]));
  return out;
}

core::Result<TrainResult> train(TrainableModel& model, const CaseCache& cache, const std::vector<std::size_t>& trainCases,
                                const std::vector<std::size_t>& validationCases, const TrainerSettings& givenSettings,
                                const ProgressFn& progress, CheckpointSink* sink, const std::atomic<bool>* cancel,
                                const ResumePoint& resume) {
  // The settings as this run uses them: a time budget changes the iterations once its probe has measured the steps.
  TrainerSettings settings = givenSettings;
  if (trainCases.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "training", "no training case");
  if (settings.iterations < 1) return core::makeError(core::ErrorCode::InvalidArgument, "training", "iterations must be at least 1");
  const bool vista = model.kind() == ModelKind::Vista3d;
  if (vista && settings.prompts.labelSet.empty())
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "VISTA-3D training needs a label set");
  model.setLoss(settings.loss);
  TrainResult result;
  result.validations = resume.validations;
  result.bestDice = resume.bestDice;
  int withoutGain = resume.validationsWithoutGain;
  PatchLoader loader(cache, trainCases, settings.patches);
  loader.start(resume.iteration);
  const auto runStart = Clock::now();
  auto reportStart = Clock::now();
  double lossSum = 0, lastLoss = 0;
  int lossCount = 0, skipped = 0;
  double lastStall = 0;
  int lastSaved = -1;

  // Saves, unless a weight is no longer finite (an overflow the loss has not shown yet): then the run stops and the
  // previous checkpoint stays the last.
  auto checkpoint = [&](int iteration, bool best, bool final) -> core::Status {
    if (!sink) return core::Status::success();
    const auto t0 = Clock::now();
    CheckpointState state;
    state.iteration = iteration;
    state.best = best;
    state.final = final;
    state.model = model.stateDict();
    for (const auto& t : state.model)
      for (const float v : t.values)
        if (!std::isfinite(v))
          return core::makeError(core::ErrorCode::InvalidArgument, "training",
                                 "iteration " + std::to_string(iteration) + ": the weights are no longer finite (" + t.name +
                                     "); the run stopped and its last good checkpoint is kept (lower the learning rate)");
    state.optimizer = model.optimizerState();
    state.validations = result.validations;
    state.bestDice = result.bestDice;
    state.validationsWithoutGain = withoutGain;
    sink->save(std::move(state));
    lastStall = since(t0);
    lastSaved = iteration;
    return core::Status::success();
  };

  auto validate = [&](int iteration, bool final) -> core::Status {
    if (validationCases.empty()) return checkpoint(iteration, false, final);
    const auto t0 = Clock::now();
    std::map<std::int64_t, std::pair<double, int>> perClass;
    for (const auto k : validationCases) {
      auto dice = validateCase(model, cache, k, settings);
      if (!dice) return dice.error();
      for (const auto& [c, d] : *dice) {
        perClass[c].first += d;
        ++perClass[c].second;
      }
    }
    Validation v;
    v.iteration = iteration;
    double sum = 0;
    for (const auto& [c, s] : perClass) {
      v.perClass.emplace_back(c, s.first / s.second);
      sum += s.first / s.second;
    }
    v.meanDice = perClass.empty() ? 0 : sum / static_cast<double>(perClass.size());
    v.seconds = since(t0);
    v.elapsedSeconds = since(runStart);
    result.validations.push_back(v);
    const bool better = v.meanDice > result.bestDice;
    if (better) {
      result.bestDice = v.meanDice;
      withoutGain = 0;
    } else {
      ++withoutGain;
    }
    return checkpoint(iteration, better, final);
  };

  int iteration = resume.iteration;
  const int probe = std::max(1, settings.budgetProbeIterations);
  const auto loopStart = Clock::now();
  // Over processes (the model joined other ranks) every rank ends at the same step: stopping (a signal, the budget,
  // an early stop) is proposed and takes effect after the next step's all-reduce, and rank 0's iteration count (a
  // time budget fits it there) reaches the others the same way.
  const bool parallel = model.dataParallel();
  int proposedIterations = settings.iterations;
  bool proposeStop = false, stopAfterStep = false;
  double reduceAtReport = 0;
  // The time budget: steps measured since the loop began without the validations and saves in between; n steps fit
  // with a validation every `validationInterval` of them and the final validation and save.
  auto fitToBudget = [&](int done, bool first) {
    double spent = 0;
    for (const auto& v : result.validations)
      if (v.iteration > resume.iteration) spent += v.seconds;
    const double stepSeconds = std::max(1e-6, (since(loopStart) - spent) / std::max(1, done - resume.iteration));
    const double validationSeconds = validationCases.empty() || result.validations.empty()
                                         ? 0.0 : result.validations.back().seconds;
    const double left = settings.timeBudgetSeconds - since(runStart);
    const double finalCost = validationSeconds + 2 * lastStall;
    const double perStep = stepSeconds + (settings.validationInterval > 0 ? validationSeconds / settings.validationInterval : 0.0);
    const double n = std::floor((left - finalCost) / perStep);
    if (first) result.budget.probeIterations = done - resume.iteration;
    result.budget.fitted = true;
    result.budget.secondsPerStep = stepSeconds;
    result.budget.validationSeconds = validationSeconds;
    result.budget.secondsLeft = left;
    const int fitted = done + static_cast<int>(std::clamp(n, 0.0, 1e7));
    result.budget.iterations = fitted;
    // Over processes the other ranks learn it with the next step's all-reduce, and every rank takes it after that
    // step: the next step runs on the old schedule everywhere, and the run has at least that step left.
    if (parallel) proposedIterations = std::max(fitted, done + 1);
    else settings.iterations = fitted;
  };
  for (; iteration < settings.iterations; ++iteration) {
    const bool cancelNow = cancel && cancel->load();
    // Behind the fit (slower steps than the probe's): stop at the budget, the weights validated and saved below.
    const bool budgetNow =
        settings.timeBudgetSeconds > 0 && result.budget.fitted && since(runStart) >= settings.timeBudgetSeconds;
    if (!parallel) {
      if (cancelNow) {
        result.cancelled = true;
        break;
      }
      if (budgetNow) {
        result.budget.budgetReached = true;
        break;
      }
    } else {
      model.proposeForNextStep(proposeStop || cancelNow || budgetNow, proposedIterations);
    }
    auto batch = loader.next();
    if (!batch) return batch.error();
    model.setLearningRate(learningRateAt(settings, iteration));
    core::Result<TrainableModel::StepResult> step = core::makeError(core::ErrorCode::InvalidArgument, "training", "no step");
    bool stepped = true;
    const std::int64_t size[3] = {batch->size[0], batch->size[1], batch->size[2]};
    if (vista) {
      // The prompts of batch i come from their own stream, so a resumed run samples the same ones.
      std::mt19937_64 rng(streamSeed(settings.patches.seed ^ 0x5157A3D1ull, static_cast<std::uint64_t>(iteration)));
      const VistaPrompts prompts = samplePrompts(batch->labels, size, settings.prompts, rng);
      if (prompts.promptClass.empty()) {  // no prompt in this patch: the bundle skips the step too
        ++skipped;
        stepped = false;
      } else {
        step = model.stepVista(batch->images, size, batch->labels, prompts);
      }
    } else {
      step = model.stepSegResNetDS(batch->images, batch->count, size, batch->labels);
    }
    if (stepped) {
      if (!step) return step.error();
      if (!step->finite)
        return core::makeError(core::ErrorCode::InvalidArgument, "training",
                               "iteration " + std::to_string(iteration + 1) + ": the loss is " +
                                   (std::isnan(step->loss) ? "NaN" : "infinite") +
                                   "; the run stopped and its last good checkpoint is kept (lower the learning rate)");
      if (step->skipped) ++skipped;
      lossSum += step->loss;
      ++lossCount;
      if (parallel) {
        result.allReduceSeconds += step->allReduceSeconds;
        ++result.allReduceSteps;
        if (step->agreedIterations > 0) settings.iterations = proposedIterations = step->agreedIterations;
        if (step->stopAgreed) {
          stopAfterStep = true;
          if (cancelNow || (cancel && cancel->load())) result.cancelled = true;
          else if (budgetNow) result.budget.budgetReached = true;
          else if (!proposeStop) result.cancelled = true;  // another rank's signal
        }
      }
    }
    const int done = iteration + 1;
    bool fittedNow = false;
    bool validatedForFit = false;
    if (settings.timeBudgetSeconds > 0 && !result.budget.fitted && done - resume.iteration >= probe) {
      // The probe is over: time a validation (a real one, recorded and saved), then fit the iterations.
      if (!validationCases.empty()) {
        if (core::Status s = validate(done, false); !s) return s.error();
        validatedForFit = true;
      }
      fitToBudget(done, true);
      fittedNow = true;
    }
    const bool validateNow =
        !validatedForFit && ((settings.validationInterval > 0 && done % settings.validationInterval == 0) ||
                             done == settings.iterations);
    if (validatedForFit && done == settings.iterations) {
      // The budget leaves no more steps: the probe's validation was of the final weights.
      if (core::Status s = checkpoint(done, false, true); !s) return s.error();
    } else if (validateNow) {
      if (core::Status s = validate(done, done == settings.iterations); !s) return s.error();
      // Each validation refits what is left with the steps measured so far (a probe on a busy machine misjudges).
      if (result.budget.fitted && done < settings.iterations) fitToBudget(done, false);
    } else if (!validatedForFit && settings.checkpointInterval > 0 && done % settings.checkpointInterval == 0) {
      if (core::Status s = checkpoint(done, false, false); !s) return s.error();
    }
    const bool report = validateNow || validatedForFit || fittedNow || since(reportStart) >= 1.0 ||
                        done == settings.iterations;
    if (report && progress) {
      Progress p;
      p.iteration = done;
      p.iterations = settings.iterations;
      p.loss = lossCount ? lossSum / lossCount : 0;
      p.learningRate = learningRateAt(settings, iteration);
      const double elapsed = since(runStart);
      p.iterationsPerSecond = elapsed > 0 ? (done - resume.iteration) / elapsed : 0;
      p.elapsedSeconds = elapsed;
      p.etaSeconds = p.iterationsPerSecond > 0 ? (settings.iterations - done) / p.iterationsPerSecond : 0;
      p.dataWaitFraction = elapsed > 0 ? loader.waitedSeconds() / elapsed : 0;
      const double sinceReport = since(reportStart);
      p.allReduceFraction = sinceReport > 0 ? (result.allReduceSeconds - reduceAtReport) / sinceReport : 0;
      reduceAtReport = result.allReduceSeconds;
      p.skippedSteps = skipped;
      p.validation = (validateNow || validatedForFit) && !validationCases.empty() ? &result.validations.back() : nullptr;
      p.budget = fittedNow ? &result.budget : nullptr;
      p.lastCheckpoint = sink ? sink->lastSaved() : std::string();
      p.lastSaveStallSeconds = lastStall;
      progress(p);
      lastLoss = p.loss;
      lossSum = 0;
      lossCount = 0;
      reportStart = Clock::now();
    }
    if (validateNow && settings.earlyStopPatience > 0 && withoutGain >= settings.earlyStopPatience) {
      result.earlyStopped = true;
      if (parallel) {
        proposeStop = true;  // the others stop with us after the next step
      } else {
        ++iteration;
        break;
      }
    }
    if (stopAfterStep) {
      ++iteration;
      break;
    }
  }
  result.iterations = std::min(iteration, settings.iterations);
  loader.stop();
  result.dataWaitSeconds = loader.waitedSeconds();
  result.wallSeconds = since(runStart);
  // A cancelled run keeps its work since the last save; an early stop saved at its last validation. The weights saved
  // when stopping are validated first (unless their last validation was of these very weights), so that the final
  // checkpoint, which is published, carries a Dice of its own and never an earlier validation's.
  if ((result.cancelled || result.budget.budgetReached) && result.iterations > resume.iteration &&
      result.iterations != lastSaved) {
    const bool validated = !result.validations.empty() && result.validations.back().iteration == result.iterations;
    if (!validationCases.empty() && !validated) {
      if (core::Status s = validate(result.iterations, true); !s) return s.error();
      if (progress) {
        Progress p;
        p.iteration = result.iterations;
        p.iterations = settings.iterations;
        p.loss = lossCount ? lossSum / lossCount : lastLoss;
        p.learningRate = learningRateAt(settings, std::max(0, result.iterations - 1));
        const double elapsed = since(runStart);
        p.iterationsPerSecond = elapsed > 0 ? (result.iterations - resume.iteration) / elapsed : 0;
        p.elapsedSeconds = elapsed;
        p.dataWaitFraction = elapsed > 0 ? result.dataWaitSeconds / elapsed : 0;
        p.skippedSteps = skipped;
        p.validation = &result.validations.back();
        p.lastCheckpoint = sink ? sink->lastSaved() : std::string();
        p.lastSaveStallSeconds = lastStall;
        progress(p);
      }
    } else if (core::Status s = checkpoint(result.iterations, false, true); !s) {
      return s.error();
    }
  }
  result.wallSeconds = since(runStart);
  return result;
}

}  // namespace delineate::inference::training
