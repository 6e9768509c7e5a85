#!/usr/bin/env bash
# Data-parallel training benchmark (issue 43): SegResNetDS on the mouse atlas, one process with batch 2 beside two
# ranks with batch 1 each (Gloo on loopback, the same global batch), whole processes, one run: seconds per step and
# the all-reduce's time and share of the step, from delineate-train's own JSON summary.
#
# Usage: bash scripts/bench_train_parallel.sh      Environment: ITERATIONS (60), PATCH (48), FILTERS (8), BUILD_DIR (build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
ITERATIONS="${ITERATIONS:-60}"
PATCH="${PATCH:-48}"
FILTERS="${FILTERS:-8}"
BUILD_DIR="${BUILD_DIR:-build}"
shared="$(cd "${DELINEATE_SHARED_DIR:-$root/../shared}/data/mouse/fvb-ncrl-in-vivo" && pwd)"

bash scripts/setup.sh >/dev/null
if [ "$BUILD_DIR" = build ]; then cmake --preset default >/dev/null; else cmake -S . -B "$BUILD_DIR" -G Ninja >/dev/null; fi
cmake --build "$BUILD_DIR" --target delineate-train >/dev/null
train="$(cd "$BUILD_DIR" && pwd)/app/train/delineate-train"
work="$(mktemp -d "${TMPDIR:-/tmp}/bench_train_parallel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cases="["
for n in 1 2 3 4; do
  cases+="{\"image\":\"$shared/template/FVB_NCrl_in_vivo_$n.nii.gz\",\"labels\":\"$shared/label/FVB_NCrl_in_vivo_$n.nii.gz\",\"split\":\"train\"},"
done
echo "{\"cases\":${cases%,}]}" >"$work/cases.json"
args=(--cases "$work/cases.json" --iterations "$ITERATIONS" --validation-interval 0 --patch "$PATCH,$PATCH,$PATCH"
      --init-filters "$FILTERS" --seed 7 --labels "$shared/structure_label_list_hemisphere_separated.csv" --json)
echo "machine: $(nproc) cores; SegResNetDS, ${FILTERS} filters, ${PATCH}^3 patches, $ITERATIONS steps, global batch 2"

summary() { grep '"event":"done"' "$1" | tail -1; }
report() {  # LABEL SUMMARY_FILE
  /usr/bin/python3 - "$1" "$2" "$ITERATIONS" <<'EOF'
import json, sys
label, path, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.loads(open(path).read())
step = s["wallSeconds"] / iterations
dp = s.get("dataParallel")
if dp:
    per = dp["allReduceSeconds"] / max(1, dp["allReduceSteps"])
    print(f"{label:<34} {step:6.3f} s/step   all-reduce {per*1000:7.1f} ms/step ({100*dp['allReduceFraction']:4.1f}% of the step)")
else:
    print(f"{label:<34} {step:6.3f} s/step")
EOF
}
# Each process gets the machine's cores shared out: 2 threads alone, 1 thread per rank.
"$train" "${args[@]}" --batch 2 --threads "$(nproc)" --out "$work/one" >"$work/one.log" 2>&1
summary "$work/one.log" >"$work/one.json"
report "1 process, batch 2" "$work/one.json"
port=$((20000 + RANDOM % 20000))
threads=$(( $(nproc) / 2 )); [ "$threads" -ge 1 ] || threads=1
RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$train" "${args[@]}" --batch 1 --threads "$threads" \
  --out "$work/two" >"$work/rank1.log" 2>&1 &
RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$train" "${args[@]}" --batch 1 --threads "$threads" \
  --out "$work/two" >"$work/rank0.log" 2>&1
wait
summary "$work/rank0.log" >"$work/two.json"
report "2 ranks x batch 1 (Gloo, loopback)" "$work/two.json"
params=$(grep -o '"parameters":[0-9]*' "$work/one.log" | head -1 | cut -d: -f2)
echo "gradient buffer: ${params:-?} parameters, $(( ${params:-0} * 4 / 1024 )) KiB per all-reduce"
