#!/usr/bin/env bash
# The distributions, checked as a user gets them:
#   1. python -m build: an sdist, then a wheel built from that sdist (so the sdist holds
#      everything the build needs);
#   2. the sdist installed in a clean venv (a from-scratch build of the C core; it must
#      load, not fall back);
#   3. the sdist installed with no C compiler (CC/LDSHARED pointing at `false`): the install
#      still succeeds and ranklens works through the numpy fallback, saying so once;
#   4. the wheel installed in a clean venv with the test extras, and the test suite run
#      against the installed wheel (from a directory where src/ is not importable).
# Usage: .ci/check_dist.sh [pytest arguments]   (default: the whole suite, quietly)
#   With pytest arguments (a subset of the tests), the wheel's venv gets the light test
#   extra (no torch, Spark, Dask, JAX or browser: about 7 GB less on disk); with none, the
#   whole test extra, PyTorch's CPU build first, as .ci/run does.
# Environment: DIST_WORK=DIR to keep the venvs and files there (default: a temporary dir,
#   removed when the script ends, whether it passes or fails).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
if [[ -n ${DIST_WORK:-} ]]; then
    WORK=$DIST_WORK
else
    WORK=$(mktemp -d -t ranklens-dist.XXXXXX)
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
PY=${PYTHON:-python3}
echo "check_dist: working in $WORK"

"$PY" -m venv "$WORK/build-venv"
"$WORK/build-venv/bin/python" -m pip install --quiet --upgrade pip build
rm -rf "$WORK/dist"
"$WORK/build-venv/bin/python" -m build --outdir "$WORK/dist" "$REPO" > "$WORK/build.log" 2>&1 \
    || { tail -40 "$WORK/build.log"; echo "check_dist: python -m build failed"; exit 1; }
SDIST=$(ls "$WORK"/dist/ranklens-*.tar.gz)
WHEEL=$(ls "$WORK"/dist/ranklens-*.whl)
echo "check_dist: built $(basename "$SDIST") and $(basename "$WHEEL")"
# the wheel holds the compiled core and the stub, the sdist the C sources
"$WORK/build-venv/bin/python" - "$SDIST" "$WHEEL" <<'PYEOF'
import sys, tarfile, zipfile
sdist, wheel = sys.argv[1:]
names = tarfile.open(sdist).getnames()
assert any(n.endswith("src/ranklens/_core.c") or "/src/ranklens/data/native/" in n for n in names), "no C sources in the sdist"
wnames = zipfile.ZipFile(wheel).namelist()
assert any(n.startswith("ranklens/data/_core.") and not n.endswith(".pyi") for n in wnames), "no compiled core in the wheel"
assert "ranklens/data/native_fallback.py" in wnames, "no fallback in the wheel"
print("check_dist: contents ok")
PYEOF

CHECK='import ranklens, ranklens.data.native as n; q = ranklens.Qrels.from_dict({"q": {"a": 1}}); print(n.is_native(), ranklens.__file__)'

# 2. the sdist, from scratch
"$PY" -m venv "$WORK/sdist-venv"
"$WORK/sdist-venv/bin/python" -m pip install --quiet --upgrade pip
"$WORK/sdist-venv/bin/python" -m pip install --quiet --no-cache-dir "$SDIST"
out=$(cd "$WORK" && "$WORK/sdist-venv/bin/python" -W error -c "$CHECK")
echo "check_dist: sdist install: $out"
[[ $out == True* ]] || { echo "check_dist: the sdist's C core did not load"; exit 1; }

# 3. the sdist without a compiler
"$PY" -m venv "$WORK/nocc-venv"
"$WORK/nocc-venv/bin/python" -m pip install --quiet --upgrade pip
CC=false CXX=false LDSHARED=false "$WORK/nocc-venv/bin/python" -m pip install --quiet \
    --no-cache-dir "$SDIST" > "$WORK/nocc.log" 2>&1 \
    || { tail -40 "$WORK/nocc.log"; echo "check_dist: install without a compiler failed"; exit 1; }
out=$(cd "$WORK" && "$WORK/nocc-venv/bin/python" -c "$CHECK" 2>"$WORK/nocc.err")
echo "check_dist: install without a compiler: $out"
[[ $out == False* ]] || { echo "check_dist: expected the numpy fallback"; exit 1; }
grep -q "numpy fallback" "$WORK/nocc.err" || { cat "$WORK/nocc.err"; echo "check_dist: no fallback warning"; exit 1; }
[[ $(grep -c "numpy fallback" "$WORK/nocc.err") == 1 ]] || { echo "check_dist: warned more than once"; exit 1; }

# 4. the wheel and the suite (the tests are copied out of the checkout, next to the files
# they read, so that `import ranklens` can only find the installed wheel)
"$PY" -m venv "$WORK/wheel-venv"
"$WORK/wheel-venv/bin/python" -m pip install --quiet --upgrade pip
if [[ $# -gt 0 ]]; then
    "$WORK/wheel-venv/bin/python" -m pip install --quiet --no-cache-dir "$WHEEL[test-light]"
else
    "$WORK/wheel-venv/bin/python" -m pip install --quiet --no-cache-dir "torch==2.13.0" \
        || echo "check_dist: torch 2.13.0 not available; the test extra installs torch"
    "$WORK/wheel-venv/bin/python" -m pip install --quiet --no-cache-dir "$WHEEL[test]"
fi
rm -rf "$WORK/suite" && mkdir -p "$WORK/suite"
cp -r "$REPO/tests" "$REPO/docs" "$REPO/pyproject.toml" "$REPO/README.md" "$WORK/suite/"
mkdir -p "$WORK/suite/src" && cp -r "$REPO/src/ranklens" "$WORK/suite/src/"  # read as text by tests
[[ -d "$REPO/tools" ]] && cp -r "$REPO/tools" "$WORK/suite/"
[[ -e "$REPO/../shared" && ! -e "$WORK/shared" ]] && ln -s "$(cd "$REPO/.." && pwd)/shared" "$WORK/shared"
where=$(cd "$WORK/suite" && "$WORK/wheel-venv/bin/python" -c 'import ranklens; print(ranklens.__file__)')
echo "check_dist: the suite runs against $where"
[[ $where == "$WORK/wheel-venv/"* ]] || { echo "check_dist: not the installed wheel"; exit 1; }
cd "$WORK/suite"
if [[ $# -gt 0 ]]; then
    "$WORK/wheel-venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
else
    "$WORK/wheel-venv/bin/python" -m pytest -q -p no:cacheprovider
fi
