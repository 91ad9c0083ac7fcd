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


def test_silence_stderr_keeps_warnings_and_both_stderrs_out(capfd):
    import os
    import sys
    import warnings

    from hpml_lab_utils.checks import silence_stderr

    with silence_stderr():
        warnings.warn("noisy", RuntimeWarning, stacklevel=1)
        print("python stderr", file=sys.stderr)
        os.write(2, b"descriptor 2\n")
    print("after", file=sys.stderr)
    err = capfd.readouterr().err
    assert err == "after\n", err


def test_silence_stderr_lets_errors_through():
    from hpml_lab_utils.checks import silence_stderr

    with pytest.raises(ZeroDivisionError), silence_stderr():
        _ = 1 / 0


def test_optimizer_step_difference_is_zero_for_torch_itself_and_not_for_a_wrong_step():
    from hpml_lab_utils.checks import optimizer_step_difference

    import torch

    def plain_sgd(params, state, lr):
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p -= lr * p.grad

    def twice_the_step(params, state, lr):
        plain_sgd(params, state, 2 * lr)

    shapes = [(3, 2), (4,)]
    right = optimizer_step_difference(plain_sgd, {"lr": 0.05}, torch.optim.SGD, {"lr": 0.05}, shapes, seed=1)
    wrong = optimizer_step_difference(twice_the_step, {"lr": 0.05}, torch.optim.SGD, {"lr": 0.05}, shapes, seed=1)
    assert right <= 1e-12 and wrong > 1e-3
    frozen = optimizer_step_difference(
        plain_sgd, {"lr": 0.05}, torch.optim.SGD, {"lr": 0.05}, shapes, seed=2, none_grad_index=0
    )
    assert frozen <= 1e-12


def test_optimizer_trajectory_writes_gradients_in_place_so_a_kept_reference_shows():
    from hpml_lab_utils.checks import optimizer_trajectory

    import torch

    def torch_sgd(params, state, lr, momentum):
        state.setdefault("torch", torch.optim.SGD(params, lr=lr, momentum=momentum)).step()

    def momentum_sgd(params, state, lr, momentum, clone=True, touch_grad=False):
        with torch.no_grad():
            for i, p in enumerate(params):
                if p.grad is None:
                    continue
                if i not in state:
                    state[i] = p.grad.clone() if clone else p.grad  # without clone: the buffer is the gradient
                else:
                    state[i].mul_(momentum).add_(p.grad)
                p.sub_(lr * state[i])
                if touch_grad:
                    p.grad.mul_(2.0)

    shapes, kw = [(3, 2), (), (4,)], {"lr": 0.05, "momentum": 0.9}
    reference = optimizer_trajectory(torch_sgd, kw, shapes, seed=3, none_grad_index=1)
    right = optimizer_trajectory(momentum_sgd, kw, shapes, seed=3, none_grad_index=1)
    aliased = optimizer_trajectory(momentum_sgd, {**kw, "clone": False}, shapes, seed=3, none_grad_index=1)
    touched = optimizer_trajectory(momentum_sgd, {**kw, "touch_grad": True}, shapes, seed=3, none_grad_index=1)

    def gap(a, b):
        return max(float((x - y).abs().max()) for x, y in zip(a, b) if x is not None)

    assert gap(right["params"], reference["params"]) <= 1e-12
    assert right["grads"][1] is None and right["state_keys"] == [0, 2] and reference["state_keys"] == ["torch"]
    assert gap(aliased["params"], reference["params"]) > 1e-3
    assert gap(touched["params"], reference["params"]) <= 1e-12 and gap(touched["grads"], reference["grads"]) > 1e-3
