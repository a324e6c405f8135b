#!/usr/bin/env bash
# The native core under AddressSanitizer + UndefinedBehaviorSanitizer.
#
# Builds ranklens.data._core with -fsanitize=address,undefined into a separate folder (a
# copy of src/ whose extension is replaced; the installed package is not touched), then
# runs the native and I/O tests against it with the Python of the current environment,
# which needs ranklens' test dependencies (.ci/run calls it from the CI venv). Python
# itself is not instrumented, so the ASan runtime is preloaded. Any report fails the run:
# ASan and UBSan halt on the first error, and the log is searched for reports as well.
#
#   .ci/sanitize.sh                 # about 1-3 minutes on 2 cores
#   PYTHON=python3.12 .ci/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
CC=${CC:-gcc}
BUILD=${RANKLENS_SANITIZE_DIR:-/tmp/ranklens-asan}

# shellcheck source=build_native.sh
. .ci/build_native.sh
echo "sanitize: building the core with -fsanitize=address,undefined in $BUILD"
build_core "$BUILD" -fsanitize=address,undefined -fno-sanitize-recover=all

LD_PRELOAD="$("$CC" -print-file-name=libasan.so) $("$CC" -print-file-name=libubsan.so)"
export LD_PRELOAD
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export PYTHONPATH="$BUILD/src"
"$PY" - "$BUILD" <<'PYCHECK'
import sys
import ranklens.data._core as core
assert core.__file__.startswith(sys.argv[1]), f"not the sanitized build: {core.__file__}"
print(f"sanitize: testing {core.__file__}")
PYCHECK

LOG="$BUILD/pytest.log"
status=0
"$PY" -m pytest -q -p no:cacheprovider -n 0 \
    tests/test_native_core.py tests/test_io.py tests/test_fuzz.py tests/test_input_paths.py \
    2>&1 | tee "$LOG" || status=$?
if grep -qE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|SUMMARY: (Address|UndefinedBehavior)Sanitizer" "$LOG"; then
    echo "sanitize: a sanitizer report (see above)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize: the tests failed under ASan+UBSan (status $status)" >&2
    exit "$status"
fi
echo "sanitize: clean"
