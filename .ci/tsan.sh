#!/usr/bin/env bash
# The threaded paths of the native core under ThreadSanitizer (not run by CI: slow, and
# TSan needs ASLR off on some kernels, which setarch -R gives when it is allowed).
#
# Builds ranklens.data._core with -fsanitize=thread into a separate folder and runs the
# tests that drive parse_trec's two passes, rank, find_duplicates and align at 1, 2, 3 and
# 8 threads, plus Python threads parsing at once, with the TSan runtime preloaded.
# Any data-race report fails the run.
#
#   .ci/tsan.sh                     # a few minutes on 2 cores
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
CC=${CC:-gcc}
BUILD=${RANKLENS_TSAN_DIR:-/tmp/ranklens-tsan}

# shellcheck source=build_native.sh
. .ci/build_native.sh
echo "tsan: building the core with -fsanitize=thread in $BUILD"
build_core "$BUILD" -fsanitize=thread

LD_PRELOAD="$("$CC" -print-file-name=libtsan.so)"
export LD_PRELOAD
export TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0:second_deadlock_stack=1
export PYTHONPATH="$BUILD/src"
NOASLR=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
    NOASLR=(setarch "$(uname -m)" -R)
fi
LOG="$BUILD/pytest.log"
status=0
"${NOASLR[@]}" "$PY" -m pytest -q -p no:cacheprovider -n 0 \
    tests/test_native_core.py tests/test_fuzz.py \
    -k "thread or matches_reference or large or automatic or interleaving or region" \
    2>&1 | tee "$LOG" || status=$?
if grep -qE "WARNING: ThreadSanitizer|ERROR: ThreadSanitizer|SUMMARY: ThreadSanitizer" "$LOG"; then
    echo "tsan: a ThreadSanitizer report (see above)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "tsan: the tests failed under TSan (status $status)" >&2
    exit "$status"
fi
echo "tsan: clean"
