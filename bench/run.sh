#!/usr/bin/env bash
# dqlint's benchmark (see docs/performance.md):
#   1. dqlint vs `lhp validate` (lakehouse-plumber 0.9.3) on the corpus's
#      performance_testing project, side by side, interleaved runs, medians;
#   2. the scaling curve on generated projects of 1k, 10k and 50k flowgroups;
#   3. dqlint vs DQX's own validate_checks (databricks-labs-dqx 0.17.0,
#      bench/dqx_validate.py) on a generated project of 2,000 checks files;
#   4. dqlint vs ruff (the Python linter a pipeline author runs anyway) on a
#      generated repository of 2,000 Python and 400 SQL pipeline sources of
#      about 20 datasets each (issue 13).
#
# Usage: bench/run.sh [--runs N] [--no-lhp] [--no-dqx] [--no-pipelines]
#                     [--sizes "1000 10000 50000"] [--dqx-files 2000]
#                     [--dqx-checks "12 100"]
#                     [--pipeline-files 2000] [--pipeline-datasets 20]
# Needs: cargo, python3 (for the venvs and the medians), /usr/bin/time.
# LHP and DQX are installed from PyPI into target/bench/{lhp,dqx}-venv (not
# committed); set LHP=/path/to/lhp or DQX_PYTHON=/path/to/python (a Python
# with databricks-labs-dqx) to use others.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
with_lhp=1
with_dqx=1
with_pipelines=1
pipeline_files=2000
pipeline_datasets=20
sizes="1000 10000 50000"
dqx_files=2000
dqx_checks="12 100"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --no-lhp) with_lhp=0; shift ;;
    --no-dqx) with_dqx=0; shift ;;
    --dqx-files) dqx_files="$2"; shift 2 ;;
    --dqx-checks) dqx_checks="$2"; shift 2 ;;
    --no-pipelines) with_pipelines=0; shift ;;
    --pipeline-files) pipeline_files="$2"; shift 2 ;;
    --pipeline-datasets) pipeline_datasets="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time is required (Debian/Ubuntu: apt-get install time)" >&2
  exit 1
fi

corpus="${CORPUS:-$(cd .. && pwd)/shared/corpus/lhp-examples/performance_testing}"
work="$(mktemp -d "${TMPDIR:-/tmp}/dqlint-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cargo build --release --locked -q -p dqlint -p dqlint-bench
dqlint="$PWD/target/release/dqlint"
gen="$PWD/target/release/dqlint-bench"

# timed OUT_FILE CMD...: runs CMD, appends "wall_s max_rss_kb user_s sys_s".
timed() {
  local out="$1"; shift
  /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$@" >/dev/null 2>&1 || true
  tail -1 "$work/t" >> "$out"
}

# stats FILE: median wall (ms), median peak RSS (MB), median CPU (ms).
stats() {
  python3 - "$1" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
wall = statistics.median(r[0] for r in rows) * 1000
rss = statistics.median(r[1] for r in rows) / 1024
cpu = statistics.median(r[2] + r[3] for r in rows) * 1000
print(f"{wall:.0f} {rss:.1f} {cpu:.0f}")
PY
}

echo "machine: $(nproc) cores, $(uname -srm), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "dqlint: $("$dqlint" --version)"

