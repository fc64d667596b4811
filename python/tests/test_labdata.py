"""labdata on folders the packed lab-data tool and the extension's core wrote from the mock lab."""

import dataclasses
import datetime
import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

import labdata
from conftest import entries_of

REQUIRED = [
    "lab",
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
    "path",
    "state",
]


def sha256(file):
    return hashlib.sha256(Path(file).read_bytes()).hexdigest()


def reads(folder):
    file = Path(folder) / ".lab-data" / "reads.jsonl"
    return [json.loads(line) for line in file.read_text().splitlines()] if file.exists() else []


def one_entry(case, *, shared=False, nested=False):
    """An entry of the case (origin, id, fields): one whose id two labs share, or one in a subfolder."""
    for origin, report_id, entry in entries_of(case.manifest):
        if shared != (report_id in case.shared_ids):
            continue
        if nested and "/" not in entry["file"]:
            continue
        return origin, report_id, entry
    raise AssertionError("no such entry in the fixture")


def closed_port():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        return held.getsockname()[1]


def test_the_package_is_the_installed_one_not_the_checkout():
    assert "site-packages" in labdata.__file__ or "dist-packages" in labdata.__file__


def test_every_manifest_the_tests_read_validates_against_the_published_schema(index):
    with open(index["schema"], encoding="utf-8") as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft7Validator(schema)
    for name, case in index["cases"].items():
        with open(case["manifest"], encoding="utf-8") as handle:
            manifest = json.load(handle)
        errors = [f"{list(error.path)}: {error.message}" for error in validator.iter_errors(manifest)]
        assert errors == [], name
    # Not vacuous: a broken name is refused.
    broken = {"version": 3, "labs": {"https://lab.example.com": {"reports": {"R": {"file": "../x.pdf", "sha256": "a" * 64, "bytes": 1}}}}}
    assert list(validator.iter_errors(broken))


@pytest.mark.parametrize("name", ["packed", "core", "large"])
def test_reports_returns_every_recorded_report_with_the_columns(copy_case, name):
    case = copy_case(name)
    frame = labdata.reports(case.folder)
    assert len(frame) == case.reports
    assert set(REQUIRED) <= set(frame.columns)
    assert set(frame["state"]) == {labdata.IN_STEP}
    recorded = {(origin, report_id): entry for origin, report_id, entry in entries_of(case.manifest)}
    assert set(zip(frame["origin"], frame["report_id"])) == set(recorded)
    for row in frame.head(50).itertuples():
        entry = recorded[(row.origin, row.report_id)]
        assert row.sha256 == entry["sha256"] and row.bytes == entry["bytes"]
        assert row.revision == entry.get("revision") and row.status == entry.get("status")
        assert row.report_type == entry.get("type") and row.client_id == entry.get("client")
        assert row.project_id == entry.get("project")
        assert list(row.sample_ids) == entry.get("samples", [])
        assert row.published_at.tzinfo is not None
        assert os.path.isabs(row.path) and Path(row.path) == Path(case.folder, entry["file"])
        assert row.lab == case.labs[row.origin]


def test_reports_filters_like_the_command_lines_selection(copy_case):
    case = copy_case("packed")
    frame = labdata.reports(case.folder)
    client = frame["client_id"].iloc[0]
    assert set(labdata.reports(case.folder, client=client)["client_id"]) == {client}
    assert len(labdata.reports(case.folder, client_id=client)) == (frame["client_id"] == client).sum()
    origin = next(iter(case.labs))
    by_lab = labdata.reports(case.folder, lab=case.labs[origin])
    assert set(by_lab["origin"]) == {origin}
    assert len(labdata.reports(case.folder, status="amended")) == (frame["status"] == "amended").sum()
    latest = frame["published_at"].max()
    assert len(labdata.reports(case.folder, since=latest.to_pydatetime())) == (frame["published_at"] >= latest).sum()
    with pytest.raises(TypeError, match="unknown filter"):
        labdata.reports(case.folder, colour="red")


