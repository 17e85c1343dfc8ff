#!/usr/bin/env bash
# Installs DRAForge into a staging directory and builds the examples/consumer programs against it, as
# users do: a C++ program through pkg-config, a C99 translation unit of the public header with
# -Wall -Wextra -Werror -pedantic, the C and C++ allocation examples of examples/c, and (with
# --subproject) a Meson project using DRAForge as a subproject; with cmake installed, a CMake project
# through find_package(draforge) and the C++ API. Prints TAP (one case per check).
# Usage: consumer_test.sh BUILD_DIR SOURCE_DIR [--subproject]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
n=0
check() {  # check NAME COMMAND...
  local name=$1 code
  shift
  n=$((n + 1))
  # In a subshell with errexit, so that every command of a check is an assertion: called as the
  # condition of an if, a function runs with errexit off and only its last command would count.
  set +e
  (set -e; "$@") >"$work/out.txt" 2>&1
  code=$?
  set -e
  if ((code == 0)); then
    pass=$((pass + 1))
    echo "ok $n - $name"
  else
    fail=$((fail + 1))
    echo "not ok $n - $name"
    sed 's/^/#    /' "$work/out.txt" | tail -n 30
  fi
}
if [[ ${3:-} == --subproject ]]; then echo "1..11"; else echo "1..10"; fi

