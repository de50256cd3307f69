#!/usr/bin/env bash
# Records what `lhp validate` (lakehouse-plumber 0.9.3) says about every
# corpus project, for every environment, into expected/<project>.lhp-validate.txt.
# Never run in CI: LHP is the oracle, its verdicts are committed data.
#
#   LHP=/path/to/venv tests/corpus/record-lhp-validate.sh
#
# The projects are configuration only, so each is copied to a scratch folder
# and every Python module a flowgroup or lhp.yaml names by `module_path` gets
# an empty stand-in first (otherwise LHP stops at LHP-CFG-032 and validates
# nothing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lhp="${LHP:?set LHP to a virtualenv with lakehouse-plumber==0.9.3}/bin/lhp"
version=$("$lhp" --version 2>&1 | tail -n 1)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for project in "$here"/projects/*/; do
  name=$(basename "$project")
  cp -r "$project" "$scratch/$name"
  (
    cd "$scratch/$name"
    { grep -rhoE 'module_path:[[:space:]]*["'\'']?[^"'\''[:space:]#]+' --include='*.yaml' --include='*.yml' . 2>/dev/null || true; } |
      sed -E 's/module_path:[[:space:]]*["'\'']?//' | sort -u | { grep -v '^$' || true; } | while read -r module; do
        case "$module" in *'{'*|/*|*..*) continue ;; esac
        mkdir -p "$(dirname "$module")" && [ -e "$module" ] || : > "$module"
      done
    out="$here/expected/$name.lhp-validate.txt"
    {
      echo "# $version: lhp validate --env ENV --no-bundle --no-progress (stub modules for module_path)"
      for env_file in substitutions/*.yaml; do
        env=$(basename "$env_file" .yaml)
        for ignore_version in "" 1; do
          set +e
          result=$(COLUMNS=100 DO_NOT_TRACK=1 LHP_IGNORE_VERSION=$ignore_version \
            "$lhp" validate --env "$env" --no-bundle --no-progress 2>&1)
          status=$?
          set -e
          echo
          if [ -n "$ignore_version" ]; then
            echo "## --env $env, LHP_IGNORE_VERSION=1 (what 0.9.3 says of the content): exit $status"
          else
            echo "## --env $env: exit $status"
          fi
          # LHP's own output, minus timing lines and the scratch path
          printf '%s\n' "$result" | sed -e "s#$scratch/$name#<project>#g" -e "s#$scratch#<scratch>#g" |
            grep -vE 'took [0-9.]+ ?m?s|[0-9]+\.[0-9]+s\b' || true
          # the second run only when the first stopped at the version check
          case "$result" in *LHP-CFG-007*) ;; *) break ;; esac
        done
      done
    } > "$out"
  )
done
