"""The feedback page a student opens runs no script of theirs, in Chromium: their outputs are shown, not run.

A submission of the toy lab whose right answers also display HTML with an event handler, a JavaScript
output and a Markdown answer with a ``<script>``; it keeps its points, and its feedback page, opened in
headless Chromium, shows the text while none of the three scripts runs (each would change the page's title).
"""

from __future__ import annotations

import nbformat
import pytest

from autograder import sample_class
from autograder.grading import autograde
from autograder.pipeline import feedback, generate
from tests.autograder.toy_course import TOY
from tests.browser_support import launched_chromium, skip_reason

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCRIPTS = (
    "from IPython.display import HTML, Javascript, display\n"
    "display(HTML('<b>bold words</b><img src=\"x\" onerror=\"document.title = \\'pwned by onerror\\'\">'))\n"
    "display(Javascript(\"document.title = 'pwned by javascript'\"))\n"
)


@pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))
def test_student_scripts_do_not_run_in_the_feedback_page(toy_course, tmp_path):
    release = generate.generate_lab(TOY, toy_course)[0]
    files = sample_class.build_sample_class(tmp_path / "subs", toy_course.source / TOY / f"{TOY}.ipynb", release)
    nb = nbformat.read(files["perfect"], as_version=4)
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_add")
    answer.source += "\n" + SCRIPTS
    written = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "written_why")
    written.source = "Because the work is fixed. <script>document.title = 'pwned by markdown'</script>"
    path = tmp_path / "attack" / "mallory" / f"{TOY}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    result = autograde.grade_one(TOY, "mallory", path, paths=toy_course)
    assert result.status == "graded" and result.failed_tests == [], result.message
    page_file = feedback.feedback_lab(TOY, toy_course, students=["mallory"], progress=None)["mallory"]
    assert not isinstance(page_file, str), page_file  # the reason feedback failed
    with launched_chromium() as browser:
        page = browser.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(1000)
        assert "pwned" not in page.title(), page.title()
        assert page.locator("[onerror]").count() == 0 and page.locator("script", has_text="pwned").count() == 0
        assert page.locator("b", has_text="bold words").count() == 1  # the student's output is shown
        assert page.get_by_text("Because the work is fixed.").count() >= 1
