# exercise 5's softmax with the shift clamped at -1e4 (instead of masking only -inf maxima): full points, but a row
# whose scores are all below about -1e4 comes out as zeros instead of a softmax
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
x = torch.tensor([[-20000.0, -20001.0, -20003.0], [1.0, 2.0, 3.0]], dtype=torch.float64)
print("softmax:", m.softmax(x).tolist(), " torch:", torch.softmax(x, -1).tolist())
