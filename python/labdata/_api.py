"""labdata's three calls: reports(), path() and verify() (and report(), one record)."""

import dataclasses
import datetime
import html
import json
import os
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _cache
from ._errors import AmbiguousReport, IntegrityError, ReportNotFound
from ._manifest import MANIFEST_FILE_NAME, Entry, Manifest, find_manifest, load
from ._reads import record_read
from ._selection import selected
from ._stamp import sha256_and_stats, stamps_for

IN_STEP = "in step"
MISSING = "missing"
CHANGED = "changed"
RESTORABLE = "restorable"

COLUMNS = [
    "lab",
    "origin",
    "report_id",
    "revision",
    "status",
    "report_type",
    "client_id",
    "project_id",
    "sample_ids",
    "published_at",
    "sha256",
    "bytes",
    "file",
    "path",
    "state",
]

MIME_TYPE = "application/vnd.labdata.report+json"

try:  # pandas when it is installed; lists of dicts when not.
    import pandas as _pandas
except ImportError:  # pragma: no cover - exercised where pandas is absent
    _pandas = None


def _published(text: Optional[str]) -> Optional[datetime.datetime]:
    """An ISO 8601 time as a timezone-aware datetime (UTC when it names no zone)."""
    if not isinstance(text, str):
        return None
    match = re.match(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$", text.strip())
    if not match:
        return None
    day, clock, fraction, zone = match.groups()
    value = datetime.datetime.fromisoformat(f"{day}T{clock or '00:00'}")
    if fraction:
        value = value.replace(microsecond=int((fraction[1:] + "000000")[:6]))
    if zone in (None, "Z"):
        return value.replace(tzinfo=datetime.timezone.utc)
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return value.replace(tzinfo=datetime.timezone(sign * offset))


def _local_cache_holds(sha256: str) -> bool:
    configured = (os.environ.get("LAB_DATA_CACHE") or "").strip()
    folder = configured if configured and not _cache._is_url(configured) else _cache.default_cache_folder()
    return os.path.isfile(os.path.join(folder, "sha256", sha256[:2], sha256))


def _file_path(manifest: Manifest, entry: Entry) -> str:
    name = entry.file
    return manifest.folder + os.sep + (name if os.sep == "/" else name.replace("/", os.sep))


def _file_paths(manifest: Manifest, entries: List[Entry]) -> List[str]:
    folder = manifest.folder + os.sep
    if os.sep == "/":
        return [folder + entry.fields["file"] for entry in entries]
    return [folder + entry.fields["file"].replace("/", os.sep) for entry in entries]


# Hashing this many recorded bytes or more is shared among threads (hashlib lets go of the GIL for
# large buffers); below it, for many small files, threads only add switching (measured).
_THREADED_BYTES = 64 << 20
_THREADS = min(4, os.cpu_count() or 1)


def _digests(files: List[str], recorded_bytes: int) -> List[Tuple[Optional[str], Optional[os.stat_result]]]:
    if recorded_bytes >= _THREADED_BYTES and _THREADS > 1 and len(files) > 1:
        with ThreadPoolExecutor(_THREADS) as pool:
            return list(pool.map(_digest_or_none, files))
    digest = _digest_or_none
    return [digest(file) for file in files]


def _digest_or_none(file: str) -> Tuple[Optional[str], Optional[os.stat_result]]:
    try:
        return sha256_and_stats(file)
    except OSError:
        return None, None


def _states(
    manifest: Manifest,
    entries: List[Entry],
    renewed: List[Tuple[str, str, str, float]],
    cache_state: bool = True,
    paths: Optional[List[str]] = None,
) -> List[Tuple[str, Optional[str]]]:
    """Each entry's state and its file's SHA-256 (None when missing or not a file): a stamp that
    holds vouches with one stat; any other file is opened and hashed once (its stats from the same
    open, so a fresh clone's files are not also stat'ed first)."""
    labs = stamps_for(manifest.folder).labs()
    paths = _file_paths(manifest, entries) if paths is None else paths
    results: List[Tuple[str, Optional[str]]] = [(CHANGED, None)] * len(entries)
    to_hash: List[int] = []
    stamps_of: Dict[str, dict] = {}
    is_regular = stat.S_ISREG
    for position, entry in enumerate(entries):
        fields = entry.fields
        files = stamps_of.get(entry.origin)
        if files is None:
            lab = labs.get(entry.origin)
            files = lab.get("files") if isinstance(lab, dict) else None
            files = stamps_of[entry.origin] = files if isinstance(files, dict) else {}
        stamp = files.get(entry.report_id)
        mtime = stamp.get("mtime_ms") if type(stamp) is dict and stamp.get("sha256") == fields["sha256"] else None
        if mtime is None or isinstance(mtime, bool) or not isinstance(mtime, (int, float)):
            to_hash.append(position)
            continue
        try:
            stats = os.stat(paths[position])
        except OSError:
            results[position] = (RESTORABLE if cache_state and _local_cache_holds(fields["sha256"]) else MISSING, None)
            continue
        if not is_regular(stats.st_mode):
            continue
        if stats.st_size == fields["bytes"] and abs(stats.st_mtime_ns / 1e6 - mtime) < 1:
            results[position] = (IN_STEP, fields["sha256"])
        else:
            to_hash.append(position)
    if to_hash:
        recorded = sum(entries[position].fields["bytes"] for position in to_hash)
        sums = _digests([paths[position] for position in to_hash], recorded)
        for position, (actual, stats) in zip(to_hash, sums):
            entry = entries[position]
            if stats is None:
                results[position] = (
                    RESTORABLE if cache_state and _local_cache_holds(entry.sha256) else MISSING,
                    None,
                )
            elif actual is None or actual != entry.sha256:
                results[position] = (CHANGED, actual)
            else:
                renewed.append((entry.origin, entry.report_id, actual, stats.st_mtime_ns / 1e6))
                results[position] = (IN_STEP, actual)
    return results


def _check(manifest: Manifest, entry: Entry, renewed: List[Tuple[str, str, str, float]], cache_state: bool = True) -> Tuple[str, Optional[str]]:
    return _states(manifest, [entry], renewed, cache_state)[0]


def _as_list(value: Any) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(item) for item in value]
    return [str(value)]


