"""The one translation table from the C ABI's error codes to Python exceptions.

Every failing call raises an instance of :class:`Error` carrying the C code, the message, and the
object and field it is about (empty when none). Bad input is also a :class:`ValueError`, a missing
object also a :class:`KeyError`, so code that expects the built-in exceptions works unchanged.
"""
from __future__ import annotations

from typing import Dict, Type


class Error(Exception):
    """A DRAForge error. ``code`` is the C ABI's code (negative), ``message`` the readable text,
    ``object`` the object it names ("ResourceSlice/gpu-0", or ""), ``field`` the field path
    ("spec.devices[0].name", or "")."""

    code: int = -5

    def __init__(self, message: str, *, code: int | None = None, object: str = "", field: str = "") -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.object = object
        self.field = field

    def __str__(self) -> str:  # KeyError would otherwise print the message's repr
        return self.message


class InvalidInputError(Error, ValueError):
    """Bad input: a malformed document, a wrong type, a CEL error, an invalid argument (DRAFORGE_EINVALID)."""

    code = -1


class NotFoundError(Error, KeyError):
    """A named object, file or index does not exist (DRAFORGE_ENOTFOUND)."""

    code = -2


class UnsupportedError(Error, ValueError):
    """Well-formed but unusable input: an unsupported apiVersion or kind (DRAFORGE_EUNSUPPORTED)."""

    code = -3


class LimitError(Error):
    """A size, cost or search-step limit was exceeded (DRAFORGE_ELIMIT)."""

    code = -4


class InternalError(Error):
    """A bug in DRAForge (DRAFORGE_EINTERNAL)."""

    code = -5


class ApiError(Error):
    """The Kubernetes API server answered with an error status (DRAFORGE_EAPI). ``status_code`` is its
    HTTP code (404, 409, 410, ...), ``reason`` its metav1.Status reason ("NotFound", "Conflict",
    "AlreadyExists", "Gone", ...), to branch on as client-go's apierrors.IsNotFound does."""

    code = -6

    def __init__(self, message: str, *, code: int | None = None, object: str = "", field: str = "",
                 status_code: int = 0, reason: str = "") -> None:
        super().__init__(message, code=code, object=object, field=field)
        self.status_code = status_code
        self.reason = reason


class UnavailableError(Error, ConnectionError):
    """The API server could not be reached or did not answer in time, or the call's deadline had
    passed before it was sent (DRAFORGE_EUNAVAILABLE)."""

    code = -7


class FileSystemError(Error, OSError):
    """The operating system refused or failed a file operation on a path the caller named:
    permission denied, a read-only file system, an I/O error (DRAFORGE_EIO). The message names the
    path."""

    code = -8


# C code -> exception class. Codes are never reused (include/draforge/common.h).
ERRORS: Dict[int, Type[Error]] = {
    -1: InvalidInputError,
    -2: NotFoundError,
    -3: UnsupportedError,
    -4: LimitError,
    -5: InternalError,
    -6: ApiError,
    -7: UnavailableError,
    -8: FileSystemError,
}


def from_c(code: int, message: str, object: str = "", field: str = "", status_code: int = 0,
           reason: str = "") -> Error:
    """The exception for C error ``code`` (unknown codes, from a newer library, are plain Error);
    ``status_code`` and ``reason`` are an API server's answer (ApiError only)."""
    cls = ERRORS.get(code, Error)
    if cls is ApiError:
        return ApiError(message, code=code, object=object, field=field, status_code=status_code, reason=reason)
    return cls(message, code=code, object=object, field=field)
