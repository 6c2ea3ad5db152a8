"""One settings object holds each default: every command-line option named after a field of
grader.grading.settings.Settings defaults to that field's value in DEFAULTS, so the CLI never keeps
a second copy (the layers below take theirs as a parameter, or read DEFAULTS)."""

import dataclasses
import enum

import click

from grader.cli.main import main
from grader.grading.settings import DEFAULTS, Settings

FIELDS = {field.name for field in dataclasses.fields(Settings)}


def test_every_option_named_after_a_setting_defaults_to_it():
    checked = set()
    commands = [*main.commands.values(), main.get_command(click.Context(main), "exercise3")]
    for command in commands:
        context = click.Context(command)
        for param in command.params:
            if param.name in FIELDS and not param.multiple:
                default = param.get_default(context)
                if isinstance(default, enum.Enum):  # Click's UNSET: the option has no default
                    default = None
                if default is not None:
                    default = param.type_cast_value(context, default)
                assert default == getattr(DEFAULTS, param.name), (command.name, param.name, default)
                checked.add(param.name)
    assert {"submission", "device", "seed", "time_limit", "memory_limit", "perf", "perf_points",
            "watch_interval"} <= checked, checked


def test_watch_polls_at_its_settings_interval(monkeypatch):
    from grader.course import watch

    waits = []
    monkeypatch.setattr(watch.time, "sleep", waits.append)
    monkeypatch.setattr(watch, "snapshot", lambda exercises, options: {})
    watcher = object.__new__(watch.Watcher)  # no launcher: grading is not what is looked at here
    watcher.exercises, watcher.options = [], Settings(watch_interval=0.7)
    watcher.grade = lambda exercises: None
    watcher.changed = lambda seen: (["a save"], seen)
    watcher.run(rounds=2)
    assert waits == [0.7, 0.7]
