#!/usr/bin/env bash
# The dependency range, tested: one fresh venv per leg with the oldest and the newest
# supported numpy (1.26 and 2.x) and pandas (2 and 3), ranklens installed into it from this
# checkout (the C core built against the numpy of the isolated build environment, then run
# with the leg's numpy: this checks the binary compatibility a wheel relies on too), then
# the test suite.
#
# Usage:
#   .ci/matrix.sh                       # every leg, the whole suite
#   .ci/matrix.sh oldest newest         # only these legs
#   LEGS="oldest" .ci/matrix.sh -- tests/test_io.py -x   # pytest arguments after --
# Legs (name: numpy pin, pandas pin):
#   oldest:        numpy 1.26.*, pandas 2.0.*   (the lower bounds in pyproject.toml)
#   numpy1-pandas3 numpy 1.26.*, pandas 3.*
#   numpy2-pandas2 numpy 2.*,    pandas 2.*     (the newest 2.x of each)
#   newest:        numpy 2.*,    pandas 3.*     (whatever is newest)
# (the newest pyarrow refuses numpy 1.x at import without saying so to pip, hence its pin
# on the numpy 1.26 legs; the bound is a guess not yet confirmed here)
# Last runs here (2026-11-23, whole suite, 2,410 tests): numpy2-pandas2 (numpy 2.4.6,
# pandas 2.3.3) all passed; numpy1-pandas3 (1.26.4, 3.0.6) all passed but the Dask tests,
# whose cluster collided on port 8787 with another leg's (fixed: a free port; those 12
# tests then passed in that leg's venv); oldest (1.26.4, 2.0.3): 2,404 passed, the Spark
# module skipped (pyspark 4 needs pandas >= 2.2), as it says. The earlier run
# of the two numpy-1.26 legs found the tensor accumulator reading .device off a numpy-1
# scalar, a test calling `ranklens` by PATH, and pyspark 4 needing pandas >= 2.2 (the
# spark extra now asks for it and the Spark tests skip where it is older): all fixed. The
# newest leg is the environment .ci/run installs (numpy 2.4.6, pandas 3.1.1).
# Run the legs one after another (the script does): several at once from one checkout
# also race on setuptools' build/ folder.
# Environment: PYTHON (default python3), MATRIX_WORK (default a temporary dir) for the venvs.
# Each leg prints its installed versions and its pytest summary; the script exits non-zero
# when any leg fails, after running them all.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PY=${PYTHON:-python3}
WORK=${MATRIX_WORK:-$(mktemp -d -t ranklens-matrix.XXXXXX)}
mkdir -p "$WORK"

declare -A PINS=(
    [oldest]="numpy==1.26.* pandas==2.0.* pyarrow<21"
    [numpy1-pandas3]="numpy==1.26.* pandas==3.* pyarrow<21"
    [numpy2-pandas2]="numpy>=2,<3 pandas>=2,<3"
    [newest]="numpy>=2 pandas>=3"
)
ORDER=(oldest numpy1-pandas3 numpy2-pandas2 newest)

legs=()
while [[ $# -gt 0 && $1 != "--" ]]; do legs+=("$1"); shift; done
[[ ${1:-} == "--" ]] && shift
if [[ ${#legs[@]} -eq 0 ]]; then
    read -r -a legs <<< "${LEGS:-${ORDER[*]}}"
fi
pytest_args=("$@")

failed=()
for leg in "${legs[@]}"; do
    pins=${PINS[$leg]:-}
    if [[ -z $pins ]]; then echo "matrix: unknown leg '$leg' (${ORDER[*]})"; exit 2; fi
    venv="$WORK/$leg"
    echo "=== matrix leg $leg: $pins"
    rm -rf "$venv"
    "$PY" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    # PyTorch's CPU build first, as .ci/run does (the test extra would otherwise fetch a
    # CUDA build of several GB)
    "$venv/bin/python" -m pip install --quiet "torch==2.13.0" > /dev/null 2>&1 || true
    # shellcheck disable=SC2086  # the pins are words
    if ! "$venv/bin/python" -m pip install --quiet "$REPO[test]" $pins > "$venv.install.log" 2>&1; then
        tail -30 "$venv.install.log"
        echo "=== matrix leg $leg: INSTALL FAILED (can these pins be resolved together?)"
        failed+=("$leg")
        continue
    fi
    "$venv/bin/python" -c 'import numpy, pandas, scipy, ranklens.data.native as n; print(f"=== matrix leg versions: numpy {numpy.__version__}, pandas {pandas.__version__}, scipy {scipy.__version__}, native core {n.is_native()}")'
    # from the checkout, but importing the installed ranklens (src/ is not on the path)
    if ! (cd "$REPO" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "${pytest_args[@]}"); then
        failed+=("$leg")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "matrix: FAILED legs: ${failed[*]}"
    exit 1
fi
echo "matrix: all legs passed: ${legs[*]}"
