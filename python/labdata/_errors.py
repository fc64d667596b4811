"""The errors labdata raises: each names what is wrong and the command that fixes it."""

from typing import Optional


class LabDataError(Exception):
    """Base of labdata's own errors."""


class ManifestError(LabDataError, ValueError):
    """A manifest that cannot be used as it is: conflict markers, an unknown version, a broken entry.

    ``file`` is the manifest's path and ``line`` the 1-based line the problem is on (None when the
    whole file is the problem). Nothing was written.
    """

    def __init__(self, message: str, file: str, line: Optional[int] = None):
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {message}")
        self.file = file
        self.line = line


class ManifestNotFound(LabDataError, FileNotFoundError):
    """No lab-data-sync.json at or above the folders looked in."""


class ReportNotFound(LabDataError, LookupError):
    """The manifest records no report of that id (in that lab)."""


class AmbiguousReport(LabDataError, LookupError):
    """Two labs of the manifest record the id: ``lab=`` says which."""


class IntegrityError(LabDataError, OSError):
    """A report's file is not the recorded one: missing, or changed (its SHA-256 differs).

    ``report_id``, ``lab`` (the lab's origin), ``path``, ``expected`` (the recorded SHA-256),
    ``actual`` (the file's SHA-256, None when missing), ``reason`` (``missing``, ``changed`` or
    ``not restored``) and ``command`` (what restores it) say which and how to fix it. Nothing was
    downloaded or replaced.
    """

    def __init__(
        self,
        *,
        report_id: str,
        lab: str,
        path: str,
        expected: str,
        actual: Optional[str],
        reason: str,
        command: str,
        detail: str = "",
    ):
        actual_text = actual if actual is not None else "none (no file)"
        message = (
            f"{report_id} ({lab}): {path} is {reason}: expected SHA-256 {expected}, "
            f"actual {actual_text}.{(' ' + detail) if detail else ''} To restore the recorded "
            f"file: {command}"
        )
        super().__init__(message)
        self.report_id = report_id
        self.lab = lab
        self.path = path
        self.expected = expected
        self.actual = actual
        self.reason = reason
        self.command = command

    def __str__(self) -> str:
        return self.args[0]
