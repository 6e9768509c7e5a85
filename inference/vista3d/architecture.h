#pragma once
// The VISTA-3D state_dict layout (MONAI's vista3d132, SPEC.md sections 2 and 5): every parameter and buffer name
// with its shape, in state_dict order, for any width (48 official: 259 tensors, 217,965,054 values; 8 in the parity
// reference). The LibTorch module tree registers exactly these names; the strict checkpoint check below runs before
// any tensor is built, so a wrong file is refused with a report instead of a shape error deep inside torch.

#include <cstdint>
#include <string>
#include <vector>

#include "inference/vista3d/checkpoint_reader.h"

namespace delineate::inference::vista3d {

struct ParameterShape {
  std::string name;
  std::vector<std::int64_t> shape;
};

// Layout of vista3d132(encoder_embed_dim = width): SegResNetDS2 encoder with blocks (1, 2, 2, 4, 4) and two decoders,
// ClassMappingClassify (512 class embeddings), PointMappingSAM (two-way transformer of depth 2, MLP 512, attention
// downsampled by 2). Width must be even and positive.
std::vector<ParameterShape> vista3dLayout(int width);

struct KeyReport {
  std::vector<std::string> missing;     // in the layout, not in the checkpoint
  std::vector<std::string> unexpected;  // in the checkpoint, not in the layout
  std::vector<std::string> wrongShape;  // "name: checkpoint [a, b], expected [c, d]"
  std::vector<std::string> renamed;     // older names mapped ("...mlp.lin1.weight -> ...mlp.linear1.weight")
  bool ok() const { return missing.empty() && unexpected.empty() && wrongShape.empty(); }
  std::string describe() const;  // a readable multi-line report (at most 10 names per list)
};

// Strict key and shape check of a checkpoint against the layout. MONAI 1.3 research checkpoints name the
// transformer MLP layers lin1/lin2; those are mapped to linear1/linear2 (reported in `renamed`).
KeyReport checkKeys(const Checkpoint& checkpoint, const std::vector<ParameterShape>& layout);
// A key under today's name: MONAI 1.3 called the transformer MLP's layers mlp.lin1 / mlp.lin2 (now mlp.linear1 /
// mlp.linear2). The key check and the weight loader both go through it.
std::string canonicalKey(const std::string& name);

// The layout's width that fits a checkpoint (from its first convolution), or 0 when it has none.
int widthOf(const Checkpoint& checkpoint);

}  // namespace delineate::inference::vista3d
