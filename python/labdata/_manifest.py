"""Finding and reading a folder's manifest, lab-data-sync.json version 3 (docs/lockfile.md)."""

import json
import os
import re
import sys
import unicodedata
from typing import Dict, List, Optional, Tuple

from ._errors import ManifestError, ManifestNotFound

MANIFEST_FILE_NAME = "lab-data-sync.json"
CONVENTIONAL_FOLDER = "lab-reports"
VERSION = 3
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)|^={7}$|^\|{7}(?: |$)", re.MULTILINE)
_MAX_FOLDERS = 5


class Entry:
    """One recorded report: its lab (origin and name), id and the manifest's fields."""

    __slots__ = ("origin", "lab_name", "report_id", "fields")

    def __init__(self, origin: str, lab_name: str, report_id: str, fields: dict):
        self.origin = origin
        self.lab_name = lab_name
        self.report_id = report_id
        self.fields = fields

    @property
    def file(self) -> str:
        return self.fields["file"]

    @property
    def sha256(self) -> str:
        return self.fields["sha256"]

    @property
    def bytes(self) -> int:
        return self.fields["bytes"]

    @property
    def revision(self) -> Optional[str]:
        return self.fields.get("revision")


class Manifest:
    """A parsed manifest: its file, its folder, and every entry in the file's order."""

    def __init__(self, file: str, entries: List[Entry], labs: Dict[str, str]):
        self.file = file
        self.folder = os.path.dirname(file)
        self.entries = entries
        self.labs = labs
        self._by_id: Dict[str, List[Entry]] = {}
        for entry in entries:
            self._by_id.setdefault(entry.report_id, []).append(entry)

    def find(self, report_id: str) -> List[Entry]:
        return self._by_id.get(report_id, [])


_PLAIN = re.compile(r"^(?:(?!\.\.?/)[^/\\\x00-\x1f:]+/){0,%d}(?!\.\.?$)[^/\\\x00-\x1f:]+$" % _MAX_FOLDERS)


def _path_problem(name: object) -> Optional[str]:
    # The common case at once: plain segments, no drive, no control character (10,000 entries a read).
    if isinstance(name, str) and _PLAIN.match(name):
        return None
    if not isinstance(name, str) or name == "":
        return "its file name is missing"
    if re.match(r"^[A-Za-z]:", name) or name.startswith("/") or name.startswith("\\"):
        return "its file name is an absolute path"
    if "\\" in name:
        return "its file name contains a backslash"
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "its file name leaves the folder or has an empty part"
    if len(parts) > _MAX_FOLDERS + 1:
        return f"its file name is more than {_MAX_FOLDERS} folders deep"
    if any(ord(ch) < 32 for ch in name):
        return "its file name has a control character"
    return None


class _Lines:
    """The text's lines, split only when an error needs a line number (a good manifest never does)."""

    def __init__(self, text: str):
        self.text = text
        self._lines: Optional[List[str]] = None

    def of(self, needle: str, after: int = 0) -> Optional[int]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        for number in range(after, len(self._lines)):
            if needle in self._lines[number]:
                return number + 1
        return None


def parse(text: str, file: str) -> Manifest:
    """The manifest of a text, or a ManifestError naming the line of the first problem."""
    lines = _Lines(text)
    # One search of the whole text: a line-by-line scan is most of a 10,000-entry read.
    marker = _MARKER.search(text)
    if marker is not None:
        raise ManifestError(
            "git left conflict markers in the manifest (a merge was not resolved). "
            f"lab-data merge-manifest --resolve {os.path.dirname(file) or '.'} merges both sides "
            "entry by entry; check it, then git add it.",
            file,
            text.count("\n", 0, marker.start()) + 1,
        )
    try:
        parsed = json.loads(text[1:] if text.startswith("\ufeff") else text)
    except json.JSONDecodeError as error:
        raise ManifestError(f"it is not JSON: {error.msg} (column {error.colno})", file, error.lineno)
    if not isinstance(parsed, dict):
        raise ManifestError("it is not a JSON object", file, 1)
    version = parsed.get("version")
    if version in (1, 2):
        raise ManifestError(
            f"it is a version {version} manifest (Lab Data 0.1/0.2); labdata reads version 3: "
            "any lab-data sync or pull --update rewrites it as version 3",
            file,
            lines.of('"version"'),
        )
    if version != VERSION:
        raise ManifestError(
            f"its version {json.dumps(version)} is not one labdata knows (it reads version 3): "
            "a newer Lab Data wrote it; install a newer labdata",
            file,
            lines.of('"version"'),
        )
    labs_value = parsed.get("labs")
    if not isinstance(labs_value, dict):
        raise ManifestError('its "labs" is not an object of sections', file, lines.of('"labs"'))
    entries: List[Entry] = []
    names: Dict[str, str] = {}
    folded_names: Dict[str, str] = {}
    plain = _PLAIN.match
    sha256 = _SHA256.match
    for origin, section in labs_value.items():
        if not isinstance(section, dict) or not isinstance(section.get("reports"), dict):
            raise ManifestError(
                f'the section of {origin} has no "reports" object', file, lines.of(json.dumps(origin) + ":")
            )
        name = section.get("name") if isinstance(section.get("name"), str) else origin
        names[origin] = name
        for report_id, fields in section["reports"].items():
            # The common case in one test (10,000 entries a read); anything else is said below.
            if type(fields) is dict:
                file_name = fields.get("file")
                sha = fields.get("sha256")
                size = fields.get("bytes")
                if (
                    type(file_name) is str
                    and plain(file_name)
                    and type(sha) is str
                    and sha256(sha)
                    and type(size) is int
                    and size >= 0
                ):
                    folded = file_name.lower() if file_name.isascii() else unicodedata.normalize("NFC", file_name).lower()
                    if folded != MANIFEST_FILE_NAME and folded not in folded_names:
                        folded_names[folded] = report_id
                        entries.append(Entry(origin, name, report_id, fields))
                        continue
            problem = _entry_problem(fields, folded_names, file)
            line = lines.of(json.dumps(report_id) + ":", (lines.of(json.dumps(origin) + ":") or 0))
            raise ManifestError(f"the entry of {report_id} ({name}) is broken: {problem}", file, line)
    return Manifest(file, entries, names)


