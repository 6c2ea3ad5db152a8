# runs lumen-grade in this process and prints this process's (the judge's) peak RSS at exit
import atexit, resource, sys
atexit.register(lambda: print(f"JUDGE peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB", file=sys.stderr))
sys.argv[0] = "lumen-grade"
from grader.cli.main import main
sys.exit(main())
