"""The course file of a hub of several courses (``deploy/jupyterhub/courses.py``): what it holds, and a message
naming the line for each way it can be wrong. No root, no hub: tests/deploy/test_hub_courses.py runs one."""

from __future__ import annotations

import pytest

from deploy.jupyterhub import courses

GOOD = """\
# the hub's courses
[[course]]
id = "hpml"
instructors = ["root"]
graders = ["root", "root"]
students = []

[[course]]
id = "ml-2"
graders = ["root"]
students = ["root"]
"""


def _read(tmp_path, text, **options):
    path = tmp_path / "courses.toml"
    path.write_text(text)
    return courses.read_courses(path, **options)


def test_a_course_file_gives_each_course_its_people_and_grader_account(tmp_path):
    hpml, ml2 = _read(tmp_path, GOOD)
    assert (hpml.id, hpml.instructors, hpml.graders, hpml.students) == ("hpml", ("root",), ("root",), ())
    assert hpml.staff == ("root",) and hpml.grader_account == "grader-hpml"
    assert (ml2.instructors, ml2.graders, ml2.students, ml2.staff) == ((), ("root",), ("root",), ("root",))
    assert courses.everyone([hpml, ml2]) == ["root"]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('[[course]]\nid = "a"\ngraders = ["root"\n', 3, "not TOML"),
        (
            '[[course]]\nid = "a"\ngraders = ["root"]\n\n[[course]]\nid = "b"\ngraders = ["nobody-hpmlt-x"]\n',
            7,
            "grader 'nobody-hpmlt-x' of course 'b' is not a user of this machine (create it first: adduser",
        ),
        ('[[course]]\nid = "a"\ninstructors = ["root"]\nstudent = ["root"]\n', 4, "unknown key 'student'"),
        ('[[course]]\nid = "a b"\ngraders = ["root"]\n', 2, "course id 'a b'"),
        ('[[course]]\ngraders = ["root"]\n', 1, "course id None"),
        ('[[course]]\nid = "a"\ngraders = ["root"]\n[[course]]\nid = "a"\ngraders = ["root"]\n', 5, "given twice"),
        ('[[course]]\nid = "a"\ngraders = "root"\n', 3, "graders of course 'a': a list of user names"),
        ('[[course]]\nid = "a"\nstudents = ["root"]\n', 1, "no instructor and no grader"),
        ('title = "x"\n', 1, "unknown table or key 'title'"),
        ("# nothing yet\n", 1, "no [[course]] table"),
    ],
)
def test_a_malformed_course_file_or_an_unknown_user_is_named_with_its_line(tmp_path, text, line, says):
    with pytest.raises(courses.CourseFileError) as caught:
        _read(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'courses.toml'}") and says in message, message
    assert f"line {line}" in message, message


def test_users_need_not_exist_where_the_file_is_only_read(tmp_path):
    (course,) = _read(tmp_path, '[[course]]\nid = "a"\ngraders = ["nobody-hpmlt-x"]\n', users_must_exist=False)
    assert course.graders == ("nobody-hpmlt-x",)
