#!/usr/bin/env bash
# Model-guided refinement on the mouse atlas (issue 45): a trained atlas network segments subjects it did not learn
# from, then `delineate-cli click-eval` corrects every structure with simulated clicks, (a) model-guided (the
# network's probabilities, --engine) and (b) by the classic engine on the same start (--start, intensities only).
# Prints, per subject and pooled: the model's Dice alone, after 1, 3 and 5 clicks, and how many clicks lowered a
# structure's Dice by more than 0.01 and 0.05.
#
# Usage: bash scripts/guided_quality.sh CHECKPOINT [SUBJECT...]   (subjects 5 6 by default: train on 1-4)
# Environment: CLI (a delineate-cli to measure instead of building one), CLICKS (5), SHARED (../shared).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ $# -ge 1 ] || { echo "usage: bash scripts/guided_quality.sh CHECKPOINT [SUBJECT...]" >&2; exit 2; }
checkpoint="$1"
shift
subjects=("$@")
[ ${#subjects[@]} -gt 0 ] || subjects=(5 6)
shared="${SHARED:-$root/../shared}"
clicks="${CLICKS:-5}"
if [ -z "${CLI:-}" ]; then
  bash scripts/build.sh --target delineate-cli delineate_vista3d_plugin >/dev/null
  CLI="$root/build/app/cli/delineate-cli"
fi
mouse="$shared/data/mouse/fvb-ncrl-in-vivo"
work="$(mktemp -d "${TMPDIR:-/tmp}/guided_quality.XXXXXX")"
trap 'rm -rf "$work"' EXIT
summary() {  # file -> "start @1 @3 @5 | later small big"
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["meanDice"]
s = d["setbacks"]
print(f'{d["meanStartDice"]:.3f} {m[0]:.3f} {m[2]:.3f} {m[4]:.3f} {s["laterClicks"]} {s["small"]["count"]} {s["count"]} {len(d["objects"])}')
EOF
}
echo "cpu: $(nproc) cores; model: $checkpoint; $clicks clicks per structure at the largest error"
printf '%-8s %-13s %9s %6s %6s %6s  %s\n' subject refinement structures start @1 @3 "@5, clicks lowering Dice by >0.01 / >0.05, wall time"
for n in "${subjects[@]}"; do
  image="$mouse/template/FVB_NCrl_in_vivo_$n.nii.gz"
  labels="$mouse/label/FVB_NCrl_in_vivo_$n.nii.gz"
  t0=$(date +%s.%N)
  "$CLI" click-eval "$image" "$labels" --engine "$checkpoint" --device cpu --clicks "$clicks" --json >"$work/guided$n.json" 2>"$work/guided$n.err" ||
    { cat "$work/guided$n.err"; exit 1; }
  t1=$(date +%s.%N)
  "$CLI" segment "$image" "$work/start$n.nii.gz" --engine "$checkpoint" --device cpu 2>"$work/segment$n.err" ||
    { cat "$work/segment$n.err"; exit 1; }
  t2=$(date +%s.%N)
  "$CLI" click-eval "$image" "$labels" --start "$work/start$n.nii.gz" --clicks "$clicks" --json >"$work/classic$n.json" 2>"$work/classic$n.err" ||
    { cat "$work/classic$n.err"; exit 1; }
  t3=$(date +%s.%N)
  for kind in guided classic; do
    read -r start d1 d3 d5 later small big objects <<<"$(summary "$work/$kind$n.json")"
    if [ "$kind" = guided ]; then secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}'); label=model-guided; else secs=$(awk -v a="$t2" -v b="$t3" 'BEGIN{printf "%.1f", b-a}'); label=classic; fi
    printf '%-8s %-13s %9s %6s %6s %6s  %s, %d/%d (%.1f%%) / %d (%.1f%%), %s s\n' "mouse$n" "$label" "$objects" "$start" "$d1" "$d3" "$d5" \
      "$small" "$later" "$(awk -v a="$small" -v b="$later" 'BEGIN{print b?100*a/b:0}')" "$big" "$(awk -v a="$big" -v b="$later" 'BEGIN{print b?100*a/b:0}')" "$secs"
  done
done
python3 - "$work" "${subjects[@]}" <<'EOF'
import json, sys, os
work, subjects = sys.argv[1], sys.argv[2:]
for kind in ("guided", "classic"):
    objs = []
    later = small = big = 0
    for n in subjects:
        d = json.load(open(os.path.join(work, f"{kind}{n}.json")))
        objs += d["objects"]
        later += d["setbacks"]["laterClicks"]; small += d["setbacks"]["small"]["count"]; big += d["setbacks"]["count"]
    mean = lambda k: sum(o["dice"][k] for o in objs) / len(objs)
    start = sum(o["startDice"] for o in objs) / len(objs)
    ms = sorted(c["latencyMs"] for o in objs for c in o["clicks"])
    pct = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))] if ms else 0.0
    print(f"pooled {kind:8s} {len(objs)} structures: start {start:.3f}, @1 {mean(0):.3f}, @3 {mean(2):.3f}, @5 {mean(4):.3f}; "
          f"clicks lowering Dice by >0.01: {small}/{later} ({100*small/max(1,later):.1f}%), by >0.05: {big} ({100*big/max(1,later):.1f}%); "
          f"per click p50 {pct(0.5):.1f} ms, p95 {pct(0.95):.1f} ms")
EOF
