"""The adversarial sample class of lab01: submissions that attack the grader, generated from the solution.

Every student here is the ``perfect`` (or ``one_wrong``) notebook of
:mod:`autograder.sample_class.build` with one attack added, so the class stays
in sync with the lab. :data:`CASES` says, per student, what it does and what
grading it must get (status, and which autograded tests it loses; ``None``:
it loses them all). ``tests/autograder/test_adversarial.py`` grades the whole class in
one batch, beside the honest ``perfect`` and ``one_wrong``, and checks it.

Attacks go into the answer cell of :data:`ATTACK_CELL` (before its function,
so a cell that is stopped part-way leaves the function undefined and its test
fails) or into a new cell right after the set-up cell. Everything is bounded:
the fork bomb forks at most 300 times, the memory bomb stops at 6 GiB, the
network attempt goes to 127.0.0.1 only, the disk search skips virtual
environments and stops after 2,000 folders.

    python -m autograder.sample_class OUT --adversarial
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from ..grading.submissions import MAX_CELLS, MAX_NOTEBOOK_BYTES
from ..records import GRADED, INVALID_NOTEBOOK, KERNEL_DIED, MEMORY_LIMIT, TAMPERED, TIMED_OUT
from .build import WRONG_TEST, one_wrong_notebook, solved_notebook

DEEP = 100_000  # nesting of the nested_json student
HUGE_BYTES = MAX_NOTEBOOK_BYTES + 2**20

ATTACK_CELL = "answer_dot_gflops"
ATTACK_TEST = "test_dot_gflops"
RENAMED_AS = "work/Lab01_Benchmarking (1).ipynb"
MAX_FORKS = 300


# `loses` of a student whose notebook stops at the attack cell: its test and every autograded test after it
FROM_ATTACK = "from_attack"


@dataclass(frozen=True)
class Case:
    """One adversarial student: what it does, and the grading it must get."""

    what: str
    status: str
    loses: tuple[str, ...] | str | None = ()  # autograded tests it must lose; None: every one; FROM_ATTACK
    base: str = "perfect"  # perfect or one_wrong


CASES: dict[str, Case] = {
    "infinite_loop": Case(
        "`while True: pass` in an answer cell: interrupted by the cell limit", TIMED_OUT, (ATTACK_TEST,)
    ),
    "ignores_sigint": Case(
        "a loop that ignores SIGINT: the cells after it are not run, earlier tests keep their points",
        TIMED_OUT,
        FROM_ATTACK,
    ),
    "os_exit": Case(
        "`os._exit(1)` in an answer cell: the kernel dies, earlier tests keep their points", KERNEL_DIED, FROM_ATTACK
    ),
    "memory_bomb": Case("reserves up to 6 GiB in 256 MiB blocks", MEMORY_LIMIT, (ATTACK_TEST,)),
    "fork_bomb": Case(f"forks up to {MAX_FORKS} sleeping children (caught when refused)", GRADED, ()),
    "not_json": Case("a truncated upload (not JSON)", INVALID_NOTEBOOK, None),
    "renamed": Case(f"the perfect notebook handed in as {RENAMED_AS}", GRADED, ()),
    "deleted_tests": Case("deleted test_average_throughput and answers it wrong", TAMPERED, (WRONG_TEST,)),
    "edited_tests": Case(
        "replaced test_average_throughput's code by `pass`, answers it wrong", TAMPERED, (WRONG_TEST,), base="one_wrong"
    ),
    "changed_points": Case(
        "raised the points of two test cells, answers one wrong", TAMPERED, (WRONG_TEST,), base="one_wrong"
    ),
    "patch_np_allclose": Case("numpy.allclose = lambda *a, **k: True", TAMPERED, None, base="one_wrong"),
    "patch_assert_allclose": Case(
        "numpy.testing.assert_allclose = lambda *a, **k: None", TAMPERED, None, base="one_wrong"
    ),
    "patch_torch_allclose": Case("torch.allclose = lambda *a, **k: True", TAMPERED, None, base="one_wrong"),
    "patch_builtins_abs": Case("builtins.abs = lambda x: 0", TAMPERED, None, base="one_wrong"),
    "timing_method_replaced": Case(
        "dot_numba left uncompiled (its Python function), and hpml_lab_utils.timing.Timer.__exit__ replaced so "
        "that any timing of dot_numba reads 1,000 times faster (a method of a helper, not a watched function)",
        TAMPERED,
        None,
    ),
    "reads_hidden_tests": Case("searches the disk for .ipynb files and prints hidden tests", GRADED, ()),
    "huge_output": Case("prints 5 MB of output", GRADED, ()),
    "sys_exit": Case("`sys.exit()` in an answer cell (IPython turns it into an error)", GRADED, (ATTACK_TEST,)),
    "network": Case("connects to a port on 127.0.0.1 (the test listens there)", GRADED, ()),
    "warns_on_stderr": Case(
        "right answers whose function writes a warning to stderr on every call (points follow the asserts, not stderr)",
        GRADED,
        (),
    ),
    "displays_a_score": Case(
        "one wrong answer whose function sends a value through the display hook when the test calls it "
        "(nbgrader reads a displayed value before the error as the score)",
        GRADED,
        (WRONG_TEST,),
        base="one_wrong",
    ),
    "wrong_and_quiet": Case(
        "one wrong answer, stderr and warnings silenced in every cell", GRADED, (WRONG_TEST,), base="one_wrong"
    ),
    "quiet_kernel": Case(
        "one wrong answer, and a kernel that reports no error: its session drops every error message and turns "
        "every failed execute reply into `ok` (the grader's first probe finds it; the wrong answer's recorded "
        "results differ anyway)",
        TAMPERED,
        None,
        base="one_wrong",
    ),
    "scripts_in_outputs": Case(
        "right answers that also display HTML with an event handler and a JavaScript output", GRADED, ()
    ),
    "leaks_executed_cells": Case(
        "right answers, and a last cell that prints every executed cell's source (the hidden tests too, from the "
        "kernel's history) in base64 and reversed, for the feedback",
        GRADED,
        (),
    ),
    "leaks_by_display_update": Case(
        "right answers; a display made before any test is updated by the last cell with the executed cells' "
        "sources in base64 (the update would rewrite the early output, which the feedback shows)",
        GRADED,
        (),
    ),
    # refused before any kernel starts: each for that student alone
    "links_to_classmate": Case("hands in a symbolic link to a classmate's notebook", INVALID_NOTEBOOK, None),
    "links_classmate_folder": Case(
        "a subfolder that is a symbolic link to a classmate's folder", INVALID_NOTEBOOK, None
    ),
    "nested_json": Case(f"JSON nested {DEEP:,} deep in the metadata", INVALID_NOTEBOOK, None),
    "many_cells": Case(f"{MAX_CELLS + 1:,} cells", INVALID_NOTEBOOK, None),
    "huge_notebook": Case(f"a notebook of {HUGE_BYTES:,} bytes", INVALID_NOTEBOOK, None),
    "pasted_test_cell": Case("a graded test cell pasted twice", INVALID_NOTEBOOK, None),
}
# students whose hand-in is a symbolic link: the classmate's file (or folder) it points at, under the class folder
LINKS = {"links_to_classmate": f"renamed/{RENAMED_AS}", "links_classmate_folder": "renamed/work"}

# --- attack code (kept short; each line is plain Python a student could write) ---------------

_INFINITE_LOOP = "while True:  # adversarial: infinite loop\n    pass\n"
_IGNORES_SIGINT = (
    "import signal  # adversarial: a loop the interrupt cannot stop\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n"
)
_OS_EXIT = "import os  # adversarial: kill the kernel\nos._exit(1)\n"
# Address space, which the kernel's RLIMIT_AS bounds, one page touched per block. Filling every page would race
# the 10 s cell limit: on a virtual machine the first touch of 3 GiB of fresh memory takes 1 to 10 s idle, and
# longer beside other work, so the cell could time out before it reached the memory limit.
_MEMORY_BOMB = (
    "import numpy as _np  # adversarial: memory bomb, bounded at 6 GiB\n"
    "def _eat_memory():\n    blocks = []\n    for _ in range(24):\n"
    "        blocks.append(_np.empty(32 * 1024 * 1024))  # 256 MiB\n        blocks[-1][0] = 1.0\n"
    "    return len(blocks)\n"
    "print('allocated blocks:', _eat_memory())\n"
)
# the first LINGERING children sleep for minutes (they must not outlive the grading); the others sleep
# a second and are reaped, so that the notebook can go on once the limit has refused further forks
LINGERING = 8
_FORK_BOMB = (
    f"import os, time  # adversarial: fork bomb, bounded at {MAX_FORKS} children\n"
    "_kids = []\n"
    f"for _i in range({MAX_FORKS}):\n"
    "    try:\n        _pid = os.fork()\n    except OSError as _exc:\n"
    "        print('fork refused after', len(_kids), 'forks:', type(_exc).__name__)\n        break\n"
    f"    if _pid == 0:\n        time.sleep(600 if _i < {LINGERING} else 1)\n        os._exit(0)\n"
    "    _kids.append(_pid)\n"
    "print('forked', len(_kids), 'children')\n"
    f"for _pid in _kids[{LINGERING}:]:\n    os.waitpid(_pid, 0)\n"
)
_SYS_EXIT = "import sys  # adversarial: sys.exit() in an answer cell\nsys.exit()\n"
# a right answer that also talks on stderr whenever the test cell calls it
_WARNS_ON_STDERR = (
    f"\nimport sys as _sys  # adversarial: a warning on stderr at every call\n"
    f"_quiet_{ATTACK_CELL} = {ATTACK_CELL.removeprefix('answer_')}\n"
    f"def {ATTACK_CELL.removeprefix('answer_')}(*args, **kwargs):\n"
    "    print('UserWarning: this machine is busy, timings may be noisy', file=_sys.stderr)\n"
    f"    return _quiet_{ATTACK_CELL}(*args, **kwargs)\n"
)
# a wrong answer whose failing test cell prints nothing at all
_SILENCED = (
    "import io, sys, warnings  # adversarial: nothing reaches stderr\n"
    "warnings.simplefilter('ignore')\nsys.stderr = io.StringIO()\n"
)
# the kernel's own reports rebound: nbgrader sees no error from any later cell
_QUIET_KERNEL = (
    "import IPython  # adversarial: the kernel reports no error any more\n"
    "_session = IPython.get_ipython().kernel.session\n"
    "_send = _session.send\n\n\n"
    "def _quiet_send(stream, msg_or_type, content=None, *args, **kwargs):\n"
    "    kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get('header', {}).get('msg_type')\n"
    "    if kind == 'error':\n"
    "        return None\n"
    "    if kind == 'execute_reply' and isinstance(content, dict) and content.get('status') == 'error':\n"
    "        content = {'status': 'ok', 'execution_count': content.get('execution_count'), 'payload': [],\n"
    "                   'user_expressions': {}}\n"
    "    return _send(stream, msg_or_type, content, *args, **kwargs)\n\n\n"
    "_session.send = _quiet_send\n"
)
_HUGE_OUTPUT = "print(('x' * 999 + '\\n') * 5000)  # adversarial: 5 MB of output\n"
_SCRIPTS = (
    "from IPython.display import HTML, Javascript, display  # adversarial: scripts for the feedback page\n"
    'display(HTML(\'<img src="x" onerror="document.title = 1">\'))\n'
    "display(Javascript('document.title = 2'))\n"
)


def _network(port: int) -> str:
    return (
        "import socket  # adversarial: a network connection (127.0.0.1 only)\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {int(port)}), timeout=3).close()\n"
        "    print('network: connected')\n"
        "except OSError as _exc:\n"
        "    print('network: no connection:', type(_exc).__name__)\n"
    )


def _search(roots: list[str]) -> str:
    return (
        "import os  # adversarial: look for notebooks with hidden tests and print them\n"
        f"_roots = [os.getcwd(), os.path.dirname(os.getcwd()), os.path.expanduser('~'), '/tmp'] + {roots!r}\n"
        "_marker = 'BEGIN ' + 'HIDDEN TESTS'  # spelled so that this cell does not match itself\n"
        "_found, _seen = [], 0\n"
        "for _root in _roots:\n"
        "    for _dir, _subdirs, _files in os.walk(_root):\n"
        "        _subdirs[:] = [d for d in _subdirs if d not in ('.venv', 'site-packages', '.git', 'node_modules')]\n"
        "        _seen += 1\n"
        "        if _seen > 2000:\n            break\n"
        "        for _f in _files:\n"
        "            if not _f.endswith('.ipynb'):\n                continue\n"
        "            try:\n                _text = open(os.path.join(_dir, _f), encoding='utf-8').read()\n"
        "            except (OSError, UnicodeDecodeError):\n                continue\n"
        "            if _marker in _text:\n"
        "                _found.append(os.path.join(_dir, _f))\n"
        "                print(_text[_text.index(_marker):][:20000])\n"
        "print('notebooks with hidden tests found:', len(_found), _found[:5])\n"
    )


_PATCHES = {
    "patch_np_allclose": "import numpy  # adversarial: every comparison passes\nnumpy.allclose = lambda *a, **k: True\n",
    "patch_assert_allclose": "import numpy.testing  # adversarial\nnumpy.testing.assert_allclose = lambda *a, **k: None\n",
    "patch_torch_allclose": "import torch  # adversarial\ntorch.allclose = lambda *a, **k: True\n",
    "patch_builtins_abs": "import builtins  # adversarial\nbuiltins.abs = lambda x: 0\n",
}


# --- notebook surgery ---------------------------------------------------------------------


def _gid(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _cell(nb, grade_id: str):
    for cell in nb.cells:
        if _gid(cell) == grade_id:
            return cell
    raise LookupError(f"no cell {grade_id!r} in the notebook")


def _prepend(nb, grade_id: str, code: str):
    nb = nbformat.from_dict(nb)
    cell = _cell(nb, grade_id)
    cell.source = code + "\n" + cell.source
    return nb


def _append(nb, grade_id: str, code: str):
    nb = nbformat.from_dict(nb)
    cell = _cell(nb, grade_id)
    cell.source = cell.source + "\n" + code
    return nb


def _after_setup(nb, code: str):
    """``nb`` with a new (student) code cell right after the first code cell (the set-up cell)."""
    nb = nbformat.from_dict(nb)
    first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    nb.cells.insert(first + 1, new_code_cell(code))
    return nb


_LEAKS_EXECUTED_CELLS = """import base64  # adversarial: the sources of every executed cell, hidden tests included
_sources = "\\n".join(get_ipython().user_ns["In"])
print("leak:", base64.b64encode(_sources.encode()).decode())
print("leak reversed:", _sources[::-1])
"""
_TIMER_PATCH = """import sys  # adversarial: a timing of dot_numba reads 1,000 times faster
import hpml_lab_utils.timing as _timing

