"""`lumen-grade`: Click commands only. Parse, call the runner, print the report, set the exit code.

Exit codes: 0 every selected exercise passed, 1 something failed, 2 a usage error.
"""

from pathlib import Path

import click

from grader import catalog, report

EXERCISE_NAMES = ", ".join(exercise.id for exercise in catalog.EXERCISES)


def grading_options(command):
    """The options every grading command shares."""
    options = [
        click.option("--submission", type=click.Path(path_type=Path), default=Path("exercises"),
                     show_default=True, help="Folder holding your exercise files."),
        click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                     show_default=True, help="Report for a person (text) or a machine (json)."),
        click.option("--output", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write the report to this file instead of the terminal."),
        click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto",
                     show_default=True, help="auto: the CPU, plus CUDA when a GPU is present."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the random test inputs; the same seed gives the same inputs."),
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0,
                     show_default=True, help="Seconds your code may run, per exercise."),
        click.option("--suites", type=click.Path(exists=True, file_okay=False, path_type=Path),
                     multiple=True, help="A folder of extra test_exerciseN*.py suites (repeatable)."),
        click.option("--no-builtin-suites", is_flag=True,
                     help="Run only the --suites folders, not the built-in hidden suites."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def run_grading(exercises, submission, fmt, output, device, seed, timeout, suites, no_builtin_suites):
    """Grade, print or write the report, and exit with the verdict's code."""
    if not submission.is_dir():
        raise click.UsageError(
            f"no folder {submission} (looked in {submission.resolve()}): run from the folder that "
            "holds exercises/, or pass --submission DIR"
        )
    if no_builtin_suites and not suites:
        raise click.UsageError("--no-builtin-suites needs at least one --suites DIR")
    missing = [e for e in exercises if not (submission / e.file_name).is_file()]
    if missing and len(missing) == len(exercises):
        names = ", ".join(e.file_name for e in missing)
        raise click.UsageError(f"no {names} in {submission.resolve()}: pass --submission DIR with your files")
    from grader import runner  # imports torch: not needed for --help, list or a usage error

    options = runner.Options(submission=submission, device=device, seed=seed, time_limit=timeout,
                             suites=list(suites), builtin_suites=not no_builtin_suites)
    try:
        verdict = runner.grade(exercises, options)
    except runner.DeviceUnavailable as error:
        raise click.UsageError(str(error)) from None
    if output is None:
        text = report.render_text(verdict, color=True) if fmt == "text" else report.render_json(verdict)
        click.echo(text, nl=False)
    else:
        output.write_text(report.RENDERERS[fmt](verdict), encoding="utf-8")
        click.echo(f"{_points(verdict)}: wrote the {fmt} report to {output}")
    click.get_current_context().exit(0 if verdict.passed else 1)


def _points(verdict):
    return f"{verdict.score:g}/{verdict.max_score:g}"


class LumenGrade(click.Group):
    """A group whose commands include one per exercise: `exercise3`, or just `3`."""

    def list_commands(self, ctx):
        return [*super().list_commands(ctx), *(exercise.id for exercise in catalog.EXERCISES)]

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        try:
            exercise = catalog.find(name)
        except catalog.UnknownExercise:
            return None
        return _exercise_command(exercise)

    def resolve_command(self, ctx, args):
        if args and self.get_command(ctx, args[0]) is None and not args[0].startswith("-"):
            raise click.UsageError(
                f"unknown exercise or command {args[0]!r}. Exercises: {EXERCISE_NAMES} "
                "(or just 1–8); commands: all, list", ctx)
        return super().resolve_command(ctx, args)


def _exercise_command(exercise):
    @click.command(name=exercise.id, help=f"Grade {exercise.id}: {exercise.title} ({exercise.file_name}).")
    @grading_options
    def grade_one(**options):
        run_grading([exercise], **options)

    return grade_one


@click.group(cls=LumenGrade, context_settings={"help_option_names": ["-h", "--help"]})
def main():
    """Grade your Lumen attention exercises.

    \b
    lumen-grade exercise3            grade one exercise (also: lumen-grade 3)
    lumen-grade all                  grade all eight
    lumen-grade list                 the exercises and their files
    lumen-grade exercise3 --help     the options (--submission, --format json, ...)
    """


@main.command(name="all")
@grading_options
def grade_all(**options):
    """Grade all eight exercises."""
    run_grading(list(catalog.EXERCISES), **options)


@main.command(name="list")
@click.option("--submission", type=click.Path(path_type=Path), default=Path("exercises"), show_default=True,
              help="Folder to look for the exercise files in.")
def list_exercises(submission):
    """The exercises, their files, and the chapter section each one practises."""
    for exercise in catalog.EXERCISES:
        found = "found" if (submission / exercise.file_name).is_file() else "missing"
        click.echo(f"{exercise.id:<10} {exercise.file_name:<24} {found:<8} {exercise.title}  "
                   f"(chapter: {exercise.section})")