def test_reports_without_pandas_is_a_list_of_dicts(copy_case, monkeypatch):
    case = copy_case("packed")
    monkeypatch.setattr(labdata._api, "_pandas", None)
    rows = labdata.reports(case.folder)
    assert isinstance(rows, list) and len(rows) == case.reports
    assert set(REQUIRED) <= set(rows[0])
    assert isinstance(rows[0]["published_at"], datetime.datetime) and rows[0]["published_at"].tzinfo
    assert labdata.verify(case.folder) == []


def test_path_of_a_present_file_is_the_recorded_one_and_the_read_is_recorded(copy_case):
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case, nested=True)
    got = labdata.path(report_id, lab=origin, folder=case.folder)
    assert isinstance(got, Path) and got == Path(case.folder, entry["file"])
    assert sha256(got) == entry["sha256"]
    [line] = reads(case.folder)
    assert list(line) == sorted(line)
    assert line["lab"] == origin and line["report_id"] == report_id
    assert line["revision"] == entry.get("revision") and line["sha256"] == entry["sha256"]
    assert line["at"].endswith("Z")
    datetime.datetime.strptime(line["at"], "%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_changed_file_raises_the_integrity_error_naming_both_hashes_and_the_command(copy_case):
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case)
    file = Path(case.folder, entry["file"])
    file.write_bytes(b"%PDF-1.4 edited by hand\n")
    with pytest.raises(labdata.IntegrityError) as raised:
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    error = raised.value
    assert isinstance(error, OSError)
    assert error.report_id == report_id and error.expected == entry["sha256"]
    assert error.actual == sha256(file)
    for said in (report_id, entry["sha256"], error.actual, "lab-data pull"):
        assert said in str(error)
    assert file.read_bytes() == b"%PDF-1.4 edited by hand\n", "never replaced"
    assert reads(case.folder) == []
    assert labdata.reports(case.folder, report_id=report_id, lab=origin)["state"].tolist() == ["changed"]


def test_a_missing_file_raises_naming_lab_data_pull_and_nothing_is_downloaded(copy_case, index, monkeypatch):
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case)
    file = Path(case.folder, entry["file"])
    file.unlink()
    if index.get("team_cache"):
        # A team cache that holds it is not asked without restore=True.
        monkeypatch.setenv("LAB_DATA_CACHE", index["team_cache"]["url"])
        monkeypatch.setenv("LAB_DATA_CACHE_TOKEN", index["team_cache"]["token"])
    with pytest.raises(labdata.IntegrityError) as raised:
        labdata.path(report_id, lab=origin, folder=case.folder)
    assert raised.value.actual is None and raised.value.expected == entry["sha256"]
    assert "missing" in str(raised.value) and "lab-data pull" in raised.value.command
    assert not file.exists()


def test_restore_from_the_folder_cache_with_no_lab_running(copy_case, monkeypatch):
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case, nested=True)
    file = Path(case.folder, entry["file"])
    file.unlink()
    file.parent.rmdir() if not any(file.parent.iterdir()) else None
    monkeypatch.setenv("LAB_DATA_CACHE", case.folder_cache)
    assert labdata.reports(case.folder, report_id=report_id, lab=origin)["state"].tolist() == ["restorable"]
    got = labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert sha256(got) == entry["sha256"]
    # Renewed in the command line's format: the next read trusts size and time.
    state = json.loads(Path(case.folder, ".lab-data", "state.json").read_text())
    stamp = state["labs"][origin]["files"][report_id]
    assert stamp["sha256"] == entry["sha256"]
    assert abs(stamp["mtime_ms"] - os.stat(got).st_mtime_ns / 1e6) < 1


def test_restore_of_the_amended_report_from_the_team_cache_with_its_token(copy_case, index, monkeypatch):
    if not index.get("team_cache"):
        pytest.skip("nginx is not installed: npm run bootstrap installs it")
    case = copy_case("packed")
    amended = case.amended
    _, _, entry = next(e for e in entries_of(case.manifest) if e[0] == amended["lab"] and e[1] == amended["report_id"])
    assert entry["revision"] == "2" and entry["status"] == "amended"
    file = Path(case.folder, entry["file"])
    file.unlink()
    monkeypatch.setenv("LAB_DATA_CACHE", index["team_cache"]["url"])
    monkeypatch.setenv("LAB_DATA_CACHE_TOKEN", index["team_cache"]["token"])
    got = labdata.path(amended["report_id"], lab=amended["lab"], folder=case.folder, restore=True)
    assert sha256(got) == entry["sha256"]
    assert reads(case.folder)[-1]["revision"] == "2"


