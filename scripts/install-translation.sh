#!/usr/bin/env bash
# Installs what local translation needs, from Debian packages, only when missing:
#
#   apertium          the rule-based translator (`apertium <pair> -f none`), run as a child process
#   apertium-eng-spa  the English <-> Spanish pair (more pairs: `apt-cache search apertium-`;
#                     every installed pair is found, none is named in the code)
#
# Idempotent and quiet when everything is there. Runs `apt-get update` once when it must install.
# As root it installs; otherwise it uses `sudo -n` when that works; otherwise (or on a system
# without apt-get, or when the install fails) it says what to install and exits 0: translation on
# the embedded default then answers unsupported_language until a pair is there (or a model is set).
#
# Usage: scripts/install-translation.sh [--require]   (--require: exit 1 unless every package ends
#        up installed, for the production image and CI; see scripts/lib/apt-install.sh)
set -uo pipefail

packages=(apertium apertium-eng-spa)

source "$(dirname "$0")/lib/missing-packages.sh"

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  missing_packages "${packages[@]}"
else
  command -v apertium >/dev/null 2>&1 || missing+=(apertium apertium-eng-spa)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

source "$(dirname "$0")/lib/apt-install.sh"
apt_install_missing install-translation "local translation" \
  "translation without a model (VERBATIM_AI_MODEL) answers unsupported_language." "$@"
