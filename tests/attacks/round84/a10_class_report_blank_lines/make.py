# writes DIR/class: 3 honest students and Mallory, whose exercise3 (scores unscaled: "missing-scale") ends in ~2M blank
# lines (under the 2 MiB source limit); bob shows the same mistake in a small file
import os, sys
d = sys.argv[1]
sol = open('/work/scratch22/solutions/exercise3_scaling.py').read()
bad = sol.replace("    return scores / math.sqrt(d_k)", "    return scores")
for who, text in (("alice", sol), ("bob", bad), ("carol", sol), ("mallory", bad + "\n" * (2_000_000 - len(bad) - 10))):
    os.makedirs(f"{d}/class/{who}", exist_ok=True)
    open(f"{d}/class/{who}/exercise3_scaling.py", "w").write(text)
print(os.path.getsize(f"{d}/class/mallory/exercise3_scaling.py"), "bytes")
