# Sourced by scripts/bench_train_*.sh: the build's delineate-train and the mouse data, checked.
# Sets: here, build (first argument, default ../build), shared, data (the mouse subjects), train (delineate-train).
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shared="${DELINEATE_SHARED_DIR:-$here/../../shared}"
data="$shared/data/mouse/fvb-ncrl-in-vivo"
train="$build/app/train/delineate-train"
bench_name="$(basename "$0" .sh)"
[ -x "$train" ] || { echo "$bench_name: build delineate-train first ($train)" >&2; exit 1; }
