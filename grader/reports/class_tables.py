"""The class report's machine-readable files: class-report.json and misconceptions.csv.

Both are written from the class summary (`grader.course.class_report.build`). The CSV has one row
per student × misconception; a cell that a spreadsheet would run as a formula (starting with =, +,
-, @, a tab or a carriage return) is written with a leading apostrophe, so that opening the file
never runs what a student's code put in a message.
"""

import csv
import io
import json

from grader.reports import safe_cell

CSV_COLUMNS = ["student", "misconception", "exercises", "failed_tests", "cause", "section"]


def misconceptions_csv(summary):
    """misconceptions.csv: a row per student × misconception of the summary's `by_student`."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(CSV_COLUMNS)
    for row in summary["by_student"]:
        writer.writerow([safe_cell(row[column]) for column in CSV_COLUMNS])
    return text.getvalue()


def summary_json(summary):
    """class-report.json: the summary as it is."""
    return json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
