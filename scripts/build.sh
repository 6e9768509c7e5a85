#!/usr/bin/env bash
# Set up (packages), configure and build. Extra arguments are passed to `cmake --build` (e.g. --target X).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
preset="${DELINEATE_PRESET:-default}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "$@"
