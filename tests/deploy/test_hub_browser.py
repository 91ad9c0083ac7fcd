"""A student and the instructor in Chromium, through the class JupyterHub (root, npm and Chromium).

The instructor has released lab01 to the exchange. student1 logs in on the
hub's form, opens nbgrader's Assignments tab, fetches lab01, opens it, runs its
first code cells, validates it (the untouched stubs fail, and the dialog says
which cell) and submits it; the Submitted list shows the hand-in. The
instructor collects it and sees it in the Formgrader opened in a tab of its own:
inside JupyterLab the Formgrader is an iframe, which JupyterHub forbids
(``Content-Security-Policy: frame-ancestors 'none'``, nbgrader issue 1870), so
the tab is the working path; a test checks that header, to say so the day
JupyterHub changes it. The hand-in is graded, the instructor releases the
feedback, and student1 clicks "Fetch Feedback" and gets their page.
Screenshots: ``build/screenshots/hub-*.png``.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from autograder import cli
from deploy import ports
from deploy.jupyterhub import hubctl
from tests.browser_support import launched_chromium, run_cell, screenshot_dir, skip_reason
from tests.deploy.test_hub import _why_not, as_user

pytestmark = [pytest.mark.hub, pytest.mark.browser]

INSTRUCTOR = "hpmlt-instructor"
STUDENT = "hpmlt-student1"
LAB = "lab01_benchmarking"
FIRST_CELLS = 3


@pytest.fixture(scope="module")
def class_hub(tmp_path_factory):
    """The hub with an instructor who released lab01 and one student, on an exchange of its own."""
    why = _why_not() or skip_reason()
    if why:
        pytest.skip(why)
    hubctl.install(hubctl.DEFAULT_PREFIX)
    prefix = tmp_path_factory.mktemp("hub-browser")
    for shared in ("venv", "proxy"):
        (prefix / shared).symlink_to(hubctl.DEFAULT_PREFIX / shared)
    (prefix / "state").mkdir(mode=0o700)
    exchange = hubctl.make_exchange(Path("/srv/nbgrader") / f"hpmlt-exchange-{prefix.name}")
    env = pytest.MonkeyPatch()
    try:
        passwords = hubctl.create_demo_users(prefix, INSTRUCTOR, [STUDENT])
        as_user(INSTRUCTOR, f"nbgrader release_assignment {LAB}", exchange)
        env.setenv("HPML_EXCHANGE", str(exchange))  # the hub passes it to each server and to the inbound guard
        env.setenv("HPML_FAST", "1")
        url = hubctl.start(prefix, ports.free_port(), [STUDENT], [INSTRUCTOR])
        yield {"url": url, "passwords": passwords, "exchange": exchange, "prefix": prefix}
    finally:
        env.undo()
        hubctl.stop(prefix)
        hubctl.remove_demo_users(prefix)
        shutil.rmtree(exchange, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as b:
        yield b


def log_in(browser, url: str, user: str, password: str):
    """A fresh browser context (its own cookies) logged in through the hub's form, at the user's JupyterLab."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(f"{url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", password)
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**", timeout=120_000)
    page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
    return page


def open_assignments(page) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.wait_for_selector("#released_assignments_list", timeout=60_000)


@pytest.fixture(scope="module")
def student_hand_in(class_hub, browser):
    """student1's evening: log in, fetch lab01, run its first cells, validate, submit. What the page showed."""
    hub = class_hub
    t0 = time.monotonic()
    page = log_in(browser, hub["url"], STUDENT, hub["passwords"][STUDENT])
    open_assignments(page)
    released = page.locator("#released_assignments_list .list_item", has_text=LAB)
    released.locator("button", has_text="Fetch").click()
    fetched = page.locator("#fetched_assignments_list .list_item", has_text=LAB).first
    fetched.wait_for(timeout=60_000)
    page.locator("#fetched_assignments_list a.assignment-notebooks-link", has_text=LAB).click()
    page.locator("#fetched_assignments_list .nested_list_item .item_name a", has_text=LAB).click()
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-CodeCell", timeout=90_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-CodeCell")
    for i in range(FIRST_CELLS):
        run_cell(page, cells.nth(i), i, stuck_screenshot="hub-student-stuck.png")
    prompts = [cells.nth(i).locator(".jp-InputArea-prompt").text_content() for i in range(FIRST_CELLS)]
    outputs = [cells.nth(i).locator(".jp-OutputArea").text_content() or "" for i in range(FIRST_CELLS)]
    page.keyboard.press("Control+s")
    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    page.locator("#fetched_assignments_list button", has_text="Validate").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=300_000)
    page.screenshot(path=str(screenshot_dir() / "hub-student-validate.png"))
    validation = {
        "title": dialog.locator(".jp-Dialog-header").text_content(),
        "failed": dialog.locator("#validation-message.validation-failed").count() == 1,
        "text": dialog.text_content(),
    }
    dialog.locator("button", has_text="Ok").click()
    page.locator("#fetched_assignments_list .list_item", has_text=LAB).locator("button", has_text="Submit").click()
    submitted = page.locator("#submitted_assignments_list .list_item", has_text=LAB).first
    submitted.wait_for(timeout=60_000)
    seconds = time.monotonic() - t0
    page.screenshot(path=str(screenshot_dir() / "hub-student-submitted.png"))
    return {
        "page": page,
        "prompts": prompts,
        "outputs": outputs,
        "validation": validation,
        "submitted": submitted.text_content(),
        "seconds": seconds,
    }


