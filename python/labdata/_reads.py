"""The reads log, .lab-data/reads.jsonl (docs/lockfile.md): one line per successful path()."""

import datetime
import json
import os
import sys
from typing import Optional

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


def record_read(manifest_folder: str, lab: str, report_id: str, revision: Optional[str], sha256: str) -> None:
    """Appends one line; a folder that cannot be written loses the line, never the read."""
    now = datetime.datetime.now(datetime.timezone.utc)
    line = json.dumps(
        {
            "at": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
            "consumer": consumer_path(manifest_folder),
            "lab": lab,
            "report_id": report_id,
            "revision": revision,
            "sha256": sha256,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    local = os.path.join(manifest_folder, LOCAL_FOLDER)
    try:
        if not os.path.isdir(local):
            os.makedirs(local, exist_ok=True)
            ignore = os.path.join(local, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as handle:
                    handle.write("# Lab Data: this machine\u2019s state, never committed\n*\n")
        # One write in append mode: concurrent readers never interleave lines.
        descriptor = os.open(os.path.join(local, READS_FILE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, (line + "\n").encode("utf-8"))
        finally:
            os.close(descriptor)
    except OSError:
        return
