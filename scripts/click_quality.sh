#!/usr/bin/env bash
# Click quality of the classic engine on every shared evaluation set (issue 22, item 3): `delineate-cli click-eval`,
# ten simulated clicks on every structure of each set, two sets at a time. Prints, per set and pooled, how many
# clicks after an object's first lowered its Dice by more than 0.05, and the mean Dice after 1, 3, 5 and 10 clicks.
#
# Usage: bash scripts/click_quality.sh            (builds delineate-cli first)
# Environment: CLI (a delineate-cli to measure instead of building one), CLICKS (10), SHARED (../shared),
# FIRST (deepest: the papers' first click at the deepest point; interior: where a user might click, seeded, SEED=1),
# PROMPTS (clicks; box: the challenge protocol, a box on the object's largest axial slice and then CLICKS clicks;
# scribble: strokes along the largest error's medial axis), SETS (a regular expression: the sets to run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
shared="${SHARED:-$root/../shared}"
clicks="${CLICKS:-10}"
first="${FIRST:-deepest}"
seed="${SEED:-1}"
prompts="${PROMPTS:-clicks}"
if [ -z "${CLI:-}" ]; then
  bash scripts/build.sh --target delineate-cli >/dev/null
  CLI="$root/build/app/cli/delineate-cli"
fi
d="$shared/data"
ts="$d/ct/totalseg-example"
mr="$d/mr/pyradiomics-mr-tumor"
mouse="$d/mouse/fvb-ncrl-in-vivo"
sets=(
  "brain1 $mr/brain1_image.nrrd $mr/brain1_label.nrrd"
  "breast1 $mr/breast1_image.nrrd $mr/breast1_label.nrrd"
  "ct-3mm $ts/example_ct_sm.nii.gz $ts/example_seg.nii.gz"
  "ct-1.5mm $ts/example_ct.nii.gz $ts/example_seg_fast_force_split.nii.gz"
  "mr $ts/example_mr_sm.nii.gz $ts/example_seg_mr.nii.gz"
)
for i in 1 2 3 4 5 6; do
  sets+=("mouse$i $mouse/template/FVB_NCrl_in_vivo_$i.nii.gz $mouse/label/FVB_NCrl_in_vivo_$i.nii.gz")
done
if [ -n "${SETS:-}" ]; then
  kept=()
  for s in "${sets[@]}"; do [[ "${s%% *}" =~ ^(${SETS})$ ]] && kept+=("$s"); done
  sets=("${kept[@]}")
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/click_quality.XXXXXX")"
trap 'rm -rf "$work"' EXIT
printf '%s\n' "${sets[@]}" | xargs -P 2 -L 1 bash -c \
  '/usr/bin/time -f "%e s, %M KB" "'"$CLI"'" click-eval "$1" "$2" --clicks '"$clicks"' --first '"$first"' --seed '"$seed"' --prompts '"$prompts"' >"'"$work"'/$0.txt" 2>"'"$work"'/$0.err" ||
   { echo "click_quality: $0 failed:"; cat "'"$work"'/$0.err"; exit 255; }'
echo "cpu: $(nproc) cores; prompts: $prompts, $clicks clicks per structure, first click: $first (seed $seed); a setback is a prompt lowering Dice by more than 0.05"
if [ "$prompts" = box ]; then columns="Dice box, +1, +3, +5 clicks"; picks="0 1 3 5"; else columns="Dice@1 @3 @5 @10"; picks="0 2 4 9"; fi
printf '%-9s %7s %9s %7s  %s\n' set objects setbacks share "$columns, wall time, peak RSS"
declare -A sum all ctmr
nobj=0
nctmr=0
total=0
setbacks=0
for s in "${sets[@]}"; do
  name="${s%% *}"
  f="$work/$name.txt"
  line="$(grep 'lowered Dice by more than' "$f")"
  n="$(sed -E 's/.*: ([0-9]+) of ([0-9]+).*/\1/' <<<"$line")"
  m="$(sed -E 's/.*: ([0-9]+) of ([0-9]+).*/\2/' <<<"$line")"
  objects=$(grep -cE "^ *[0-9]+ +[0-9]+ " "$f")
  read -r -a mean <<<"$(grep '^ mean' "$f" | sed 's/^ mean *//')"
  dice=""
  for k in $picks; do
    dice+="${mean[$k]:-} "
    all[$k]=$(awk -v a="${all[$k]:-0}" -v m="${mean[$k]:-0}" -v n="$objects" 'BEGIN{print a+m*n}')
    [[ "$name" == mouse* ]] || ctmr[$k]=$(awk -v a="${ctmr[$k]:-0}" -v m="${mean[$k]:-0}" -v n="$objects" 'BEGIN{print a+m*n}')
  done
  nobj=$((nobj + objects))
  [[ "$name" == mouse* ]] || nctmr=$((nctmr + objects))
  printf '%-9s %7d %4d/%-4d %6.1f%%  %s, %s\n' "$name" "$objects" "$n" "$m" "$(awk -v a="$n" -v b="$m" 'BEGIN{print b?100*a/b:0}')" \
    "$dice" "$(tail -1 "$work/$name.err")"
  total=$((total + m))
  setbacks=$((setbacks + n))
done
printf 'pooled: %d setbacks in %d prompts (%.1f%%)\n' "$setbacks" "$total" "$(awk -v a="$setbacks" -v b="$total" 'BEGIN{print b?100*a/b:0}')"
line="mean Dice over $nobj structures ($columns):"
for k in $picks; do line+=" $(awk -v a="${all[$k]}" -v n="$nobj" 'BEGIN{printf "%.3f", n?a/n:0}')"; done
echo "$line"
if [ "$nctmr" -gt 0 ]; then
  line="... over the $nctmr CT and MR structures:"
  for k in $picks; do line+=" $(awk -v a="${ctmr[$k]}" -v n="$nctmr" 'BEGIN{printf "%.3f", n?a/n:0}')"; done
  echo "$line"
fi
