"""Finding the student's code for an exercise in the folder they point the grader at."""

from pathlib import Path


def find_file(exercise, folder):
    """The exercise's file in `folder`, or None when it is not there."""
    path = Path(folder) / exercise.file_name
    return path if path.is_file() else None
