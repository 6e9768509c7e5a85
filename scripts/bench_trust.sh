#!/usr/bin/env bash
# Signature verification at share scale (issue 47): 10,000 signed records checked by `delineate-cli trust verify`,
# beside the same share unsigned and OpenSSL's own Ed25519 speed. Pass --records N for another size.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_trust delineate-cli >/dev/null
build/bench/bench_trust --cli "$root/build/app/cli/delineate-cli" --out "${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-trust}" "$@"
