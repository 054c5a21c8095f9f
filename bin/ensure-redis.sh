#!/usr/bin/env bash
# Makes sure a Redis answers at the daemon's Redis URL: $STOCKSCREEN_REDIS_URL, else
# $REDIS_URL, else redis://127.0.0.1:6379 (the order stockscreend reads them in).
# If none does: starts the installed redis-server on that port (no persistence),
# installing it with apt-get first when that is possible; otherwise explains what to do.
set -uo pipefail

url="${STOCKSCREEN_REDIS_URL:-${REDIS_URL:-redis://127.0.0.1:6379}}"
hostport="${url#*://}"; hostport="${hostport##*@}"; hostport="${hostport%%/*}"
host="${hostport%%:*}"; port="${hostport##*:}"
[ "$port" = "$hostport" ] && port=6379
[ -n "$host" ] || host=127.0.0.1

ping_redis() {
  # Plain RESP over bash's /dev/tcp: needs no redis-cli.
  local reply
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  IFS= read -r -t 2 reply <&3 || reply=""
  exec 3<&- 3>&-
  [[ "$reply" == +PONG* || "$reply" == -NOAUTH* ]]
}

if ping_redis; then
  echo "redis: reachable at $host:$port"
  exit 0
fi

case "$host" in
  127.0.0.1|localhost|::1) ;;
  *) echo "redis: nothing answers at $host:$port and it is not a local address; start Redis there or set STOCKSCREEN_REDIS_URL" >&2; exit 1 ;;
esac

if ! command -v redis-server >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "redis: redis-server not installed; installing with apt-get" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) || {
      echo "redis: apt-get install redis-server failed; install Redis yourself or set STOCKSCREEN_REDIS_URL" >&2; exit 1; }
  elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "redis: redis-server not installed; installing with sudo apt-get" >&2
    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) || {
      echo "redis: apt-get install redis-server failed; install Redis yourself or set STOCKSCREEN_REDIS_URL" >&2; exit 1; }
  else
    echo "redis: no Redis answers at $host:$port and redis-server is not installed." >&2
    echo "       Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis)" >&2
    echo "       or point STOCKSCREEN_REDIS_URL (or REDIS_URL) at a running Redis." >&2
    exit 1
  fi
fi

statedir="${XDG_STATE_HOME:-$HOME/.local/state}/stockscreen"
mkdir -p "$statedir"
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$statedir" --logfile "$statedir/redis.log" --pidfile "$statedir/redis.pid" >/dev/null
for _ in $(seq 1 50); do
  if ping_redis; then echo "redis: started redis-server on 127.0.0.1:$port (log: $statedir/redis.log)"; exit 0; fi
  sleep 0.1
done
echo "redis: started redis-server but it does not answer on $port; see $statedir/redis.log" >&2
exit 1
