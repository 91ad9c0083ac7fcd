"""Course grades by the syllabus's policy, checked against totals computed by hand in the comments.

The class (course_policy.toml: homework 50, project 30, quizzes 15, attendance 5;
the lowest homework and the lowest quiz dropped; 6 late days; 20% per day past
them, zero past 5 such days; late quizzes and project score zero). Every item is
due at 23:59 New York time.
"""

from __future__ import annotations

import csv
from datetime import datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from autograder import cli
from autograder.classroom.course_grades import ScoresError, course_grades, read_scores
from autograder.classroom.late_days import late_days
from autograder.classroom.policy import DEFAULT_POLICY, PolicyError, load_policy

NY = ZoneInfo("America/New_York")
BOUNDARY = time(23, 59)
HEADER = "student_id,item,category,score,max_score,submitted_at,due_at"
DUE = {
    "lab01": "2026-09-21T23:59:00-04:00",
    "lab02": "2026-10-05T23:59:00-04:00",
    "lab03": "2026-10-19T23:59:00-04:00",
    "project_final": "2026-12-10T23:59:00-05:00",
    "quiz_week01": "2026-09-14T23:59:00-04:00",
    "quiz_week02": "2026-09-21T23:59:00-04:00",
    "quiz_week03": "2026-09-28T23:59:00-04:00",
    "attendance": "",
}
CATEGORY = {"lab": "homework", "pro": "project", "qui": "quizzes", "att": "attendance"}
MAX = {"lab": 100, "pro": 100, "qui": 10, "att": 20}


def ny(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=NY)


# --------------------------------------------------------------------------- late days


def test_a_new_late_day_starts_at_1159_pm_new_york_time():
    due = ny("2026-10-05 23:59")  # a Monday
    assert late_days(ny("2026-10-05 23:58"), due, NY, BOUNDARY) == 0  # 11:58 pm: on time
    assert late_days(ny("2026-10-06 00:01"), due, NY, BOUNDARY) == 1  # 12:01 am: the first late day
    assert late_days(ny("2026-10-06 23:58"), due, NY, BOUNDARY) == 1
    assert late_days(ny("2026-10-06 23:59"), due, NY, BOUNDARY) == 2  # the next late day has begun
    assert late_days(ny("2026-10-11 23:58"), due, NY, BOUNDARY) == 6
    # due at 5 pm: late at 6 pm is day 1, and at 11:59 pm day 2 begins
    five_pm = ny("2026-10-05 17:00")
    assert late_days(ny("2026-10-05 18:00"), five_pm, NY, BOUNDARY) == 1
    assert late_days(ny("2026-10-06 00:10"), five_pm, NY, BOUNDARY) == 2


def test_late_days_across_daylight_saving_changes_count_calendar_days():
    # 1 Nov 2026, 2 am: New York goes from EDT (-04:00) back to EST (-05:00); that Sunday has 25 hours
    due = ny("2026-10-31 23:59")
    sunday_night = datetime.fromisoformat("2026-11-01T23:30:00-05:00")
    assert (sunday_night - due).total_seconds() / 3600 > 24.5  # over a day of hours, yet one late day
    assert late_days(sunday_night, due, NY, BOUNDARY) == 1
    assert late_days(datetime.fromisoformat("2026-11-02T00:01:00-05:00"), due, NY, BOUNDARY) == 2
    # 8 Mar 2026, 2 am: EST to EDT; that Sunday has 23 hours
    due = ny("2026-03-07 23:59")
    assert late_days(datetime.fromisoformat("2026-03-08T23:58:00-04:00"), due, NY, BOUNDARY) == 1
    assert late_days(datetime.fromisoformat("2026-03-09T00:01:00-04:00"), due, NY, BOUNDARY) == 2
    # the same instant written in UTC counts the same
    assert late_days(datetime.fromisoformat("2026-03-09T04:01:00+00:00"), due, NY, BOUNDARY) == 2


# --------------------------------------------------------------------------- the class


def row(student: str, item: str, score, submitted: str | None = "on time") -> str:
    kind = item[:3]
    if submitted == "on time":
        submitted = DUE[item].replace("23:59:00", "20:00:00") if DUE[item] else ""
    return ",".join(
        [student, item, CATEGORY[kind], "" if score is None else str(score), str(MAX[kind]), submitted or "", DUE[item]]
    )


