# Loads a checkpoint Delineate wrote into MONAI's own SegResNetDS with torch.load(weights_only=True) and a strict
# load_state_dict, runs it in eval mode on an input, and saves the output: the C++ test compares it with its own.
# Usage: python3 segresnetds_from_checkpoint.py MONAI_SOURCE CHECKPOINT INPUT.npy OUTPUT.npy INIT_FILTERS OUT_CHANNELS DSDEPTH
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1])
from monai.networks.nets.segresnet_ds import SegResNetDS  # noqa: E402

torch.set_num_threads(1)
net = SegResNetDS(spatial_dims=3, init_filters=int(sys.argv[5]), in_channels=1, out_channels=int(sys.argv[6]),
                  blocks_down=(1, 2, 2, 4), norm="instance", dsdepth=int(sys.argv[7]))
state = torch.load(sys.argv[2], weights_only=True)
net.load_state_dict(state, strict=True)
net.eval()
with torch.no_grad():
    out = net(torch.from_numpy(np.load(sys.argv[3])))
np.save(sys.argv[4], out.numpy().astype(np.float32))
print("loaded", len(state), "tensors")
