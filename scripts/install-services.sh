#!/usr/bin/env bash
# Install the real services the tests use, from Debian's packages, when missing:
# Chromium (browser tests, driven by Playwright through /usr/bin/chromium) and
# PostgreSQL (the rooms' tests and benchmarks start throwaway clusters of their own:
# src/referee/rooms/serving/pgtemp.py; apt never starts the packaged cluster here), and
# nginx (src/referee/rooms/serving/nginx.py starts it in a throwaway prefix).
# Playwright's own `playwright install` downloads browsers, which these machines cannot.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
[ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-services: need root to install ${need[*]} (apt-get)" >&2
    exit 1
fi
echo "install-services: installing ${need[*]} from Debian's packages" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
