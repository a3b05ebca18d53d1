#!/usr/bin/env bash
# Installs Debian's `caddy` (the load balancer of deploy/Caddyfile) when missing, for the test that
# runs the shipped Caddyfile in front of API servers (apps/server/test/deploy-caddy.test.ts).
# Idempotent and quiet when it is there; as root it installs, otherwise `sudo -n`, otherwise it says
# what to install and exits 0 (the test then skips, except under CI where it fails).
#
# Usage: scripts/install-caddy.sh [--require]   (CI: exit 1 unless caddy ends up installed)
set -uo pipefail

command -v caddy >/dev/null 2>&1 && exit 0
missing=(caddy)
source "$(dirname "$0")/lib/apt-install.sh"
apt_install_missing install-caddy "the load balancer test" "the Caddy test is skipped (and fails under CI)." "$@"
