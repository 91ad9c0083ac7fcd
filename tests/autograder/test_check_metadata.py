"""CheckCellMetadataOnce: nbgrader's metadata checks, with the schema checked once per run."""

from pathlib import Path
from unittest import mock

import jsonschema
import nbformat
import pytest
from nbgrader.preprocessors import CheckCellMetadata

from autograder.pipeline import preprocessors
from autograder.pipeline.preprocessors import CheckCellMetadataOnce

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "solutions" / "lab01_benchmarking" / "lab01_benchmarking.ipynb"


def broken(change) -> nbformat.NotebookNode:
    nb = nbformat.read(SOURCE, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    change(cell.metadata["nbgrader"])
    return nb


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.__setitem__("points", "ten"),  # wrong type
        lambda m: m.__setitem__("grade_id", 42),  # wrong type
        lambda m: m.__setitem__("schema_version", 1),  # too old
    ],
    ids=["points-type", "grade-id-type", "schema-too-old"],
)
def test_rejects_what_nbgrader_rejects(change):
    for cls in (CheckCellMetadata, CheckCellMetadataOnce):
        with pytest.raises(Exception) as err:
            cls().preprocess(broken(change), {})
        assert "validate" in str(err.value).lower() or "schema" in str(err.value).lower()


def test_duplicate_grade_ids_rejected():
    nb = nbformat.read(SOURCE, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")]
    graded[1].metadata["nbgrader"]["grade_id"] = graded[0].metadata["nbgrader"]["grade_id"]
    with pytest.raises(jsonschema.ValidationError, match="failed to validate"):
        CheckCellMetadataOnce().preprocess(nb, {})


def test_accepts_the_source_and_checks_the_schema_once():
    nb = nbformat.read(SOURCE, as_version=4)
    n_cells = sum(1 for c in nb.cells if "nbgrader" in c.metadata)
    assert n_cells > 10
    with mock.patch.object(
        jsonschema.Draft4Validator, "check_schema", wraps=jsonschema.Draft4Validator.check_schema
    ) as plain:
        CheckCellMetadata().preprocess(nb, {})
    assert plain.call_count == n_cells  # nbgrader's own: once per cell
    with mock.patch.object(
        jsonschema.Draft4Validator, "check_schema", wraps=jsonschema.Draft4Validator.check_schema
    ) as once:
        CheckCellMetadataOnce().preprocess(nb, {})
    assert once.call_count == 1  # nbgrader loads the schema afresh for each run: checked once per run
    assert preprocessors.nbgrader_format.jsonschema is jsonschema  # the module is put back after the run
