#!/usr/bin/env bash
# test.sh sets everything up and runs the full test suite: go vet,
# staticcheck and the race-enabled tests of every package. CI runs exactly
# this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
go mod tidy -diff
go vet ./...
"$(go env GOPATH)/bin/staticcheck" ./...
go test -race -count=1 ./...