def test_a_student_fetches_runs_validates_and_submits_lab01_in_the_browser(student_hand_in, class_hub):
    print(f"{STUDENT}: log-in to submitted lab01 in {student_hand_in['seconds']:.1f} s")
    assert all(p and p.strip("[]: ").isdigit() for p in student_hand_in["prompts"]), student_hand_in["prompts"]
    # a test cell among the first ones fails on the untouched stub, and nothing else does
    failures = [text for text in student_hand_in["outputs"] if "Traceback" in text]
    assert all("NotImplementedError" in text for text in failures), failures
    validation = student_hand_in["validation"]
    assert validation["title"].strip() == "Validation Results"
    assert validation["failed"], "the untouched release passed validation: are the stubs gone?"
    assert "NotImplementedError" in validation["text"]
    assert "hpml" in student_hand_in["submitted"]  # the course, beside the hand-in's time
    inbound = list((class_hub["exchange"] / "hpml" / "inbound").glob(f"{STUDENT}+{LAB}+*"))
    assert len(inbound) == 1, inbound


def test_the_instructor_sees_the_submission_in_the_formgrader_tab(student_hand_in, class_hub, browser):
    hub = class_hub
    as_user(INSTRUCTOR, f"nbgrader collect {LAB}", hub["exchange"])
    page = log_in(browser, hub["url"], INSTRUCTOR, hub["passwords"][INSTRUCTOR])
    page.goto(f"{hub['url']}/user/{INSTRUCTOR}/formgrader/manage_submissions/{LAB}")
    row = page.locator("#main-table tr", has_text=STUDENT)
    row.wait_for(timeout=60_000)
    page.screenshot(path=str(screenshot_dir() / "hub-instructor-formgrader.png"))
    assert "needs autograding" in row.text_content().lower()


def test_the_student_fetches_their_feedback_in_the_browser(student_hand_in, class_hub, tmp_path):
    hub = class_hub
    course = Path(f"/home/{INSTRUCTOR}/course")
    if not (course / "submitted" / STUDENT / LAB).is_dir():
        as_user(INSTRUCTOR, f"nbgrader collect {LAB}", hub["exchange"])
    # graded as root into a folder of its own (see test_exchange), the pages then put where nbgrader looks
    grading = tmp_path / "grading"
    assert cli.main(["--grading-dir", str(grading), "autograde", LAB, str(course / "submitted"), "--jobs", "1"]) == 0
    assert cli.main(["--grading-dir", str(grading), "feedback", LAB]) == 0
    shutil.copytree(grading / "feedback", course / "feedback", dirs_exist_ok=True)
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course / "feedback")], check=True)
    as_user(INSTRUCTOR, f"nbgrader release_feedback {LAB}", hub["exchange"])
    page = student_hand_in["page"]
    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    page.locator("#refresh_assignments_list").click()
    item = page.locator("#submitted_assignments_list .list_item", has_text=LAB).first
    expect_text(item, "feedback available to fetch")
    item.locator("button", has_text="Fetch Feedback").click()
    expect_text(page.locator("#submitted_assignments_list"), "view feedback")
    page.screenshot(path=str(screenshot_dir() / "hub-student-feedback.png"))
    (fetched,) = Path(f"/home/{STUDENT}/{LAB}/feedback").glob(f"*/{LAB}.html")
    assert fetched.read_bytes() == (grading / "feedback" / STUDENT / LAB / f"{LAB}.html").read_bytes()


def expect_text(locator, text: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in (locator.text_content() or ""):
        assert time.monotonic() < deadline, f"{text!r} never appeared in: {locator.text_content()!r}"
        time.sleep(0.3)


def test_the_formgrader_iframe_is_refused_by_jupyterhub(class_hub, browser):
    """Why the Formgrader gets a tab of its own: the single-user server forbids being framed."""
    hub = class_hub
    page = log_in(browser, hub["url"], INSTRUCTOR, hub["passwords"][INSTRUCTOR])
    response = page.goto(f"{hub['url']}/user/{INSTRUCTOR}/formgrader")
    assert response.status == 200
    policy = response.headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy, (
        f"JupyterHub now sends {policy!r}: the Formgrader may work inside JupyterLab again; "
        "update docs/running-a-class.md and hubctl's start message"
    )
