"""Late days, counted the way the syllabus does: a new late day starts at a fixed local time (11:59 pm ET).

A submission after its due time is 1 late day late, plus one more for every
day boundary it crosses after the due time:

    late_days = 0                                    if submitted <= due
    late_days = 1 + day_index(submitted) - day_index(due)   otherwise

where ``day_index(t)`` is the local calendar date of ``t``, moved to the next
date from the boundary time on (with 23:59: 23:58 is still Monday, 23:59 is
already Tuesday). Dates are counted in the course's time zone with
:mod:`zoneinfo`, so a day that daylight saving makes 23 or 25 hours long is
still one day.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo


def day_index(moment: datetime, zone: ZoneInfo, boundary: time) -> int:
    """The late-day calendar date of ``moment`` (an ordinal): its local date, plus one from ``boundary`` on."""
    if moment.tzinfo is None:
        raise ValueError(f"{moment.isoformat()} has no time zone")
    local = moment.astimezone(zone)
    index = local.date().toordinal()
    return index + 1 if local.time().replace(tzinfo=None) >= boundary else index


def late_days(submitted: datetime, due: datetime, zone: ZoneInfo, boundary: time) -> int:
    """Whole late days of a submission (0 when on time); see the module docstring for the rule."""
    if submitted <= due:
        return 0
    return 1 + day_index(submitted, zone, boundary) - day_index(due, zone, boundary)


def add_days(due: datetime, days: int, zone: ZoneInfo) -> datetime:
    """``due`` moved ``days`` calendar days later at the same local time (an extension of N days)."""
    local = due.astimezone(zone)
    moved = (local.replace(tzinfo=None) + timedelta(days=days)).replace(tzinfo=zone)
    return moved.astimezone(due.tzinfo)
