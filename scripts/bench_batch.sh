#!/usr/bin/env bash
# Cohort benchmark (issue 43): studies per hour with the classic engine on this machine, whole processes, one run:
#   - `delineate-cli batch` over the cohort (the engine loaded once, the next study read while one is segmented);
#   - the way without it: per study one `segment` process (engine loaded each time) and one `share save` of its
#     result, which is what a shell loop over a cohort does today;
#   - on a one-node Slurm of its own (tests/slurm/slurm_cluster.sh): the cohort as one array task, and as one array
#     task per study (one at a time), whose difference per task is the overhead of an array task (scheduling, start,
#     opening the share and loading the engine).
# The cohort: the shared data's 6 mouse MRIs, 5 CT/MR volumes and the 41-slice CRLM CT, each imported as a study,
# repeated COPIES times under other study names (default 2: 24 studies).
#
# Usage: bash scripts/bench_batch.sh        Environment: COPIES (2), BUILD_DIR (build), BENCH_TMP (/var/tmp)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
COPIES="${COPIES:-2}"
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_TMP="${BENCH_TMP:-/var/tmp}"
shared="$(cd "${DELINEATE_SHARED_DIR:-$root/../shared}/data" && pwd)"

bash scripts/setup.sh >/dev/null
if [ "$BUILD_DIR" = build ]; then cmake --preset default >/dev/null; else cmake -S . -B "$BUILD_DIR" -G Ninja >/dev/null; fi
cmake --build "$BUILD_DIR" --target delineate-cli >/dev/null
cli="$(cd "$BUILD_DIR" && pwd)/app/cli/delineate-cli"

work="$(mktemp -d "$BENCH_TMP/bench_batch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
mkdir -p "$work/in"
files=("$shared"/mouse/fvb-ncrl-in-vivo/template/*.nii.gz "$shared"/ct/totalseg-example/example_ct.nii.gz
       "$shared"/ct/totalseg-example/example_ct_sm.nii.gz "$shared"/ct/totalseg-example/example_mr_sm.nii.gz
       "$shared"/mr/pyradiomics-mr-tumor/brain1_image.nrrd "$shared"/mr/pyradiomics-mr-tumor/breast1_image.nrrd)
mkdir -p "$work/store"
"$cli" share init "$work/store" >/dev/null
# A DICOM CT to a volume once (the loop's `segment` then reads the same image the batch reads from the share).
"$cli" convert "$shared/ct/tcia-crlm-ct-series/CRLM-CT-1004" "$work/crlm.nii.gz" >/dev/null
files+=("$work/crlm.nii.gz")
studies=()
for copy in $(seq 1 "$COPIES"); do
  for f in "${files[@]}"; do
    base="$(basename "$f")"
    name="c${copy}-${base%%.*}"
    cp "$f" "$work/in/$name.${base#*.}"
    "$cli" study import "$work/store" "$work/in/$name.${base#*.}" --study "$name" >/dev/null
    studies+=("$name")
  done
done
n=${#studies[@]}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs); cohort: $n studies"

measure() {  # LABEL COMMAND...: wall seconds and peak RSS of the whole command
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  read -r secs rss <"$work/time"
  printf "%-44s %7.1f s  %6.0f studies/h  peak RSS %4d MB\n" "$label" "$secs" "$(echo "$n * 3600 / $secs" | bc -l)" \
    "$((rss / 1024))"
}

measure "batch (one process)" "$cli" batch "$work/store" --label-set batch --all
loop() {
  for s in "${studies[@]}"; do
    f=$(ls "$work/in/$s".*)
    "$cli" segment "$f" "$work/out.nii.gz" >/dev/null
    "$cli" share save "$work/store" "$s" loop "$work/out.nii.gz" >/dev/null
  done
}
export cli work
studies_text="${studies[*]}"
measure "segment + share save per study (2n processes)" bash -c "studies=($studies_text); $(declare -f loop); loop"

# Slurm: the cohort as one task, then one task per study, one at a time.
cat >"$work/slurm.sh" <<EOF
set -e
run() {  # TASKS LABEL
  local dir="$work/job-\$1"
  local start=\$(date +%s.%N)
  "$cli" batch "$work/store" --label-set "slurm\$1" --all --slurm --job-dir "\$dir" --array-tasks "\$1" --max-running 1 >/dev/null
  while squeue -h | grep -q .; do sleep 0.2; done
  local end=\$(date +%s.%N)
  echo "\$1 \$(echo "\$end - \$start" | bc -l)"
}
run 1 > "$work/slurm1"
run $n > "$work/slurmN"
EOF
bash tests/slurm/slurm_cluster.sh bash "$work/slurm.sh" >/dev/null 2>&1
read -r _ one <"$work/slurm1"
read -r _ many <"$work/slurmN"
printf "%-44s %7.1f s  %6.0f studies/h\n" "Slurm array, 1 task (submit to last squeue)" "$one" "$(echo "$n * 3600 / $one" | bc -l)"
printf "%-44s %7.1f s  %6.0f studies/h\n" "Slurm array, $n tasks one at a time" "$many" "$(echo "$n * 3600 / $many" | bc -l)"
printf "array task overhead: %.2f s per task\n" "$(echo "($many - $one) / ($n - 1)" | bc -l)"
