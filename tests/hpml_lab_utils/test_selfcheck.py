"""Self-check questions: answers compared through digests, never printed."""

from hpml_lab_utils import selfcheck
from hpml_lab_utils.selfcheck import choice, digest, is_correct, normalise, number

import pytest


def test_numbers_match_at_the_stated_significant_digits():
    assert normalise(1 / 3) == normalise(0.333) == normalise("0.333")
    assert normalise(12345) == normalise("12,300") == "1.23e+04"
    assert normalise(0) == "0" and normalise(-0.0) == "0"
    assert is_correct(4.7058, digest(4.71))
    assert not is_correct(4.6, digest(4.71))
    assert is_correct(4.7, digest(4.71, digits=2), digits=2)


def test_text_is_case_and_space_insensitive():
    assert is_correct("  Harmonic   mean ", digest("harmonic mean"))
    assert not is_correct("arithmetic mean", digest("harmonic mean"))


def test_digest_reveals_nothing_readable():
    d = digest("harmonic")
    assert len(d) == selfcheck.DIGEST_LENGTH and "harmonic" not in d
    int(d, 16)


def test_choice_widget_verdicts(capsys):
    q = choice("Which mean for rates over equal work?", ["arithmetic", "harmonic", "geometric"], digest("harmonic"))
    radio = q.children[1]
    verdict = q.children[2].children[1]
    q.check()
    assert "pick an answer" in verdict.value
    radio.value = "arithmetic"
    q.check()
    assert "not yet" in verdict.value and "harmonic" not in verdict.value
    radio.value = "harmonic"
    q.check()
    assert "correct" in verdict.value and "not" not in verdict.value


def test_choice_refuses_a_digest_no_option_matches():
    with pytest.raises(ValueError, match="digest"):
        choice("?", ["a", "b"], digest("c"))


def test_number_widget_verdicts():
    q = number("Amdahl speed-up, p = 0.9, 8 cores?", digest(1 / (0.1 + 0.9 / 8)))
    text, _button, verdict = q.children[1].children
    text.value = "lots"
    q.check()
    assert "type a number" in verdict.value
    text.value = "8"
    q.check()
    assert "not yet" in verdict.value
    text.value = "4.71"
    q.check()
    assert "correct" in verdict.value


def test_check_prints_a_verdict_without_the_answer(capsys):
    assert not selfcheck.check(3, digest(5), hint="count again")
    out = capsys.readouterr().out
    assert "not yet" in out and "5" not in out.replace("3", "")
    assert selfcheck.check(5, digest(5))


def test_a_relative_tolerance_accepts_rounded_answers_and_rejects_wrong_ones():
    from hpml_lab_utils.selfcheck import digest, is_correct

    for exact, rounded, wrong in [
        (0.00390625, 0.0039, 0.0041),
        (0.421875, 0.42, 0.44),
        (-2.5e9, -2.49e9, 2.5e9),
        (123456.0, 1.23e5, 1.3e5),
    ]:
        stored = digest(exact, rtol=0.01)
        assert is_correct(exact, stored, rtol=0.01) and is_correct(rounded, stored, rtol=0.01)
        assert is_correct(f"{rounded}", stored, rtol=0.01)  # typed as text
        assert not is_correct(wrong, stored, rtol=0.01)
    # everything within rtol passes, nothing beyond about 2 rtol does
    stored = digest(1.0, rtol=0.01)
    assert all(is_correct(1.0 + d, stored, rtol=0.01) for d in (-0.0099, -0.005, 0.005, 0.0099))
    assert not any(is_correct(1.0 + d, stored, rtol=0.01) for d in (-0.03, 0.03))
    assert is_correct(0, digest(0, rtol=0.01), rtol=0.01) and not is_correct(0.001, digest(0, rtol=0.01), rtol=0.01)


def test_more_digits_tell_fp16_max_from_two_to_the_sixteen():
    from hpml_lab_utils.selfcheck import digest, is_correct

    assert is_correct(65504, digest(65504, 5), digits=5) and not is_correct(65536, digest(65504, 5), digits=5)
