# Sourced by scripts/build-images and scripts/release: what both need from a build.
#   stage_install BUILD_DIR DESTDIR   builds what `meson install` installs (only that) and installs,
#                                     stripped, under DESTDIR; prints the installed libdir (DESTDIR/prefix/libdir)
#   linked_libraries FILE LIBDIR...   the shared libraries FILE loads, transitively, the dynamic loader
#                                     included: one absolute path a line, as the loader resolves them
#                                     with LIBDIR... searched first (the staged libdraforge)

stage_install() {
  local build=$1 destdir=$2 targets
  # The install targets alone: `meson install` would otherwise build every test and benchmark.
  mapfile -t targets < <(meson introspect "$build" --targets | python3 -c '
import json, os, sys
build = os.path.realpath(sys.argv[1])
for t in json.load(sys.stdin):
    if t["installed"]:
        for f in t["filename"]:
            print(os.path.relpath(f, build))' "$build")
  ninja -C "$build" "${targets[@]}" >/dev/null
  rm -rf "$destdir"
  meson install -C "$build" --no-rebuild --quiet --strip --destdir "$destdir" >/dev/null
  local prefix libdir
  prefix=$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"] + "/" + o["libdir"])')
  echo "$destdir$prefix"
}

linked_libraries() {
  local file=$1
  shift
  local path
  path=$(IFS=:; echo "$*")
  # "name => /path (0x...)" for each library, "/lib64/ld-linux-x86-64.so.2 (0x...)" for the loader;
  # "not found" is an error, not something to leave out of an image or an SBOM.
  local out
  out=$(LD_LIBRARY_PATH=$path ldd "$file")
  if grep -q 'not found' <<<"$out"; then
    echo "linked_libraries: $file: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')" >&2
    return 1
  fi
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out" | sort -u
}
