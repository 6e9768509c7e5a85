#!/usr/bin/env bash
# Training memory against the cache budget (issue 25): a synthetic dataset ten times the budget (CASES cases of
# SIZE^3 int16 images with spheres as labels; prepared, each costs 6 bytes a voxel) trains twice with the same small
# network: once with a budget that holds it all, once with a budget of a tenth, where the rest spills to disk. Peak RSS
# of the whole process (/usr/bin/time), what stayed in memory and what spilled, and the speed of both runs.
# Usage: scripts/bench_train_memory.sh [BUILD_DIR]   (CASES=20 SIZE=192 ITERATIONS=20)
set -euo pipefail
source "$(dirname "$0")/bench_train_lib.sh"
cases="${CASES:-20}"; size="${SIZE:-192}"; iterations="${ITERATIONS:-20}"
work="$(mktemp -d /tmp/delineate-memory-XXXXXX)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work" "$cases" "$size" <<'PY'  # numpy: Debian's python3-numpy
import json, struct, sys
import numpy as np
work, cases, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def nifti(path, array, datatype, bitpix):
    x, y, z = array.shape
    h = bytearray(348)
    struct.pack_into("<i", h, 0, 348)
    struct.pack_into("<8h", h, 40, 3, x, y, z, 1, 1, 1, 1)
    struct.pack_into("<hh", h, 70, datatype, bitpix)
    struct.pack_into("<8f", h, 76, 1, 1, 1, 1, 1, 1, 1, 1)
    struct.pack_into("<f", h, 108, 352)          # vox_offset
    struct.pack_into("<ff", h, 112, 1, 0)        # scl_slope, scl_inter
    struct.pack_into("<hh", h, 252, 0, 1)        # qform_code, sform_code
    struct.pack_into("<4f", h, 280, -1, 0, 0, 0)  # srow_x (RAS: x to the left in LPS terms)
    struct.pack_into("<4f", h, 296, 0, -1, 0, 0)
    struct.pack_into("<4f", h, 312, 0, 0, 1, 0)
    h[344:348] = b"n+1\0"
    with open(path, "wb") as f:
        f.write(h + b"\0\0\0\0" + np.asfortranarray(array).tobytes(order="F"))

rng = np.random.default_rng(1)
g = np.indices((size, size, size)).astype(np.float32)
entries = []
for c in range(cases):
    labels = np.zeros((size, size, size), np.uint8)
    for k in range(1, 5):
        centre = rng.uniform(0.25, 0.75, 3) * size
        r = rng.uniform(0.06, 0.14) * size
        labels[((g[0] - centre[0])**2 + (g[1] - centre[1])**2 + (g[2] - centre[2])**2) < r * r] = k
    image = (rng.normal(100, 20, labels.shape) + 60 * labels).astype(np.int16)
    nifti(f"{work}/image{c}.nii", image, 4, 16)
    nifti(f"{work}/labels{c}.nii", labels, 2, 8)
    entries.append({"id": f"case{c:02d}", "image": f"{work}/image{c}.nii", "labels": f"{work}/labels{c}.nii", "split": "train"})
json.dump({"cases": entries}, open(f"{work}/cases.json", "w"))
PY
prepared=$(( cases * size * size * size * 6 / 1048576 ))
echo "training memory: $cases synthetic cases of ${size}^3, $prepared MB prepared; SegResNetDS 8 filters, patch 64^3, $iterations iterations"
run() {  # budget in MB -> "rss_mb resident_mb spilled_mb it/s"
  /usr/bin/time -v "$train" --cases "$work/cases.json" --out "$work/run$1" --iterations "$iterations" --validation-interval 0 \
    --patch 64,64,64 --init-filters 8 --memory-budget-mb "$1" --json > "$work/run$1.jsonl" 2> "$work/run$1.time"
  python3 -c '
import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = next(e for e in ev if e["event"] == "start"); d = next(e for e in ev if e["event"] == "done")
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[2]).read()).group(1)) / 1024
print("%.0f %.0f %.0f %.3f" % (rss, s["cacheResidentBytes"] / 1048576, s["cacheSpilledBytes"] / 1048576, d["iterations"] / d["wallSeconds"]))' \
    "$work/run$1.jsonl" "$work/run$1.time"
}
big=$(( prepared * 2 )); small=$(( prepared / 10 ))
read -r rss1 res1 sp1 it1 <<< "$(run $big)"
read -r rss2 res2 sp2 it2 <<< "$(run $small)"
echo "  budget $big MB (all in memory): peak RSS $rss1 MB, cache $res1 MB in memory, $sp1 MB spilled, $it1 it/s"
echo "  budget $small MB (a tenth):      peak RSS $rss2 MB, cache $res2 MB in memory, $sp2 MB spilled, $it2 it/s"
echo "  RSS saved by the budget: $(( rss1 - rss2 )) MB of the $(( prepared - small )) MB kept out of memory"
