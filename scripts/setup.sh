#!/usr/bin/env bash
# Installs exactly the Debian 12 packages Delineate needs to build and test. Idempotent: installed packages are
# skipped, `apt-get update` runs once and only when something is missing. Works as root or through sudo.
set -euo pipefail

# Grouped by what needs them.
PACKAGES=(
  # toolchain and build
  g++ cmake ninja-build ccache pkg-config
  # tests
  catch2
  dicom3tools  # tests: dciodvfy validates the DICOM SEGs io writes (tests/io/test_dicom_seg_write.cpp)
  # tests: GDCM's gdcmanon is the peer the de-identification is compared with; openssl makes the certificate it needs
  # (tests/io/test_dicom_deidentify.cpp)
  libgdcm-tools openssl
  plastimatch  # tests and bench/: the peer for RT structure sets both ways (tests/io/test_dicom_rtstruct.cpp)
  poppler-utils  # tests: pdftoppm, pdftotext and pdfinfo read back the PDF report (tests/gui/test_pdf_report.cpp)
  # io: gzip (zlib streaming, libdeflate whole-buffer), JSON label dictionaries
  zlib1g-dev libdeflate-dev nlohmann-json3-dev
  # io/studies: the local study-catalogue index (SQLite on local disk, io/studies/study_index.h)
  libsqlite3-dev
  # delineate-cli and delineate-vista3d: command lines, subcommands and their --help (CLI11, header only)
  libcli11-dev
  # inference: LibTorch (CPU) for the VISTA-3D network and training; Gloo's headers for its c10d process group
  # (data-parallel training over processes, inference/training/data_parallel_torch.cpp)
  libtorch-dev libgloo-dev
  # tests and benchmarks: Python torch loads the checkpoints training writes into MONAI's own networks
  # (tests/inference/test_training_checkpoint.cpp) and runs MONAI as the peer in bench/ (reference/monai's source)
  python3-torch python3-numpy
  # io: DICOM headers and codecs (DCMTK), JPEG 2000 (OpenJPEG)
  libdcmtk-dev libopenjp2-7-dev
  # io/volume: GIPL, Analyze 7.5 and VTK legacy images read through ITK's ImageIO (io/volume/itk_formats.cpp)
  libinsighttoolkit5-dev
  # viewer and window: Qt 6 (Widgets, OpenGL widgets, Concurrent), VTK 9; their tests run under Xvfb with Mesa.
  # libqt6opengl6-dev is only a Recommends of qt6-base-dev, which --no-install-recommends skips
  qt6-base-dev libqt6opengl6-dev libvtk9-dev xvfb xauth libgl1-mesa-dri
  # window: translations (lupdate/lrelease through CMake's Qt6LinguistTools) and Qt's own strings in de/fr/zh
  qt6-tools-dev qt6-l10n-tools qt6-translations-l10n
  # window: the Training dock's plots (Qt Charts)
  qt6-charts-dev
  # tests: the share-store suite on a real network mount (tests/io/sshfs_share_suite.sh: a private sshd on
  # loopback, sshfs over FUSE 3; the free port is found with bash's /dev/tcp, so no extra tool)
  sshfs openssh-server openssh-client fuse3
  # io/pacs: DICOMweb over libcurl (DIMSE is DCMTK's dcmnet/dcmtls, above)
  libcurl4-openssl-dev
  # io/trust: Ed25519 signatures (and AES-GCM) through OpenSSL 3's libcrypto
  libssl-dev
  # tests: a real PACS on loopback, Orthanc with its DICOMweb plugin (tests/pacs/orthanc_server.h); curl seeds it over
  # REST, DCMTK's tools (echoscu, getscu, movescu, storescu) are the peers the benchmarks compare with
  orthanc orthanc-dicomweb curl dcmtk
  # window: PACS passwords and tokens in the desktop keyring (QtKeychain); its tests run a private D-Bus session with
  # GNOME Keyring's Secret Service (dbus-run-session is in dbus-daemon) and read the keyring back with secret-tool
  qtkeychain-qt6-dev gnome-keyring libsecret-tools dbus-daemon
  # tests: cohorts on a real one-node Slurm (tests/slurm/slurm_cluster.sh: slurmctld, slurmd and a private munged on
  # loopback); the same client commands (sbatch, squeue, scancel) are what `batch --slurm` calls on a cluster
  slurm-wlm munge
  # packaging (scripts/package.sh, packaging/): CPack's DEB generator runs dpkg-shlibdeps (dpkg-dev) and fakeroot-free
  # tar; lintian checks the packages, desktop-file-validate and appstreamcli the desktop entry and metainfo, rsvg-convert
  # renders the icon's PNG sizes from its SVG; the install test (tests/install/) builds a clean Debian 12 root with
  # debootstrap and opens a file through the installed desktop entry with gio
  dpkg-dev lintian desktop-file-utils appstream librsvg2-bin debootstrap libglib2.0-bin xdotool imagemagick
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
else
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "setup: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${#missing[@]} package(s): ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "setup: installed ${missing[*]}"
fi

# tests: who may read patient data (issue 40; tests/common/other_user.h). A second, non-root account that must not
# read what we write, and a group standing for a share's group (the account is no member of it). System entries, no
# home, no login; created once.
if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
  echo "setup: no root or sudo: the test account delineate-test-other is not created (permission tests skip)" >&2
  exit 0
fi
if ! getent group delineate-test-share >/dev/null; then
  $SUDO groupadd --system delineate-test-share
  echo "setup: created group delineate-test-share"
fi
if ! getent passwd delineate-test-other >/dev/null; then
  $SUDO useradd --system --no-create-home --user-group --shell /usr/sbin/nologin delineate-test-other
  echo "setup: created account delineate-test-other"
fi
