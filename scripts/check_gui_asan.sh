#!/usr/bin/env bash
# The window's tests once under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (issue 7 asks for one
# run under a memory checker): a Debug build of test_gui and test_viewer alone in build-asan-gui/, run with leak
# checking; only Mesa/X/fontconfig caches are suppressed (tests/gui_support/lsan_system.supp).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
cmake -S . -B build-asan-gui -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDELINEATE_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" >/dev/null
cmake --build build-asan-gui --target test_gui test_viewer
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$root/tests/gui_support/lsan_system.supp:print_suppressions=0"
env -u DISPLAY build-asan-gui/tests/test_viewer
# "~[program]" alone would also pick the hidden hung-share cases, which need the sshfs harness (run below).
env -u DISPLAY build-asan-gui/tests/test_gui "~[program]~[.share-hang]"
# The cases that start the program itself: its memory errors are still checked, but not its leaks, which LSan
# attributes (2 x 56 bytes, indirect) to an address outside every loaded module, which no suppression can name
# (most likely code compiled at run time by Mesa's llvmpipe; not established).
ASAN_OPTIONS=detect_leaks=0 env -u DISPLAY build-asan-gui/tests/test_gui "[program]"
# The save to a share that hangs or goes away mid-write, on a real sshfs mount (skipped, status 77, without FUSE).
env -u DISPLAY bash tests/io/sshfs_share_suite.sh build-asan-gui/tests/test_gui -w NoTests "[.share-hang]" || {
  status=$?
  [ "$status" = 77 ] || exit "$status"
}
