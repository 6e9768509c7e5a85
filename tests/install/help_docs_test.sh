#!/usr/bin/env bash
# The man pages and bash completion that packaging/tools/help_docs.py generated at build time (BUILD_DIR/packaging/
# generated) against the programs' help as it is now: every command delineate-cli's help lists has its section in
# the page, man renders every page without a warning, and the completion completes commands, subcommands, options
# and an option's choices.
# Usage: help_docs_test.sh BUILD_DIR
set -euo pipefail
build="$1"
gen="$build/packaging/generated"
cli="$build/app/cli/delineate-cli"
fail() {
  echo "FAILED: $*"
  exit 1
}
page="$(mktemp)"
trap 'rm -f "$page"' EXIT
for man in "$gen"/man/*.1.gz; do
  warnings="$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$man" 2>&1 >/dev/null || true)"
  [ -z "$warnings" ] || fail "$(basename "$man"): man warns: $warnings"
done
zcat "$gen/man/delineate-cli.1.gz" >"$page"
help="$("$cli" --help)"
count=0
while IFS= read -r line; do
  [[ $line =~ ^\ \ ([a-z][a-z0-9-]*( [a-z][a-z0-9-]*)?) ]] || continue
  words=""
  for w in ${BASH_REMATCH[1]}; do [[ $w =~ ^[a-z][a-z0-9-]*$ ]] && words="${words:+$words }$w"; done
  first="${words%% *}"
  # "share save ROOT": two command words when the second is one of the group's commands, else one.
  if "$cli" "$first" --help 2>/dev/null | grep -q "^commands:"; then path="$words"; else path="$first"; fi
  grep -qx ".SS \"${path//-/\\\\-}\"" "$page" || fail "delineate-cli $path is in the help but not in the man page"
  count=$((count + 1))
done < <(printf '%s\n' "$help" | sed -n '/^commands:/,/^$/p')
[ "$count" -gt 40 ] || fail "only $count commands read from delineate-cli --help"
echo "man page: all $count commands of delineate-cli --help have their section"

complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _delineate_cli; echo "${COMPREPLY[*]}"' \
    _ "$gen/completion/delineate-cli" "$@"
}
check() {
  local want="$1"
  shift
  local got
  got="$(complete_words "$@")"
  [ "$got" = "$want" ] || fail "completing '$*' gave '$got', not '$want'"
}
check "share" delineate-cli sha
check "save show" delineate-cli share s
check "--device" delineate-cli segment x.nii.gz --dev
check "auto cpu cuda" delineate-cli segment x.nii.gz --device ""
check "echo find get move store listen" delineate-cli pacs ""
check "--format" delineate-cli info x.nii.gz --labels y.nii.gz --form
echo "completion: commands, subcommands, options and choices complete"
echo PASSED
