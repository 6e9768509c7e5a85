#!/usr/bin/env bash
# Runs lupdate over the window's sources into translations/*.ts (new strings appear as unfinished; translate them,
# the GUI suite fails on any unfinished or empty message). Not the CMake update_translations target: Qt 6.4's lupdate
# refuses the project file it generates together with the -I the sources need ("Both project and source files /
# include paths specified"), and without -I it cannot resolve the classes' namespace and files strings under bare names.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
lupdate=/usr/lib/qt6/bin/lupdate
[ -x "$lupdate" ] || { echo "update_translations: $lupdate missing (bash scripts/setup.sh installs qt6-l10n-tools)" >&2; exit 1; }
"$lupdate" -no-obsolete -locations relative -I "$root" app/gui/*/*.cpp app/gui/*/*.h \
  -ts translations/delineate_de.ts translations/delineate_fr.ts translations/delineate_zh_CN.ts
grep -c 'type="unfinished"' translations/*.ts || true
