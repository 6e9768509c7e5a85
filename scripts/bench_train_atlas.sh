#!/usr/bin/env bash
# The mouse-atlas goal of training (issue 25): an atlas network (SegResNetDS) from scratch on subjects 1-4 of
# ../shared/data/mouse/fvb-ncrl-in-vivo (in-vivo T2 MRI, 37 structures), checkpoints chosen on subject 5, then the
# per-structure Dice of the chosen checkpoint on subjects 5 and 6 (6 is never seen in training or selection); the
# whole process's wall time and peak RSS on this machine, the validation Dice over time, the device's wait for data.
# Usage: scripts/bench_train_atlas.sh [BUILD_DIR]   (ITERATIONS=1000 DEVICE=cpu INIT_FILTERS= PATCH=96,96,80 OUT=dir)
set -euo pipefail
source "$(dirname "$0")/bench_train_lib.sh"
[ -d "$data" ] || { echo "bench_train_atlas: no mouse data at $data" >&2; exit 1; }
out="${OUT:-$(mktemp -d /tmp/delineate-atlas-XXXXXX)}"
mkdir -p "$out"
iterations="${ITERATIONS:-1000}"
device="${DEVICE:-cpu}"
patch="${PATCH:-96,96,80}"

python3 - "$data" "$out" "$iterations" "$device" "$patch" "${INIT_FILTERS:-}" <<'PY'
import json, sys
data, out, iterations, device, patch, filters = sys.argv[1:7]
cases = [{"id": f"FVB{i}", "image": f"{data}/template/FVB_NCrl_in_vivo_{i}.nii.gz",
          "labels": f"{data}/label/FVB_NCrl_in_vivo_{i}.nii.gz",
          "split": "train" if i <= 4 else ("validation" if i == 5 else "test")} for i in range(1, 7)]
json.dump({"cases": cases}, open(f"{out}/cases.json", "w"), indent=1)
config = {"cases": f"{out}/cases.json", "output": f"{out}/run", "labels": f"{data}/structure_label_list_hemisphere_separated.csv",
          "iterations": int(iterations), "validationInterval": max(1, int(iterations) // 10), "warmupIterations": 20,
          "patch": [int(v) for v in patch.split(",")], "device": device, "seed": 1, "keepLast": 2}
if filters:
    config["initFilters"] = int(filters)
json.dump(config, open(f"{out}/config.json", "w"), indent=1)
PY

echo "bench_train_atlas: training ($iterations iterations, patch $patch, $device) into $out"
/usr/bin/time -v "$train" --config "$out/config.json" --json > "$out/train.jsonl" 2> "$out/train.time"
best=$(python3 - "$out/run/checkpoints" <<'PY'
import glob, json, sys
best = None
for p in sorted(glob.glob(sys.argv[1] + "/it*.json")):
    j = json.load(open(p))
    if j.get("best"):
        best = p[:-5] + ".pt"
print(best)
PY
)
echo "bench_train_atlas: evaluating $best on subjects 1-6"
/usr/bin/time -v "$train" --config "$out/config.json" --evaluate "$best" > "$out/eval.json" 2> "$out/eval.time"

python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
events = [json.loads(l) for l in open(f"{out}/train.jsonl") if l.startswith("{")]
start = next(e for e in events if e["event"] == "start")
done = next(e for e in events if e["event"] == "done")
timing = open(f"{out}/train.time").read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", timing).group(1)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1)) / 1024
ev = json.load(open(f"{out}/eval.json"))
print(f"\nmouse atlas, SegResNetDS from scratch ({start['parameters']} parameters, patch {start['patch']}, {start['device']} {start['precision']})")
print(f"  training: {done['iterations']} iterations, {done['wallSeconds']/60:.1f} min in the loop, whole process {wall}, peak RSS {rss:.0f} MB")
print(f"  device waiting for data: {100*done['dataWaitSeconds']/done['wallSeconds']:.2f}% of the loop; prepare {start['prepareSeconds']:.1f} s")
print("  validation (subject 5) over time:")
for e in events:
    if e["event"] == "progress" and "validation" in e:
        v = e["validation"]
        print(f"    it {v['iteration']:5d}  {v['elapsedSeconds']/60:6.1f} min  mean Dice {v['meanDice']:.4f}")
print(f"  chosen checkpoint: {ev['checkpoint']}")
for cid in ("FVB5", "FVB6"):
    c = ev["cases"][cid]
    print(f"  {cid} ({c['split']}): mean Dice {c['meanDice']:.4f} over {len(c['perStructure'])} structures")
print("  per structure (FVB5 / FVB6):")
names = {k: v["name"] for k, v in ev["perStructure"].items()}
for k in sorted(names, key=int):
    d5 = ev["cases"]["FVB5"]["perStructure"].get(k, float("nan"))
    d6 = ev["cases"]["FVB6"]["perStructure"].get(k, float("nan"))
    print(f"    {int(k):3d} {names[k][:34]:34s} {d5:.3f} / {d6:.3f}")
train_cases = [c for c in ev["cases"].values() if c["split"] == "train"]
print(f"  training subjects' mean Dice (fit): {sum(c['meanDice'] for c in train_cases)/len(train_cases):.4f}")
PY
