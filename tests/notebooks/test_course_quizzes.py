"""Every self-check question in course/*.ipynb stores the digest of the right answer.

A question is a code cell that starts with ``# selfcheck: <id>`` and calls
``choice(question, options, expected_digest, ...)`` or
``number(question, expected_digest, digits=3, ...)`` (hpml_lab_utils.selfcheck).
The answer key below recomputes each answer from the data in the question, by
its formula (never a typed final number where a formula exists), and the test
checks ``digest(answer, digits)`` against the digest stored in the notebook.
A wrong key in a notebook, a question without a key, or a key whose question
was deleted fails here.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

from hpml_lab_utils.selfcheck import digest, normalise

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "course"
MARKER = re.compile(r"^#\s*selfcheck:\s*([A-Za-z0-9_]+)\s*$", re.MULTILINE)


# --------------------------------------------------------------------------- answer key
# Each entry: question id -> function returning the correct answer (a number, or the text of the right option).


def _peak_flops(cores: float, ghz: float, flops_per_cycle: float) -> float:
    return cores * ghz * 1e9 * flops_per_cycle


def _w01_peak_claims() -> str:
    # Quiz 1, question 7: 8 cores, 3.5 GHz, 32 DP FLOP/cycle; SP does twice the FLOP per cycle.
    dp, sp = 32, 64
    claims = {  # statement -> (claimed GFLOP/s, true GFLOP/s)
        "Its peak is 896 GFLOP/s in double precision": (896, _peak_flops(8, 3.5, dp) / 1e9),
        "Switching to single precision raises the peak to about 1.8 TFLOP/s": (1800, _peak_flops(8, 3.5, sp) / 1e9),
        "Its peak is 428 GFLOP/s in single precision": (428, _peak_flops(8, 3.5, sp) / 1e9),
        "At a reduced clock of 2.5 GHz its double-precision peak drops to 640 GFLOP/s": (
            640,
            _peak_flops(8, 2.5, dp) / 1e9,
        ),
    }
    false = [text for text, (claimed, true) in claims.items() if abs(claimed - true) / true > 0.05]
    assert len(false) == 1
    return false[0]


def _harmonic_mean_rate(work: float, times: list[float]) -> float:
    rates = [work / t for t in times]
    return len(rates) / sum(1 / r for r in rates)


def _geometric_mean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _w02_stencil() -> str:
    # Quiz 1, question 4: 7-point stencil then new *= -8.15, double precision, every array reference from DRAM.
    flops = 6 + 1 + 1  # six adds, the multiply by -6.0, the multiply by -8.15
    loads, stores = 7, 1  # old[ijk] and its six neighbours; new[ijk] (its second use stays in a register)
    ai = flops / ((loads + stores) * 8)
    ridge = 2 * 81.3e9 / 51.2e9  # 2 cores x 81.3 GFLOP/s over 51.2 GB/s
    bound = "memory-bound" if ai < ridge else "compute-bound"
    return f"A.I. is {ai:.3g} FLOP/byte and it is {bound}"


def _amdahl_required_speedup(fraction: float, total: float, target: float) -> float:
    untouched = (1 - fraction) * total
    return fraction * total / (target - untouched)


def _adam_first_step(lr: float, grad: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> float:
    m = (1 - beta1) * grad
    v = (1 - beta2) * grad**2
    m_hat, v_hat = m / (1 - beta1), v / (1 - beta2)
    return lr * m_hat / (math.sqrt(v_hat) + eps)


def _adagrad_step(lr: float, grad: float, steps: int, eps: float = 1e-10) -> float:
    return lr * grad / (math.sqrt(steps * grad**2) + eps)


def _momentum_terminal_factor(gamma: float, steps: int = 10_000) -> float:
    v = 0.0
    for _ in range(steps):  # v_t = gamma v_{t-1} + g with g = 1: the step tends to g / (1 - gamma)
        v = gamma * v + 1.0
    return v


ANSWER_KEY: dict[str, Callable[[], Any]] = {
    # week 1
    "w01_peak_dp": lambda: _peak_flops(8, 3.5, 32) / 1e9,
    "w01_peak_claims": _w01_peak_claims,
    "w01_fugaku_rpeak": lambda: _peak_flops(7_630_848, 2.2, (512 // 64) * 2 * 2) / 1e15,
    "w01_jedi_power": lambda: 4.50e15 / (72.733e9) / 1e3,
    "w01_v100_balance": lambda: 7.8e12 / 900e9,
    "w01_ai_subsets": lambda: "Deep Learning ⊆ Machine Learning ⊆ Artificial Intelligence",
    "w01_hpc_properties": lambda: "Sequentiality",
    "w01_moore": lambda: "Transistors per chip",
    # week 2
    "w02_strong_scaling": lambda: "False",
    "w02_harmonic": lambda: _harmonic_mean_rate(10_000, [12, 13, 10, 12.5, 11, 11.25, 10.25, 14, 13.75, 14.25]),
    "w02_geomean": lambda: _geometric_mean([5, 3, 7.5, 2, 15, 1, 3, 5, 6, 2.5]),
    "w02_stencil": _w02_stencil,
    "w02_amdahl_target": lambda: _amdahl_required_speedup(0.5, 15, 9),
    "w02_time_diff": lambda: ((2372 + 4) - 2376) / 1000,  # CPU time (user + sys) minus real, from ms
    "w02_weak_scaling": lambda: "weak",
    "w02_blocking_simd": lambda: (
        "Cache blocking can raise arithmetic intensity; SIMD raises FLOP/s at the same intensity"
    ),
    # week 3
    "w03_autograd_accumulate": lambda: 2 * 4.0,  # two backward() calls of d(w*4+1)/dw = 4, accumulated
    "w03_adam_first_step": lambda: _adam_first_step(lr=0.01, grad=250.0),
    "w03_adagrad_step": lambda: _adagrad_step(lr=1.0, grad=3.0, steps=100),
    "w03_momentum": lambda: _momentum_terminal_factor(0.9),
    "w03_loader_batches": lambda: math.ceil(1000 / 64),
    "w03_start_method": lambda: "fork",
    "w03_pinned": lambda: (
        "Page-locked host memory that the GPU can copy from directly, so copies are faster and can be asynchronous"
    ),
}


def _load_week_keys() -> None:
    """Weeks 4 and later keep their keys in tests/course_keys/weekNN.py, each a dict ``KEYS`` like the one above."""
    for path in sorted((Path(__file__).resolve().parents[1] / "course_keys").glob("week*.py")):
        spec = importlib.util.spec_from_file_location(f"course_keys_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        clash = set(module.KEYS) & set(ANSWER_KEY)
        assert not clash, f"{path.name}: question ids already keyed elsewhere: {sorted(clash)}"
        ANSWER_KEY.update(module.KEYS)


_load_week_keys()


# --------------------------------------------------------------------------- reading the notebooks


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _literal(node: ast.AST | None) -> Any:
    return None if node is None else ast.literal_eval(node)


def find_questions() -> list[dict[str, Any]]:
    """One dict per ``# selfcheck: <id>`` cell: id, notebook, kind, digest, digits, options."""
    found = []
    for path in sorted(COURSE.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            ids = MARKER.findall(cell.source)
            calls = (
                [
                    node
                    for node in ast.walk(ast.parse(cell.source))
                    if isinstance(node, ast.Call) and _call_name(node) in ("choice", "number")
                ]
                if ids
                else []
            )
            if not ids:
                continue
            assert len(ids) == 1 and len(calls) == 1, (
                f"{path.name} cell {index}: one '# selfcheck: <id>' and one choice()/number() call per cell"
            )
            call = calls[0]
            kwargs = {k.arg: k.value for k in call.keywords}
            if _call_name(call) == "choice":
                args = list(call.args) + [None] * 3
                options = _literal(kwargs.get("options", args[1]))
                stored = _literal(kwargs.get("expected_digest", args[2]))
                digits = 3
            else:
                args = list(call.args) + [None] * 3
                options = None
                stored = _literal(kwargs.get("expected_digest", args[1]))
                digits = _literal(kwargs.get("digits", args[2])) or 3
            found.append(
                {
                    "id": ids[0],
                    "notebook": path.name,
                    "cell": index,
                    "kind": _call_name(call),
                    "digest": stored,
                    "digits": digits,
                    "options": options,
                }
            )
    return found


QUESTIONS = find_questions()


def test_there_are_questions_and_ids_are_unique():
    assert QUESTIONS, "no self-check questions found in course/*.ipynb"
    ids = [q["id"] for q in QUESTIONS]
    assert len(ids) == len(set(ids)), f"duplicate self-check ids: {sorted({i for i in ids if ids.count(i) > 1})}"


def test_every_notebook_has_4_to_8_questions():
    per_notebook: dict[str, int] = {}
    for q in QUESTIONS:
        per_notebook[q["notebook"]] = per_notebook.get(q["notebook"], 0) + 1
    for name, count in per_notebook.items():
        assert 4 <= count <= 8, f"{name} has {count} self-check questions; the course asks for 4 to 8"


def test_every_question_has_a_key():
    missing = [f"{q['notebook']}:{q['id']}" for q in QUESTIONS if q["id"] not in ANSWER_KEY]
    assert not missing, f"self-check questions without an answer key in this test: {missing}"


def test_every_key_of_a_written_week_has_its_question():
    weeks = {q["id"].split("_")[0] for q in QUESTIONS}
    stale = [k for k in ANSWER_KEY if k.split("_")[0] in weeks and k not in {q["id"] for q in QUESTIONS}]
    assert not stale, f"answer keys whose question is gone from the notebooks: {stale}"


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: f"{q['notebook']}:{q['id']}")
def test_stored_digest_is_the_recomputed_answer(question):
    if question["id"] not in ANSWER_KEY:
        pytest.skip("no key (reported by test_every_question_has_a_key)")
    answer = ANSWER_KEY[question["id"]]()
    assert question["digest"] == digest(answer, question["digits"]), (
        f"{question['notebook']} cell {question['cell']} ({question['id']}): the stored digest is not that of "
        f"the recomputed answer; make it with hpml_lab_utils.selfcheck.digest(answer)"
    )
    if question["kind"] == "choice":
        matching = [o for o in question["options"] if normalise(o) == normalise(answer)]
        assert len(matching) == 1, f"{question['id']}: exactly one option must be the answer, found {len(matching)}"
