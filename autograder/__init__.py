"""HPML instructor pipeline on top of nbgrader: generate, validate, autograde a class, feedback, export, the term.

Command line: ``python -m autograder --help`` (or ``hpml-grade``). The package
imports nothing itself, so ``import autograder.limits`` stays light (no
nbgrader); import what you use from where it lives:

- the course, as every part reads it (no nbgrader): ``paths`` (where the
  course and the grading folder are), ``labs`` (a lab's notebooks and graded
  cells), ``lab_settings`` (``Lab``: a lab folder's ``lab.toml`` and
  ``mutants.toml``), ``domains`` (argument domains of graded functions),
  ``limits`` (a grading kernel's limits), ``records`` (statuses and results);
  ``nbgrader_config.py`` is nbgrader's configuration file;
- ``pipeline``: nbgrader's steps and what the course adds to them:
  ``generate``, ``validate``, ``feedback``, ``export``, ``gradebook``,
  ``nbgrader_app``, ``kernels``, and the preprocessors (``preprocessors``,
  ``edited_cells``, ``scoring``);
- ``grading``: a class graded, one worker per student: ``autograde``
  (``autograde_class``, ``grade_one``), ``submissions``, ``versions``,
  ``scheduler``, ``worker``, ``execute``, ``job``, ``classify``, ``slurm`` and
  ``slurm_task``, ``bench_grading``;
- ``isolation``: the student's kernel kept in its place: ``sandbox``,
  ``kernel_launcher``, ``processes``, ``reply_channel``, ``tamper`` and
  ``kernel_guard`` (the code that runs inside the student's kernel);
- ``classroom``: the term around grading: LMS hand-ins (``lms``), the course's
  grades (``policy``, ``late_days``, ``course_grades``, ``grade_exports``),
  quizzes (``quiz_bank``, ``quiz``, ``quiz_keys/``), the student distribution
  (``student_release``);
- ``cli``: the command line; ``sample_class``: the synthetic class of the demo and the tests.
"""
