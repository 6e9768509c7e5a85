#!/usr/bin/env bash
# Builds Delineate's Debian packages (packaging/README.md) into build-package/packages/: delineate (the window),
# delineate-cli, delineate-torch (VISTA-3D and training, LibTorch), delineate-l10n, delineate-common, and their -dbgsym
# debug symbols. Then checks them: lintian (no errors; the warnings that remain are explained in packaging/README.md),
# desktop-file-validate and appstreamcli on the desktop entry and metainfo. A build folder of its own, without tests
# and benchmarks (the `package` preset).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
cmake --preset package >/dev/null
cmake --build --preset package
rm -rf build-package/packages
(cd build-package && cpack -G DEB -B packages)
cd build-package/packages
echo "package: checking"
desktop-file-validate "$root/packaging/desktop/org.delineate.Delineate.desktop"
appstreamcli validate --no-net ../packaging/generated/org.delineate.Delineate.metainfo.xml
lintian --fail-on error --suppress-tags initial-upload-closes-no-bugs ./*.deb
echo "package: built and checked:"
for f in ./*.deb ./*.ddeb; do
  printf '  %-48s %6.1f MB  (installed %s KiB)\n' "${f#./}" "$(awk -v s="$(stat -c %s "$f")" 'BEGIN {print s / 1e6}')" \
    "$(dpkg-deb -f "$f" Installed-Size)"
done
