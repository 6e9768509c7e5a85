#!/usr/bin/env bash
# PACS benchmark (issue 42): a 512-slice CT series retrieved from a real Orthanc on loopback and through a 2 ms
# round trip (scripts/latency_proxy.py, 1 ms each way, in front of Orthanc's DICOM and HTTP ports and of our storage
# SCP for C-MOVE), by our C-GET, C-MOVE and WADO-RS (delineate-cli pacs get|move, whole process) beside DCMTK's
# getscu and movescu and a plain curl download of the same series, in one run; then a C-FIND of 1,000 studies (time
# to the full list) by delineate-cli beside DCMTK's findscu. Each figure is the median of REPEATS runs, wall time
# and peak RSS of the whole process (/usr/bin/time).
#
# Usage: bash scripts/bench_pacs.sh
# Environment: REPEATS (3), SLICES (512), STUDIES (1000), BUILD_DIR (build), BENCH_TMP (/var/tmp)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
REPEATS="${REPEATS:-3}"
SLICES="${SLICES:-512}"
STUDIES="${STUDIES:-1000}"
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_TMP="${BENCH_TMP:-/var/tmp}"

bash scripts/setup.sh >/dev/null
if [ "$BUILD_DIR" = build ]; then cmake --preset default >/dev/null; else cmake -S . -B "$BUILD_DIR" -G Ninja >/dev/null; fi
cmake --build "$BUILD_DIR" --target delineate-cli bench_make_ct_series >/dev/null
cli="$root/$BUILD_DIR/app/cli/delineate-cli"

work="$(mktemp -d "$BENCH_TMP/delineate-bench-pacs-XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dicom_port=$(free_port); http_port=$(free_port); scp_port=$(free_port)
proxy_dicom=$(free_port); proxy_http=$(free_port); proxy_scp=$(free_port); movescu_port=$(free_port)

cat > "$work/orthanc.json" <<JSON
{ "Name": "bench", "StorageDirectory": "$work/db", "IndexDirectory": "$work/db",
  "HttpPort": $http_port, "DicomPort": $dicom_port, "DicomAet": "ORTHANC", "RemoteAccessAllowed": false,
  "AuthenticationEnabled": false, "HttpCompressionEnabled": false,
  "Plugins": ["/usr/share/orthanc/plugins/libOrthancDicomWeb.so"], "DicomWeb": {"Enable": true, "Root": "/dicom-web/"},
  "DicomModalities": { "us": ["DELINEATE", "127.0.0.1", $scp_port], "usdelayed": ["DLPROXY", "127.0.0.1", $proxy_scp],
                       "movescu": ["MOVESCU", "127.0.0.1", $movescu_port] } }
JSON
Orthanc "$work/orthanc.json" >"$work/orthanc.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$http_port/system" >/dev/null && break; sleep 0.05; done

for pair in "$proxy_dicom:$dicom_port" "$proxy_http:$http_port" "$proxy_scp:$scp_port"; do
  python3 scripts/latency_proxy.py --listen "${pair%%:*}" --connect "${pair##*:}" --delay-ms 1 >"$work/proxy-${pair%%:*}.ready" &
  pids+=($!)
done
for pair in "$proxy_dicom" "$proxy_http" "$proxy_scp"; do
  for _ in $(seq 100); do grep -q ready "$work/proxy-$pair.ready" 2>/dev/null && break; sleep 0.05; done
done

"$BUILD_DIR/bench/bench_make_ct_series" "$work/series" --slices "$SLICES" >/dev/null
storescu -aet BENCH -aec ORTHANC +sd 127.0.0.1 "$dicom_port" "$work/series" >/dev/null
first="$(ls "$work/series" | head -1)"
study="$(dcmdump +P StudyInstanceUID "$work/series/$first" | sed 's/.*\[\(.*\)\].*/\1/')"
series="$(dcmdump +P SeriesInstanceUID "$work/series/$first" | sed 's/.*\[\(.*\)\].*/\1/')"
mb=$(du -sm "$work/series" | cut -f1)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), Orthanc $(Orthanc --version | head -1 | awk '{print $NF}'), DCMTK $(getscu --version | head -1 | awk '{print $3}')"
echo "series: $SLICES slices, $mb MB, study $study"

