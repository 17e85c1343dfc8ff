#!/usr/bin/env python3
"""Counts test cases of a `meson test` run from Meson's JUnit report: each GoogleTest case and each TAP
case (the Python suites print TAP) counts once; any other test counts as one. Prints `N passed, N failed`."""
import os
import sys
import xml.etree.ElementTree as ET

logs = sys.argv[1]
passed = failed = 0
root = ET.parse(os.path.join(logs, "testlog.junit.xml")).getroot()
for suite in root.iter("testsuite"):
    for case in suite.iter("testcase"):
        bad = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        if bad:
            failed += 1
        elif not skipped:
            passed += 1
print(f"{passed} passed, {failed} failed")
