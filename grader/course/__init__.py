"""Instructor and course tools: the release, the notebooks, the kit's self-check, batch grading of a class,
its records and gradebook, the Gradescope bundle and `watch`."""