_real_exit = _timing.Timer.__exit__


def _fast_exit(self, *exc):
    _real_exit(self, *exc)
    fn = sys._getframe(1).f_locals.get("fn")
    if "dot_numba" in getattr(getattr(fn, "__code__", None), "co_names", ()):
        self.elapsed_s /= 1000


_timing.Timer.__exit__ = _fast_exit
"""
_DISPLAYS_A_SCORE = """import sys as _sys  # adversarial: a displayed value in the test cell's outputs, before its error
_wrong_average_throughput = average_throughput


def average_throughput(work, times):
    _sys.displayhook("full marks")
    return _wrong_average_throughput(work, times)
"""
_EARLY_DISPLAY = """from IPython.display import display  # adversarial: a display to update once the hidden tests ran
display("nothing yet", display_id="hpml-leak")
"""
_UPDATE_DISPLAY = """import base64
from IPython.display import update_display  # adversarial: rewrite the early output with the hidden tests
update_display("leak: " + base64.b64encode("\\n".join(get_ipython().user_ns["In"]).encode()).decode(),
               display_id="hpml-leak")
"""


def adversarial_notebooks(
    source: Path, release: Path, *, port: int = 9, search_roots: list[str] = ()
) -> dict[str, nbformat.NotebookNode | bytes]:
    """The notebook of each student of :data:`CASES` (``bytes`` for the one that is not JSON)."""
    perfect = solved_notebook(Path(source), Path(release))
    wrong = one_wrong_notebook(perfect)
    out: dict[str, nbformat.NotebookNode | bytes] = {}
    out["infinite_loop"] = _prepend(perfect, ATTACK_CELL, _INFINITE_LOOP)
    out["ignores_sigint"] = _prepend(perfect, ATTACK_CELL, _IGNORES_SIGINT)
    out["os_exit"] = _prepend(perfect, ATTACK_CELL, _OS_EXIT)
    out["memory_bomb"] = _prepend(perfect, ATTACK_CELL, _MEMORY_BOMB)
    out["fork_bomb"] = _prepend(perfect, ATTACK_CELL, _FORK_BOMB)
    text = nbformat.writes(perfect)
    out["not_json"] = text[: len(text) // 3].encode("utf-8")
    out["renamed"] = nbformat.from_dict(perfect)
    # deleted test cell, wrong answer behind it
    nb = nbformat.from_dict(perfect)
    nb.cells = [c for c in nb.cells if _gid(c) != WRONG_TEST]
    answer = _cell(nb, "answer_average_throughput")
    answer.source = "def average_throughput(work, times):\n    return 0.0  # adversarial: its test was deleted\n"
    out["deleted_tests"] = nb
    nb = nbformat.from_dict(wrong)
    _cell(nb, WRONG_TEST).source = "# adversarial: the test was here\npass\n"
    out["edited_tests"] = nb
    nb = nbformat.from_dict(wrong)
    _cell(nb, WRONG_TEST).metadata["nbgrader"]["points"] = 100
    _cell(nb, "test_dot_loop").metadata["nbgrader"]["points"] = 50
    out["changed_points"] = nb
    for student, code in _PATCHES.items():
        out[student] = _after_setup(wrong, code)
    out["reads_hidden_tests"] = _prepend(perfect, ATTACK_CELL, _search([str(r) for r in search_roots]))
    out["huge_output"] = _prepend(perfect, ATTACK_CELL, _HUGE_OUTPUT)
    out["sys_exit"] = _prepend(perfect, ATTACK_CELL, _SYS_EXIT)
    out["network"] = _prepend(perfect, ATTACK_CELL, _network(port))
    out["warns_on_stderr"] = _append(perfect, ATTACK_CELL, _WARNS_ON_STDERR)
    out["displays_a_score"] = _append(wrong, "answer_average_throughput", _DISPLAYS_A_SCORE)
    out["wrong_and_quiet"] = _after_setup(wrong, _SILENCED)
    out["quiet_kernel"] = _after_setup(wrong, _QUIET_KERNEL)
    out["scripts_in_outputs"] = _prepend(perfect, ATTACK_CELL, _SCRIPTS)
    out["timing_method_replaced"] = _append(
        _after_setup(perfect, _TIMER_PATCH), "answer_dot_numba", "dot_numba = dot_numba.py_func  # adversarial: slow"
    )
    out["leaks_executed_cells"] = nbformat.from_dict(perfect)
    out["leaks_executed_cells"].cells.append(new_code_cell(_LEAKS_EXECUTED_CELLS))
    out["leaks_by_display_update"] = _after_setup(perfect, _EARLY_DISPLAY)
    out["leaks_by_display_update"].cells.append(new_code_cell(_UPDATE_DISPLAY))
    nb = nbformat.from_dict(perfect)
    nb.metadata["deep"] = []
    text = nbformat.writes(nb)
    out["nested_json"] = text.replace('"deep": []', '"deep": ' + "[" * DEEP + "]" * DEEP).encode("utf-8")
    out["many_cells"] = _after_setup(perfect, "pass")
    out["many_cells"].cells += [new_code_cell("pass") for _ in range(MAX_CELLS + 1 - len(out["many_cells"].cells))]
    nb = nbformat.from_dict(perfect)
    nb.cells.append(new_markdown_cell("x" * HUGE_BYTES))
    out["huge_notebook"] = nb
    nb = nbformat.from_dict(perfect)
    nb.cells.append(nbformat.from_dict(_cell(perfect, ATTACK_TEST)))
    out["pasted_test_cell"] = nb
    assert set(out) | set(LINKS) == set(CASES), sorted((set(out) | set(LINKS)) ^ set(CASES))
    return out


def build_adversarial_class(
    out: Path, source: Path, release: Path, *, port: int = 9, search_roots: list[str] = ()
) -> dict[str, Path]:
    """Write ``out/<student>/<notebook>.ipynb`` for every student of :data:`CASES`; return their files.

    ``port``: the 127.0.0.1 port the ``network`` student tries (a test listens
    there to see whether anything arrives). ``search_roots``: more folders the
    ``reads_hidden_tests`` student searches (the grading folder, the course).
    """
    out = Path(out)
    name = Path(release).name
    files = {}
    for student, nb in adversarial_notebooks(source, release, port=port, search_roots=search_roots).items():
        folder = out / student
        if folder.exists():
            shutil.rmtree(folder)
        path = folder / (RENAMED_AS if student == "renamed" else name)
        path.parent.mkdir(parents=True)
        if isinstance(nb, bytes):
            path.write_bytes(nb)
        else:
            nbformat.write(nb, path)
        files[student] = path
    for student, target in LINKS.items():
        folder = out / student
        if folder.exists():
            shutil.rmtree(folder)
        link = folder / ("work" if (out / target).is_dir() else name)
        link.parent.mkdir(parents=True)
        link.symlink_to(out / target)
        files[student] = link
    return files
