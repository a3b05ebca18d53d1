#!/usr/bin/env bash
# Installs Debian's Chromium, which the consent page's and the web library's browser tests drive
# headless (apps/mcp/test/consent-browser.test.ts, apps/server/test/web-browser.test.ts, through
# playwright-core at /usr/bin/chromium), only when it is missing. Without it those tests are skipped,
# saying so (under CI=true they fail instead).
#
# Idempotent and quiet when Chromium is there. As root it installs; otherwise it uses `sudo -n`
# when that works; otherwise (or without apt-get, or when the install fails) it says what to
# install and exits 0 (scripts/lib/apt-install.sh).
#
# Usage: scripts/install-browser.sh [--require]   (CI: exit 1 unless Chromium ends up installed)
set -uo pipefail

[[ -x /usr/bin/chromium ]] && exit 0

missing=(chromium)
source "$(dirname "$0")/lib/apt-install.sh"
apt_install_missing install-browser "the consent page's browser test" \
  "that test is skipped (it fails under CI=true)." "$@"
