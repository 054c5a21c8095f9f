#!/usr/bin/env bash
# Makes sure the PostgreSQL of the test suite's postgres pass answers (default
# 127.0.0.1:5432, or the host:port of STOCKSCREEN_TEST_PG_URL). When it does not and a
# Debian cluster is installed but stopped, starts it. Never installs PostgreSQL and
# never fails: without a server the postgres pass is skipped (vitest.config.ts says so).
set -uo pipefail

case ",${STOCKSCREEN_TEST_BACKENDS:-sqlite,postgres}," in
  *,postgres,*) ;;
  *) echo "postgres: not wanted (STOCKSCREEN_TEST_BACKENDS=${STOCKSCREEN_TEST_BACKENDS})"; exit 0 ;;
esac

url="${STOCKSCREEN_TEST_PG_URL:-postgres://127.0.0.1:5432/postgres}"
hostport="${url#*://}"; hostport="${hostport##*@}"; hostport="${hostport%%/*}"
host="${hostport%%:*}"; port="${hostport##*:}"
[ "$port" = "$hostport" ] && port=5432
[ -n "$host" ] || host=127.0.0.1

answers() { { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1; exec 3<&- 3>&-; }

if answers; then
  echo "postgres: reachable at $host:$port"
  exit 0
fi
case "$host" in
  127.0.0.1|localhost|::1) ;;
  *) echo "postgres: nothing answers at $host:$port (not a local address); the postgres test pass will be skipped" >&2; exit 0 ;;
esac
if ! command -v pg_lsclusters >/dev/null 2>&1 || ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "postgres: nothing answers at $host:$port and no Debian PostgreSQL cluster is installed; the postgres test pass will be skipped" >&2
  exit 0
fi
# Start the installed clusters that are down (the machine's own service, as its setup does).
pg_lsclusters --no-header 2>/dev/null | while read -r version cluster _port status _rest; do
  if [ "$status" != "online" ]; then
    echo "postgres: starting cluster $version/$cluster"
    pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start >/dev/null 2>&1 \
      || echo "postgres: could not start cluster $version/$cluster" >&2
  fi
done
for _ in $(seq 1 30); do
  if answers; then echo "postgres: reachable at $host:$port"; exit 0; fi
  sleep 0.5
done
echo "postgres: still nothing at $host:$port; the postgres test pass will be skipped" >&2
exit 0
