"""reports()'s filters are the lab-data tool's selection flags: the fixtures say, for criteria chosen
from what each folder records, which reports the command line's own selection keeps."""

import datetime

import pytest

import labdata


def kept(frame):
    return sorted(f"{origin} {report_id}" for origin, report_id in zip(frame["origin"], frame["report_id"]))


@pytest.mark.parametrize("name", ["packed", "core"])
def test_every_selection_keeps_what_the_command_line_keeps(copy_case, name):
    case = copy_case(name)
    assert len(case.selections) >= 10
    for selection in case.selections:
        criteria = selection["criteria"]
        assert kept(labdata.reports(case.folder, **criteria)) == selection["selected"], criteria
        # verify() selects the same way: the reports it would check are these (all in step here).
        assert len(labdata.verify(case.folder, **criteria)) == 0


def test_the_column_names_select_as_the_flag_names_do(copy_case):
    case = copy_case("packed")
    for selection in case.selections:
        criteria = selection["criteria"]
        renamed = {
            {"client": "client_id", "project": "project_id", "type": "report_type", "sample": "sample_ids", "report": "report_id"}.get(key, key): value
            for key, value in criteria.items()
        }
        assert kept(labdata.reports(case.folder, **renamed)) == selection["selected"], renamed


def test_one_value_is_a_list_of_one_and_dates_may_be_date_objects(copy_case):
    case = copy_case("packed")
    for selection in case.selections:
        criteria = selection["criteria"]
        if set(criteria) == {"client"} and len(criteria["client"]) == 1:
            assert kept(labdata.reports(case.folder, client=criteria["client"][0])) == selection["selected"]
        if set(criteria) == {"until"} and len(criteria["until"]) == 10:
            day = datetime.date.fromisoformat(criteria["until"])
            assert kept(labdata.reports(case.folder, until=day)) == selection["selected"]


def test_ages_and_today_are_read_as_the_command_line_reads_them(copy_case):
    case = copy_case("packed")
    frame = labdata.reports(case.folder)
    # The mock lab's reports are from before this run: none is newer than an hour, all are newer than 99 years.
    assert len(labdata.reports(case.folder, since="1h")) == 0
    assert len(labdata.reports(case.folder, since="today")) == 0
    assert len(labdata.reports(case.folder, since="99y")) == len(frame)
    assert len(labdata.reports(case.folder, since="-99y", until="today")) == len(frame)


@pytest.mark.parametrize(
    "filters, error, said",
    [
        ({"colour": "red"}, TypeError, "unknown filter colour"),
        ({"since": "2026-01-31T09:00"}, ValueError, "no zone"),
        ({"since": datetime.datetime(2026, 1, 31, 9)}, ValueError, "no time zone"),
        ({"until": "2026-02-30"}, ValueError, "not a real date"),
        ({"since": "last week"}, ValueError, "not a date"),
        ({"since": "12345d"}, ValueError, "not a date"),
        ({"since": "2026-02-01", "until": "2026-01-31"}, ValueError, "is after"),
        ({"lab": "ftp://lab.example.com"}, ValueError, "not a lab's address"),
    ],
)
def test_a_selection_the_command_line_refuses_is_refused_saying_why(copy_case, filters, error, said):
    case = copy_case("packed")
    with pytest.raises(error, match=said):
        labdata.reports(case.folder, **filters)