def class_rows() -> list[str]:
    return [
        # alice, all on time: homework drops 70 -> (90 + 80) / 2 = 85; quizzes drop 6/10 -> (100 + 80) / 2 = 90;
        # attendance 18/20 = 90. Total (50*85 + 30*85 + 15*90 + 5*90) / 100 = 86.00 -> B
        row("alice", "lab01", 90),
        row("alice", "lab02", 80),
        row("alice", "lab03", 70),
        row("alice", "project_final", 85),
        row("alice", "quiz_week01", 10),
        row("alice", "quiz_week02", 8),
        row("alice", "quiz_week03", 6),
        row("alice", "attendance", 18),
        # bob: lab01 4 late days (due Mon 21 Sep, handed in Fri 25 Sep 8 pm), bank 6 -> 2;
        # lab02 3 late days: 2 from the bank, the 7th late day costs 20% of 100 -> 95 - 20 = 75;
        # lab03 80 on time. Drop after penalties: lab02 (75), not lab03 (80) -> (100 + 80) / 2 = 90.
        # quiz_week02 one minute late -> 0, then dropped -> (100 + 70) / 2 = 85. Attendance 100.
        # Total (50*90 + 30*70 + 15*85 + 5*100) / 100 = 83.75 -> B
        row("bob", "lab01", 100, "2026-09-25T20:00:00-04:00"),
        row("bob", "lab02", 95, "2026-10-08T12:00:00-04:00"),
        row("bob", "lab03", 80),
        row("bob", "project_final", 70),
        row("bob", "quiz_week01", 10),
        row("bob", "quiz_week02", 9, "2026-09-22T00:00:00-04:00"),
        row("bob", "quiz_week03", 7),
        row("bob", "attendance", 20),
        # carol: lab01 12 late days (6 from the bank, 6 past it: more than 5 -> 0); lab02 not submitted -> 0;
        # lab03 handed in 2 days late, with a 2-day extension -> on time, 90. Drop: one of the two zeros ->
        # (0 + 90) / 2 = 45. quiz_week01 excused; drop the lower of 5/10 and 10/10 -> 100. Attendance 15/20 = 75.
        # Total (50*45 + 30*88 + 15*100 + 5*75) / 100 = 67.65 -> D
        row("carol", "lab01", 95, "2026-10-03T12:00:00-04:00"),
        row("carol", "lab02", None, None),
        row("carol", "lab03", 90, "2026-10-21T20:00:00-04:00"),
        row("carol", "project_final", 88),
        row("carol", "quiz_week01", 4),
        row("carol", "quiz_week02", 5),
        row("carol", "quiz_week03", 10),
        row("carol", "attendance", 15),
        # dave: exactly 6 late days (3 on lab01, 3 on lab02), no penalty; every homework 80 -> 80;
        # quizzes all 10 -> 100; Total (50*80 + 30*80 + 15*100 + 5*100) / 100 = 84.00 -> B
        row("dave", "lab01", 80, "2026-09-24T12:00:00-04:00"),
        row("dave", "lab02", 80, "2026-10-08T12:00:00-04:00"),
        row("dave", "lab03", 80),
        row("dave", "project_final", 80),
        row("dave", "quiz_week01", 10),
        row("dave", "quiz_week02", 10),
        row("dave", "quiz_week03", 10),
        row("dave", "attendance", 20),
    ]


EXCEPTIONS = """
[[extensions]]
student_id = "carol"
item = "lab03"
days = 2

[[excused]]
student_id = "carol"
item = "quiz_week01"
"""


@pytest.fixture
def policy_file(tmp_path) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(DEFAULT_POLICY.read_text() + EXCEPTIONS)
    return path


