# The peer of scripts/bench_train_throughput.sh: MONAI's own modules in a plain Python training loop (no data loader:
# one fixed random batch, so the peer never waits for data), timed per iteration.
# Usage: python3 monai_train_loop.py MONAI_SOURCE MODEL THREADS ITERATIONS PATCH(X,Y,Z) [options as key=value]
#   MODEL segresnetds: init_filters=16 out_channels=38 batch=1
#   MODEL vista3d:     checkpoint=FILE (a state_dict of vista3d132(encoder_embed_dim=48)) classes=38
#                      max_foreprompt=4 max_backprompt=1 (prompts per step, as the run it is compared with)
#                      save_init=FILE (writes the random initial state_dict there, for ours to start from)
#   both:              device=cpu|cuda precisions=fp32[,bf16,fp16] (CUDA: autocast, fp16 with torch's GradScaler;
#                      one JSON line per precision, each from the same initial weights)
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
device = torch.device(opts.get("device", "cpu"))
precisions = opts.get("precisions", "fp32").split(",")
if device.type == "cuda":
    torch.backends.cudnn.benchmark = True

if model_kind == "segresnetds":
    from monai.losses import DeepSupervisionLoss, DiceCELoss
    from monai.networks.nets.segresnet_ds import SegResNetDS

    classes = int(opts.get("out_channels", 38))
    batch = int(opts.get("batch", 1))
    net = SegResNetDS(spatial_dims=3, init_filters=int(opts.get("init_filters", 16)), in_channels=1, out_channels=classes,
                      blocks_down=(1, 2, 2, 4), norm="instance", dsdepth=4)
    loss_fn = DeepSupervisionLoss(DiceCELoss(include_background=True, to_onehot_y=True, softmax=True, squared_pred=True,
                                             smooth_nr=0, smooth_dr=1e-5), weight_mode="exp")
    x = torch.randn(batch, 1, *patch).to(device)
    y = torch.randint(0, classes, (batch, 1, *patch)).float().to(device)  # float: torch 1.13's interpolate refuses integers
    lr = 2e-4

    def forward_loss():
        return loss_fn(net(x), y)
else:
    from monai.apps.vista3d.sampler import sample_prompt_pairs
    from monai.losses import DiceCELoss
    from monai.networks.nets.vista3d import vista3d132

    net = vista3d132(encoder_embed_dim=48, in_channels=1)
    if "checkpoint" in opts:
        net.load_state_dict(torch.load(opts["checkpoint"]))
    if "save_init" in opts:
        torch.save(net.state_dict(), opts["save_init"])
    classes = int(opts.get("classes", 38))
    fore, back = int(opts.get("max_foreprompt", 4)), int(opts.get("max_backprompt", 1))
    x = torch.randn(1, 1, *patch).to(device)
    y = torch.randint(0, classes, (1, 1, *patch)).to(device)
    loss_fn = DiceCELoss(include_background=True, sigmoid=True, squared_pred=True, smooth_nr=0, smooth_dr=1e-5)
    lr = 1e-4

    def forward_loss():
        label_prompt, point, point_label, prompt_class = sample_prompt_pairs(
            y, list(range(classes)), max_point=5, max_foreprompt=fore, max_backprompt=back, drop_label_prob=0.25,
            drop_point_prob=0.25, include_background=False)
        out = net(input_images=x, point_coords=point, point_labels=point_label, class_vector=label_prompt)
        loss = 0
        for i in range(len(prompt_class)):
            loss = loss + loss_fn(out[[i]].float(), (y == prompt_class[i]).float())
        return loss / max(len(prompt_class), 1)

net = net.to(device)
initial = {k: v.clone() for k, v in net.state_dict().items()}
for precision in precisions:
    net.load_state_dict(initial)
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-5)
    amp = precision != "fp32"
    dtype = torch.float16 if precision == "fp16" else torch.bfloat16
    scaler = None
    if precision == "fp16":
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()

    def step():
        opt.zero_grad()
        with torch.autocast(device_type=device.type, dtype=dtype, enabled=amp):
            loss = forward_loss()
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()

    times = []
    warm = 1 if device.type == "cpu" else 3  # the first steps pay for allocations (and cuDNN's choices)
    for i in range(iterations + warm):
        t = time.time()
        step()
        if i >= warm:
            times.append(time.time() - t)
    times.sort()
    line = {"peer": "monai", "model": model_kind, "iterationsPerSecond": 1 / times[len(times) // 2],
            "medianSeconds": times[len(times) // 2], "iterations": len(times), "threads": threads}
    if device.type == "cuda":
        line.update(precision=precision, device=torch.cuda.get_device_name(0), torch=torch.__version__,
                    peakMemoryMB=torch.cuda.max_memory_allocated() / 2**20)
    print(json.dumps(line), flush=True)
