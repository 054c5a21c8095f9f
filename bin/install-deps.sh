#!/usr/bin/env bash
# Install exactly what package-lock.json names (`npm ci`), unless node_modules already holds
# that lock file's install (a stamp of its checksum): `npm ci` wipes node_modules every time.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.stockscreen-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "dependencies already installed from this package-lock.json"
  exit 0
fi
npm ci --no-fund --no-audit
echo "$want" > "$stamp"
