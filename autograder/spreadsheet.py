"""CSV files a spreadsheet opens without running anything: a cell that starts like a formula stays text.

Student ids, file names, messages and roster names reach the grade files; a cell that starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be a formula in Excel, LibreOffice or Google
Sheets (CSV injection, CWE-1236). :func:`safe_cell` prefixes such text with an apostrophe, which the
spreadsheet shows as text; numbers (``-1.5``) are left as they are. :func:`writer` and
:class:`DictWriter` are :mod:`csv`'s, with every cell passed through it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value``, or ``"'" + value`` for text a spreadsheet would read as a formula."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
        return value  # a number such as -1.5
    except ValueError:
        return "'" + value


class _SafeWriter:
    def __init__(self, out: Any, **kwargs: Any):
        self._writer = csv.writer(out, **kwargs)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([safe_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: Any, **kwargs: Any) -> _SafeWriter:
    """:func:`csv.writer` whose cells pass through :func:`safe_cell`."""
    return _SafeWriter(out, **kwargs)


class DictWriter(csv.DictWriter):
    """:class:`csv.DictWriter` whose cells pass through :func:`safe_cell`."""

    def writerow(self, rowdict: Mapping[str, Any]) -> Any:
        return super().writerow({k: safe_cell(v) for k, v in rowdict.items()})

    def writerows(self, rowdicts: Iterable[Mapping[str, Any]]) -> None:
        for row in rowdicts:
            self.writerow(row)
