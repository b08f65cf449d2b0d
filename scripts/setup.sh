#!/usr/bin/env bash
# setup.sh installs what relay needs besides Go: ripgrep and fd (Debian names
# the fd binary fdfind; relay finds either), a C compiler for cgo (the
# tree-sitter parsers) when none is present, staticcheck, PostgreSQL for the
# queue tests of relay serve (a private cluster started by scripts/postgres.sh;
# set RELAY_SKIP_POSTGRES=1 to skip), Node.js with npm and the npm packages of
# the tests (the MCP end-to-end client, GitHub's webhook examples, the
# TypeScript compiler and Pyright for the call-graph checks), and a JDK with
# the JDK's own sources (javac/javap and java.base for the Java checks).
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

have() { command -v "$1" >/dev/null 2>&1; }
SUDO_APT=""
if [ "$(id -u)" != 0 ]; then SUDO_APT="sudo"; fi

if ! have rg || ! { have fd || have fdfind; } || ! have cc; then
	if have apt-get; then
		SUDO=""
		if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
		echo "setup: installing ripgrep, fd-find and gcc with apt-get" >&2
		$SUDO apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ripgrep fd-find gcc >/dev/null
	elif have brew; then
		brew install ripgrep fd
	else
		echo "setup: install ripgrep (rg), fd and a C compiler (cc) yourself, then run this again" >&2
		exit 1
	fi
fi

# PostgreSQL for the queue tests of relay serve (package serve): a private
# cluster (scripts/postgres.sh says where) started with pg_ctl (no systemd), a role and database
# relay/relay. scripts/test.sh exports RELAY_TEST_POSTGRES_URL for it.
if [ "${RELAY_SKIP_POSTGRES:-}" != 1 ]; then
	if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! have initdb; then
		if have apt-get; then
			echo "setup: installing postgresql with apt-get" >&2
			$SUDO_APT apt-get update -qq
			DEBIAN_FRONTEND=noninteractive $SUDO_APT apt-get install -y -qq postgresql >/dev/null
		else
			echo "setup: no PostgreSQL (install it to run the PostgreSQL queue tests)" >&2
		fi
	fi
	if ! bash scripts/postgres.sh start; then
		if [ "${CI:-}" = true ]; then
			echo "setup: could not start PostgreSQL (see scripts/postgres.sh); CI needs it for the queue tests" >&2
			exit 1
		fi
		echo "setup: could not start PostgreSQL; the PostgreSQL queue tests will skip" >&2
	fi
fi

# Node.js/npm for the npm packages below; a JDK (javac, javap) and its
# sources (/usr/lib/jvm/openjdk-17/src.zip, Debian's openjdk-17-source) for the
# Java frontend's checks.
pkgs=()
have node || pkgs+=(nodejs)
# Node.js from other sources (NodeSource) bundles npm and conflicts with Debian's.
have npm || pkgs+=(npm)
{ have javac && have javap; } || pkgs+=(openjdk-17-jdk-headless)
[ -e /usr/lib/jvm/openjdk-17/src.zip ] || pkgs+=(openjdk-17-source)
# clang is the truth of the C and C++ call checks (index/internal/clangcheck:
# its JSON AST dump); cmake writes the compile_commands.json they read.
have clang || pkgs+=(clang)
have cmake || pkgs+=(cmake)
if [ ${#pkgs[@]} -gt 0 ]; then
	if have apt-get; then
		echo "setup: installing ${pkgs[*]} with apt-get" >&2
		$SUDO_APT apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO_APT apt-get install -y -qq "${pkgs[@]}" >/dev/null
	elif [ "${CI:-}" = true ]; then
		echo "setup: CI needs ${pkgs[*]} (Node.js, npm, a JDK 17 and its sources); install them and run this again" >&2
		exit 1
	else
		echo "setup: no apt-get for ${pkgs[*]}; the TypeScript, Pyright and Java checks will skip" >&2
	fi
fi

# Debian's rustc and cargo (1.63 still writes -Zsave-analysis, which later
# compilers dropped) and tokio's sources in Debian's local Cargo registry
# (/usr/share/cargo/registry, with its dependencies) for the Rust frontend's
# check, index/internal/rustcheck.
rustpkgs=()
{ [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ]; } || rustpkgs+=(rustc cargo)
compgen -G "/usr/share/cargo/registry/tokio-1.*" >/dev/null || rustpkgs+=(librust-tokio-dev)
if [ ${#rustpkgs[@]} -gt 0 ]; then
	if have apt-get; then
		echo "setup: installing ${rustpkgs[*]} with apt-get" >&2
		$SUDO_APT apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO_APT apt-get install -y -qq "${rustpkgs[@]}" >/dev/null
	elif [ "${CI:-}" = true ]; then
		echo "setup: CI needs ${rustpkgs[*]} (Debian's rustc, cargo and tokio's sources); install them and run this again" >&2
		exit 1
	else
		echo "setup: no apt-get for ${rustpkgs[*]}; the Rust check will skip" >&2
	fi
fi

# Debian's chromium, the headless browser serve's status page test
# (TestStatusPageBrowser, driven by chromedp) opens the page in.
if ! have chromium; then
	if have apt-get; then
		echo "setup: installing chromium with apt-get" >&2
		$SUDO_APT apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO_APT apt-get install -y -qq --no-install-recommends chromium >/dev/null
	elif [ "${CI:-}" = true ]; then
		echo "setup: CI needs chromium (Debian's package) for serve's status page test; install it and run this again" >&2
		exit 1
	else
		echo "setup: no apt-get for chromium; serve's status page test will skip" >&2
	fi
fi

# The MCP end-to-end test drives relay with the official TypeScript client;
# the GitHub tracker tests read GitHub's published webhook payloads; the
# TypeScript check (index/internal/tscheck) runs the TypeScript compiler's
# call hierarchy on rxjs's sources; index/internal/pyrightcheck compares the
# Python call graph with Pyright's.
for dir in tools/mcptest tracker/github/testdata/webhooks index/internal/tscheck index/internal/pyrightcheck; do
	if [ -f "$dir/package.json" ] && have npm; then
		# Again when package-lock.json changed since the last install (npm
		# writes node_modules/.package-lock.json on every install).
		if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
			echo "setup: npm ci in $dir" >&2
			(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
		fi
	fi
done

go mod download

# staticcheck is part of what CI runs (scripts/test.sh); pinned for repeatable results.
STATICCHECK_VERSION=v0.8.2
if ! "$(go env GOPATH)/bin/staticcheck" -version 2>/dev/null | grep -q "(${STATICCHECK_VERSION#v})"; then
	echo "setup: go install staticcheck@$STATICCHECK_VERSION" >&2
	go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
echo "setup: ok (go $(go env GOVERSION), $(rg --version | head -1), $( (fd --version || fdfind --version) 2>/dev/null | head -1))" >&2
