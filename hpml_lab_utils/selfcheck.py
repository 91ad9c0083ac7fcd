"""Self-check questions for the teaching notebooks: immediate feedback that never prints the answer.

A question stores only a *digest* of its answer: ``sha256(salt | normalised answer)``,
cut to 16 hex digits. The reader's answer is normalised the same way and
compared. Normalising:

- text (multiple choice, a word): stripped, lower case, inner spaces collapsed;
- numbers: rounded to ``digits`` significant digits (default 3), so 0.3333 and
  0.333 match, and written in one canonical form (``1.23e+04``);
- numbers with a relative tolerance ``rtol`` (for answers a reader rounds: 0.0039 for
  0.00390625): the answer's *bucket* on a logarithmic grid of step ``log(1 + rtol)``; a reader's
  number is right when its bucket is the stored one or a neighbour, so every answer within
  ``rtol`` of the exact one is accepted (and none off by more than about ``2 rtol``).

Digests are made with :func:`digest` from an answer the notebook's author
*computes* (never copies from a key); ``tests/notebooks/test_course_quizzes.py``
recomputes every answer and checks the digests in the notebooks.

In a notebook::

    from hpml_lab_utils.selfcheck import choice, number
    choice("Which mean is right for rates over equal work?",
           ["arithmetic", "harmonic", "geometric"], "3f1c...")
    number("Amdahl: speed-up with p = 0.9 on 8 cores?", "9a0b...", digits=3)

Each shows a widget (options or a text box, a Check button, a verdict). Without
a widget front end, :func:`check` does the same from code.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

SALT = "hpml-selfcheck-v1"
DIGEST_LENGTH = 16


def _as_number(answer: Any) -> float | None:
    """``answer`` as a number: a number itself, or one typed as text (``"1,000"``, ``"0.5"``); else None."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return float(answer)
    try:
        return float(str(answer).replace(",", ""))
    except ValueError:
        return None


def normalise(answer: Any, digits: int = 3) -> str:
    """The canonical text of an answer: numbers to ``digits`` significant digits, text lower-cased."""
    if isinstance(answer, bool):
        return str(answer).lower()
    value = _as_number(answer)
    if value is None:
        return " ".join(str(answer).strip().lower().split())
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == 0:
        return "0"
    return f"{float(f'{value:.{digits}g}'):.{digits - 1}e}"


def _bucket(value: float, rtol: float) -> tuple[str, int]:
    """(sign, index) of ``value`` on the logarithmic grid of step ``log(1 + rtol)``; zero is its own bucket."""
    if value == 0:
        return "0", 0
    return ("-" if value < 0 else "+"), round(math.log(abs(value)) / math.log1p(rtol))


def _hash(text: str) -> str:
    return hashlib.sha256(f"{SALT}|{text}".encode()).hexdigest()[:DIGEST_LENGTH]


def _bucket_digest(rtol: float, sign: str, index: int) -> str:
    return _hash(f"rtol={rtol:g}|{sign}{index}")


def digest(answer: Any, digits: int = 3, rtol: float | None = None) -> str:
    """``sha256(SALT | normalised answer)``, the first 16 hex digits: what a question stores.

    With ``rtol``, the normalised answer is its bucket on a logarithmic grid (see the module docstring).
    """
    value = _as_number(answer) if rtol else None
    if value is None or math.isnan(value) or math.isinf(value):
        return _hash(normalise(answer, digits))
    return _bucket_digest(rtol, *_bucket(value, rtol))


def is_correct(answer: Any, expected_digest: str, digits: int = 3, rtol: float | None = None) -> bool:
    """Whether ``answer`` matches the stored digest (with ``rtol``: its bucket or a neighbouring one)."""
    value = _as_number(answer) if rtol else None
    if value is None or math.isnan(value) or math.isinf(value) or value == 0:
        return digest(answer, digits, rtol) == expected_digest
    sign, index = _bucket(value, rtol)
    return any(_bucket_digest(rtol, sign, index + step) == expected_digest for step in (-1, 0, 1))


def check(answer: Any, expected_digest: str, digits: int = 3, hint: str = "", rtol: float | None = None) -> bool:
    """Print a verdict for ``answer`` (never the expected answer) and return it."""
    ok = is_correct(answer, expected_digest, digits, rtol)
    if ok:
        print(f"correct: {answer}")
    else:
        print(f"not yet: {answer} is not it." + (f" Hint: {hint}" if hint else ""))
    return ok


def _verdict_widget():
    import ipywidgets as widgets

    return widgets.HTML(value="")


def _show(text: str, ok: bool | None) -> str:
    colour = {True: "#1a7f37", False: "#cf222e", None: "#57606a"}[ok]
    return f'<span style="color:{colour}; font-weight:bold">{text}</span>'


def choice(question: str, options: Sequence[str], expected_digest: str, hint: str = "") -> Any:
    """A multiple-choice question (radio buttons + Check); returns the widget.

    ``expected_digest`` = ``digest(correct option text)``.
    """
    import ipywidgets as widgets

    if not any(is_correct(o, expected_digest) for o in options):
        raise ValueError(f"none of the options of {question!r} matches its digest: recompute it with digest()")
    buttons = widgets.RadioButtons(options=list(options), value=None, layout=widgets.Layout(width="auto"))
    button = widgets.Button(description="Check", button_style="primary")
    verdict = _verdict_widget()

    def on_click(_b: Any = None) -> None:
        if buttons.value is None:
            verdict.value = _show("pick an answer first", None)
        elif is_correct(buttons.value, expected_digest):
            verdict.value = _show("correct", True)
        else:
            verdict.value = _show("not yet" + (f": {hint}" if hint else ""), False)

    button.on_click(on_click)
    box = widgets.VBox([widgets.HTML(f"<b>{question}</b>"), buttons, widgets.HBox([button, verdict])])
    box.check = on_click  # for tests and for keyboard-free use
    return box


def number(
    question: str, expected_digest: str, digits: int = 3, unit: str = "", hint: str = "", rtol: float | None = None
) -> Any:
    """A numeric question (text box + Check), compared at ``digits`` significant digits, or within ``rtol``
    (relative) when it is given; returns the widget."""
    import ipywidgets as widgets

    how = f"within {rtol:.0%}" if rtol else f"{digits} significant digits"
    box_in = widgets.Text(placeholder=f"a number ({how})" + (f", in {unit}" if unit else ""))
    button = widgets.Button(description="Check", button_style="primary")
    verdict = _verdict_widget()

    def on_click(_b: Any = None) -> None:
        text = box_in.value.strip()
        try:
            value = float(text.replace(",", ""))
        except ValueError:
            verdict.value = _show("type a number, e.g. 2.5 or 1e9", None)
            return
        if is_correct(value, expected_digest, digits, rtol):
            verdict.value = _show("correct", True)
        else:
            verdict.value = _show("not yet" + (f": {hint}" if hint else ""), False)

    button.on_click(on_click)
    box = widgets.VBox([widgets.HTML(f"<b>{question}</b>"), widgets.HBox([box_in, button, verdict])])
    box.check = on_click
    return box