def _entry_problem(fields: object, folded_names: Dict[str, str], file: str) -> str:
    """What is wrong with an entry the quick test did not pass, in the order a reader checks."""
    if not isinstance(fields, dict):
        return "it is not an object"
    problem = _path_problem(fields.get("file"))
    if problem is not None:
        return problem
    if fields["file"].lower() == MANIFEST_FILE_NAME:
        return "its file is the manifest itself"
    sha = fields.get("sha256")
    size = fields.get("bytes")
    if not isinstance(sha, str) or not _SHA256.match(sha):
        return "it has no SHA-256 (64 lower-case hexadecimal digits) to check the file against"
    if type(size) is not int or size < 0:
        return 'its "bytes" is not a whole number'
    file_name = fields["file"]
    folded = file_name.lower() if file_name.isascii() else unicodedata.normalize("NFC", file_name).lower()
    other = folded_names.get(folded)
    if other is not None:
        return (
            f"another entry ({other}) has the same file name; lab-data merge-manifest "
            f"--resolve {os.path.dirname(file) or '.'} gives one of them a second name"
        )
    return "it cannot be read"


_cache: Dict[str, Tuple[Tuple[int, int], Manifest]] = {}


def load(file: str) -> Manifest:
    """The manifest of a file, parsed again only when the file changed (size or time)."""
    stats = os.stat(file)
    key = (stats.st_size, stats.st_mtime_ns)
    cached = _cache.get(file)
    if cached is not None and cached[0] == key:
        return cached[1]
    with open(file, "r", encoding="utf-8") as handle:
        text = handle.read()
    manifest = parse(text, file)
    _cache[file] = (key, manifest)
    return manifest


def _caller_folder() -> Optional[str]:
    main = sys.modules.get("__main__")
    notebook = getattr(main, "__vsc_ipynb_file__", None)
    script = notebook if isinstance(notebook, str) else getattr(main, "__file__", None)
    if isinstance(script, str) and script:
        return os.path.dirname(os.path.abspath(script))
    return None


def _at(folder: str) -> Optional[str]:
    for candidate in (
        os.path.join(folder, MANIFEST_FILE_NAME),
        os.path.join(folder, CONVENTIONAL_FOLDER, MANIFEST_FILE_NAME),
    ):
        if os.path.isfile(candidate):
            return candidate
    return None


def _upwards(start: str) -> Optional[str]:
    folder = os.path.abspath(start)
    while True:
        found = _at(folder)
        if found is not None:
            return found
        # Like git: the search ends at the repository's root (a folder holding .git).
        if os.path.exists(os.path.join(folder, ".git")):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def find_manifest(folder: Optional[str] = None) -> str:
    """The manifest's path: in ``folder`` (or its lab-reports/) when given, else the nearest one at
    or above the calling script's folder (a notebook's), then the working directory."""
    if folder is not None:
        folder = os.fspath(folder)
        if os.path.basename(folder) == MANIFEST_FILE_NAME and os.path.isfile(folder):
            return os.path.abspath(folder)
        found = _at(folder)
        if found is None:
            raise ManifestNotFound(
                f"no {MANIFEST_FILE_NAME} in {folder} (nor in its {CONVENTIONAL_FOLDER}/): "
                "sync it with Lab Data or lab-data sync, or give the report folder"
            )
        return os.path.abspath(found)
    starts = [start for start in (_caller_folder(), os.getcwd()) if start]
    for start in starts:
        found = _upwards(start)
        if found is not None:
            return found
    raise ManifestNotFound(
        f"no {MANIFEST_FILE_NAME} at or above {' or '.join(starts)} (nor in a {CONVENTIONAL_FOLDER}/ "
        "folder there): give folder=, the report folder"
    )
