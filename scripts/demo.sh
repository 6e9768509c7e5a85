#!/usr/bin/env bash
# README command (a): set up, build and run the main job on the bundled sample study.
# The main job is the workstation window on the sample CT with the classic engine's automatic labels (body, lungs,
# bone). Where there is no display it runs headless instead: the same window under a private Xvfb, written to a
# screenshot, and the per-label statistics printed. With a label map given as the first argument, that map is shown
# instead of the automatic one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target delineate-cli --target delineate
case "${DELINEATE_PRESET:-default}" in
  default) build=build ;;
  *) build="build-${DELINEATE_PRESET}" ;;
esac
sample="resources/sample/example_ct.nii.gz"
out="$build/demo"
mkdir -p "$out"
labels="${1:-}"
if [ -z "$labels" ]; then
  labels="$out/sample_labels.nii.gz"
  "$build/app/cli/delineate-cli" segment "$sample" "$labels"
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/gui/delineate" "$sample" --labels "$labels"
fi
echo "demo: no display: running the window headless under Xvfb"
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/gui/delineate" "$sample" --labels "$labels" \
  --screenshot "$out/window.png"
"$build/app/cli/delineate-cli" info "$sample" --labels "$labels"
echo "demo: the window as it opened is in $out/window.png"
