"""Similarity reports: planted copies are found, independent correct answers are not, the page runs nothing.

The independent answers are ``similarity_solutions/<lab>/<answer cell>/s01.py ... s20.py``: twenty correct
answers per answer cell of lab01 and lab08, written for this test by separate authors in varied styles and
algorithms (each was checked against its author's own reference). Students are built from the release with
those answers in their cells; the copies are another student's notebook disguised as copiers do (local
names renamed, functions in another order, comments rewritten, the code reformatted).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.classroom import similarity
from autograder.classroom.similarity_report import similarity_report
from autograder.cli import main
from autograder.paths import CoursePaths
from tests.browser_support import launched_chromium, screenshot_dir, skip_reason

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = Path(__file__).parent / "similarity_solutions"
LABS = sorted(p.name for p in SOLUTIONS.iterdir() if p.is_dir())
CELLS = [(lab, cell.name) for lab in LABS for cell in sorted((SOLUTIONS / lab).iterdir()) if cell.is_dir()]
THRESHOLD = similarity.DEFAULT_THRESHOLD
MAX_FALSE_POSITIVE_RATE = 0.02  # of the 190 pairs of independent answers to one cell


def answers(lab: str, cell: str) -> list[str]:
    return [p.read_text() for p in sorted((SOLUTIONS / lab / cell).glob("s*.py"))]


def release_of(lab: str) -> Path:
    return ROOT / "labs" / lab / f"{lab}.ipynb"


def write_student(folder: Path, student: str, lab: str, cells: dict[str, str]) -> Path:
    """The release of ``lab`` with ``cells`` ({grade_id: code}) in its answer cells, as student's hand-in."""
    nb = nbformat.read(release_of(lab), as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in cells:
            cell.source = cells[grade_id]
    path = folder / student / f"{lab}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def compared(folder: Path, lab: str) -> tuple[list[similarity.Document], list[similarity.Pair], dict[str, str]]:
    docs, problems, _ = similarity.documents(folder, {lab: release_of(lab)})
    return docs, similarity.compare(docs), problems


def disguised(code: str) -> str:
    """``code`` as a copier hands it in: every local name renamed, the top-level definitions in reverse order,
    comments removed and new ones written, indentation of 2 spaces instead of 4, blank lines changed."""
    tree = ast.parse(code)
    local = {
        n.id
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef)
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    lines = code.splitlines()
    starts = [node.lineno - 1 - len(getattr(node, "decorator_list", [])) for node in tree.body] + [len(lines)]
    blocks = ["\n".join(lines[a:b]) for a, b in zip(starts, starts[1:])]
    imports = [b for b, node in zip(blocks, tree.body) if isinstance(node, (ast.Import, ast.ImportFrom))]
    rest = [b for b, node in zip(blocks, tree.body) if not isinstance(node, (ast.Import, ast.ImportFrom))]
    out = []
    for i, block in enumerate(imports + rest[::-1]):
        block = re.sub(r"(?m)^(\s*)#.*$", r"\1", block)  # full-line comments out
        block = re.sub(r"  # .*$", "", block, flags=re.M)  # trailing comments out
        for name in sorted(local, key=len, reverse=True):
            block = re.sub(rf"\b{re.escape(name)}\b", f"my_{name}_value", block)
        block = re.sub(r"(?m)^((?:    )+)", lambda m: "  " * (len(m.group(1)) // 4), block)
        out.append(f"# step {i}: written by me\n{block.strip()}")
    return "\n\n\n\n".join(out) + "\n"


@pytest.mark.slow  # reads and fingerprints classes of 20 to 40 notebooks
@pytest.mark.parametrize("lab,cell", CELLS, ids=[f"{lab.split('_')[0]}-{cell}" for lab, cell in CELLS])
def test_independent_answers_to_one_cell_are_rarely_flagged(lab, cell, tmp_path):
    codes = answers(lab, cell)
    assert len(codes) >= 20, f"{lab}/{cell}: {len(codes)} independent answers, expected 20"
    for i, code in enumerate(codes):
        write_student(tmp_path, f"s{i:02d}", lab, {cell: code})
    docs, pairs, problems = compared(tmp_path, lab)
    assert not problems and len(docs) == len(codes)
    flagged = [(p.a, p.b, round(p.similarity, 2)) for p in pairs if p.similarity >= THRESHOLD]
    rate = len(flagged) / (len(codes) * (len(codes) - 1) // 2)
    print(f"{lab} {cell}: {len(flagged)} of {len(codes) * (len(codes) - 1) // 2} independent pairs flagged")
    assert rate <= MAX_FALSE_POSITIVE_RATE, f"{cell}: independent answers flagged: {flagged}"


@pytest.fixture(scope="module", params=LABS)
def independent_class(request, tmp_path_factory):
    """Twenty students of one lab, each with the i-th independent answer in every answer cell."""
    lab = request.param
    folder = tmp_path_factory.mktemp(f"class-{lab}")
    cells = [cell for lab_, cell in CELLS if lab_ == lab]
    students = {}
    for i in range(20):
        students[f"s{i:02d}"] = {cell: answers(lab, cell)[i] for cell in cells}
        write_student(folder, f"s{i:02d}", lab, students[f"s{i:02d}"])
    return lab, folder, students


@pytest.mark.slow
def test_independent_whole_notebooks_are_not_flagged(independent_class):
    lab, folder, _ = independent_class
    docs, pairs, _ = compared(folder, lab)
    flagged = [(p.a, p.b, round(p.similarity, 2)) for p in pairs if p.similarity >= THRESHOLD]
    print(f"{lab}: {len(docs)} independent notebooks, highest similarity {pairs[0].similarity if pairs else 0:.0%}")
    assert len(docs) == 20 and not flagged


@pytest.mark.slow
def test_disguised_copies_are_found_and_grouped(independent_class, tmp_path):
    lab, folder, students = independent_class
    for sid, cells in students.items():
        write_student(tmp_path, sid, lab, cells)
    copied = ("s03", "s11", "s17")
    for sid in copied:
        write_student(tmp_path, f"copy_of_{sid}", lab, {c: disguised(code) for c, code in students[sid].items()})
    # a copy of a copy: three students in one group
    write_student(
        tmp_path, "copy_of_copy_of_s03", lab, {c: disguised(disguised(code)) for c, code in students["s03"].items()}
    )
    docs, pairs, _ = compared(tmp_path, lab)
    flagged = {(p.a, p.b) for p in pairs if p.similarity >= THRESHOLD}
    found = {(p.a, p.b): p.similarity for p in pairs if "copy" in p.a + p.b}
    print(f"{lab}: disguised copies at " + ", ".join(f"{s:.0%}" for s in sorted(found.values())))
    for sid in copied:
        assert tuple(sorted((sid, f"copy_of_{sid}"))) in flagged, f"the disguised copy of {sid} was not found"
    innocent = [pair for pair in flagged if not any(s.startswith("copy_of") for s in pair)]
    assert not innocent, f"independent students flagged: {innocent}"
    groups = similarity.clusters(pairs, THRESHOLD)
    assert ["copy_of_copy_of_s03", "copy_of_s03", "s03"] in groups, groups


SCRIPT_IN_CODE = (
    "# <img src=x onerror=\"document.title='pwned by onerror'\">\n"
    "BANNER = \"<script>document.title = 'pwned by script'</script>\"\n"
)


@pytest.mark.slow
def test_the_report_shows_student_code_as_text_in_chromium(tmp_path):
    lab = "lab01_benchmarking"
    cells = [cell for lab_, cell in CELLS if lab_ == lab]
    mallory = {cell: answers(lab, cell)[4] for cell in cells}
    mallory[cells[0]] = SCRIPT_IN_CODE + mallory[cells[0]]
    subs = tmp_path / "subs"
    write_student(subs, "mallory", lab, mallory)
    write_student(subs, "mallory_copy", lab, {c: disguised(code) for c, code in mallory.items()})
    write_student(subs, "alice", lab, {cell: answers(lab, cell)[9] for cell in cells})
    write_student(subs, "=HYPERLINK(1)", lab, {cell: answers(lab, cell)[2] for cell in cells})
    (subs / "broken").mkdir()
    (subs / "broken" / f"{lab}.ipynb").write_text("{not json")
    paths = CoursePaths(root=ROOT, work=tmp_path / "work", release=ROOT / "labs")
    report = similarity_report(lab, subs, paths)
    assert report.compared == 3, report.not_compared
    assert "not a notebook" in report.not_compared["broken"]
    assert "not a usable student id" in report.not_compared["=HYPERLINK(1)"]
    assert [(p.a, p.b) for p in report.flagged] == [("mallory", "mallory_copy")]
    assert report.csv.read_text().splitlines()[1].startswith("mallory,mallory_copy,")
    text = report.html.read_text()
    assert "<script" not in text and "<img" not in text  # escaped: &lt;script&gt; is text
    assert "not a finding of misconduct" in text
    if skip_reason() is not None:
        pytest.skip(str(skip_reason()))
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(report.html.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        assert "pwned" not in page.title(), page.title()
        assert page.locator("script").count() == 0 and page.locator("[onerror]").count() == 0
        assert page.get_by_text("document.title = 'pwned by script'").count() >= 1  # shown, as text
        assert page.locator("mark").count() > 0
        page.screenshot(path=str(screenshot_dir() / "similarity-report.png"), full_page=False)


@pytest.mark.slow
def test_the_command_writes_the_report_and_refuses_a_bad_threshold(tmp_path, capsys):
    lab = "lab01_benchmarking"
    cells = [cell for lab_, cell in CELLS if lab_ == lab]
    for i in (1, 2):
        write_student(tmp_path / "subs", f"s{i}", lab, {cell: answers(lab, cell)[i] for cell in cells})
    assert main(["similarity", lab, str(tmp_path / "subs"), "--grading-dir", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "2 submissions of lab01_benchmarking compared" in out and "not a finding of misconduct" in out
    assert (tmp_path / "work" / "similarity" / lab / "report.html").exists()
    assert main(["similarity", lab, str(tmp_path / "subs"), "--threshold", "60"]) == 2
    assert "give a share between 0 and 1" in capsys.readouterr().err


def test_groups_join_pairs_at_or_above_the_threshold_and_need_three_students():
    def pair(a, b, share):
        return similarity.Pair(a, b, share, share / 2, 200, np.array([]), np.array([]))

    pairs = [pair("a", "b", 0.9), pair("b", "c", 0.6), pair("d", "e", 0.95), pair("c", "f", 0.59)]
    assert similarity.clusters(pairs, 0.6) == [["a", "b", "c"]]
    assert similarity.clusters(pairs, 0.5) == [["a", "b", "c", "f"]]
    assert pairs[1].similarity == 0.6  # the larger of the two shares
