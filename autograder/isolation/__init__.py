"""The student's kernel kept in its place: a scratch folder, limits, bubblewrap, tamper guards.

``sandbox`` (the kernel manager and what isolation holds), ``kernel_launcher``
(the standard-library-only program that applies the limits and starts
bubblewrap), ``processes`` (finding and killing what a grading started),
``reply_channel`` (a kernel client that never sleeps through a reply),
``tamper`` (guard cells and the audit) and ``kernel_guard`` (its side that
runs inside the student's kernel).
"""
