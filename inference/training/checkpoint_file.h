#pragma once
// Checkpoints as PyTorch writes them (torch.save of a state_dict: a zip of data.pkl, one raw little-endian storage per
// tensor and a version record), written without Python or torch so that `torch.load` and MONAI's networks read ours
// (`model.load_state_dict(torch.load(path))`), and read back through the engine's checkpoint reader. Torch-free.
//
// The pickle holds only what a state_dict needs (collections.OrderedDict, torch._utils._rebuild_tensor_v2 and
// torch.FloatStorage: what torch.load's weights_only mode accepts). Storages are 64-byte aligned inside the zip, as
// torch aligns them, so a reader may map them. Files up to 4 GiB (no ZIP64).

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_source.h"
#include "inference/training/trainable.h"

namespace delineate::inference::training {

// Writes `tensors` (float32) to `path`, replacing it. Not atomic by itself: callers write a temporary name and
// rename. Errors name the path: cannot create, disk full, over 4 GiB.
core::Status writeTorchStateDict(const std::string& path, const std::vector<NamedTensor>& tensors);

// A new file for what a training run writes (checkpoints, sidecars, optimizer state), replacing one: through the
// program's file source (core/file_source.h: delineate-train's seals it with the user's at-rest key, owner-only),
// else created 0640 narrowed by the umask instead of 0666, so what was learnt from patient data is never readable by
// others (the rule of io/base/file_modes.h for files at a path the user chose; inference does not reach io). Errors
// name the path.
core::Result<std::unique_ptr<core::OutputFile>> createTrainingFile(const std::string& path);

// Every tensor of a torch.save state_dict (any float type converted to float32).
core::Result<std::vector<NamedTensor>> readStateDict(const std::string& path);

}  // namespace delineate::inference::training
