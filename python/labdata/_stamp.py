"""The stamp in .lab-data/state.json (docs/lockfile.md): what a file's size and time vouch for."""

import hashlib
import json
import os
import stat
import tempfile
from typing import Dict, Iterable, Optional, Tuple

LOCAL_FOLDER = ".lab-data"
STATE_FILE = "state.json"
_IGNORE = "# Lab Data: this machine\u2019s state, never committed\n*\n"


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1 << 20


def sha256_of(path: str) -> str:
    digest, _ = sha256_and_stats(path)
    if digest is None:
        raise IsADirectoryError(path)
    return digest


def sha256_and_stats(path: str) -> Tuple[Optional[str], os.stat_result]:
    """The SHA-256 of a regular file (None for any other kind) and its stats, from one open: a
    small file is one read of its size (no stat of the path before, no buffer larger than the
    file: 10,000 small files a verify). Never blocks on a FIFO (opened non-blocking)."""
    descriptor = os.open(path, _OPEN_FLAGS)
    try:
        stats = os.fstat(descriptor)
        if not stat.S_ISREG(stats.st_mode):
            return None, stats
        size = stats.st_size
        chunk = os.read(descriptor, min(size + 1, _CHUNK))
        digest = hashlib.sha256(chunk)
        # All of it at once (size bytes of the size + 1 asked for): no read to find the end.
        if len(chunk) == size < _CHUNK:
            return digest.hexdigest(), stats
        while chunk:
            chunk = os.read(descriptor, _CHUNK)
            digest.update(chunk)
        return digest.hexdigest(), stats
    finally:
        os.close(descriptor)


class Stamps:
    """A folder's state.json, read once and renewed in the command line's own format."""

    def __init__(self, folder: str):
        self.folder = folder
        self.file = os.path.join(folder, LOCAL_FOLDER, STATE_FILE)
        self._key: Optional[Tuple[int, int]] = None
        self._state: dict = {"version": 1, "labs": {}}

    def _fresh(self) -> dict:
        try:
            stats = os.stat(self.file)
        except OSError:
            self._key = None
            self._state = {"version": 1, "labs": {}}
            return self._state
        key = (stats.st_size, stats.st_mtime_ns)
        if key != self._key:
            try:
                with open(self.file, "r", encoding="utf-8") as handle:
                    parsed = json.load(handle)
            except (OSError, ValueError):
                parsed = None
            if (
                not isinstance(parsed, dict)
                or parsed.get("version") != 1
                or not isinstance(parsed.get("labs"), dict)
            ):
                parsed = {"version": 1, "labs": {}}
            self._state = parsed
            self._key = key
        return self._state

    def labs(self) -> dict:
        """The stamps by lab origin as they are now (read again only when state.json changed)."""
        return self._fresh()["labs"]

    def renew(self, renewed: Iterable[Tuple[str, str, str, float]]) -> None:
        """Records (origin, report id, sha256, mtime_ms) of files hashed just now; skipped while a
        pull or sync holds the folder's lock, or when the folder cannot be written (it is a cache)."""
        renewed = list(renewed)
        if not renewed:
            return
        local = os.path.join(self.folder, LOCAL_FOLDER)
        if os.path.exists(os.path.join(local, "lock")):
            return
        try:
            os.makedirs(local, exist_ok=True)
            ignore = os.path.join(local, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "x", encoding="utf-8") as handle:
                    handle.write(_IGNORE)
            state = self._fresh()
            labs: Dict[str, dict] = state["labs"]
            for origin, report_id, sha256, mtime_ms in renewed:
                lab = labs.get(origin)
                if not isinstance(lab, dict):
                    lab = labs[origin] = {"files": {}}
                if not isinstance(lab.get("files"), dict):
                    lab["files"] = {}
                previous = lab["files"].get(report_id)
                stamp = {"sha256": sha256, "mtime_ms": mtime_ms}
                if isinstance(previous, dict) and previous.get("sha256") == sha256 and "saved_at" in previous:
                    stamp["saved_at"] = previous["saved_at"]
                lab["files"][report_id] = stamp
            text = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
            handle, temporary = tempfile.mkstemp(prefix=".state-", dir=local)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(temporary, self.file)
            except BaseException:
                os.unlink(temporary)
                raise
            self._key = None
        except OSError:
            return


_stamps: Dict[str, Stamps] = {}


def stamps_for(folder: str) -> Stamps:
    found = _stamps.get(folder)
    if found is None:
        found = _stamps[folder] = Stamps(folder)
    return found
