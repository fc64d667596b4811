"""The readers' fixtures (test/readers/makeFixtures.ts): real folders the packed lab-data tool and
the core wrote from the mock lab; scripts/test-python.mjs writes them and sets LABDATA_FIXTURES."""

import json
import os
import shutil

import pytest


@pytest.fixture(scope="session")
def index():
    file = os.environ.get("LABDATA_FIXTURES")
    if not file:
        pytest.fail("LABDATA_FIXTURES is not set: run the tests with node scripts/test-python.mjs")
    with open(file, encoding="utf-8") as handle:
        return json.load(handle)


class Case(dict):
    """A case of index.json, copied into the test's own folder (times kept, so stamps hold)."""

    def __getattr__(self, name):
        return self[name]


@pytest.fixture
def copy_case(index, tmp_path, monkeypatch):
    # No user cache, no ~/.netrc and no team cache of the machine's may answer.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    monkeypatch.delenv("LAB_DATA_CACHE", raising=False)
    monkeypatch.delenv("LAB_DATA_CACHE_TOKEN", raising=False)

    def copy(name):
        original = index["cases"][name]
        repo = tmp_path / name
        shutil.copytree(original["repo"], repo, copy_function=shutil.copy2, symlinks=True)
        moved = Case(original)
        for key in ("folder", "manifest"):
            moved[key] = str(repo / os.path.relpath(original[key], original["repo"]))
        moved["repo"] = str(repo)
        return moved

    return copy


def entries_of(manifest_file):
    with open(manifest_file, encoding="utf-8") as handle:
        parsed = json.load(handle)
    return [
        (origin, report_id, entry)
        for origin, section in parsed["labs"].items()
        for report_id, entry in section["reports"].items()
    ]
