"""The term around grading: hand-ins from an LMS, the course's grades, quizzes, the student distribution.

``lms`` (an LMS download and a roster turned into the class layout),
``policy`` (``course_policy.toml``), ``late_days``, ``course_grades``
(``course-grades``), ``grade_exports`` (Canvas, Brightspace, the plot),
``quiz_bank`` and ``quiz`` (``generate-quiz``, answer keys in ``quiz_keys/``),
``student_release`` (``make student-release``, from ``student_template/``).
"""
