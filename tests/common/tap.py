"""Runs a unittest suite and prints TAP, so that `meson test` (protocol 'tap') and CI count every case.

Usage, at the end of a test script:   sys.exit(tap.main())
"""
import sys
import unittest


class _TapResult(unittest.TestResult):
    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.number = 0

    def _line(self, ok, test, directive="", details=""):
        self.number += 1
        name = test.id().split(".", 1)[-1]
        self.stream.write(f"{'ok' if ok else 'not ok'} {self.number} - {name}{directive}\n")
        for line in details.rstrip().splitlines():
            self.stream.write(f"# {line}\n")
        self.stream.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test, details=self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(False, test, details=self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, directive=f" # SKIP {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(True, test, directive=" # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(False, test, details="unexpected success")


def main(module="__main__"):
    """Runs every TestCase of `module`; prints the plan first, then one TAP line per case. Returns the exit code."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module])
    sys.stdout.write(f"1..{suite.countTestCases()}\n")
    result = _TapResult(sys.stdout)
    suite.run(result)
    return 0 if result.wasSuccessful() else 1
