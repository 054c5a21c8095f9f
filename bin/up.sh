#!/usr/bin/env bash
# `npm run up`: install, build, make sure Redis is reachable, then serve the daemon
# (loading the sample market when the database has no stocks). Ctrl-C stops it.
# Each step says how long it took; the daemon ends its start-up with a "ready at …" line.
set -euo pipefail
cd "$(dirname "$0")/.."

step_start=$SECONDS
took() { echo "    ($1 took $((SECONDS - step_start)) s)"; step_start=$SECONDS; }

echo "==> installing dependencies"
bash bin/install-deps.sh
took install
echo "==> building"
npm run build --silent
took build
echo "==> checking Redis"
bash bin/ensure-redis.sh
took redis
echo "==> starting stockscreend (sample market loaded if the database is empty; logs as JSON with --log-format json)"
exec node bin/stockscreend --sample "$@"
