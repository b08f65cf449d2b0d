#!/usr/bin/env bash
# test.sh sets everything up and runs the full test suite: go vet,
# staticcheck and the race-enabled tests of every package. CI runs exactly
# this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
# The PostgreSQL cluster setup.sh starts for the queue tests is stopped on
# exit; one that was already answering on the port (another checkout's, or
# one started by hand) is used and left running.
if bash scripts/postgres.sh status; then
	echo "test.sh: PostgreSQL already answers on its port; it is used and left running" >&2
else
	trap 'bash scripts/postgres.sh stop' EXIT
fi
bash scripts/setup.sh
# The serve package's PostgreSQL queue tests use this cluster (setup.sh
# started it); under CI they fail rather than skip without it.
if [ -z "${RELAY_TEST_POSTGRES_URL:-}" ] && bash scripts/postgres.sh url >/dev/null 2>&1; then
	export RELAY_TEST_POSTGRES_URL="$(bash scripts/postgres.sh url)"
fi
go mod tidy -diff
go vet ./...
# Without cgo the tree-sitter languages are unavailable but everything builds.
CGO_ENABLED=0 go vet ./...
"$(go env GOPATH)/bin/staticcheck" ./...
go test -race -count=1 ./...
