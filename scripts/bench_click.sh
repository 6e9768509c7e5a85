#!/usr/bin/env bash
# Click latency benchmark (issue "Classic engine"): the classic click session beside ITK's ConfidenceConnected region
# growing on a 512x512x300 CT series built from ../shared/data/ct/tcia-crlm-ct-series (bench_make_ct_series, 1 mm
# slices), 2 cores. The objects are the bone pieces and lungs the classic automatic segmentation finds; the clicks
# follow the simulated-click protocol.
#
# Usage: bash scripts/bench_click.sh
# Environment: SLICES (300), SPACING (1.0), CLICKS (10), OBJECTS (8), BENCH_BUILD_DIR (build-bench), KEEP=1 keeps the
#              series, PROMPTS ("clicks"; e.g. "clicks box scribble": one run each on the same series). NO_PEER=1 builds without ITK (and then measures memory without the peer in the process).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
SLICES="${SLICES:-300}"
SPACING="${SPACING:-1.0}"
CLICKS="${CLICKS:-10}"
OBJECTS="${OBJECTS:-8}"
BUILD_DIR="${BENCH_BUILD_DIR:-build-bench}"

bash scripts/setup.sh
peer=ON
if [ "${NO_PEER:-0}" = 1 ]; then
  peer=OFF
elif ! dpkg-query -W -f='${Status}' libinsighttoolkit5-dev 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libinsighttoolkit5-dev
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bench_click.XXXXXX")"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "bench_click: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELINEATE_PEER_BENCH=$peer >"$work/configure.log" 2>&1 ||
  { tail -40 "$work/configure.log"; exit 1; }
cmake --build "$BUILD_DIR" --target bench_make_ct_series bench_click_latency
echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
"$BUILD_DIR/bench/bench_make_ct_series" "$work/series" --slices "$SLICES" --spacing "$SPACING" >/dev/null
for prompts in ${PROMPTS:-clicks}; do
  "$BUILD_DIR/bench/bench_click_latency" "$work/series" --clicks "$CLICKS" --objects "$OBJECTS" --prompts "$prompts"
done