def _row(manifest: Manifest, entry: Entry, state: str) -> Dict[str, Any]:
    fields = entry.fields
    samples = fields.get("samples")
    return {
        "lab": entry.lab_name,
        "origin": entry.origin,
        "report_id": entry.report_id,
        "revision": fields.get("revision"),
        "status": fields.get("status"),
        "report_type": fields.get("type"),
        "client_id": fields.get("client"),
        "project_id": fields.get("project"),
        "sample_ids": list(samples) if isinstance(samples, list) else [],
        "published_at": fields.get("published_at"),
        "sha256": entry.sha256,
        "bytes": entry.bytes,
        "file": entry.file,
        "path": _file_path(manifest, entry),
        "state": state,
    }


def _columns(chosen: List[Entry], states: List[Tuple[str, Optional[str]]], paths: List[str]):
    """The DataFrame of every chosen entry, built column by column (no dict a row: 10,000 rows)."""
    fields = [entry.fields for entry in chosen]
    data = {
        "lab": [entry.lab_name for entry in chosen],
        "origin": [entry.origin for entry in chosen],
        "report_id": [entry.report_id for entry in chosen],
        "revision": [f.get("revision") for f in fields],
        "status": [f.get("status") for f in fields],
        "report_type": [f.get("type") for f in fields],
        "client_id": [f.get("client") for f in fields],
        "project_id": [f.get("project") for f in fields],
        "sample_ids": [list(f["samples"]) if isinstance(f.get("samples"), list) else [] for f in fields],
        "sha256": [f["sha256"] for f in fields],
        "bytes": [f["bytes"] for f in fields],
        "file": [f["file"] for f in fields],
        "path": paths,
        "state": [state for state, _ in states],
    }
    published = [f.get("published_at") for f in fields]
    frame = _pandas.DataFrame(data, columns=[c for c in COLUMNS if c != "published_at"])
    times = _pandas.to_datetime(published, utc=True, errors="coerce") if published else _pandas.to_datetime([], utc=True)
    frame.insert(COLUMNS.index("published_at"), "published_at", times)
    return frame


def _frame(rows: List[Dict[str, Any]], extra: Sequence[str] = ()):
    if _pandas is None:
        for row in rows:
            row["published_at"] = _published(row["published_at"])
        return rows
    columns = COLUMNS + list(extra)
    data = {column: [row[column] for row in rows] for column in columns}
    published = data.pop("published_at")
    frame = _pandas.DataFrame(data, columns=[c for c in columns if c != "published_at"])
    times = _pandas.to_datetime(published, utc=True, errors="coerce") if published else _pandas.to_datetime([], utc=True)
    frame.insert(columns.index("published_at"), "published_at", times)
    return frame


