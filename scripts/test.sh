#!/usr/bin/env bash
# Runs co's whole test suite on a fresh Debian machine: installs what the
# tests need (Docker engine and the sandbox image, tmux for the full-screen
# e2e tests, Chromium for the trace viewers), then vet, gofmt and
# `go test -race ./...`. Run as root (or with a Docker engine and those
# packages already present).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[test] %s\n' "$*"; }

# System packages the tests use. apt-get only runs when something is missing.
need=()
command -v tmux >/dev/null || need+=(tmux)
command -v chromium >/dev/null || need+=(chromium)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
command -v npm >/dev/null || need+=(nodejs npm)
command -v cron >/dev/null || need+=(cron) # the scheduled-run tests start Debian's cron daemon
command -v dbus-daemon >/dev/null || need+=(dbus) # the desktop-notification tests start a session bus
command -v jq >/dev/null || need+=(jq) # the README's hook examples read their event with jq (readme_hooks_test.go)
if ((${#need[@]})); then
	if [[ $EUID -ne 0 ]]; then
		say "missing ${need[*]}: install them (as root) and rerun"
		exit 1
	fi
	say "installing ${need[*]}"
	apt-get update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi

# A real Docker engine and the sandbox image (built offline from Debian's
# packages when no registry is reachable). Stopped again at the end only if
# this run started it: an engine found running belongs to someone else (the
# sandbox of a running co, say), whatever marker an earlier
# scripts/docker-up.sh left behind.
engine_found=0
command -v docker >/dev/null && docker info >/dev/null 2>&1 && engine_found=1
scripts/docker-up.sh
if ((engine_found)); then
	say "Docker engine was already running: leaving it running at the end"
else
	trap 'scripts/docker-down.sh || true' EXIT
fi

# The MCP reference server the MCP tests run against (over stdio and
# streamable HTTP), pinned, installed once into a cache outside the repo;
# the tests find it through CO_TEST_MCP_EVERYTHING and fail without it.
mcp_everything_version=2026.8.31
mcp_cache=${CO_TEST_NPM_CACHE:-$HOME/.cache/co-test/npm}
export CO_TEST_MCP_EVERYTHING="$mcp_cache/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [[ "$(node -p "require('$mcp_cache/node_modules/@modelcontextprotocol/server-everything/package.json').version" 2>/dev/null)" != "$mcp_everything_version" ]]; then
	say "installing @modelcontextprotocol/server-everything@$mcp_everything_version into $mcp_cache"
	mkdir -p "$mcp_cache"
	npm install --silent --no-audit --no-fund --prefix "$mcp_cache" "@modelcontextprotocol/server-everything@$mcp_everything_version" >/dev/null
fi

# The official MCP conformance suite (client mode: the auth/* and elicitation
# scenarios run against co), pinned, into the same cache; the tests find its
# command-line entry through CO_TEST_MCP_CONFORMANCE. It needs Node.js 22 or
# later (fs.globSync): where the system's node is older, Node 22 from the npm
# registry's node package goes into the same cache's node_modules/.bin, which
# the tests use to run the suite.
mcp_conformance_version=0.1.16
export CO_TEST_MCP_CONFORMANCE="$mcp_cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ "$(node -p "require('$mcp_cache/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)" != "$mcp_conformance_version" ]]; then
	say "installing @modelcontextprotocol/conformance@$mcp_conformance_version into $mcp_cache"
	mkdir -p "$mcp_cache"
	npm install --silent --no-audit --no-fund --prefix "$mcp_cache" "@modelcontextprotocol/conformance@$mcp_conformance_version" >/dev/null
fi
mcp_node_version=22.23.3
if (($(node -p 'process.versions.node.split(".")[0]') < 22)) && [[ "$("$mcp_cache/node_modules/.bin/node" --version 2>/dev/null)" != "v$mcp_node_version" ]]; then
	say "installing Node.js $mcp_node_version (npm package node) into $mcp_cache for the conformance suite"
	npm install --silent --no-audit --no-fund --prefix "$mcp_cache" "node@$mcp_node_version" >/dev/null
fi

say "go vet"
go vet ./...
say "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [[ -n $unformatted ]]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi

# golangci-lint (configuration in .golangci.yml), pinned, built once from
# the Go module proxy into GOPATH/bin and reused while the version matches.
# On this project's shared 2-core machine the first install took 5.5 min
# (module downloads and build), a run 1-2.5 min with an empty lint cache
# and 1-4 s with a warm one (docs/development.md, "golangci-lint").
golangci_lint_version=v2.15.0
gobin=$(go env GOBIN)
[[ -n $gobin ]] || gobin="$(go env GOPATH)/bin"
golangci_lint="$gobin/golangci-lint"
have=$("$golangci_lint" version 2>/dev/null || true)
if [[ $have != *"version ${golangci_lint_version#v} "* ]]; then
	say "installing golangci-lint $golangci_lint_version into $gobin"
	GOBIN="$gobin" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$golangci_lint_version"
fi
say "golangci-lint"
"$golangci_lint" run ./...

say "go test -race ./..."
go test -race -count=1 -timeout 45m ./...
