#!/usr/bin/env bash
# Installs DRAForge into a staging directory and builds the examples/consumer programs against it, as
# users do: a C++ program through pkg-config, a C99 translation unit of the public header with
# -Wall -Wextra -Werror -pedantic, and (with --subproject) a Meson project using DRAForge as a
# subproject. Usage: consumer_test.sh BUILD_DIR SOURCE_DIR [--subproject]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
check() {  # check NAME COMMAND...
  local name=$1
  shift
  if "$@" >"$work/out.txt" 2>&1; then
    pass=$((pass + 1))
    echo "ok   $name"
  else
    fail=$((fail + 1))
    echo "FAIL $name"
    sed 's/^/    /' "$work/out.txt" | tail -n 30
  fi
}

stage=$work/stage
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
pcdir=$(dirname "$(find "$stage" -name draforge.pc | head -n1)")
libdir=$(dirname "$(find "$stage" -name 'libdraforge.so' | head -n1)")
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$stage

claim='{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"n"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","count":2}]}}}'

installed_layout() {
  [[ -f $stage/usr/local/include/draforge/draforge.h && -f $stage/usr/local/include/draforge/version.h ]]
  [[ -x $(find "$stage" -path '*/bin/draforge' | head -n1) ]]
}
check "install layout: headers, library, pkg-config file, CLI" installed_layout

pkgconfig_cpp() {
  c++ -std=c++17 "$src/examples/consumer/pkgconfig/main.cpp" $(pkg-config --cflags --libs draforge) -o "$work/convert"
  out=$(LD_LIBRARY_PATH=$libdir "$work/convert" <<<"$claim")
  grep -q '^apiVersion: resource.k8s.io/v1$' <<<"$out"
  grep -q 'exactly:' <<<"$out"
  # Bad input is an error with a message, exit 2.
  set +e
  err=$(LD_LIBRARY_PATH=$libdir "$work/convert" <<<'{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":7}}' 2>&1)
  code=$?
  set -e
  [[ $code -eq 2 ]] && grep -q 'metadata.name: expected string' <<<"$err"
}
check "C++ program through pkg-config converts a claim" pkgconfig_cpp

c99_header() {
  printf '#include "draforge/draforge.h"\nint main(void) { draforge_buffer b = {0, 0}; draforge_buffer_dispose(&b); return draforge_version() ? 0 : 1; }\n' >"$work/t.c"
  cc -std=c99 -Wall -Wextra -Werror -pedantic "$work/t.c" $(pkg-config --cflags --libs draforge) -o "$work/t"
  LD_LIBRARY_PATH=$libdir "$work/t"
}
check "public header compiles as C99 -pedantic -Werror and links" c99_header

exported_symbols_have_prefix() {
  local bad
  bad=$(nm -D --defined-only "$libdir/libdraforge.so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep -v '^draforge_' || true)
  [[ -z $bad ]] || { echo "exported without the draforge_ prefix:"; echo "$bad" | head; return 1; }
}
check "libdraforge exports only draforge_* symbols" exported_symbols_have_prefix

if [[ ${3:-} == --subproject ]]; then
  subproject() {
    local copy=$work/consumer
    cp -r "$src/examples/consumer" "$copy"
    rm -f "$copy/subproject/subprojects/draforge"
    ln -s "$src" "$copy/subproject/subprojects/draforge"
    meson setup "$work/sb" "$copy/subproject" --wrap-mode=nodownload >/dev/null
    ninja -C "$work/sb" count-devices convert-c-abi >/dev/null
    out=$("$work/sb/count-devices" <"$src/examples/scenarios/demo.yaml")
    grep -q '^gpu.example.com/node-1: 4 devices$' <<<"$out"
    "$work/sb/convert-c-abi" <<<"$claim" | grep -q 'exactly:'
  }
  check "Meson subproject consumer (C++ API and C ABI)" subproject
fi

echo "$pass passed, $fail failed"
((fail == 0))
