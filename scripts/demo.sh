#!/usr/bin/env bash
# README command (a): set up, build and run the main job on the bundled sample study.
# For now the main job is the CLI printing the study's geometry and per-label statistics of the classic engine's
# automatic segmentation (body, lungs, airways, bone); with a label map given as the first argument it reports that
# map instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target delineate-cli
sample="resources/sample/example_ct.nii.gz"
case "${DELINEATE_PRESET:-default}" in
  default) cli=build/app/cli/delineate-cli ;;
  *) cli="build-${DELINEATE_PRESET}/app/cli/delineate-cli" ;;
esac
if [ $# -ge 1 ]; then
  exec "$cli" info "$sample" --labels "$1"
fi
exec "$cli" info "$sample" --segment classic
