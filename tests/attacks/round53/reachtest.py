import sys
from grader.sandbox import reach
src = open(sys.argv[1]).read()
for r in reach.reaches(src): print(r)
print("done")
