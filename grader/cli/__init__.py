"""The command line: `lumen-grade`, its options and commands. It turns the lower layers' own errors into Click's."""

import sys


def lumen_grade():
    """The console script. The command line is loaded here, not on import, so that Ctrl-C while it loads
    (a second or so of imports) exits as it does later, "Aborted!" and 130, not with a traceback."""
    try:
        from grader.cli.main import main
    except KeyboardInterrupt:
        print("Aborted!", file=sys.stderr)
        raise SystemExit(130) from None
    main()
