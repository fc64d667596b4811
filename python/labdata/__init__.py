"""labdata: the lab reports a Lab Data manifest records, for analysis code.

    import labdata
    labdata.reports()                  # every recorded report: a DataFrame (a list of dicts without pandas)
    labdata.path("RPT-2026-000381")    # its file, checked to be the recorded revision
    labdata.verify()                   # what is not as recorded (empty when all is)

Strict (a file that is not the recorded one raises IntegrityError), offline by default (nothing is
downloaded unless restore=True, and then only from the content cache), fast on the second read (a
file's size and time vouch for it). The manifest's format: docs/lockfile.md.
"""

from ._api import (
    CHANGED,
    COLUMNS,
    IN_STEP,
    MIME_TYPE,
    MISSING,
    RESTORABLE,
    Report,
    path,
    report,
    reports,
    verify,
)
from ._errors import (
    AmbiguousReport,
    IntegrityError,
    LabDataError,
    ManifestError,
    ManifestNotFound,
    ReportNotFound,
)
from ._manifest import MANIFEST_FILE_NAME, find_manifest

__version__ = "0.1.0"

__all__ = [
    "AmbiguousReport",
    "CHANGED",
    "COLUMNS",
    "IN_STEP",
    "IntegrityError",
    "LabDataError",
    "MANIFEST_FILE_NAME",
    "MIME_TYPE",
    "MISSING",
    "ManifestError",
    "ManifestNotFound",
    "RESTORABLE",
    "Report",
    "ReportNotFound",
    "find_manifest",
    "path",
    "report",
    "reports",
    "verify",
]
