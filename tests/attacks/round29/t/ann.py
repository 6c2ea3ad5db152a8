import torch
def f(x: ("__import__('gc').get_objects()" + "")) -> torch.Tensor:
    return x
print(torch.library.infer_schema(f, mutates_args=()))
