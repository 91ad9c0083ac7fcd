"""Grading a class: every student in a worker process of their own, on this machine or as a Slurm array job.

``autograde`` (the verb: ``autograde_class``, ``grade_one``) finds the
submissions (``submissions``), skips unchanged ones (``versions``), starts and
kills workers (``scheduler``; ``slurm`` and ``slurm_task`` for Slurm), each
``worker`` grading one student with the ``execute`` preprocessor; ``job`` is
the files a worker and the batch exchange, ``classify`` turns an outcome into
a status; ``bench_grading`` times it all against plain nbgrader.
"""
