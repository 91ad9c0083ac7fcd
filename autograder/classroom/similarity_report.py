"""The similarity report of a lab: an HTML page for people and a CSV for tools (similarity.py compares).

Written to ``<grading dir>/similarity/<lab>/``: ``report.html`` (the pairs ranked, the clusters, and for
each pair at or above the threshold both students' answers side by side with the shared regions marked)
and ``pairs.csv`` (every reported pair). Student code is shown as text: every character is escaped, and
the page runs no script.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

from copydetect.utils import highlight_overlap

from .. import spreadsheet
from ..lab_settings import Lab
from ..paths import CoursePaths
from . import similarity
from .similarity import Document, Pair

NOTICE = (
    "This report is evidence for a person to read, not a finding of misconduct. Independent students "
    "who follow the same text can write the same short function, and the course may allow shared code. "
    "Read the marked regions side by side before drawing any conclusion."
)
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.notice { background: #fff8dc; border: 1px solid #e0c060; padding: 0.6em 1em; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; margin-bottom: 2em; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 12px; white-space: pre-wrap; }
mark { background: #ffb3b3; }
"""


@dataclass(frozen=True)
class Report:
    """What ``similarity_report`` wrote and found."""

    html: Path
    csv: Path
    compared: int
    pairs: list[Pair]
    flagged: list[Pair]
    clusters: list[list[str]]
    not_compared: dict[str, str]
    seconds: float


def similarity_report(
    lab: str,
    submissions: Path,
    paths: CoursePaths,
    threshold: float = similarity.DEFAULT_THRESHOLD,
    out_dir: Path | None = None,
) -> Report:
    """Compare every pair of submissions of ``lab`` under ``submissions`` and write the report."""
    t0 = time.perf_counter()
    settings = Lab.load(lab, paths)
    release = {nb.stem: paths.release / lab / nb.name for nb in settings.notebooks}
    docs, not_compared, _ = similarity.documents(submissions, release)
    pairs = similarity.compare(docs)
    flagged = [p for p in pairs if p.similarity >= threshold]
    groups = similarity.clusters(pairs, threshold)
    out = Path(out_dir) if out_dir is not None else paths.work / "similarity" / lab
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "pairs.csv"
    with open(csv_path, "w", newline="") as f:
        w = spreadsheet.writer(f)
        w.writerow(["student_a", "student_b", "similarity", "share_of_a", "share_of_b", "shared_chars", "flagged"])
        for p in pairs:
            w.writerow([p.a, p.b, f"{p.similarity:.3f}", f"{p.share_a:.3f}", f"{p.share_b:.3f}",
                        p.overlap_chars, "yes" if p.similarity >= threshold else ""])  # fmt: skip
    seconds = time.perf_counter() - t0
    html_path = out / "report.html"
    by_id = {d.student_id: d for d in docs}
    html_path.write_text(_page(lab, len(docs), threshold, pairs, flagged, groups, not_compared, by_id, seconds))
    return Report(html_path, csv_path, len(docs), pairs, flagged, groups, not_compared, seconds)


def _marked(doc: Document, slices) -> str:
    """The student's code, escaped, with the regions shared with the other student in <mark>."""
    if len(slices) == 0 or len(slices[0]) == 0:
        return html.escape(doc.code)
    text, _ = highlight_overlap(doc.code, slices, "<mark>", "</mark>", escape_html=True)
    return text


def _page(lab, n, threshold, pairs, flagged, groups, not_compared, by_id, seconds) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{i}</td><td><a href='#pair{i}'>{e(p.a)}</a></td><td>{e(p.b)}</td>"
        f"<td class='num'>{p.similarity:.0%}</td><td class='num'>{p.share_a:.0%}</td>"
        f"<td class='num'>{p.share_b:.0%}</td><td class='num'>{p.overlap_chars}</td></tr>"
        for i, p in enumerate(flagged, 1)
    )
    below = len(pairs) - len(flagged)
    table = (
        "<table><tr><th>#</th><th>student A</th><th>student B</th><th>similarity</th><th>of A in B</th>"
        f"<th>of B in A</th><th>shared characters</th></tr>{rows}</table>"
        if flagged
        else "<p>No pair at or above the threshold.</p>"
    )
    cluster_list = "".join(f"<li>{e(', '.join(g))}</li>" for g in groups) or "<li>none</li>"
    missing = "".join(f"<li>{e(s)}: {e(why)}</li>" for s, why in sorted(not_compared.items())) or "<li>none</li>"
    sides = "".join(
        f"<h3 id='pair{i}'>{i}. {e(p.a)} and {e(p.b)}: {p.similarity:.0%}</h3><div class='pair'>"
        f"<div><b>{e(p.a)}</b> ({p.share_a:.0%} of it in the other's)<pre>{_marked(by_id[p.a], p.slices_a)}</pre></div>"
        f"<div><b>{e(p.b)}</b> ({p.share_b:.0%} of it in the other's)<pre>{_marked(by_id[p.b], p.slices_b)}</pre></div>"
        "</div>"
        for i, p in enumerate(flagged, 1)
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Similarity: {e(lab)}</title>"
        f"<style>{STYLE}</style></head><body><h1>Similar answers in {e(lab)}</h1>"
        f"<p class='notice'>{e(NOTICE)}</p>"
        f"<p>{n} submissions compared ({n * (n - 1) // 2} pairs) in {seconds:.1f} s. A pair is listed when one "
        f"student's answer code is at least {threshold:.0%} in the other's (the release's stubs never count); "
        f"{below} more pairs share some code below that and are in pairs.csv.</p>"
        f"<h2>Pairs at or above {threshold:.0%}</h2>{table}"
        f"<h2>Groups of more than two</h2><ul>{cluster_list}</ul>"
        f"<h2>Not compared</h2><ul>{missing}</ul>"
        f"<h2>Side by side</h2>{sides}</body></html>"
    )
