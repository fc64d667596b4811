"""Restoring a recorded file by its SHA-256 from the content cache: the folder cache, then the team
cache, under the command line's rules (docs/reports-in-git-and-ci.md). Never from a lab."""

import base64
import hashlib
import ipaddress
import netrc
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from typing import List, Optional, Tuple

_TIMEOUT_S = 30


def default_cache_folder() -> str:
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        return os.path.join(os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local"), "lab-data", "Cache")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "lab-data")
    xdg = (os.environ.get("XDG_CACHE_HOME") or "").strip()
    return os.path.join(xdg if xdg and os.path.isabs(xdg) else os.path.join(home, ".cache"), "lab-data")


def _is_url(text: str) -> bool:
    return re.match(r"^[a-z][a-z0-9+.-]*://", text.strip(), re.I) is not None


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def address_problem(text: str) -> Optional[str]:
    """Why text cannot be a team cache's address (the command line's rules), or None."""
    given = text.strip()
    url = urllib.parse.urlsplit(given)
    shown = f"{url.scheme}://{url.hostname or ''}"
    if url.scheme not in ("https", "http") or not url.hostname:
        return f"a team cache's address must start with https:// (got {given[:80]!r})"
    if url.username is not None or url.password is not None:
        return f"the cache address {shown} holds a user name or password: use LAB_DATA_CACHE_TOKEN (or a machine in ~/.netrc) instead"
    if url.query or url.fragment or "?" in given or "#" in given:
        return f"the cache address {shown} has a query or fragment (a token?): use LAB_DATA_CACHE_TOKEN (or a machine in ~/.netrc) instead"
    written = re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*", "", given, flags=re.I)
    decoded = written
    for _ in range(3):
        decoded = urllib.parse.unquote(decoded)
    if any(re.search(r"(^|[/\\])\.\.?([/\\]|$)", form) for form in (written, decoded)):
        return f'the cache address {shown} has a "." or ".." in its path, which would leave its prefix'
    if url.scheme == "http" and not _loopback(url.hostname):
        return f"the cache address {shown} must use https:// so its token is never sent unencrypted (http:// is allowed only for this machine)"
    return None


def _netrc_mode_problem(file: str, mode: int) -> Optional[str]:
    """Why a .netrc that group or others may read or write is not used (the command line's rule)."""
    if os.name == "nt" or mode & 0o077 == 0:
        return None
    readable = mode & 0o044 != 0
    writable = mode & 0o022 != 0
    how = (
        "readable and writable" if readable and writable
        else "readable" if readable
        else "writable" if writable
        else "open"
    )
    word = "to" if how == "open" else "by"
    return (
        f"{file} is {how} {word} others (mode {mode & 0o777:04o}): chmod 600 {file}; "
        "its credentials are not sent to the team cache."
    )


def _authorization(url: urllib.parse.SplitResult) -> Tuple[Optional[str], Optional[str]]:
    """The team cache's Authorization header, and why a .netrc's credentials were not used (the
    command line's rules: LAB_DATA_CACHE_TOKEN, else the host's machine entry of a .netrc only its
    owner may read or write; never its default entry)."""
    token = (os.environ.get("LAB_DATA_CACHE_TOKEN") or "").strip()
    if token:
        return f"Bearer {token}", None
    file = (os.environ.get("NETRC") or "").strip() or os.path.join(os.path.expanduser("~"), ".netrc")
    host = (url.hostname or "").lower()
    try:
        mode = os.stat(file).st_mode
        hosts = netrc.netrc(file).hosts
    except (OSError, netrc.NetrcParseError):
        return None, None
    found = next((entry for name, entry in hosts.items() if name.lower() == host), None)
    if found is None:
        if "default" in hosts:
            return None, (
                f"{file}: its default entry is not used for the team cache (a default login would "
                f'go to any host); add "machine {host}" with its login and password.'
            )
        return None, None
    problem = _netrc_mode_problem(file, mode)
    if problem:
        return None, problem
    login, _account, password = found
    if not login or password is None:
        return None, None
    pair = base64.b64encode(f"{login}:{password}".encode()).decode()
    return f"Basic {pair}", None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is a miss: the cache's credentials never follow it elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401
        return None


def _redirect_host(location: Optional[str], base: urllib.parse.SplitResult) -> str:
    """Where a redirect points, for its message: the host only (its path and query may hold anything)."""
    if not location:
        return "an unreadable address"
    try:
        target = urllib.parse.urlsplit(urllib.parse.urljoin(base.geturl(), location))
    except ValueError:
        return "an unreadable address"
    host = target.netloc.rsplit("@", 1)[-1]
    if host.lower() == base.netloc.rsplit("@", 1)[-1].lower():
        return "another address on the same server"
    # The server's words: printable characters only, cut short.
    return re.sub(r"[^\x21-\x7e]", "", host)[:100] or "an unreadable address"


_opener = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))


def _place(source, target: str, sha256: str) -> bool:
    """Streams bytes into a temporary file beside target; it takes target's name only when its
    SHA-256 is the recorded one."""
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".labdata-", dir=folder)
    digest = hashlib.sha256()
    try:
        with os.fdopen(handle, "wb") as out:
            while True:
                chunk = source.read(1 << 20)
                if not chunk:
                    break
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != sha256:
            os.unlink(temporary)
            return False
        if os.path.exists(target):
            # Never replace a file that appeared meanwhile.
            os.unlink(temporary)
            return False
        os.replace(temporary, target)
        return True
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def restore(sha256: str, target: str) -> List[str]:
    """Restores target from a cache holding sha256; returns [] when done, else why each cache could
    not (one line each)."""
    configured = (os.environ.get("LAB_DATA_CACHE") or "").strip()
    folders = [default_cache_folder()] if not configured or _is_url(configured) else [configured]
    why: List[str] = []
    for folder in folders:
        cached = os.path.join(folder, "sha256", sha256[:2], sha256)
        try:
            with open(cached, "rb") as source:
                if _place(source, target, sha256):
                    return []
                why.append(f"the cache {folder} holds a damaged copy")
        except FileNotFoundError:
            why.append(f"the cache {folder} does not hold it")
        except OSError as error:
            why.append(f"the cache {folder} could not be read ({error.strerror})")
    if configured and _is_url(configured):
        problem = address_problem(configured)
        if problem:
            why.append(problem)
            return why
        url = urllib.parse.urlsplit(configured)
        base = configured.rstrip("/")
        request = urllib.request.Request(f"{base}/sha256/{sha256[:2]}/{sha256}")
        authorization, refused = _authorization(url)
        if authorization:
            request.add_header("Authorization", authorization)
        elif refused:
            why.append(refused)
        shown = f"{url.scheme}://{url.netloc}{url.path}"
        try:
            with _opener.open(request, timeout=_TIMEOUT_S) as response:
                if _place(response, target, sha256):
                    return []
                why.append(f"the team cache {shown} sent other bytes than the recorded ones")
        except urllib.error.HTTPError as error:
            if 300 <= error.code < 400:
                where = _redirect_host(error.headers.get("Location") if error.headers else None, url)
                why.append(
                    f"the team cache {shown} redirects to {where}, which is not followed "
                    "(a redirect could take its credentials elsewhere)"
                )
            elif error.code == 404:
                why.append(f"the team cache {shown} does not hold it")
            elif error.code in (401, 403):
                why.append(f"the team cache {shown} refused the credentials ({error.code}): set LAB_DATA_CACHE_TOKEN or a machine in ~/.netrc")
            else:
                why.append(f"the team cache {shown} answered {error.code}")
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            why.append(f"the team cache {shown} cannot be reached ({reason})")
    return why
