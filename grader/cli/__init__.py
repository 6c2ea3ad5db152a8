"""The command line: `lumen-grade`, its options and commands. It turns the lower layers' own errors into Click's."""
