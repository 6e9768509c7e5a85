#!/usr/bin/env bash
# README command (b): set up, build everything and run every test through CTest; then build the io suite alone
# under AddressSanitizer + UndefinedBehaviorSanitizer and run it again (the bad-input tests: crafted DICOM, NIfTI,
# NRRD and MetaImage files must give errors, never memory errors). DELINEATE_SKIP_SANITIZE=1 skips the second pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$(date +%s)
bash scripts/build.sh
built=$(date +%s)
echo "test.sh: build took $((built - start)) s"
ctest --preset "${DELINEATE_PRESET:-default}"
tested=$(date +%s)
echo "test.sh: tests took $((tested - built)) s"
if [ "${DELINEATE_SKIP_SANITIZE:-0}" != "1" ]; then
  DELINEATE_PRESET=sanitize-io bash scripts/build.sh
  ctest --preset sanitize-io
  echo "test.sh: io suite under ASan+UBSan took $(( $(date +%s) - tested )) s (build included)"
fi
