#!/usr/bin/env bash
# One command for the benchmarks: sets up benchmarks/.venv (ranklens from this checkout and
# the peers; see setup_env.py) and runs benchmarks/run.py with the given options, e.g.
#   benchmarks/run.sh --scale large --shape msmarco
# Missing data files are generated first. SKIP_SETUP=1 reuses the venv as it is.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY=${PYTHON:-python3}
if [[ ${SKIP_SETUP:-0} == 1 ]]; then
    "$PY" "$here/setup_env.py" --skip-install
else
    "$PY" "$here/setup_env.py"
fi
bench_python=$("$PY" "$here/setup_env.py" --print)
exec "$bench_python" "$here/run.py" "$@"
