"""Which recorded reports a selection keeps: the lab-data tool's selection flags (--lab, --client,
--project, --status, --type, --sample, --report, --since, --until) with the same meaning."""

import calendar
import datetime
import re
import urllib.parse
from typing import Any, Dict, List, Optional, Set, Tuple

from ._manifest import Entry, Manifest

# Filter name → the field it compares (the flag's name; the column's name says the same).
LIST_FILTERS = {
    "lab": "lab",
    "client": "client",
    "client_id": "client",
    "project": "project",
    "project_id": "project",
    "status": "status",
    "type": "type",
    "report_type": "type",
    "sample": "sample",
    "sample_ids": "sample",
    "report": "report",
    "report_id": "report",
}
TIME_FILTERS = ("since", "until")
FILTERS = sorted([*LIST_FILTERS, *TIME_FILTERS, "state"])

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$",
    re.IGNORECASE,
)
_AGE = re.compile(r"^-?\s*(\d{1,4})\s*([hdwmy])$", re.IGNORECASE)
_UTC = datetime.timezone.utc


def _values(name: str, value: Any) -> List[str]:
    values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
    return [str(item).strip() for item in values]


def _origin(address: str) -> str:
    """The origin of a lab's address, as the command line compares it (scheme and host lower-case,
    a default port dropped, path and query ignored)."""
    parts = urllib.parse.urlsplit(address.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"lab={address!r} is not a lab's address (http:// or https://) nor a lab's name")
    scheme = parts.scheme.lower()
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    port = parts.port
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def _months_ago(now: datetime.datetime, months: int) -> datetime.datetime:
    """The same day and time `months` calendar months back (clamped to the month's last day), local time."""
    index = now.year * 12 + (now.month - 1) - months
    year, month = divmod(index, 12)
    day = min(now.day, calendar.monthrange(year, month + 1)[1])
    return now.replace(year=year, month=month + 1, day=day)


def _moment(name: str, value: Any, until: bool) -> datetime.datetime:
    """A since/until as the command line reads it: a date (until includes its whole day, UTC), a
    time with its zone, `today` (local midnight), or an age (24h, 30d, 2w, 1m, 1y)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError(f"{name}={value!r} has no time zone: give an aware datetime (or a date)")
        return value
    if isinstance(value, datetime.date):
        value = value.isoformat()
    text = str(value).strip()
    said = f"{name}={text!r}"
    if text.lower() == "today":
        midnight = datetime.datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight.astimezone(_UTC)
    age = _AGE.match(text)
    if age:
        amount, unit = int(age.group(1)), age.group(2).lower()
        now = datetime.datetime.now().astimezone().replace(microsecond=0)
        if unit in "hdw":
            hours = amount * {"h": 1, "d": 24, "w": 168}[unit]
            return (now - datetime.timedelta(hours=hours)).astimezone(_UTC)
        return _months_ago(now, amount if unit == "m" else amount * 12).astimezone(_UTC)
    match = _ISO.match(text)
    if not match:
        raise ValueError(
            f"{said} is not a date (2026-01-31), a time with its zone (2026-01-31T09:00:00Z) "
            "or an age (today, 24h, 30d, 2w, 1m, 1y)"
        )
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    if hour is not None and zone is None:
        raise ValueError(f"{said} has a time but no zone: add Z or +hh:mm (guessing one would shift it by hours)")
    try:
        moment = datetime.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), tzinfo=_UTC
        )
    except ValueError:
        raise ValueError(f"{said} is not a real date or time") from None
    if zone is not None and zone.upper() != "Z":
        digits = zone[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        moment = moment - offset if zone[0] == "+" else moment + offset
    if hour is None and until:
        moment += datetime.timedelta(days=1, milliseconds=-1)
    return moment


def _published_ms(text: Any) -> Optional[float]:
    """A recorded published_at in milliseconds since 1970 (None when it is not a time)."""
    if not isinstance(text, str):
        return None
    match = _ISO.match(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        moment = datetime.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), tzinfo=_UTC
        )
    except ValueError:
        return None
    if zone is not None and zone.upper() != "Z":
        digits = zone[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        moment = moment - offset if zone[0] == "+" else moment + offset
    ms = calendar.timegm(moment.utctimetuple()) * 1000.0
    return ms + (int((fraction + "000")[:3]) if fraction else 0)


def _ms(moment: datetime.datetime) -> float:
    return moment.timestamp() * 1000.0


def selected(manifest: Manifest, filters: Dict[str, Any]) -> List[Entry]:
    """The entries every given filter keeps (several values of one filter: any of them)."""
    filters = {name: value for name, value in filters.items() if value is not None}
    if not filters:
        return manifest.entries
    unknown = sorted(set(filters) - set(LIST_FILTERS) - set(TIME_FILTERS))
    if unknown:
        raise TypeError(f"unknown filter {', '.join(unknown)}: filters are {', '.join(FILTERS)}")
    lists: Dict[str, Set[str]] = {}
    for name, value in filters.items():
        field = LIST_FILTERS.get(name)
        if field is not None:
            lists.setdefault(field, set()).update(_values(name, value))
    names: Set[str] = set()
    origins: Set[str] = set()
    for value in lists.pop("lab", None) or ():
        if "://" in value:
            origins.add(_origin(value))
        else:
            names.add(value)
    labs = bool(names or origins)
    since = _moment("since", filters["since"], False) if "since" in filters else None
    until = _moment("until", filters["until"], True) if "until" in filters else None
    if since is not None and until is not None and since > until:
        raise ValueError(f"since={filters['since']!r} is after until={filters['until']!r}")
    since_ms = None if since is None else _ms(since)
    until_ms = None if until is None else _ms(until)
    checks: List[Tuple[str, Set[str]]] = list(lists.items())
    chosen = []
    for entry in manifest.entries:
        if labs and entry.lab_name not in names and entry.origin.lower() not in origins:
            continue
        fields = entry.fields
        keep = True
        for field, values in checks:
            if field == "sample":
                samples = fields.get("samples")
                keep = isinstance(samples, list) and any(str(sample) in values for sample in samples)
            elif field == "report":
                keep = entry.report_id in values
            else:
                recorded = fields.get(field)
                keep = ("" if recorded is None else str(recorded)) in values
            if not keep:
                break
        if not keep:
            continue
        if since_ms is not None or until_ms is not None:
            published = _published_ms(fields.get("published_at"))
            if published is None or (since_ms is not None and published < since_ms) or (
                until_ms is not None and published > until_ms
            ):
                continue
        chosen.append(entry)
    return chosen
