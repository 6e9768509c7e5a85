#!/usr/bin/env bash
# Training throughput beside MONAI in one run (issue 25). Ours: delineate-train end to end on the mouse MRIs of
# ../shared/data/mouse (real patches, augmentation on worker threads); the figure is iterations per second between
# its first and last progress report, and the share of that time the step waited for data. The peer: MONAI's own
# SegResNetDS (and, with VISTA=1, VISTA-3D at the official width) in a plain Python loop on one fixed random batch
# (bench/peers/monai_train_loop.py; it never waits for data). Same network, patch, batch and thread count.
# Usage: scripts/bench_train_throughput.sh [BUILD_DIR]   (THREADS=2 ITERATIONS=12 PATCH=96,96,80 FILTERS=16 VISTA=0)
set -euo pipefail
source "$(dirname "$0")/bench_train_lib.sh"
threads="${THREADS:-2}"; iterations="${ITERATIONS:-12}"; patch="${PATCH:-96,96,80}"; filters="${FILTERS:-16}"
work="$(mktemp -d /tmp/delineate-throughput-XXXXXX)"
trap 'rm -rf "$work"' EXIT
tar xzf "$shared/reference/monai/monai-d388d1c.tar.gz" -C "$work" monai
python3 - "$data" "$work" <<'PY'
import json, sys
data, work = sys.argv[1:3]
json.dump({"cases": [{"id": f"FVB{i}", "image": f"{data}/template/FVB_NCrl_in_vivo_{i}.nii.gz",
                      "labels": f"{data}/label/FVB_NCrl_in_vivo_{i}.nii.gz", "split": "train"} for i in range(1, 5)]},
          open(f"{work}/cases.json", "w"))
PY
rate() {  # iterations per second between the first and the last progress report of a --json run
  python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
p = [e for e in ev if e["event"] == "progress"]
a, b = p[0], p[-1]
done = next(e for e in ev if e["event"] == "done")
print("%.4f %.2f" % ((b["iteration"] - a["iteration"]) / (b["elapsedSeconds"] - a["elapsedSeconds"]), 100 * done["dataWaitSeconds"] / done["wallSeconds"]))' "$1"
}
echo "training throughput, $threads threads, patch $patch, batch 1 ($(nproc) cores here)"
"$train" --cases "$work/cases.json" --out "$work/ours" --iterations "$iterations" --validation-interval 0 \
  --patch "$patch" --init-filters "$filters" --threads "$threads" --labels "$data/structure_label_list_hemisphere_separated.csv" \
  --json > "$work/ours.jsonl"
read -r ours wait <<< "$(rate "$work/ours.jsonl")"
peer=$(/usr/bin/python3 "$here/../bench/peers/monai_train_loop.py" "$work" segresnetds "$threads" 4 "$patch" \
  init_filters="$filters" out_channels=38 2>/dev/null | python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["iterationsPerSecond"])')
python3 -c "import sys; o, p, w = map(float, sys.argv[1:4]); print(f'  SegResNetDS ({sys.argv[4]} filters, 38 classes): ours {o:.3f} it/s (waiting for data {w:.2f}% of the loop), MONAI {p:.3f} it/s: {o/p:.2f}x')" \
  "$ours" "$peer" "$wait" "$filters"
if [ "${VISTA:-0}" = 1 ]; then
  vpatch="${VPATCH:-64,64,64}"
  /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$work')
import torch
from monai.networks.nets.vista3d import vista3d132
torch.manual_seed(0)
torch.save(vista3d132(encoder_embed_dim=48, in_channels=1).state_dict(), '$work/vista.pt')" 2>/dev/null
  python3 - "$data" "$work" <<'PY'
import json, sys
data, work = sys.argv[1:3]
ids = [i for i in range(1, 41) if i not in (22, 30, 37)]
json.dump({"model": "vista3d", "checkpoint": f"{work}/vista.pt", "labelMapping": [[i, 133 + k] for k, i in enumerate(ids)],
           "spacing": [0.3, 0.3, 0.3], "intensity": "zscore", "maxForeprompt": 4, "maxBackprompt": 1},
          open(f"{work}/vista.json", "w"))
PY
  "$train" --config "$work/vista.json" --cases "$work/cases.json" --out "$work/vista" --iterations "${VITERATIONS:-4}" \
    --validation-interval 0 --patch "$vpatch" --threads "$threads" --json > "$work/vista.jsonl"
  read -r vours vwait <<< "$(rate "$work/vista.jsonl")"
  vpeer=$(/usr/bin/python3 "$here/../bench/peers/monai_train_loop.py" "$work" vista3d "$threads" 3 "$vpatch" \
    checkpoint="$work/vista.pt" classes=38 max_foreprompt=4 max_backprompt=1 2>/dev/null | python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["iterationsPerSecond"])')
  python3 -c "import sys; o, p, w = map(float, sys.argv[1:4]); print(f'  VISTA-3D (width 48, patch {sys.argv[4]}): ours {o:.3f} it/s (waiting for data {w:.2f}%), MONAI {p:.3f} it/s: {o/p:.2f}x')" \
    "$vours" "$vpeer" "$vwait" "$vpatch"
fi
