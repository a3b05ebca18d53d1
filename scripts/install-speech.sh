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
# Usage: scripts/install-speech.sh
set -uo pipefail

packages=(pocketsphinx pocketsphinx-en-us ffmpeg flite)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
else
  command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx pocketsphinx-en-us)
  command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
  command -v flite >/dev/null 2>&1 || missing+=(flite)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

advise() {
  {
    echo "install-speech: $1"
    echo "install-speech: local speech recognition needs the Debian packages: ${missing[*]}"
    echo "install-speech:   sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    echo "install-speech: until then speech-to-text requests answer asr_unavailable."
  } >&2
  exit 0
}

command -v apt-get >/dev/null 2>&1 || advise "apt-get is not available on this system."

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  advise "not root and sudo -n is not available."
fi

echo "install-speech: installing ${missing[*]}" >&2
started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$@" >"$log" 2>&1 || { cat "$log" >&2; false; }; }
run apt-get update -qq || advise "apt-get update failed."
run apt-get install -y -qq --no-install-recommends "${missing[@]}" || advise "apt-get install failed."
echo "install-speech: installed ${missing[*]} in $(($(date +%s) - started)) s" >&2
