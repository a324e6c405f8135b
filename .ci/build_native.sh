# Shared by sanitize.sh and tsan.sh (sourced, not run): build_core BUILD FLAGS... copies
# src/ into BUILD, drops its compiled core and builds ranklens.data._core there from every
# C file of src/ranklens/data/native with the given sanitizer flags. It reads PY and CC.
build_core() {
    local build=$1
    shift
    rm -rf "$build"
    mkdir -p "$build"
    cp -r src "$build/src"
    find "$build/src" -name '_core*.so' -delete
    local ext pyinc npinc
    ext=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    pyinc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    npinc=$("$PY" -c 'import numpy; print(numpy.get_include())')
    "$CC" -shared -fPIC -std=c99 -O1 -g -fno-omit-frame-pointer "$@" \
        -pthread -Wall -Wextra -Wno-unused-parameter -Werror \
        -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION -I"$pyinc" -I"$npinc" \
        src/ranklens/data/native/*.c \
        -o "$build/src/ranklens/data/_core$ext"
}
