#!/usr/bin/env bash
# `npm run up`: install, build, make sure Redis is reachable, then serve the daemon
# (loading the sample market when the database has no stocks). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing dependencies"
bash bin/install-deps.sh
echo "==> building"
npm run build --silent
echo "==> checking Redis"
bash bin/ensure-redis.sh
echo "==> starting stockscreend (sample market loaded if the database is empty)"
exec node bin/stockscreend --sample "$@"
