#!/usr/bin/env python3
"""Writes the SPDX 2.3 JSON SBOM of a DRAForge binary tarball (scripts/release, docs/release.md).

  spdx_sbom.py --version V --staged DIR --links FILE --tarball NAME --source-tarball NAME --created T OUT

--links lists "ELF<TAB>LIBRARY" lines: each file of the staged install (paths under DIR) and each
shared library it loads as the loader resolves it (scripts/lib/staging.sh linked_libraries).
Every library outside DIR becomes a package named after its file, versioned by the Debian package
that owns it (dpkg -S, dpkg-query), with a purl; libdraforge is the release's own file. Components
compiled in from headers (RapidJSON, Boost.Beast/Asio), which no ldd can see, are listed from their
Debian packages too. A library no Debian package owns is an error: it would be an unversioned entry.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

# Compiled into the binaries from headers only (examples/common/http, every front end's JSON):
# (component, Debian package of its headers, how it is used).
HEADER_ONLY = [
    ("RapidJSON", "rapidjson-dev", "JSON reading in every front end"),
    ("Boost.Beast and Boost.Asio", "libboost1.74-dev", "the daemons' HTTP layer (examples/common/http)"),
]
NAMESPACE = "https://github.com/draforge/draforge/releases"


def dpkg_owner(path):
    """The Debian package owning `path`. Debian 12 merges /usr, and dpkg knows a file by the path
    its package ships (/lib/... or /usr/lib/...), so the other spelling is tried too."""
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.append(p[len("/usr"):])
        else:
            candidates.append("/usr" + p)
    for p in candidates:
        r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if r.returncode == 0:
            # "libfoo1:amd64: /usr/lib/x86_64-linux-gnu/libfoo.so.1"; diversions start with "diversion by".
            for line in r.stdout.splitlines():
                if not line.startswith("diversion"):
                    return line.split(": ", 1)[0]
    raise SystemExit(f"spdx_sbom: {path}: no Debian package owns it (dpkg -S)")


def dpkg_version(package):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}\t${Architecture}\t${source:Package}", package],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"spdx_sbom: {package}: not installed (dpkg-query -W)")
    version, arch, source = r.stdout.split("\t")
    return version, arch, source


def spdx_id(text):
    return "SPDXRef-" + "".join(c if c.isalnum() or c in ".-" else "-" for c in text)


def deb_package(spdxid, name, package, comment, file_name=None):
    version, arch, source = dpkg_version(package)
    bare = package.split(":")[0]
    purl = f"pkg:deb/debian/{bare}@{version}?arch={arch}&distro=debian-12"
    return {
        "SPDXID": spdxid, "name": name, "versionInfo": version,
        "supplier": "Organization: Debian", "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
        "sourceInfo": f"Debian package {bare} {version} (source package {source})", "comment": comment,
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": purl}],
    } | ({"packageFileName": file_name} if file_name else {})


def file_entry(staged, relpath):
    with open(os.path.join(staged, relpath), "rb") as f:
        data = f.read()
    return {
        "SPDXID": spdx_id("File-" + relpath), "fileName": "./" + relpath,
        "checksums": [{"algorithm": "SHA1", "checksumValue": hashlib.sha1(data).hexdigest()},
                      {"algorithm": "SHA256", "checksumValue": hashlib.sha256(data).hexdigest()}],
        "licenseConcluded": "Apache-2.0", "copyrightText": "NOASSERTION",
    }


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--version", "--staged", "--links", "--tarball", "--source-tarball", "--created"):
        ap.add_argument(flag, required=True)
    ap.add_argument("out")
    a = ap.parse_args()
    staged = os.path.realpath(a.staged)

    links = {}  # ELF (relative to the staged root) -> libraries it loads
    with open(a.links) as f:
        for line in f:
            elf, lib = line.rstrip("\n").split("\t")
            links.setdefault(os.path.relpath(elf, staged), set()).add(lib)

    main_id = "SPDXRef-Package-draforge"
    files = [file_entry(staged, rel) for rel in sorted(links)]
    tarball = os.path.basename(a.tarball)
    with open(a.tarball, "rb") as f:
        tarball_sha256 = hashlib.sha256(f.read()).hexdigest()
    # filesAnalyzed false: the files listed are the ELF files (what links), not every file of the tarball.
    packages = [{
        "SPDXID": main_id, "name": "draforge", "versionInfo": a.version, "packageFileName": tarball,
        "checksums": [{"algorithm": "SHA256", "checksumValue": tarball_sha256}],
        "supplier": "Organization: DRAForge", "downloadLocation": f"{NAMESPACE}/download/v{a.version}/{tarball}",
        "filesAnalyzed": False, "licenseConcluded": "Apache-2.0",
        "licenseDeclared": "Apache-2.0", "copyrightText": "NOASSERTION",
        "sourceInfo": f"built from {a.source_tarball}",
    }]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                      "relatedSpdxElement": main_id}]
    relationships += [{"spdxElementId": main_id, "relationshipType": "CONTAINS", "relatedSpdxElement": f["SPDXID"]}
                      for f in files]
    seen = {}
    for elf in sorted(links):
        for lib in sorted(links[elf]):
            if os.path.realpath(lib).startswith(staged + os.sep):
                continue  # libdraforge: a file of this package
            if lib not in seen:
                seen[lib] = spdx_id("Library-" + lib.lstrip("/"))
                packages.append(deb_package(seen[lib], os.path.basename(lib), dpkg_owner(lib),
                                            f"shared library {lib}", file_name=lib))
            relationships.append({"spdxElementId": spdx_id("File-" + elf), "relationshipType": "DYNAMIC_LINK",
                                  "relatedSpdxElement": seen[lib]})
    for name, package, use in HEADER_ONLY:
        pid = spdx_id("HeaderOnly-" + package)
        packages.append(deb_package(pid, name, package, f"compiled in from headers: {use}"))
        relationships.append({"spdxElementId": main_id, "relationshipType": "STATIC_LINK", "relatedSpdxElement": pid})

    doc = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"draforge-{a.version}",
        "documentNamespace": f"{NAMESPACE}/v{a.version}/{tarball}.spdx.json-{tarball_sha256[:16]}",
        "creationInfo": {"created": a.created, "creators": ["Tool: draforge-scripts-release"]},
        "packages": packages, "files": files, "relationships": relationships,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