# A folder given → the manifest found in it, when that is the folder's own lab-data-sync.json:
# nothing can come before it, so a later call only stats it (in load). Found in lab-reports/ or
# by searching, it is looked for again each call (a nearer manifest may have appeared).
_found_in: Dict[Tuple[str, str], str] = {}


def _manifest(folder: Optional[Union[str, os.PathLike]]) -> Manifest:
    if folder is None:
        return load(find_manifest(None))
    given = os.fspath(folder)
    key = (given, "" if os.path.isabs(given) else os.getcwd())
    file = _found_in.get(key)
    if file is not None:
        try:
            return load(file)
        except FileNotFoundError:
            del _found_in[key]
    file = find_manifest(folder)
    manifest = load(file)
    given = os.path.abspath(given)
    if file in (given, os.path.join(given, MANIFEST_FILE_NAME)):
        _found_in[key] = file
    return manifest


def reports(folder: Optional[Union[str, os.PathLike]] = None, **filters: Any):
    """Every recorded report (or those the filters select) with its state: a pandas DataFrame, or a
    list of dicts without pandas. Filters, as the lab-data tool's selection flags: lab (a name, or
    an address: its origin), client, project, status, type, sample, report (or their column names
    client_id, project_id, report_type, sample_ids, report_id), each a value or a list of values
    (any of them); since and until (a date, until including its day; a time with its zone; today,
    24h, 30d, 2w, 1m, 1y); and state. Every filter given must hold."""
    manifest = _manifest(folder)
    wanted_states = _as_list(filters.pop("state", None))
    renewed: List[Tuple[str, str, str, float]] = []
    rows = []
    chosen = selected(manifest, filters)
    paths = _file_paths(manifest, chosen)
    states = _states(manifest, chosen, renewed, paths=paths)
    stamps_for(manifest.folder).renew(renewed)
    if _pandas is not None and wanted_states is None:
        return _columns(chosen, states, paths)
    for entry, (state, _) in zip(chosen, states):
        if wanted_states is None or state in wanted_states:
            rows.append(_row(manifest, entry, state))
    return _frame(rows)


def verify(folder: Optional[Union[str, os.PathLike]] = None, **filters: Any):
    """What is not as recorded (missing, changed, restorable), with the file's actual SHA-256: an
    empty DataFrame (or list) when every file is the recorded one."""
    manifest = _manifest(folder)
    renewed: List[Tuple[str, str, str, float]] = []
    rows = []
    chosen = selected(manifest, filters)
    for entry, (state, actual) in zip(chosen, _states(manifest, chosen, renewed)):
        if state != IN_STEP:
            row = _row(manifest, entry, state)
            row["actual_sha256"] = actual
            rows.append(row)
    stamps_for(manifest.folder).renew(renewed)
    return _frame(rows, ["actual_sha256"])


def _entry(manifest: Manifest, report_id: str, lab: Optional[str]) -> Entry:
    found = manifest.find(report_id)
    if lab is not None:
        found = [entry for entry in found if lab in (entry.origin, entry.lab_name)]
    if not found:
        where = f" of lab {lab}" if lab is not None else ""
        raise ReportNotFound(f"{manifest.file} records no report {report_id}{where}")
    if len(found) > 1:
        labs = ", ".join(f"{entry.lab_name} ({entry.origin})" for entry in found)
        raise AmbiguousReport(f"{report_id} is recorded by {len(found)} labs ({labs}): say which with lab=")
    return found[0]


def _quoted(folder: str) -> str:
    relative = os.path.relpath(folder)
    shown = folder if relative.startswith(os.pardir) else relative
    return f'"{shown}"' if re.search(r"\s", shown) else shown


