#!/usr/bin/env bash
# Per-class quality of the classic engine's automatic CT segmentation (issue 23, item 4): bench_auto_quality on
# TotalSegmentator's two example CTs against their reference maps (bone = the union of its bone classes, lungs = the
# lobes, airway = the trachea; Dice, false-positive and missed volume, bone inside the reference's liver, spleen,
# kidneys, heart and vessels) and on the 41-slice contrast CT CRLM-CT-1004 (converted with delineate-cli; no
# reference: bone volume and the HU of its voxels).
#
# Usage: bash scripts/auto_quality.sh [--ppm FOLDER]   (builds bench_auto_quality and delineate-cli first; --ppm
#        writes the CRLM CT's axial slices with bone in red, for a look by eye)
# Environment: SHARED (../shared); BONE_HU, CORTICAL_HU, SHELL_HU, SHELL_PER_TISSUE, BONE_REACH_MM, TRABECULAR_COST
# override the bone options for a sweep.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
shared="${SHARED:-$root/../shared}"
bash scripts/build.sh --target bench_auto_quality delineate-cli >/dev/null
bench="$root/build/bench/bench_auto_quality"
cli="$root/build/app/cli/delineate-cli"
ts="$shared/data/ct/totalseg-example"
work="$(mktemp -d "${TMPDIR:-/tmp}/auto_quality.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$bench" "$ts/example_ct.nii.gz" "$ts/example_seg_fast_force_split.nii.gz"
echo
"$bench" "$ts/example_ct_sm.nii.gz" "$ts/example_seg.nii.gz"
echo
"$cli" convert "$shared/data/ct/tcia-crlm-ct-series/CRLM-CT-1004" "$work/crlm.nii.gz" >/dev/null
"$bench" "$work/crlm.nii.gz" "$@"