def test_restore_follows_no_redirect_of_the_team_cache_and_says_so(copy_case, index, monkeypatch):
    if not index.get("team_cache"):
        pytest.skip("nginx is not installed: npm run bootstrap installs it")
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case)
    file = Path(case.folder, entry["file"])
    file.unlink()
    # It redirects to the token's own address under another host name, which holds the file.
    monkeypatch.setenv("LAB_DATA_CACHE", index["team_cache"]["redirect_url"])
    monkeypatch.setenv("LAB_DATA_CACHE_TOKEN", index["team_cache"]["token"])
    with pytest.raises(labdata.IntegrityError, match=r"redirects to localhost:\d+, which is not followed") as raised:
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert index["team_cache"]["token"] not in str(raised.value)
    assert not file.exists()


def test_restore_from_the_team_cache_with_netrc_credentials(copy_case, index, monkeypatch, tmp_path):
    if not index.get("team_cache"):
        pytest.skip("nginx is not installed: npm run bootstrap installs it")
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case)
    Path(case.folder, entry["file"]).unlink()
    team = index["team_cache"]
    monkeypatch.setenv("LAB_DATA_CACHE", team["netrc_url"])
    with pytest.raises(labdata.IntegrityError, match="refused"):
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    netrc = tmp_path / "netrc"
    monkeypatch.setenv("NETRC", str(netrc))
    # The command line's rules: a file others may read gives no credentials, and says so.
    netrc.write_text(f"machine 127.0.0.1 login {team['netrc_login']} password {team['netrc_password']}\n")
    netrc.chmod(0o644)
    with pytest.raises(labdata.IntegrityError, match=r"is readable by others \(mode 0644\): chmod 600") as raised:
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert team["netrc_password"] not in str(raised.value)
    # Its default entry is never used: a default login would go to any host.
    netrc.write_text(f"default login {team['netrc_login']} password {team['netrc_password']}\n")
    netrc.chmod(0o600)
    with pytest.raises(labdata.IntegrityError, match=r"its default entry is not used for the team cache"):
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert not Path(case.folder, entry["file"]).exists()
    netrc.write_text(f"machine 127.0.0.1 login {team['netrc_login']} password {team['netrc_password']}\n")
    got = labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert sha256(got) == entry["sha256"]


def test_no_network_at_all_a_cache_on_a_closed_port_still_reads_present_files(copy_case, monkeypatch):
    case = copy_case("packed")
    monkeypatch.setenv("LAB_DATA_CACHE", f"http://127.0.0.1:{closed_port()}/team")
    monkeypatch.setenv("LAB_DATA_CACHE_TOKEN", "unused")
    present = entries_of(case.manifest)
    for origin, report_id, entry in present:
        assert sha256(labdata.path(report_id, lab=origin, folder=case.folder)) == entry["sha256"]
    assert len(labdata.verify(case.folder)) == 0
    origin, report_id, entry = present[0]
    Path(case.folder, entry["file"]).unlink()
    with pytest.raises(labdata.IntegrityError, match="cannot be reached"):
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)


def test_a_plain_http_cache_elsewhere_is_refused_before_any_request(copy_case, monkeypatch):
    case = copy_case("packed")
    origin, report_id, entry = one_entry(case)
    Path(case.folder, entry["file"]).unlink()
    monkeypatch.setenv("LAB_DATA_CACHE", "http://cache.example.com/team")
    monkeypatch.setenv("LAB_DATA_CACHE_TOKEN", "secret-token-never-sent")
    with pytest.raises(labdata.IntegrityError, match="must use https://") as raised:
        labdata.path(report_id, lab=origin, folder=case.folder, restore=True)
    assert "secret-token-never-sent" not in str(raised.value)


