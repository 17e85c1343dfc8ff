#!/usr/bin/env python3
"""The C ABI's inventory views against the server's public contract (examples/server/openapi.json).

Runs inventory_views (draforge/inventory.h through draforge.hpp) over the demo scenario, the
example scenarios and the shared corpus (ResourceSlices, driver and KEP manifests, the API
fixtures), and validates every view against the schema of the route that serves it: the ABI and
the server render one schema, and this fails the moment either drifts from openapi.json.

Usage: inventory_schema_test.py PATH/TO/inventory_views   (prints TAP)
Environment: DRAFORGE_SOURCE_ROOT (the checkout), DRAFORGE_CORPUS (shared/corpus).
"""
import glob
import json
import os
import subprocess
import sys

import jsonschema

VIEWS = sys.argv[1]
ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.environ.get("DRAFORGE_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
with open(os.path.join(ROOT, "examples", "server", "openapi.json"), encoding="utf-8") as f:
    OPENAPI = json.load(f)


def nullable_to_jsonschema(node):
    """OpenAPI 3.0's `nullable: true` as JSON Schema's type list (as tests/server does)."""
    if isinstance(node, dict):
        node = {k: nullable_to_jsonschema(v) for k, v in node.items()}
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        return node
    if isinstance(node, list):
        return [nullable_to_jsonschema(v) for v in node]
    return node


COMPONENTS = nullable_to_jsonschema(OPENAPI["components"])
# Each view and its schema in openapi.json: the route's 200 answer, or a component. ClaimDiagnosis
# (one claim's diagnosis) has no route: it is a snapshot plus the route's PendingClaim.
SCHEMAS = {name: {"$ref": "#/components/schemas/" + name}
           for name in ("Summary", "PoolList", "DeviceList", "ClaimList", "Graph", "Diagnostics", "ChangeEvent")}
SCHEMAS["ClaimDiagnosis"] = {
    "type": "object", "additionalProperties": False, "required": ["snapshot", "diagnosis"],
    "properties": {"snapshot": {"$ref": "#/components/schemas/SnapshotRef"},
                   "diagnosis": {"$ref": "#/components/schemas/PendingClaim"}},
}
ROUTES = {"/api/v1/summary": "Summary", "/api/v1/pools": "PoolList", "/api/v1/devices": "DeviceList",
          "/api/v1/claims": "ClaimList", "/api/v1/graph": "Graph", "/api/v1/diagnostics": "Diagnostics"}


def validator(schema):
    root = dict(schema)
    root["components"] = COMPONENTS
    return jsonschema.Draft7Validator(root)


def inputs():
    out = [os.path.join(ROOT, "examples", "scenarios", "demo.yaml")]
    out += sorted(d for d in glob.glob(os.path.join(ROOT, "examples", "scenarios", "*")) if os.path.isdir(d))
    out += sorted(glob.glob(os.path.join(CORPUS, "slices", "*.yaml")))
    out += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(CORPUS, "manifests", "**", "*.yaml"),
                                                         recursive=True))
    out += sorted(glob.glob(os.path.join(CORPUS, "api-fixtures", "resource.k8s.io.v1.*.yaml")))
    return list(dict.fromkeys(out))  # each directory once


def main():
    results = []  # (name, error or None)
    # The routes still answer with the schemas checked here (a renamed route or schema fails).
    for route, schema in ROUTES.items():
        got = OPENAPI["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        results.append(("%s answers %s" % (route, schema),
                        None if got == {"$ref": "#/components/schemas/" + schema} else "schema is %r" % got))
    paths = inputs()
    proc = subprocess.run([VIEWS, *paths], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        results.append(("inventory_views runs", "exit %d: %s" % (proc.returncode, proc.stderr[-2000:])))
    loaded, views, seen = set(), 0, set()
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        name = os.path.relpath(rec["input"], os.path.dirname(CORPUS) if rec["input"].startswith(CORPUS) else ROOT)
        if "schema" not in rec:
            continue  # an input the library refuses (another engineer's fixture of a bad object): not a view
        loaded.add(rec["input"])
        if "error" in rec:
            results.append(("%s: %s" % (name, rec["schema"]), rec["error"]))
            continue
        errors = sorted(validator(SCHEMAS[rec["schema"]]).iter_errors(rec["body"]), key=lambda e: list(e.path))
        views += 1
        seen.add(rec["schema"])
        results.append(("%s: %s" % (name, rec["schema"]),
                        None if not errors else "; ".join("%s: %s" % (list(e.path), e.message) for e in errors[:3])))
    # The inputs must exercise every view, the demo among them: a run that loads nothing proves nothing.
    demo = paths[0]
    results.append(("the demo scenario loads", None if demo in loaded else "it did not load"))
    results.append(("every view was checked", None if seen == set(SCHEMAS) else "missing %s" % sorted(set(SCHEMAS) - seen)))
    results.append(("most inputs load", None if len(loaded) * 2 > len(paths) else "%d of %d" % (len(loaded), len(paths))))
    print("1..%d" % len(results))
    failed = 0
    for i, (name, error) in enumerate(results, 1):
        if error is None:
            print("ok %d - %s" % (i, name))
        else:
            failed += 1
            print("not ok %d - %s" % (i, name))
            print("# " + error.replace("\n", "\n# "))
    print("# %d views of %d inputs (%d loaded)" % (views, len(paths), len(loaded)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
