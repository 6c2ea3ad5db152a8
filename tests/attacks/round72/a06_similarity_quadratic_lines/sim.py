import time, random, sys, io
sys.path.insert(0, '/work/scratch20')
from grader.course import similarity
from copydetect import compare_files
N = int(sys.argv[1])
def make(tag):
    rnd = random.Random(tag)
    lines = []
    for i in range(N):
        lines.append(f"s{i} = f{i}(g{i}(h{i}({i}), 'k{i}'), [{i}, 'a{i}', 'b{i}', 'c{i}', 'd{i}', 'e{i}'])")
        lines.append("del q, r, s, t" if tag == 1 else "assert not q or r is s")
    return "\n".join(lines) + "\n"
a, b = make(1), make(2)
t = time.time()
fa, fb = similarity._fingerprint(a, []), similarity._fingerprint(b, [])
tokens, sim, slices = compare_files(fa, fb)
print("lines", a.count("\n"), "bytes", len(a), "tokens", tokens, "slices", len(slices[0][0]), "fp+compare", round(time.time()-t,1))
class Who:
    def scrub(self, t): return t
t = time.time(); similarity._lines(a, slices[0], Who()); print("_lines", round(time.time()-t,1))
