"""What the browser tests share: finding Chromium, screenshots, and running a notebook's cells as a student would.

Used by ``tests/notebooks/test_browser.py`` (``make lab`` and ``make
formgrader``) and ``tests/deploy/test_hub_browser.py`` (the class JupyterHub).
Playwright is imported only by the functions that drive a page.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu"]


def chromium_path() -> str | None:
    """``$HPML_CHROMIUM``, else the first Chromium on PATH."""
    override = os.environ.get("HPML_CHROMIUM")
    if override:
        return override if Path(override).exists() else None
    return next((shutil.which(name) for name in CHROMIUM_NAMES if shutil.which(name)), None)


def skip_reason() -> str | None:
    """Why the browser tests cannot run here (and how to enable them), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests need the playwright package: `make setup` installs it (dev extra)"
    if chromium_path() is None:
        return (
            "browser tests need Chromium: `make browser-tools` installs Debian's package as root "
            "(or `apt-get install chromium`; HPML_CHROMIUM=/path/to/chrome points at another build)"
        )
    return None


@contextlib.contextmanager
def launched_chromium() -> Iterator:
    """Headless Chromium under Playwright, closed on exit (a test module's ``browser`` fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def screenshot_dir() -> Path:
    folder = Path(os.environ.get("HPML_SCREENSHOT_DIR", ROOT / "build" / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def busy(page) -> bool:
    """True while the notebook's kernel is not idle."""
    return page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count() == 0


def _answer_dialog(page, index: int, screenshot: str) -> None:
    """A dialog would take every click (one came up once on a busy machine, unseen): answer it with its default
    button as a student would, after a screenshot and a warning that names it in the test summary."""
    dialog = page.locator(".jp-Dialog")
    if not (dialog.count() and dialog.first.is_visible()):
        return
    page.screenshot(path=str(screenshot_dir() / f"dialog-{screenshot}"))
    text = " ".join((dialog.first.text_content() or "").split())[:300]
    warnings.warn(
        f"before code cell {index}, JupyterLab showed a dialog, answered with its default: {text!r}", stacklevel=3
    )
    dialog.first.locator(".jp-mod-accept").first.click()
    dialog.first.wait_for(state="detached", timeout=30_000)


def run_cell(
    page,
    cell,
    index: int,
    log_tail: Callable[[], str] = lambda: "",
    timeout_s: float = 180,
    retry_after_s: float = 15,
    stuck_screenshot: str = "student-lab01-stuck.png",
) -> None:
    """Select ``cell`` (click its prompt, command mode), press Ctrl+Enter, wait for ``[n]:`` in its prompt.

    A key press can be lost while the page is busy (a widget being drawn can take the focus), so a
    cell whose prompt is still blank ``[ ]`` after a while, with the kernel idle, is selected and run
    again. A cell that never finishes fails the test with its number, its prompt, its first line and
    ``log_tail()`` (the server's log).
    """
    prompt = cell.locator(".jp-InputArea-prompt")
    start = time.monotonic()
    tries = 0
    while True:
        tries += 1
        _answer_dialog(page, index, stuck_screenshot)
        prompt.click()
        page.keyboard.press("Escape")  # command mode, whatever had the focus
        page.keyboard.press("Control+Enter")
        pressed = time.monotonic()
        while True:
            text = prompt.text_content() or ""
            if re.search(r"\[\d+\]", text):
                return
            if time.monotonic() - start > timeout_s:
                page.screenshot(path=str(screenshot_dir() / stuck_screenshot))
                first_line = cell.locator(".jp-InputArea-editor .cm-line").first.text_content() or ""
                raise AssertionError(
                    f"code cell {index} ({first_line[:80]!r}) did not finish in {timeout_s:.0f} s "
                    f"after {tries} Ctrl+Enter; its prompt reads {text!r}; server log tail: {log_tail()[-1500:]}"
                )
            if "[*]" not in text and time.monotonic() - pressed > retry_after_s and not busy(page):
                break  # blank prompt, kernel idle: the key press was lost; select the cell and run it again
            time.sleep(0.25)
