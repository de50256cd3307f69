#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3 in the browser, runs on
# Node 20) from npm into DIR (default: ~/.cache/dqlint-ci/code-server-4.100.3)
# without any download outside the registries, as
# shared/reference/editor-hosts.md describes: the packages' install scripts
# are skipped (@vscode/ripgrep's fetches a binary from the internet), native
# modules are rebuilt against Node's headers in /usr, and Debian's ripgrep
# stands where @vscode/ripgrep expects its own. Idempotent: a finished
# install (marked by DIR/.done) is kept.
set -euo pipefail
version=4.100.3
dir=${1:-${HOME:-/root}/.cache/dqlint-ci/code-server-$version}
if [ -f "$dir/.done" ]; then
  echo "$dir"
  exit 0
fi
for tool in node npm rg make g++ python3 pkg-config; do
  command -v "$tool" >/dev/null || { echo "install-code-server: needs $tool" >&2; exit 1; }
done
export npm_config_nodedir=/usr npm_config_unsafe_perm=true npm_config_yes=true
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
npm install --ignore-scripts --no-save "code-server@$version" >&2
# argon2 (password hashing) is hoisted next to code-server, not inside it.
npm rebuild argon2 --foreground-scripts >&2
cd node_modules/code-server
cd lib/vscode
npm install --omit=dev --ignore-scripts >&2
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm rebuild --foreground-scripts >&2
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --foreground-scripts >&2)
touch "$dir/.done"
echo "$dir"
