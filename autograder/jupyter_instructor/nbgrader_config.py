# The Formgrader of `make formgrader` reads the course's nbgrader configuration (autograder/nbgrader_config.py):
# the same course root, gradebook and grading folder as `python -m autograder`.
import os

load_subconfig(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "nbgrader_config.py"))  # noqa: F821