def write_scores(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "scores.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    return path


@pytest.fixture
def graded(tmp_path, policy_file):
    policy = load_policy(policy_file)
    grades = course_grades(read_scores(write_scores(tmp_path, class_rows()), policy), policy)
    return {g.student_id: g for g in grades}


def test_totals_and_letters_match_the_hand_computation(graded):
    assert {s: (g.total, g.letter) for s, g in graded.items()} == {
        "alice": (86.00, "B"),
        "bob": (83.75, "B"),
        "carol": (67.65, "D"),
        "dave": (84.00, "B"),
    }
    assert graded["alice"].categories == {"homework": 85, "project": 85, "quizzes": 90, "attendance": 90}


def test_the_bank_is_spent_in_due_order_and_the_seventh_day_costs_twenty_percent(graded):
    bob = graded["bob"].items
    assert (bob["lab01"].late_days, bob["lab01"].bank_used, bob["lab01"].penalty) == (4, 4, 0)
    assert (bob["lab02"].late_days, bob["lab02"].bank_used, bob["lab02"].penalty, bob["lab02"].score) == (3, 2, 20, 75)
    assert graded["bob"].late_days_left == 0
    dave = graded["dave"]
    assert [dave.items[i].late_days for i in ("lab01", "lab02")] == [3, 3]
    assert dave.late_days_left == 0 and all(it.penalty == 0 for it in dave.items.values())


def test_past_five_penalised_days_the_item_scores_zero(graded):
    lab01 = graded["carol"].items["lab01"]
    assert (lab01.late_days, lab01.bank_used, lab01.score, lab01.penalty) == (12, 6, 0, 95)


def test_drop_lowest_comes_after_the_penalties(graded):
    bob = graded["bob"].items
    assert bob["lab02"].dropped and not bob["lab03"].dropped  # 75 after the penalty, 80 untouched
    assert graded["bob"].categories["homework"] == 90


def test_a_late_quiz_scores_zero_and_a_missing_lab_scores_zero(graded):
    quiz = graded["bob"].items["quiz_week02"]
    assert (quiz.late_days, quiz.score, quiz.penalty, quiz.dropped) == (1, 0, 9, True)
    lab02 = graded["carol"].items["lab02"]
    assert lab02.missing and lab02.score == 0


def test_extension_and_excused_item(graded):
    carol = graded["carol"].items
    assert carol["lab03"].late_days == 0 and carol["lab03"].score == 90  # two days late, two days more time
    assert carol["quiz_week01"].excused and not carol["quiz_week01"].dropped
    assert carol["quiz_week02"].dropped and graded["carol"].categories["quizzes"] == 100


def test_a_bank_that_must_cover_the_whole_delay(tmp_path, policy_file):
    """partial_bank = false: 2 days left, 3 days late -> all 3 penalised (60 off), the bank keeps its 2."""
    policy_file.write_text(policy_file.read_text().replace("partial_bank = true", "partial_bank = false"))
    policy = load_policy(policy_file)
    bob = {g.student_id: g for g in course_grades(read_scores(write_scores(tmp_path, class_rows()), policy), policy)}
    lab02 = bob["bob"].items["lab02"]
    assert (lab02.bank_used, lab02.penalty, lab02.score) == (0, 60, 35)
    assert bob["bob"].late_days_left == 2


def test_final_csv_reports_and_picture_from_the_command_line(tmp_path, policy_file):
    scores = write_scores(tmp_path, class_rows())
    out = tmp_path / "final.csv"
    assert cli.main(["course-grades", "--policy", str(policy_file), "--scores", str(scores), "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["student_id"] for r in rows] == ["alice", "bob", "carol", "dave"]
    bob = rows[1]
    assert (bob["total"], bob["letter"], bob["late_days_left"]) == ("83.75", "B", "0")
    assert (bob["lab02_score"], bob["lab02_late_days"], bob["lab02_penalty"], bob["lab02_dropped"]) == (
        "75.00",
        "3",
        "20.00",
        "true",
    )
    assert bob["homework_percent"] == "90.00" and rows[2]["quiz_week01_score"] == ""  # excused
    report = (tmp_path / "final_reports" / "bob.txt").read_text()
    assert "3 late day(s): 2 from the bank (0 left)" in report and "83.75 -> B" in report
    assert (tmp_path / "final.png").stat().st_size > 10_000


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (row("erin", "lab01", 120), "score 120 of erin on lab01 is outside 0..100"),
        (row("alice", "lab01", 50), "a second row for alice and lab01 (the first is line 2)"),
        (row("erin", "lab01", 50, "2026-09-21T20:00:00"), "has no time zone"),
        (row("erin", "lab01", 50).replace("homework", "quizzes"), "item lab01 is in category homework"),
        (row("erin", "lab01", 50, None), "has a score on lab01 but no submitted_at"),
    ],
)
def test_bad_rows_are_named(tmp_path, policy_file, bad, message):
    policy = load_policy(policy_file)
    with pytest.raises(ScoresError) as err:
        read_scores(write_scores(tmp_path, [*class_rows(), bad]), policy)
    assert "line 34" in str(err.value)
    if message:
        assert message in str(err.value)


def test_an_unknown_item_is_named_with_the_categories(tmp_path, policy_file):
    policy = load_policy(policy_file)
    bad = "alice,homework7,homework,5,10,2026-09-21T20:00:00-04:00,2026-09-21T23:59:00-04:00"
    with pytest.raises(ScoresError, match=r"line 34: unknown item 'homework7': no category .*homework: lab\*"):
        read_scores(write_scores(tmp_path, [*class_rows(), bad]), policy)


def test_every_problem_is_listed_at_once(tmp_path, policy_file):
    policy = load_policy(policy_file)
    rows = [*class_rows(), row("erin", "lab01", 120), row("erin", "lab02", 50, "yesterday")]
    with pytest.raises(ScoresError, match="2 problem"):
        read_scores(write_scores(tmp_path, rows), policy)


def test_a_policy_whose_weights_do_not_add_up_says_which(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(DEFAULT_POLICY.read_text().replace("weight = 15", "weight = 20"))
    with pytest.raises(PolicyError, match=r"add up to 105, not 100 .*categories\.quizzes\.weight = 20"):
        load_policy(path)


def test_a_typo_in_the_policy_is_an_error(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(DEFAULT_POLICY.read_text().replace("drop_lowest = 1", "drop_lowests = 1", 1))
    with pytest.raises(PolicyError, match=r"unknown key categories\.homework\.drop_lowests"):
        load_policy(path)


def test_exceptions_for_unknown_students_and_roster_students_without_rows(tmp_path, policy_file):
    policy_file.write_text(policy_file.read_text() + '\n[[excused]]\nstudent_id = "zoe"\nitem = "lab01"\n')
    with pytest.raises(ScoresError, match="policy excused item lab01 of zoe: no such student"):
        read_scores(write_scores(tmp_path, class_rows()), load_policy(policy_file))
    policy = load_policy(DEFAULT_POLICY)
    rows = read_scores(write_scores(tmp_path, [r for r in class_rows() if r.startswith("alice")]), policy)
    with pytest.raises(ScoresError, match="not on the roster: alice"):
        course_grades(rows, policy, roster=["frank"])
    grades = {g.student_id: g for g in course_grades(rows, policy, roster=["alice", "frank"])}
    assert grades["frank"].total == 0 and all(it.missing for it in grades["frank"].items.values())


def test_a_category_with_no_items_stops_unless_the_policy_says_how(tmp_path):
    policy = load_policy(DEFAULT_POLICY)
    rows = read_scores(write_scores(tmp_path, [r for r in class_rows() if ",attendance," not in r]), policy)
    with pytest.raises(ScoresError, match="no item of category attendance"):
        course_grades(rows, policy)
    path = tmp_path / "p.toml"
    path.write_text(DEFAULT_POLICY.read_text().replace('empty_category = "error"', 'empty_category = "renormalize"'))
    renorm = load_policy(path)
    alice = course_grades(
        read_scores(
            write_scores(tmp_path, [r for r in class_rows() if ",attendance," not in r and r.startswith("alice")]),
            renorm,
        ),
        renorm,
    )[0]
    # (50*85 + 30*85 + 15*90) / 95 = 8150 / 95 = 85.789... -> 85.79
    assert alice.total == 85.79


def test_a_students_own_due_date_in_the_scores_is_theirs(tmp_path, policy_file):
    """An LMS's per-student due date (Canvas's overrides): dave's lab01 is due 3 days later for him alone, so his
    3 days are on time and his bank keeps them; the item's column and everyone else keep the common due date.
    A policy extension counts from the common due date and wins over the row's own (carol's lab03)."""
    own = "2026-09-24T23:59:00-04:00"
    rows = [r.replace(DUE["lab01"], own) if r.startswith("dave,lab01,") else r for r in class_rows()]
    rows = [r.replace(DUE["lab03"], "2026-10-12T23:59:00-04:00") if r.startswith("carol,lab03,") else r for r in rows]
    policy = load_policy(policy_file)
    grades = {g.student_id: g for g in course_grades(read_scores(write_scores(tmp_path, rows), policy), policy)}
    dave, bob, carol = grades["dave"], grades["bob"], grades["carol"]
    assert dave.items["lab01"].late_days == 0 and dave.late_days_left == 3
    assert bob.items["lab01"].late_days == 4  # the common due date
    assert carol.items["lab03"].late_days == 0  # 2 days after the common due date: the policy's extension