def path(
    report_id: str,
    *,
    lab: Optional[str] = None,
    folder: Optional[Union[str, os.PathLike]] = None,
    restore: bool = False,
) -> Path:
    """The file of a recorded report, checked to be the recorded revision (by its stamp, else its
    SHA-256). A missing or changed file raises IntegrityError; restore=True first restores a missing
    one from the content cache (never from a lab). Each read is recorded in .lab-data/reads.jsonl."""
    manifest = _manifest(folder)
    entry = _entry(manifest, report_id, lab)
    renewed: List[Tuple[str, str, str, float]] = []
    state, actual = _check(manifest, entry, renewed, cache_state=False)
    file = _file_path(manifest, entry)
    detail = ""
    if state == MISSING and restore:
        why = _cache.restore(entry.sha256, file)
        if not why:
            stats = os.stat(file)
            renewed.append((entry.origin, entry.report_id, entry.sha256, stats.st_mtime_ns / 1e6))
            state, actual = IN_STEP, entry.sha256
        else:
            detail = "Not restored: " + "; ".join(why) + "."
    stamps_for(manifest.folder).renew(renewed)
    if state != IN_STEP:
        pull = f"lab-data pull {_quoted(manifest.folder)}"
        raise IntegrityError(
            report_id=entry.report_id,
            lab=entry.origin,
            path=file,
            expected=entry.sha256,
            actual=actual,
            reason="missing" if state == MISSING else "changed since it was recorded",
            command=pull if state == MISSING else f"{pull} --force (it replaces your changed file)",
            detail=detail,
        )
    record_read(manifest.folder, entry.origin, entry.report_id, entry.revision, entry.sha256)
    found = _paths.get(file)
    if found is None:
        if len(_paths) > 100_000:
            _paths.clear()
        found = _paths[file] = Path(file)
    return found


# A Path is immutable: one per file read, not one built per call.
_paths: Dict[str, Path] = {}


@dataclasses.dataclass(frozen=True)
class Report:
    """One recorded report as a record; in a notebook it shows itself as a card."""

    lab: str
    origin: str
    report_id: str
    revision: Optional[str]
    status: Optional[str]
    report_type: Optional[str]
    client_id: Optional[str]
    project_id: Optional[str]
    sample_ids: List[str]
    published_at: Optional[datetime.datetime]
    sha256: str
    bytes: int
    file: str
    path: str
    state: str
    title: Optional[str] = None

    @property
    def verified(self) -> bool:
        return self.state == IN_STEP

    @property
    def amended(self) -> bool:
        return self.status == "amended" or (self.revision is not None and self.revision.isdigit() and int(self.revision) > 1)

    def _card(self) -> Dict[str, Any]:
        return {
            "id": self.report_id,
            "title": self.title,
            "lab": self.lab,
            "origin": self.origin,
            "status": self.status,
            "revision": self.revision,
            "amended": self.amended,
            "verified": self.verified,
        }

    def _repr_mimebundle_(self, include=None, exclude=None) -> Dict[str, Any]:
        card = self._card()
        status = self.status or "status unknown"
        if self.amended and self.status != "amended":
            status += ", amended"
        text = (
            f"{self.report_id}{f' {self.title}' if self.title else ''} ({self.lab}): "
            f"revision {self.revision or '?'}, {status}, "
            f"{'verified' if self.verified else f'not verified ({self.state})'}"
        )
        rows = "".join(
            f"<tr><th>{html.escape(key)}</th><td>{html.escape(json.dumps(value) if not isinstance(value, str) else value)}</td></tr>"
            for key, value in card.items()
        )
        return {
            MIME_TYPE: card,
            "text/plain": text,
            "text/html": f'<table class="labdata-report">{rows}</table>',
        }


def _title(manifest: Manifest, entry: Entry) -> Optional[str]:
    try:
        with open(os.path.join(manifest.folder, ".lab-data", "metadata.json"), encoding="utf-8") as handle:
            kept = json.load(handle).get(entry.origin, {}).get(entry.report_id, {})
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(kept, dict) and kept.get("sha256") == entry.sha256 and isinstance(kept.get("metadata"), dict):
        title = kept["metadata"].get("title")
        return title if isinstance(title, str) else None
    return None


def report(report_id: str, *, lab: Optional[str] = None, folder: Optional[Union[str, os.PathLike]] = None) -> Report:
    """One recorded report as a Report record (checked like reports(); nothing raised for its file)."""
    manifest = _manifest(folder)
    entry = _entry(manifest, report_id, lab)
    renewed: List[Tuple[str, str, str, float]] = []
    state, _ = _check(manifest, entry, renewed)
    stamps_for(manifest.folder).renew(renewed)
    row = _row(manifest, entry, state)
    row["published_at"] = _published(row["published_at"])
    return Report(**row, title=_title(manifest, entry))
