"""hpml_lab_utils.checks: visible-test helpers say what was compared and how far off."""

from hpml_lab_utils.checks import check_close, check_equal, check_true

import numpy as np
import pytest


def test_check_close_accepts_within_tolerance(capsys):
    check_close("dot", 1.0000001, 1.0, rtol=1e-6)
    assert "ok  dot" in capsys.readouterr().out


def test_check_close_reports_the_worst_element():
    got = np.array([1.0, 2.0, 3.5])
    with pytest.raises(AssertionError) as info:
        check_close("vec", got, [1.0, 2.0, 3.0], rtol=1e-3)
    message = str(info.value)
    assert "index (2,)" in message and "3.5" in message and "rel error" in message


def test_check_close_rejects_shape_mismatch():
    with pytest.raises(AssertionError, match="shape"):
        check_close("vec", np.zeros(3), np.zeros(4))


def test_check_close_rejects_nan():
    with pytest.raises(AssertionError, match="NaN"):
        check_close("x", float("nan"), 1.0)


def test_check_close_with_zero_expected_uses_atol():
    check_close("zero", 1e-9, 0.0, atol=1e-8)
    with pytest.raises(AssertionError):
        check_close("zero", 1e-3, 0.0, atol=1e-8)


def test_check_equal_and_true():
    check_equal("flag", True, True)
    with pytest.raises(AssertionError, match="got False, expected True"):
        check_equal("flag", False, True)
    with pytest.raises(AssertionError, match="look at the ridge"):
        check_true("bound", False, hint="look at the ridge")