def test_an_id_two_labs_share_needs_lab(copy_case):
    for name in ("packed", "core"):
        case = copy_case(name)
        shared = case.shared_ids[0]
        with pytest.raises(labdata.AmbiguousReport, match="lab="):
            labdata.path(shared, folder=case.folder)
        for origin, lab_name in case.labs.items():
            by_origin = labdata.path(shared, lab=origin, folder=case.folder)
            assert labdata.path(shared, lab=lab_name, folder=case.folder) == by_origin
    with pytest.raises(labdata.ReportNotFound):
        labdata.path("RPT-NONE", folder=case.folder)


def test_the_core_written_amended_report_is_read_at_revision_2(copy_case):
    case = copy_case("core")
    amended = case.amended
    report = labdata.report(amended["report_id"], lab=amended["lab"], folder=case.folder)
    assert report.revision == "2" and report.amended and report.verified
    bundle = report._repr_mimebundle_()
    card = bundle[labdata.MIME_TYPE]
    assert set(card) == {"id", "title", "lab", "origin", "status", "revision", "amended", "verified"}
    assert card["origin"] == report.origin
    assert card["id"] == amended["report_id"] and card["revision"] == "2" and card["verified"] is True
    assert amended["report_id"] in bundle["text/plain"] and "<table" in bundle["text/html"]


def test_a_report_card_is_data_in_every_form_of_its_bundle(copy_case):
    case = copy_case("core")
    amended = case.amended
    recorded = labdata.report(amended["report_id"], lab=amended["lab"], folder=case.folder)
    report = dataclasses.replace(recorded, title='<script>alert("x")</script> & more')
    bundle = report._repr_mimebundle_(include=None, exclude=None)
    assert set(bundle) == {labdata.MIME_TYPE, "text/plain", "text/html"}
    assert json.loads(json.dumps(bundle[labdata.MIME_TYPE]))["title"] == report.title
    assert "<script>" not in bundle["text/html"]
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more" in bundle["text/html"]
    text = bundle["text/plain"]
    assert text.startswith(f'{report.report_id} <script>alert("x")</script> & more ({report.lab}): revision 2, ')
    assert text.endswith(", verified") and "amended" in text and "amended, amended" not in text


@pytest.mark.parametrize(
    "edit, line_of, said",
    [
        ("conflict", lambda lines: next(i for i, l in enumerate(lines, 1) if l.startswith("<<<<<<<")), "conflict markers"),
        ("version", lambda lines: next(i for i, l in enumerate(lines, 1) if '"version"' in l), "version 4"),
        ("entry", lambda lines: next(i for i, l in enumerate(lines, 1) if '"../outside.pdf"' in l), "leaves the folder"),
    ],
)
def test_an_unusable_manifest_is_refused_naming_its_line_and_nothing_is_written(copy_case, edit, line_of, said):
    case = copy_case("packed")
    manifest = Path(case.manifest)
    lines = manifest.read_text().split("\n")
    report_line = next(i for i, l in enumerate(lines) if l.strip().startswith('"RPT-'))
    if edit == "conflict":
        lines[report_line:report_line + 1] = ["<<<<<<< HEAD", lines[report_line], "=======", lines[report_line], ">>>>>>> theirs"]
    elif edit == "version":
        lines = [l.replace('"version": 3', '"version": 4') for l in lines]
    else:
        lines[report_line] = lines[report_line].replace('"file": "', '"file": "../outside.pdf", "was": "', 1)
    manifest.write_text("\n".join(lines))
    before = {p: p.stat().st_mtime_ns for p in Path(case.folder).rglob("*")}
    with pytest.raises(labdata.ManifestError, match=said) as raised:
        labdata.reports(case.folder)
    assert raised.value.line == line_of(lines)
    assert f":{raised.value.line}:" in str(raised.value)
    with pytest.raises(labdata.ManifestError):
        labdata.path("RPT-2024-000001", folder=case.folder)
    assert {p: p.stat().st_mtime_ns for p in Path(case.folder).rglob("*")} == before


