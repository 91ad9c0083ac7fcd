"""The course as people meet it: a real JupyterLab server driven by headless Chromium.

Student path: JupyterLab started the way ``make lab`` starts it (on a copy of
``labs/``, so nothing in the repository changes), lab01's release opened, every
code cell run in turn as a student would (select, Ctrl+Enter, wait for each:
"Run All" stops at the first failing test), then checked: the only errors are the
stubs' ``NotImplementedError``, the roofline figure is drawn, the tqdm bar of
the peak measurement is a widget, the roofline explorer's dropdown redraws the
plot, and the instructor-only nbgrader extensions are off.

Instructor path: ``make formgrader`` on a grading folder where ``make demo``
graded the sample class: the Formgrader lists every lab and the students'
scores.

Needs Debian's ``chromium`` (``make browser-tools`` installs it as root with
apt) and the ``playwright`` package (dev extra); otherwise the tests skip and
say so. Screenshots go to ``$HPML_SCREENSHOT_DIR`` (default
``build/screenshots``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.browser_support import launched_chromium, run_cell, screenshot_dir, skip_reason

ROOT = Path(__file__).resolve().parents[2]
LAB = "lab01_benchmarking"
TOKEN = "hpml-browser-test"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


if skip_reason():
    pytest.skip(skip_reason(), allow_module_level=True)

from playwright.sync_api import Page, expect  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def user_settings(folder: Path) -> Path:
    """JupyterLab user settings for the test: every cell in the page (no windowing), no news pop-up."""
    notebook = folder / "@jupyterlab" / "notebook-extension"
    notebook.mkdir(parents=True, exist_ok=True)
    (notebook / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    news = folder / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True, exist_ok=True)
    (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    return folder


class LabServer:
    """``make <target>`` serving ``folder`` on a free port, in a process group of its own."""

    def __init__(self, target: str, folder: Path, tmp: Path, env: dict[str, str]):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = f"--no-browser --port={self.port} --IdentityProvider.token={TOKEN} --ServerApp.open_browser=False"
        if os.geteuid() == 0:
            args += " --allow-root"
        full_env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(tmp / "config"),
            JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(user_settings(tmp / "settings")),
            JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
            **env,
        )
        full_env.pop("JUPYTER_CONFIG_PATH", None)
        self.log = tmp / f"{target}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                ["make", "-s", "-C", str(ROOT), target, f"LAB_DIR={folder}", f"LAB_ARGS={args}"],
                env=full_env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"`make {target}` exited: {self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(self.api("/api/status"), timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"`make {target}` did not answer in 120 s: {self.log.read_text()[-3000:]}")

    def api(self, path: str) -> str:
        return f"{self.url}{path}{'&' if '?' in path else '?'}token={TOKEN}"

    def status(self, path: str) -> int:
        try:
            return urllib.request.urlopen(self.api(path), timeout=10).status
        except urllib.error.HTTPError as err:
            return err.code

    def stop(self) -> None:
        """SIGTERM to the whole group; what is left after 20 s is killed. make exits at once, and a
        jupyter-lab that did not finish its shutdown was once found running half an hour later."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            self.proc.poll()  # reap make, so that it does not count as left
            try:
                os.killpg(self.proc.pid, 0)
            except ProcessLookupError:
                return  # the group is empty
            time.sleep(0.2)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as b:
        yield b


# --------------------------------------------------------------------------- student


