#!/usr/bin/env python3
"""Embeds a text file in a C++ source as `extern const char NAME[]` (used for the demo scenario)."""
import sys

src, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, encoding="utf-8").read()
delim = "DRAFORGE_EMBED"
assert f"){delim}\"" not in data
with open(out, "w", encoding="utf-8") as f:
    f.write(f"// Generated from {src.rsplit('/', 1)[-1]} by embed.py. Do not edit.\n")
    f.write(f"extern const char {name}[];\nconst char {name}[] = R\"{delim}({data}){delim}\";\n")
