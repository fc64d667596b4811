"""The reads log, .lab-data/reads.jsonl (docs/lockfile.md): one line per successful path()."""

import json
import os
import sys
import time
from typing import Dict, Optional, Tuple

from ._stamp import LOCAL_FOLDER

READS_FILE = "reads.jsonl"


def consumer_file() -> Optional[str]:
    """The notebook (VS Code's Jupyter sets __vsc_ipynb_file__) or script that is running, if known."""
    main = sys.modules.get("__main__")
    notebook = getattr(main, "__vsc_ipynb_file__", None)
    if isinstance(notebook, str) and notebook:
        return os.path.abspath(notebook)
    script = getattr(main, "__file__", None)
    if isinstance(script, str) and script:
        return os.path.abspath(script)
    return None


def repository_root(folder: str) -> str:
    """The nearest folder at or above folder holding .git; else folder itself."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(folder)
        current = parent


_roots = {}


def consumer_path(manifest_folder: str) -> Optional[str]:
    file = consumer_file()
    if file is None:
        return None
    root = _roots.get(manifest_folder)
    if root is None:
        root = _roots[manifest_folder] = repository_root(manifest_folder)
    relative = os.path.relpath(file, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep) or os.path.isabs(relative):
        return file.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


# The part of a read's line after its time, by what it depends on: a script reading one report
# again and again builds it once (the time is all that changes).
_rests: Dict[Tuple[Optional[str], str, str, str, Optional[str], str, str], str] = {}


def _rest_of_line(manifest_folder: str, lab: str, report_id: str, revision: Optional[str], sha256: str) -> str:
    main = sys.modules.get("__main__")
    notebook = getattr(main, "__vsc_ipynb_file__", None)
    script = notebook if isinstance(notebook, str) and notebook else getattr(main, "__file__", None)
    script = script if isinstance(script, str) else None
    relative_to = "" if script is None or os.path.isabs(script) else os.getcwd()
    key = (script, relative_to, manifest_folder, lab, report_id, revision, sha256)
    rest = _rests.get(key)
    if rest is None:
        if len(_rests) > 10_000:
            _rests.clear()
        rest = _rests[key] = json.dumps(
            {
                "consumer": consumer_path(manifest_folder),
                "lab": lab,
                "report_id": report_id,
                "revision": revision,
                "sha256": sha256,
            },
            sort_keys=True,
            ensure_ascii=False,
        )[1:]
    return rest


def record_read(manifest_folder: str, lab: str, report_id: str, revision: Optional[str], sha256: str) -> None:
    """Appends one line; a folder that cannot be written loses the line, never the read."""
    now = time.time()
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%03dZ" % (int(now * 1000) % 1000)
    # The keys in sorted order, as json.dumps(sort_keys=True) writes them: "at" comes first.
    line = '{"at": "' + at + '", ' + _rest_of_line(manifest_folder, lab, report_id, revision, sha256) + "\n"
    file = os.path.join(manifest_folder, LOCAL_FOLDER, READS_FILE)
    try:
        try:
            descriptor = os.open(file, _APPEND, 0o644)
        except FileNotFoundError:
            local = os.path.dirname(file)
            os.makedirs(local, exist_ok=True)
            ignore = os.path.join(local, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as handle:
                    handle.write("# Lab Data: this machine\u2019s state, never committed\n*\n")
            descriptor = os.open(file, _APPEND, 0o644)
        # One write in append mode: concurrent readers never interleave lines.
        try:
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)
    except OSError:
        return


_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