stage=$work/stage
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
pcdir=$(dirname "$(find "$stage" -name draforge.pc | head -n1)")
libdir=$(dirname "$(find "$stage" -name 'libdraforge.so' | head -n1)")
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$stage
prefix=$stage$(meson introspect "$build" --buildoptions | python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')

claim='{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"n"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","count":2}]}}}'

# run_expecting CODE PROGRAM ARGS...: runs PROGRAM against the staged library, leaves its standard
# output in $out, and fails unless it exits with CODE.
run_expecting() {
  local want=$1 code
  shift
  set +e
  out=$(LD_LIBRARY_PATH=$libdir "$@")
  code=$?
  set -e
  ((code == want)) || { echo "$1 exited with $code, expected $want"; echo "$out"; return 1; }
}

installed_layout() {
  local h
  for h in draforge common objects cluster alloc cel cdi version; do
    [[ -f $stage/usr/local/include/draforge/$h.h ]] || { echo "missing include/draforge/$h.h"; return 1; }
  done
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
  # Every binding, weak ones included: template instantiations of namespace std would be W or V.
  bad=$(nm -D --defined-only "$libdir/libdraforge.so" | awk 'NF == 3 && $2 ~ /^[TtDdBbRrWwVvui]$/ {print $3}' |
        sed 's/@.*//' | grep -v '^draforge_' || true)
  [[ -z $bad ]] || { echo "exported without the draforge_ prefix:"; echo "$bad" | head; return 1; }
}
check "libdraforge exports only draforge_* symbols" exported_symbols_have_prefix

c_example() {
  cc -std=c99 -Wall -Wextra -Werror -pedantic "$src/examples/c/allocate.c" $(pkg-config --cflags --libs draforge) \
    -o "$work/allocate"
  out=$(LD_LIBRARY_PATH=$libdir "$work/allocate" node-3 team-a/mig-half "$src/examples/scenarios/demo.yaml")
  grep -q '^allocated team-a/mig-half on node-3$' <<<"$out"
  grep -q '"nodeSelector"' <<<"$out"
  # Does not fit: exit 1, kube-scheduler's reason and the explanation.
  run_expecting 1 "$work/allocate" node-1 team-a/big-h100 "$src/examples/scenarios/demo.yaml"
  grep -q '^reason: cannot allocate all claims$' <<<"$out"
  grep -q '^why: ' <<<"$out"
}
check "C example (examples/c/allocate.c) through pkg-config allocates and explains" c_example

cpp_example() {
  c++ -std=c++17 -Wall -Wextra -Werror "$src/examples/c/allocate.cpp" $(pkg-config --cflags --libs draforge) \
    -o "$work/allocate-cpp"
  out=$(LD_LIBRARY_PATH=$libdir "$work/allocate-cpp" node-3 team-a/mig-half,team-a/fabric-share \
        "$src/examples/scenarios/demo.yaml")
  grep -q '"outcome":"allocated"' <<<"$out"
  grep -q '"team-a/mig-half":' <<<"$out"
  grep -q '"team-a/fabric-share":' <<<"$out"
  set +e
  LD_LIBRARY_PATH=$libdir "$work/allocate-cpp" node-1 team-a/none "$src/examples/scenarios/demo.yaml" 2>"$work/err"
  code=$?
  set -e
  [[ $code -eq 2 ]] && grep -q 'ResourceClaim "team-a/none" not found' "$work/err"
}
check "C++ example (examples/c/allocate.cpp) through pkg-config allocates a pod's claims" cpp_example

version_mismatch_detectable() {
  printf '#include <string.h>\n#include "draforge/draforge.h"\nint main(void) { return strcmp(draforge_version(), DRAFORGE_VERSION_STRING) != 0; }\n' >"$work/v.c"
  cc -std=c99 "$work/v.c" $(pkg-config --cflags --libs draforge) -o "$work/v"
  LD_LIBRARY_PATH=$libdir "$work/v"
}
check "installed header and library report the same version" version_mismatch_detectable

# The header-only C++ API (draforge/draforge.hpp) needs nothing but the C ABI's flags.
pkgconfig_cpp_api() {
  c++ -std=c++17 -Wall -Wextra -Werror -pedantic "$src/examples/consumer/cmake/main.cpp" \
    $(pkg-config --cflags --libs draforge) -o "$work/place-claim-pc"
  LD_LIBRARY_PATH=$libdir "$work/place-claim-pc" node-3 team-a/mig-half "$src/examples/scenarios/demo.yaml" |
    grep -q '^allocated team-a/mig-half on node-3: '
}
check "C++ API (draforge.hpp) through pkg-config, C++17 -pedantic -Werror" pkgconfig_cpp_api

cmake_package_files() {
  local dir
  dir=$(dirname "$(find "$stage" -name draforgeConfig.cmake | head -n1)")
  [[ -f $dir/draforgeConfigVersion.cmake && -f $dir/draforgeTargets.cmake ]] ||
    { echo "missing draforgeConfig.cmake, draforgeConfigVersion.cmake or draforgeTargets.cmake"; return 1; }
  # Relocatable: no path of the staging directory or the build is written into the package.
  ! grep -n -e "$stage" -e "$build" "$dir"/*.cmake
}
check "CMake package files installed, relocatable" cmake_package_files

# A CMake project: find_package(draforge 0.1 REQUIRED), draforge/draforge.hpp, draforge::draforge.
cmake_consumer() {
  cmake -S "$src/examples/consumer/cmake" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$work/cmake.log" || { cat "$work/cmake.log"; return 1; }
  cmake --build "$work/cm" >"$work/cmake.log" || { cat "$work/cmake.log"; return 1; }
  run_expecting 0 "$work/cm/place-claim" node-3 team-a/mig-half "$src/examples/scenarios/demo.yaml"
  grep -q '^draforge 0\.1\.0 (Kubernetes 1\.37)$' <<<"$out"
  grep -q '^allocated team-a/mig-half on node-3: .*"driver":"mig.example.com","pool":"node-3-mig","device":"gpu-4-mig-4g-0"' <<<"$out"
  # Does not fit: exit 1, kube-scheduler's reason and why.
  run_expecting 1 "$work/cm/place-claim" node-1 team-a/big-h100 "$src/examples/scenarios/demo.yaml"
  grep -q '^does not fit on node-1: cannot allocate all claims$' <<<"$out"
  grep -q '^why team-a/big-h100: .' <<<"$out"
  # A version newer than the installed one is refused by draforgeConfigVersion.cmake.
  mkdir -p "$work/v1"
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(v LANGUAGES CXX)\nfind_package(draforge 1.0 REQUIRED)\n' \
    >"$work/v1/CMakeLists.txt"
  ! cmake -S "$work/v1" -B "$work/v1/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 &&
    grep -q 'version: 0.1.0' "$work/cmake.log"
}
if command -v cmake >/dev/null; then
  check "CMake project (find_package, draforge.hpp, draforge::draforge) allocates and explains" cmake_consumer
else
  n=$((n + 1))
  echo "not ok $n - CMake consumer: cmake is not installed (scripts/install-deps installs it)"
  fail=$((fail + 1))
fi

if [[ ${3:-} == --subproject ]]; then
  subproject() {
    local copy=$work/consumer
    cp -r "$src/examples/consumer" "$copy"
    rm -f "$copy/subproject/subprojects/draforge"
    ln -s "$src" "$copy/subproject/subprojects/draforge"
    meson setup "$work/sb" "$copy/subproject" --wrap-mode=nodownload >/dev/null
    ninja -C "$work/sb" count-objects convert-c-abi >/dev/null
    out=$("$work/sb/count-objects" <"$src/examples/scenarios/demo.yaml")
    grep -q '^ResourceSlice: 6$' <<<"$out"
    grep -q '^DeviceClass: 5$' <<<"$out"
    "$work/sb/convert-c-abi" <<<"$claim" | grep -q 'exactly:'
  }
  check "Meson subproject consumer (draforge.hpp and the C ABI through dependency('draforge'))" subproject
fi

echo "# $pass passed, $fail failed"
((fail == 0))
