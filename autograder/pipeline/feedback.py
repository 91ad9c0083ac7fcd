"""``feedback``: an HTML page per graded student (nbgrader ``generate_feedback``, the course's feedback template)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from traitlets.config import Config

from ..labs import notebook_names
from ..paths import CoursePaths
from ..records import StatusStore, scored_in_gradebook
from .nbgrader_app import load_config, run_nbgrader

TEMPLATES = Path(__file__).resolve().parent / "templates"


def feedback_lab(
    lab: str,
    paths: CoursePaths | None = None,
    students: list[str] | None = None,
    progress: Callable[[str], None] | None = print,
) -> dict[str, Path | str]:
    """HTML feedback per graded student in ``feedback/<student>/<lab>/``; return student -> file or error."""
    import nbgrader
    from nbgrader.converters import GenerateFeedback

    class SanitizedFeedback(GenerateFeedback):
        """nbgrader's feedback page, whose students' Markdown is sanitized as their outputs are (the template
        templates/hpml_feedback extends nbgrader's, which nbgrader only finds through its own settings)."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            nbgrader_templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
            template_paths = [*self.config.HTMLExporter.extra_template_paths, str(nbgrader_templates)]
            self.update_config(Config({"HTMLExporter": {"extra_template_paths": template_paths}}))

    paths = paths or CoursePaths.from_env()
    cfg = load_config(paths)
    cfg.HTMLExporter.template_name = "hpml_feedback"
    cfg.HTMLExporter.extra_template_basedirs = [str(TEMPLATES)]
    store = StatusStore(paths.statuses)
    if students is None:
        graded = {r.student_id for r in store.results(lab) if scored_in_gradebook(r)}
        on_disk = {p.parent.name for p in paths.autograded.glob(f"*/{lab}") if p.is_dir()}
        students = sorted(graded & on_disk if store.results(lab) else on_disk)
    names = notebook_names(lab, paths)
    out: dict[str, Path | str] = {}
    for sid in students:
        run = run_nbgrader(SanitizedFeedback, {"assignment_id": lab, "student_id": sid}, cfg, force=True)
        files = [paths.feedback / sid / lab / f"{n}.html" for n in names]
        if run.success and all(f.exists() for f in files):
            out[sid] = files[0]
        else:
            out[sid] = f"feedback failed: {run.last_error()}"
        if progress:
            progress(f"{sid}: {out[sid]}")
    return out