def test_the_stamp_vouches_for_an_unchanged_file_and_a_touched_one_is_hashed_and_renewed(copy_case):
    case = copy_case("large")
    _, report_id, entry = entries_of(case.manifest)[0]
    file = Path(case.folder, entry["file"])
    state_file = Path(case.folder, ".lab-data", "state.json")
    # Same bytes, a new time: the stamp no longer vouches, so the file is hashed and the stamp renewed.
    recorded = file.stat()
    os.utime(file, ns=(recorded.st_atime_ns, recorded.st_mtime_ns + 5_000_000_000))
    labdata.path(report_id, folder=case.folder)
    state = json.loads(state_file.read_text())
    stamp = state["labs"]["https://lab.example.com"]["files"][report_id]
    assert abs(stamp["mtime_ms"] - file.stat().st_mtime_ns / 1e6) < 1
    assert state_file.read_text() == json.dumps(state, separators=(",", ":"), ensure_ascii=False)
    # Changed bytes at the same size and a new time are found by hashing.
    original = file.read_bytes()
    file.write_bytes(original[:-2] + b"X\n")
    with pytest.raises(labdata.IntegrityError):
        labdata.path(report_id, folder=case.folder)


def test_verify_is_empty_when_all_is_as_recorded_and_lists_what_is_not(copy_case):
    case = copy_case("core")
    assert len(labdata.verify(case.folder)) == 0
    entries = entries_of(case.manifest)
    gone, changed = entries[0], entries[1]
    Path(case.folder, gone[2]["file"]).unlink()
    Path(case.folder, changed[2]["file"]).write_bytes(b"not the report")
    found = labdata.verify(case.folder)
    assert sorted(zip(found["report_id"], found["state"])) == sorted([(gone[1], "missing"), (changed[1], "changed")])
    row = found[found["state"] == "changed"].iloc[0]
    assert row["actual_sha256"] == hashlib.sha256(b"not the report").hexdigest()


def run_python(code, cwd, env=None):
    result = subprocess.run(
        [sys.executable, "-c", code] if not code.endswith(".py") else [sys.executable, code],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_script_finds_the_manifest_from_its_folder_and_is_named_as_the_consumer(copy_case, tmp_path):
    case = copy_case("packed")
    origin, report_id, _ = one_entry(case)
    script = Path(case.repo, "analysis", "figures.py")
    script.parent.mkdir()
    script.write_text(
        textwrap.dedent(
            f"""
            import labdata
            print(labdata.path({report_id!r}, lab={origin!r}))
            print(len(labdata.reports()))
            """
        )
    )
    # Run from elsewhere: the script's own folder leads to the repository's lab-reports/.
    out = run_python(str(script), cwd=str(tmp_path)).split("\n")
    assert out[1] == str(case.reports)
    [line] = reads(case.folder)
    assert line["consumer"] == "analysis/figures.py"


def test_a_notebook_run_by_vs_codes_jupyter_is_named_by_vsc_ipynb_file(copy_case):
    case = copy_case("core")
    origin, report_id, _ = one_entry(case)
    notebook = Path(case.repo, "notebooks", "qc.ipynb")
    notebook.parent.mkdir()
    notebook.write_text("{}")
    # As ipykernel runs a cell: no __file__, the notebook's path in the user namespace.
    code = textwrap.dedent(
        f"""
        import __main__
        __main__.__vsc_ipynb_file__ = {str(notebook)!r}
        import labdata
        labdata.path({report_id!r}, lab={origin!r}, folder={case.folder!r})
        """
    )
    run_python(code, cwd=case.repo)
    [line] = reads(case.folder)
    assert line["consumer"] == "notebooks/qc.ipynb"


def test_an_interactive_read_has_no_consumer_and_several_manifests_are_told_apart_by_folder(copy_case, tmp_path):
    packed = copy_case("packed")
    origin, report_id, _ = one_entry(packed)
    run_python(
        f"import labdata; labdata.path({report_id!r}, lab={origin!r}, folder={packed.folder!r})",
        cwd=str(tmp_path),
    )
    assert reads(packed.folder)[0]["consumer"] is None
    with pytest.raises(labdata.ManifestNotFound):
        labdata.reports(str(tmp_path / "nowhere"))