if [ "$with_lhp" = 1 ] && [ -d "$corpus" ]; then
  lhp="${LHP:-}"
  if [ -z "$lhp" ]; then
    venv="$PWD/target/bench/lhp-venv"
    if [ ! -x "$venv/bin/lhp" ]; then
      python3 -m venv "$venv"
      "$venv/bin/pip" install -q "lakehouse-plumber==0.9.3"
    fi
    lhp="$venv/bin/lhp"
  fi
  echo "lhp: $("$lhp" --version 2>/dev/null | head -1)"
  # Both tools read the same copy: the corpus is read-only and lhp writes
  # state. The project names a test-reporting module it does not ship;
  # without it lhp stops at preflight (LHP-CFG-032) before validating
  # anything, so a stub is added to make lhp do its full work.
  project="$work/performance_testing"
  cp -r "$corpus" "$project"
  chmod -R u+w "$project"
  mkdir -p "$project/py_functions"
  printf 'def publish_results(*args, **kwargs):\n    return None\n' > "$project/py_functions/test_reporting_publisher.py"
  (cd "$project" && "$lhp" validate --env dev --no-bundle --no-progress >/dev/null 2>&1 || true)  # warm-up
  "$dqlint" lint "$project" --env dev --format json >/dev/null || true                         # fills the cache
  : > "$work/lhp"; : > "$work/cold"; : > "$work/warm"
  for i in $(seq "$runs"); do
    (cd "$project" && timed "$work/lhp" "$lhp" validate --env dev --no-bundle --no-progress)
    timed "$work/cold" "$dqlint" lint "$project" --env dev --format json --no-cache
    timed "$work/warm" "$dqlint" lint "$project" --env dev --format json
  done
  read -r lhp_ms lhp_mb lhp_cpu < <(stats "$work/lhp")
  read -r cold_ms cold_mb cold_cpu < <(stats "$work/cold")
  read -r warm_ms warm_mb warm_cpu < <(stats "$work/warm")
  echo
  echo "performance_testing (2,808 flowgroups, --env dev), median of $runs interleaved runs:"
  printf '| %-34s | %9s | %12s | %7s |\n' "command" "wall ms" "peak RSS MB" "CPU ms"
  printf '|%s|%s|%s|%s|\n' "------------------------------------" "-----------" "--------------" "---------"
  printf '| %-34s | %9s | %12s | %7s |\n' "lhp validate --env dev --no-bundle" "$lhp_ms" "$lhp_mb" "$lhp_cpu"
  printf '| %-34s | %9s | %12s | %7s |\n' "dqlint lint --no-cache (cold)" "$cold_ms" "$cold_mb" "$cold_cpu"
  printf '| %-34s | %9s | %12s | %7s |\n' "dqlint lint (warm cache)" "$warm_ms" "$warm_mb" "$warm_cpu"
  python3 -c "print(f'ratio lhp/dqlint: cold {$lhp_ms/$cold_ms:.1f}x, warm {$lhp_ms/$warm_ms:.1f}x')"
fi