# median wall seconds and peak RSS of REPEATS runs of a command; a fresh output folder each run.
measure() {
  local label="$1"; shift
  local times=() rss=()
  for r in $(seq "$REPEATS"); do
    rm -rf "$work/out"; mkdir -p "$work/out"
    if ! /usr/bin/time -f "%e %M" -o "$work/time" bash -c "$*" >"$work/cmd.log" 2>&1; then
      echo "  $label: FAILED ($(tail -2 "$work/cmd.log" | tr '\n' ' '))"; return
    fi
    local n; n=$(find "$work/out" -type f | wc -l)
    if [ "$n" -lt "$SLICES" ] && [ "$label" != "curl WADO-RS (one multipart body)" ]; then
      echo "  $label: only $n of $SLICES files"; return
    fi
    read -r t m < "$work/time"; times+=("$t"); rss+=("$m")
  done
  local med; med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (REPEATS + 1) / 2 ))p")
  local mrss; mrss=$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)
  printf "  %-44s %7.2f s  %6.1f MB/s  peak RSS %5d MB\n" "$label" "$med" "$(echo "$mb / $med" | bc -l)" $((mrss / 1024))
}

for path in loopback "2 ms RTT"; do
  if [ "$path" = loopback ]; then dport=$dicom_port; hport=$http_port; ae=DELINEATE; sport=$scp_port
  else dport=$proxy_dicom; hport=$proxy_http; ae=DLPROXY; sport=$scp_port; fi
  echo "retrieve, $path:"
  keys="-k QueryRetrieveLevel=SERIES -k StudyInstanceUID=$study -k SeriesInstanceUID=$series"
  measure "DCMTK getscu (C-GET)" "getscu -aet $ae -aec ORTHANC -od $work/out $keys 127.0.0.1 $dport"
  # DCMTK's tools as shipped leave Nagle's algorithm on; the same tools with it off are the tuned peer.
  measure "DCMTK getscu, TCP_NODELAY=1" "TCP_NODELAY=1 getscu -aet $ae -aec ORTHANC -od $work/out $keys 127.0.0.1 $dport"
  if [ "$path" = loopback ]; then
    measure "DCMTK movescu, TCP_NODELAY=1" "TCP_NODELAY=1 movescu -aet MOVESCU -aem MOVESCU --port $movescu_port -od $work/out $keys 127.0.0.1 $dport"
    measure "DCMTK movescu (C-MOVE)" "movescu -aet MOVESCU -aem MOVESCU --port $movescu_port -od $work/out $keys 127.0.0.1 $dport"
  fi
  measure "curl WADO-RS (one multipart body)" \
    "curl -sf -o $work/out/series.multipart -H 'Accept: multipart/related; type=\"application/dicom\"' http://127.0.0.1:$hport/dicom-web/studies/$study/series/$series"
  for n in 1 4 8; do
    measure "delineate-cli pacs get, C-GET, $n in flight" \
      "$cli pacs get --peer ORTHANC@127.0.0.1:$dport --aet $ae --study $study --series $series --out $work/out --in-flight $n"
  done
  if "$cli" pacs move --help >/dev/null 2>&1 && ! "$cli" pacs move --peer A@h:1 --study 1.2 --out /nonexistent/x 2>&1 | grep -q "not built"; then
    for n in 1 4; do
      measure "delineate-cli pacs move, C-MOVE, $n in flight" \
        "$cli pacs move --peer ORTHANC@127.0.0.1:$dport --aet $ae --move-aet $ae --port $sport --study $study --series $series --out $work/out --in-flight $n"
    done
  fi
  if ! "$cli" pacs get --url http://x --study 1.2 --out /nonexistent/x 2>&1 | grep -q "not built"; then
    for n in 1 4 8; do
      measure "delineate-cli pacs get, WADO-RS, $n in flight" \
        "$cli pacs get --url http://127.0.0.1:$hport/dicom-web --study $study --series $series --out $work/out --in-flight $n"
    done
  fi
done

echo "C-FIND of $STUDIES studies (time to the full list):"
"$BUILD_DIR/bench/bench_make_ct_series" "$work/studies" --slices 1 --studies "$STUDIES" >/dev/null
storescu -aet BENCH -aec ORTHANC +sd 127.0.0.1 "$dicom_port" "$work/studies" >/dev/null
SLICES=0
measure "DCMTK findscu" "findscu -S -aet DELINEATE -aec ORTHANC -k QueryRetrieveLevel=STUDY -k StudyInstanceUID -k PatientID -k PatientName -k StudyDate 127.0.0.1 $dicom_port"
measure "delineate-cli pacs find" "$cli pacs find --peer ORTHANC@127.0.0.1:$dicom_port --json > $work/out/list.json && test \$(grep -c studyInstanceUid $work/out/list.json) -ge $STUDIES"
