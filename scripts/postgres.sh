#!/usr/bin/env bash
# postgres.sh starts (or stops) a private PostgreSQL cluster for the tests
# of relay serve's PostgreSQL queue, without systemd: initdb + pg_ctl under
# $RELAY_TEST_PG_DIR (default: .pgdata/ in the checkout, git-ignored; as
# root, a directory of its own under /tmp, because the postgres user may not
# be able to enter the checkout — a clone under `mktemp -d` is 0700),
# listening on 127.0.0.1:${RELAY_TEST_PG_PORT:-55432} and a socket in
# <dir>/run, with role relay (password relay, CREATEDB: each test creates and
# drops its own database) and database relay. As root, the cluster runs as
# the postgres user (PostgreSQL refuses root).
#
# A server already answering on the port where role relay can log in (the
# cluster of another checkout, or one started by hand) is used as it is:
# start then starts nothing. stop stops only this checkout's cluster.
#
#   bash scripts/postgres.sh start   # idempotent; prints the URL
#   bash scripts/postgres.sh url     # the URL scripts/test.sh exports
#   bash scripts/postgres.sh status  # exit 0 when a server answers on the port
#   bash scripts/postgres.sh stop
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${RELAY_TEST_PG_PORT:-55432}"
if [ -n "${RELAY_TEST_PG_DIR:-}" ]; then
	PGDIR="$RELAY_TEST_PG_DIR"
elif [ "$(id -u)" = 0 ]; then
	PGDIR="/tmp/relay-test-pg-$(printf %s "$PWD" | cksum | cut -d' ' -f1)"
else
	PGDIR="$PWD/.pgdata"
fi
DATA="$PGDIR/data"
RUN="$PGDIR/run"
URL="postgres://relay:relay@127.0.0.1:$PORT/relay?sslmode=disable"

bindir() {
	if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return; fi
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}
BIN="$(bindir)"
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
	echo "postgres.sh: PostgreSQL is not installed (apt-get install -y postgresql)" >&2
	exit 1
fi

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

answering() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1; }
own_running() { [ -f "$DATA/PG_VERSION" ] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

case "${1:-start}" in
url)
	echo "$URL"
	;;
status)
	answering
	;;
stop)
	as_pg "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
	;;
start)
	if answering && ! own_running; then
		# Another cluster holds the port: use it when role relay can log in.
		if PGPASSWORD=relay PGCONNECT_TIMEOUT=5 "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U relay -d relay -qtAc "SELECT 1" >/dev/null 2>&1; then
			echo "postgres.sh: using the PostgreSQL already running on port $PORT: $URL" >&2
			exit 0
		fi
		echo "postgres.sh: port $PORT is taken by a server where role relay (password relay) cannot log in to database relay; stop it or set RELAY_TEST_PG_PORT to a free port" >&2
		exit 1
	fi
	mkdir -p "$DATA" "$RUN"
	if [ "$(id -u)" = 0 ]; then chown -R postgres "$PGDIR"; chmod 0700 "$PGDIR"; fi
	if [ ! -f "$DATA/PG_VERSION" ]; then
		as_pg "$BIN/initdb" -D "$DATA" -U postgres -A trust --no-sync >/dev/null
	fi
	if ! as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
		as_pg "$BIN/pg_ctl" -D "$DATA" -l "$PGDIR/log" -w \
			-o "-h 127.0.0.1 -p $PORT -k $RUN -c fsync=off -c max_connections=200" start >/dev/null
	fi
	psql() { as_pg "$BIN/psql" -h "$RUN" -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
	if [ "$(psql -c "SELECT 1 FROM pg_roles WHERE rolname = 'relay'")" != 1 ]; then
		psql -c "CREATE ROLE relay LOGIN PASSWORD 'relay' CREATEDB"
	fi
	if [ "$(psql -c "SELECT 1 FROM pg_database WHERE datname = 'relay'")" != 1 ]; then
		psql -c "CREATE DATABASE relay OWNER relay"
	fi
	echo "postgres.sh: PostgreSQL running: $URL" >&2
	;;
*)
	echo "usage: postgres.sh start|stop|status|url" >&2
	exit 2
	;;
esac
