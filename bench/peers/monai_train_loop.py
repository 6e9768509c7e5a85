# The peer of scripts/bench_train_throughput.sh: MONAI's own modules in a plain Python training loop (no data loader:
# one fixed random batch, so the peer never waits for data), timed per iteration.
# Usage: python3 monai_train_loop.py MONAI_SOURCE MODEL THREADS ITERATIONS PATCH(X,Y,Z) [options as key=value]
#   MODEL segresnetds: init_filters=16 out_channels=38 batch=1
#   MODEL vista3d:     checkpoint=FILE (a state_dict of vista3d132(encoder_embed_dim=48)) classes=38
#                      max_foreprompt=4 max_backprompt=1 (prompts per step, as the run it is compared with)
import json
import sys
import time

import torch

sys.path.insert(0, sys.argv[1])
model_kind, threads, iterations = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
patch = [int(v) for v in sys.argv[5].split(",")]
opts = dict(a.split("=", 1) for a in sys.argv[6:])
torch.set_num_threads(threads)
torch.manual_seed(0)

if model_kind == "segresnetds":
    from monai.losses import DeepSupervisionLoss, DiceCELoss
    from monai.networks.nets.segresnet_ds import SegResNetDS

    classes = int(opts.get("out_channels", 38))
    batch = int(opts.get("batch", 1))
    net = SegResNetDS(spatial_dims=3, init_filters=int(opts.get("init_filters", 16)), in_channels=1, out_channels=classes,
                      blocks_down=(1, 2, 2, 4), norm="instance", dsdepth=4)
    loss_fn = DeepSupervisionLoss(DiceCELoss(include_background=True, to_onehot_y=True, softmax=True, squared_pred=True,
                                             smooth_nr=0, smooth_dr=1e-5), weight_mode="exp")
    x = torch.randn(batch, 1, *patch)
    y = torch.randint(0, classes, (batch, 1, *patch)).float()  # float: torch 1.13's interpolate refuses integers
    opt = torch.optim.AdamW(net.parameters(), lr=2e-4, weight_decay=1e-5)

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
else:
    from monai.apps.vista3d.sampler import sample_prompt_pairs
    from monai.losses import DiceCELoss
    from monai.networks.nets.vista3d import vista3d132

    net = vista3d132(encoder_embed_dim=48, in_channels=1)
    if "checkpoint" in opts:
        net.load_state_dict(torch.load(opts["checkpoint"]))
    classes = int(opts.get("classes", 38))
    fore, back = int(opts.get("max_foreprompt", 4)), int(opts.get("max_backprompt", 1))
    x = torch.randn(1, 1, *patch)
    y = torch.randint(0, classes, (1, 1, *patch))
    loss_fn = DiceCELoss(include_background=True, sigmoid=True, squared_pred=True, smooth_nr=0, smooth_dr=1e-5)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4, weight_decay=1e-5)

    def step():
        label_prompt, point, point_label, prompt_class = sample_prompt_pairs(
            y, list(range(classes)), max_point=5, max_foreprompt=fore, max_backprompt=back, drop_label_prob=0.25,
            drop_point_prob=0.25, include_background=False)
        opt.zero_grad()
        out = net(input_images=x, point_coords=point, point_labels=point_label, class_vector=label_prompt)
        loss = 0
        for i in range(len(prompt_class)):
            loss = loss + loss_fn(out[[i]].float(), (y == prompt_class[i]).float())
        loss = loss / max(len(prompt_class), 1)
        loss.backward()
        opt.step()

net.train()
times = []
for i in range(iterations + 1):
    t = time.time()
    step()
    if i > 0:  # the first step pays for allocations
        times.append(time.time() - t)
times.sort()
print(json.dumps({"peer": "monai", "model": model_kind, "iterationsPerSecond": 1 / times[len(times) // 2],
                  "medianSeconds": times[len(times) // 2], "iterations": len(times), "threads": threads}))
