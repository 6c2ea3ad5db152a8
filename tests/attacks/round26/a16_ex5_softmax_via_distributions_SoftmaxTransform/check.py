# evidence: the submission's softmax is torch's own softmax code (torch.distributions.transforms.SoftmaxTransform._call:
# exp(x - max) / sum), a torch class whose name contains "Softmax", which the stub puts off limits ("every torch function
# whose name contains 'softmax' (..., nn.Softmax, ...)"); values equal torch.softmax's in float64.
import importlib.util, inspect, torch
from torch.distributions.transforms import SoftmaxTransform
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise5_softmax.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(inspect.getsource(SoftmaxTransform._call))
x = torch.randn(3, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 3
x[0, 1] = float("-inf")
for dim in (0, 1, -1):
    print(f"dim={dim}: max |submission - torch.softmax| = {(m.softmax(x, dim).nan_to_num() - torch.softmax(x, dim).nan_to_num()).abs().max().item():.1e}")
