"""nbgrader's steps as the course runs them: generate, validate, feedback, export, and the preprocessors it adds.

``nbgrader_app`` drives nbgrader (configuration, converter runs, the
gradebook); ``generate``, ``validate``, ``feedback`` and ``export`` are the
verbs; ``gradebook`` merges and reads points; ``kernels`` makes sure the
lab's Jupyter kernel exists; ``preprocessors``, ``edited_cells`` and
``scoring`` are the nbconvert preprocessors ``autograder/nbgrader_config.py`` adds.
"""