echo
echo "scaling on generated projects (dqlint lint --no-cache, all envs), median of $runs runs:"
printf '| %10s | %6s | %6s | %9s | %12s | %7s | %13s |\n' flowgroups files MB "median ms" "peak RSS MB" "CPU ms" "ms per 1k fg"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------ -------- -------- ----------- -------------- --------- ---------------
for n in $sizes; do
  out="$work/gen$n"
  "$gen" gen --flowgroups "$n" "$out" >/dev/null
  files=$(find "$out" -type f | wc -l)
  mb=$(find "$out" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.1f", s / 1e6}')
  : > "$work/n$n"
  for i in $(seq "$runs"); do
    timed "$work/n$n" "$dqlint" lint "$out" --format json --no-cache
  done
  read -r ms mb_rss cpu < <(stats "$work/n$n")
  per=$(python3 -c "print(f'{$ms/($n/1000):.1f}')")
  printf '| %10s | %6s | %6s | %9s | %12s | %7s | %13s |\n' "$n" "$files" "$mb" "$ms" "$mb_rss" "$cpu" "$per"
  rm -rf "$out"
done

if [ "$with_dqx" = 1 ]; then
  dqx_python="${DQX_PYTHON:-}"
  if [ -z "$dqx_python" ]; then
    venv="$PWD/target/bench/dqx-venv"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import databricks.labs.dqx' 2>/dev/null; then
      python3 -m venv "$venv"
      "$venv/bin/pip" install -q "databricks-labs-dqx==0.17.0" "pyspark==4.3.0" "pandas<3" pyarrow \
        grpcio grpcio-status googleapis-common-protos zstandard
    fi
    dqx_python="$venv/bin/python"
  fi
  # One project per number of checks per file: the cost must grow with the
  # checks, not faster.
  for per_file in $dqx_checks; do
    project="$work/dqx_project_$per_file"
    summary=$("$gen" gen-dqx --files "$dqx_files" --checks "$per_file" --plant 50 "$project")
    "$dqx_python" bench/dqx_validate.py "$project/quality" >/dev/null || true   # warm-up
    : > "$work/dqx"; : > "$work/dqx_cold"
    for i in $(seq "$runs"); do
      timed "$work/dqx" "$dqx_python" bench/dqx_validate.py "$project/quality"
      timed "$work/dqx_cold" "$dqlint" lint "$project" --format json --no-cache
    done
    read -r dqx_ms dqx_mb dqx_cpu < <(stats "$work/dqx")
    read -r cold_ms cold_mb cold_cpu < <(stats "$work/dqx_cold")
    checks=$((dqx_files * per_file))
    echo
    echo "DQX, $per_file checks per file: $summary"
    echo "median of $runs interleaved runs:"
    printf '| %-44s | %9s | %12s | %7s |\n' "command" "wall ms" "peak RSS MB" "CPU ms"
    printf '|%s|%s|%s|%s|\n' "----------------------------------------------" "-----------" "--------------" "---------"
    printf '| %-44s | %9s | %12s | %7s |\n' "DQX load + validate_checks (dqx_validate.py)" "$dqx_ms" "$dqx_mb" "$dqx_cpu"
    printf '| %-44s | %9s | %12s | %7s |\n' "dqlint lint --no-cache" "$cold_ms" "$cold_mb" "$cold_cpu"
    python3 -c "print(f'ratio DQX/dqlint: wall {$dqx_ms/$cold_ms:.1f}x, CPU {$dqx_cpu/max($cold_cpu,1):.1f}x; dqlint {$cold_cpu*1000/$checks:.1f} us CPU per check, DQX {$dqx_cpu*1000/$checks:.1f} us')"
  done
fi

if [ "$with_pipelines" = 1 ]; then
  ruff="${RUFF:-}"
  if [ -z "$ruff" ]; then
    venv="$PWD/target/bench/ruff-venv"
    if [ ! -x "$venv/bin/ruff" ]; then
      python3 -m venv "$venv"
      "$venv/bin/pip" install -q "ruff==0.17.6"
    fi
    ruff="$venv/bin/ruff"
  fi
  echo "ruff: $("$ruff" --version)"
  project="$work/pipelines"
  summary=$("$gen" gen-pipelines --files "$pipeline_files" \
    --datasets "$pipeline_datasets" --plant 50 "$project")
  "$ruff" check --no-cache --quiet "$project" >/dev/null 2>&1 || true   # warm-up
  : > "$work/ruff"; : > "$work/pipelines_cold"
  for i in $(seq "$runs"); do
    timed "$work/ruff" "$ruff" check --no-cache --quiet "$project"
    timed "$work/pipelines_cold" "$dqlint" lint "$project" --format json --no-cache
  done
  read -r ruff_ms ruff_mb ruff_cpu < <(stats "$work/ruff")
  read -r cold_ms cold_mb cold_cpu < <(stats "$work/pipelines_cold")
  echo
  echo "pipeline sources: $summary"
  echo "median of $runs interleaved runs:"
  printf '| %-44s | %9s | %12s | %7s |\n' "command" "wall ms" "peak RSS MB" "CPU ms"
  printf '|%s|%s|%s|%s|\n' "----------------------------------------------" "-----------" "--------------" "---------"
  printf '| %-44s | %9s | %12s | %7s |\n' "ruff check --no-cache (default rules)" "$ruff_ms" "$ruff_mb" "$ruff_cpu"
  printf '| %-44s | %9s | %12s | %7s |\n' "dqlint lint --no-cache" "$cold_ms" "$cold_mb" "$cold_cpu"
  python3 -c "print(f'ratio dqlint/ruff: wall {$cold_ms/max($ruff_ms,1):.2f}x, CPU {$cold_cpu/max($ruff_cpu,1):.2f}x')"
fi
