#!/usr/bin/env bash
# Installs what local speech recognition needs, from Debian packages, only when missing:
#
#   pocketsphinx        the recogniser (`pocketsphinx_continuous`; Debian 12 ships 0.8+5prealpha)
#   pocketsphinx-en-us  its US English acoustic model, language model and dictionary
#   ffmpeg              turns any common audio or video container (wav, mp3, ogg/opus, m4a, mp4,
#                       webm...) into the 16 kHz mono WAV the recogniser reads; sox cannot read
#                       mp4/webm/opus, which is what YouTube audio and video uploads are
#   flite               a text-to-speech voice, to make test clips
#
# Idempotent and quiet when everything is there. Runs `apt-get update` once when it must install.
# As root it installs; otherwise it uses `sudo -n` when that works; otherwise (or on a system
# without apt-get, or when the install fails) it says what to install and exits 0: the service
# then answers `asr_unavailable` until the packages are there.
#
# Usage: scripts/install-speech.sh [--require]   (--require: exit 1 unless every package ends up
#        installed, for the production image and CI; see scripts/lib/apt-install.sh)
set -uo pipefail

packages=(pocketsphinx pocketsphinx-en-us ffmpeg flite)

source "$(dirname "$0")/lib/missing-packages.sh"

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  missing_packages "${packages[@]}"
else
  command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx pocketsphinx-en-us)
  command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
  command -v flite >/dev/null 2>&1 || missing+=(flite)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

source "$(dirname "$0")/lib/apt-install.sh"
apt_install_missing install-speech "local speech recognition" "speech-to-text requests answer asr_unavailable." "$@"
