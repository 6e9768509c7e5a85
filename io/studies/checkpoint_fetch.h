#pragma once
// Model checkpoints of the share as local files an engine opens (issue 25: a checkpoint is an engine). A revision is
// copied out hash-verified into this user's cache, named by its SHA-256 (revisions never change, so a copy there is
// reused), with its sidecar (the revision's JSON "extra": architecture, labels, preprocessing, metrics) beside it as
// .json, where inference/checkpoint_engine.h looks for it.

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct CheckpointReference {
  std::string root, model;
  int revision = 0;  // 0: the newest
};

// "share:ROOT#MODEL" or "share:ROOT#MODEL@REV"; nullopt for anything else (a file path).
std::optional<CheckpointReference> parseCheckpointReference(const std::string& text);
std::string formatCheckpointReference(const CheckpointReference& reference);

// The revision's local copy: CACHE/<sha256>/<model>-r<N><suffix> and its .json beside it (CACHE: `cacheFolder`,
// else userCacheFolder()/checkpoints). Errors: no such model or revision, a damaged revision (naming its file), the cache
// not writable.
core::Result<std::string> fetchCheckpoint(const ShareStore& store, const std::string& model, int revision,
                                          const std::string& cacheFolder = {});

// What a checkpoint revision's sidecar says, for the model registry (empty / 0 / -1 where it says nothing, or says it
// in another type: a note this version does not know is skipped, never an error).
struct CheckpointClassDice {
  int id = 0;  // the label id in the user's maps
  std::string name;
  double dice = 0;
};
struct CheckpointRevisionSummary {
  std::string model;
  int revision = 0;
  std::string architecture;
  int classes = 0;
  double bestDice = -1;              // the run's best validation up to these weights
  // The validation of these weights: the one at their iteration. Weights saved between validations (a run stopped
  // and resumed by an older delineate-train) have none: dice -1, no perClass, and lastValidationIteration names the
  // earlier weights' validation. Only a sidecar that gives no iteration falls back to the run's best validation.
  double dice = -1;
  int validatedIteration = 0;        // the iteration whose validation dice and perClass are (0: none)
  int lastValidationIteration = 0;   // not validated: the iteration of the newest validation before (0: none)
  int iteration = 0;                 // the training iteration the weights are from
  int iterations = 0;                // the run's planned iterations
  std::string dataset;               // the dataset it learnt from ("" : a case list file)
  int datasetRevision = 0;
  int trainCases = 0, validationCases = 0;
  std::string device, precision;
  std::string author, time, message;
  std::vector<CheckpointClassDice> perClass;  // that validation's Dice per structure, by id
};
// Fills `summary`'s sidecar fields from a revision's extra JSON.
void readCheckpointSidecarSummary(const std::string& extraJson, CheckpointRevisionSummary& summary);

// Every revision of `model` (every model when empty), by model name then revision, newest last. A model whose folder
// cannot be read is left out.
core::Result<std::vector<CheckpointRevisionSummary>> listCheckpointRevisions(const ShareStore& store, const std::string& model = {});

// "user on host" while a training run holds `model`'s lease (checkpoints/<model>/), else "".
std::string checkpointTrainingBy(const ShareStore& store, const std::string& model);

// The models of the share's checkpoints/ folder, each by its newest revision, for a chooser. Sorted by name; a model
// whose folder cannot be read is left out.
struct CheckpointModelSummary : CheckpointRevisionSummary {
  std::string trainingBy;  // "user on host" while a run holds the model's lease, else ""
};
core::Result<std::vector<CheckpointModelSummary>> listCheckpointModels(const ShareStore& store);

// A reference fetched (share:ROOT#MODEL[@REV]), a model of this machine's cache found (model:NAME, io/models), or a
// file path returned as it is. A pinned revision (@REV) whose share cannot be reached (not
// mounted, not answering with an error) is taken from the cache when one copy of that model and revision is there, and
// `note` says so; without a pin the newest revision must be asked of the share.
core::Result<std::string> resolveCheckpoint(const std::string& referenceOrPath, const std::string& cacheFolder = {},
                                            std::string* note = nullptr);

}  // namespace delineate::io
