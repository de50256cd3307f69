#!/usr/bin/env bash
# End-to-end test of the Neovim client: a headless Neovim opens files of
# the showcase project with dqlint's server, and the diagnostics in its
# buffers must be those `dqlint lint --format json` reports, before and
# after an unsaved edit. Works with Neovim 0.7 (Debian 12) and newer.
#
#   editors/nvim/test/e2e.sh [DQLINT_BINARY]     (default: target/debug/dqlint)
#
# E2E_LEGACY=1 forces the FileType-autocommand path on Neovim 0.11+.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
dqlint="$(realpath "${1:-$repo/target/debug/dqlint}")"
limit="${E2E_LIMIT_SECONDS:-180}"

if ! command -v nvim >/dev/null; then
  echo "e2e FAIL: nvim is not installed (apt-get install -y neovim)" >&2
  exit 1
fi
if [ ! -x "$dqlint" ]; then
  echo "e2e FAIL: no dqlint binary at $dqlint (cargo build -p dqlint first)" >&2
  exit 1
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp -R "$repo/fixtures/showcase" "$scratch/project"
cp -R "$repo/fixtures/showcase" "$scratch/shadow"
export DQLINT="$dqlint"
export E2E_PROJECT="$scratch/project"
export E2E_SHADOW="$scratch/shadow"
export E2E_FILES="pipelines/bronze/order_items.yaml expectations/orders_quality.json sql/dlq/create_dlq.sql pipelines/bronze/returns.yaml"
export E2E_TIMEOUT_MS="${E2E_TIMEOUT_MS:-60000}"
# Keep the LSP log out of the user's state folder.
export XDG_STATE_HOME="$scratch/state" XDG_CACHE_HOME="$scratch/cache"

status=0
timeout --kill-after=10 "$limit" \
  nvim --headless --clean -c "luafile $here/e2e.lua" </dev/null || status=$?
if [ "$status" -ne 0 ]; then
  for log in "$scratch"/state/nvim/lsp.log "$scratch"/cache/nvim/lsp.log; do
    if [ -f "$log" ]; then
      echo "--- last lines of the LSP log ($log):" >&2
      tail -n 40 "$log" >&2
    fi
  done
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "e2e FAIL: Neovim did not finish within ${limit}s" >&2
  else
    echo "e2e FAIL: Neovim exited with status $status (see the message above)" >&2
  fi
  exit 1
fi