@pytest.fixture(scope="module")
def student(browser, tmp_path_factory):
    """lab01's release opened in `make lab`, every cell run in turn; the page and the saved notebook."""
    tmp = tmp_path_factory.mktemp("student-lab")
    served = tmp / "course"
    shutil.copytree(ROOT / "labs" / LAB, served / "labs" / LAB)
    server = LabServer("lab", served, tmp, {"HPML_FAST": "1", "HPML_CACHE_DIR": str(tmp / "peaks-cache")})
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(server.api(f"/lab/tree/labs/{LAB}/{LAB}.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
        run_every_cell(page, server, expected=len(nbformat.read(served / "labs" / LAB / f"{LAB}.ipynb", 4).cells))
        page.keyboard.press("Control+s")
        saved = served / "labs" / LAB / f"{LAB}.ipynb"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _has_outputs(saved):
            time.sleep(0.5)
        page.screenshot(path=str(screenshot_dir() / "student-lab01-end.png"))
        yield {"page": page, "server": server, "notebook": nbformat.read(saved, as_version=4)}
    finally:
        page.close()
        server.stop()


def _has_outputs(path: Path) -> bool:
    try:
        return any(c.get("outputs") for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    except Exception:  # noqa: BLE001 - half-written file
        return False


def run_every_cell(page: Page, server: LabServer, expected: int) -> None:
    """Run the code cells one by one like a student: select a cell, Ctrl+Enter, wait for its count.

    JupyterLab draws a long notebook's cells a batch at a time, later on a busy machine, so the run
    starts once all ``expected`` cells are in the page. A key press can be lost while the page is busy (a widget being drawn can take the focus), so a
    cell whose prompt is still blank ``[ ]`` after a while, with the kernel idle, is selected and run
    again. A cell that never finishes fails the test with its number, its prompt and its first line.
    """
    selector = ".jp-NotebookPanel .jp-Notebook .jp-Cell"
    try:
        page.wait_for_function(
            "([selector, n]) => document.querySelectorAll(selector).length >= n",
            arg=[selector, expected],
            timeout=90_000,
        )
    except PlaywrightTimeout:
        pytest.fail(f"{page.locator(selector).count()} of the notebook's {expected} cells in the page after 90 s")
    cells = page.locator(selector)
    count = cells.count()
    for i in range(count):
        cell = cells.nth(i)
        if "jp-CodeCell" in (cell.get_attribute("class") or ""):
            run_cell(page, cell, i, log_tail=lambda: server.log.read_text(errors="replace"))
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)


def _cell_with(page: Page, text: str):
    return page.locator(".jp-Notebook .jp-CodeCell", has_text=text).first


def test_only_the_stubs_raise(student):
    nb = student["notebook"]
    errors = [
        (i, o.get("ename"), o.get("evalue"))
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    executed = [c for c in nb.cells if c.cell_type == "code" and c.get("execution_count")]
    assert len(executed) == sum(1 for c in nb.cells if c.cell_type == "code"), "some code cells never ran"
    assert errors, "the untouched release raised nothing: are the stubs gone?"
    unexpected = [e for e in errors if e[1] != "NotImplementedError"]
    assert not unexpected, f"errors other than the stubs' NotImplementedError: {unexpected}"
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    failing = [c for c in tests if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert len(failing) == len(tests), "every autograded test cell fails on the untouched release"


def test_roofline_figure_is_drawn(student):
    page = student["page"]
    cell = _cell_with(page, "roofline.measure_peaks")
    image = cell.locator(".jp-OutputArea-output img").first
    expect(image).to_be_visible()
    assert image.evaluate("img => img.naturalWidth > 300 && img.naturalHeight > 200")
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir() / "student-lab01-roofline.png"))


def test_peak_measurement_shows_a_tqdm_widget(student):
    cell = _cell_with(student["page"], "roofline.measure_peaks")
    bar = cell.locator(".widget-hprogress")
    expect(bar).to_have_count(1)
    expect(cell.locator(".jupyter-widgets", has_text="measuring peaks").first).to_be_visible()
    expect(cell.locator(".jupyter-widgets", has_text="3/3").first).to_be_visible()  # GEMM fp32, fp64, triad done


def test_roofline_explorer_redraws_when_the_roof_changes(student):
    page = student["page"]
    cell = _cell_with(page, "roofline_plot.explore(")
    menu = cell.locator(".jupyter-widgets select").first
    expect(menu).to_be_visible()
    image = cell.locator(".widget-output img").first
    expect(image).to_be_visible()
    before = image.get_attribute("src")
    other = next(v for v in menu.locator("option").all_inner_texts() if v != menu.input_value())
    menu.select_option(other)
    page.wait_for_function(
        "([img, before]) => img.isConnected ? img.src !== before : true",
        arg=[image.element_handle(), before],
        timeout=30_000,
    )
    expect(cell.locator(".widget-output img").first).to_be_visible()
    assert cell.locator(".widget-output img").first.get_attribute("src") != before
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir() / "student-lab01-explorer.png"))


def test_students_do_not_get_the_instructor_extensions(student):
    page, server = student["page"], student["server"]
    assert server.status("/formgrader") == 404  # the server extension is off
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    items = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    page.keyboard.press("Escape")
    assert not any("Formgrader" in item for item in items), items
    assert page.locator(".jp-SideBar [title*='Create Assignment' i]").count() == 0


# --------------------------------------------------------------------------- instructor


@pytest.fixture(scope="module")
def instructor(browser, tmp_path_factory):
    """`make demo` grades the sample class into a grading folder; `make formgrader` serves it."""
    tmp = tmp_path_factory.mktemp("instructor")
    grading = tmp / "grading"
    env = dict(os.environ, HPML_GRADING_DIR=str(grading), HPML_FAST="1")
    demo = subprocess.run(["make", "-s", "-C", str(ROOT), "demo"], env=env, capture_output=True, text=True, timeout=600)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    server = LabServer("formgrader", ROOT, tmp, {"HPML_GRADING_DIR": str(grading / "demo")})
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        yield {"page": page, "server": server}
    finally:
        page.close()
        server.stop()


def test_formgrader_lists_every_lab(instructor):
    page, server = instructor["page"], instructor["server"]
    page.goto(server.api("/formgrader/manage_assignments"))
    labs = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())
    for lab in labs:
        expect(page.locator("#main-table", has_text=lab)).to_be_visible(timeout=30_000)
    row = page.locator("#main-table tr", has_text=LAB)
    expect(row).to_contain_text("3")  # three valid submissions of the sample class were graded
    page.screenshot(path=str(screenshot_dir() / "instructor-formgrader-labs.png"))


def test_formgrader_shows_the_graded_sample_class(instructor):
    page, server = instructor["page"], instructor["server"]
    from autograder import labs, sample_class

    page.goto(server.api("/formgrader/manage_students"))
    cells = labs.grade_cells(ROOT / "solutions" / LAB / f"{LAB}.ipynb")  # points from the metadata
    auto, total = sum(c.points for c in cells if c.autograded), sum(c.points for c in cells)
    wrong = next(c.points for c in cells if c.grade_id == sample_class.WRONG_TEST)
    for student, score in (("perfect", auto), ("one_wrong", auto - wrong), ("untouched", 0)):
        row = page.locator("#main-table tr", has_text=student)
        expect(row).to_be_visible(timeout=30_000)
        expect(row).to_contain_text(f"{score:g} / {total:g}")
    page.screenshot(path=str(screenshot_dir() / "instructor-formgrader-students.png"))


def test_instructors_get_the_formgrader_in_jupyterlab(instructor):
    page, server = instructor["page"], instructor["server"]
    page.goto(server.api("/lab"))
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    expect(page.locator(".lm-Menu-itemLabel", has_text="Formgrader").first).to_be_visible(timeout=30_000)
    page.keyboard.press("Escape")
    page.screenshot(path=str(screenshot_dir() / "instructor-lab-menu.png"))
