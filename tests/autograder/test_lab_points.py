"""The points a lab announces (intro table, part headings) are the points its cells carry.

The intro's points table and each "## Part N: ... (X pts)" heading are typed by
the author; the nbgrader metadata is what grading uses. This test keeps them equal.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*/*.ipynb"))

PART_HEADING = re.compile(r"^## Part (\d+):.*\((\d+(?:\.\d+)?) pts?\)", re.MULTILINE)
TABLE_ROW = re.compile(r"^\|\s*(\d+)\s*\|[^|]*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*$", re.MULTILINE)
TOTAL_ROW = re.compile(
    r"^\|\s*\|\s*\*\*Total\*\*\s*\|\s*\*\*([\d.]+)\*\*\s*\|\s*\*\*([\d.]+)\*\*\s*\|\s*\*\*([\d.]+)\*\*\s*\|",
    re.MULTILINE,
)


def points_per_part(nb) -> dict[int, dict[str, float]]:
    """Autograded (code test cells) and written (markdown) points of each part, from metadata."""
    parts: dict[int, dict[str, float]] = {}
    current = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heading = PART_HEADING.search(cell.source)
            if heading:
                current = int(heading.group(1))
                parts[current] = {"announced": float(heading.group(2)), "auto": 0.0, "written": 0.0}
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and current in parts:
            kind = "auto" if cell.cell_type == "code" else "written"
            parts[current][kind] += float(meta.get("points", 0))
    return parts


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_part_headings_and_points_table_match_metadata(path):
    nb = nbformat.read(path, as_version=4)
    parts = points_per_part(nb)
    assert parts, f"{path.name}: no '## Part N: ... (X pts)' headings"
    for number, part in parts.items():
        assert part["announced"] == part["auto"] + part["written"], (
            f"{path.name} Part {number}: heading says {part['announced']} pts, cells carry "
            f"{part['auto']} autograded + {part['written']} written"
        )
    intro = "\n".join(c.source for c in nb.cells[:3] if c.cell_type == "markdown")
    rows = {int(m.group(1)): tuple(map(float, m.groups()[1:])) for m in TABLE_ROW.finditer(intro)}
    assert set(rows) == set(parts), (
        f"{path.name}: points table lists parts {sorted(rows)}, notebook has {sorted(parts)}"
    )
    for number, (auto, written, total) in rows.items():
        assert (auto, written, total) == (
            parts[number]["auto"],
            parts[number]["written"],
            parts[number]["announced"],
        ), f"{path.name}: points table row of Part {number} disagrees with the cells"
    total = TOTAL_ROW.search(intro)
    assert total, f"{path.name}: points table has no **Total** row"
    auto_sum = sum(p["auto"] for p in parts.values())
    written_sum = sum(p["written"] for p in parts.values())
    assert tuple(map(float, total.groups())) == (auto_sum, written_sum, auto_sum + written_sum)
