"""Exercise 10: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Size, Tensor

EXAMPLES = {
    "attention_cost": Function({"L": Size("L"), "d_model": Size("d_model")}),
    "crossover_length": Function({"d_model": Size("d_model")}),
    "online_softmax": Function({"x": Tensor((BATCH, "rows", "L_k")), "block_size": Size("block")}, picture="weights"),
    "tiled_attention": Function({"q": Tensor((BATCH, "L_q", "d_k")), "k": Tensor((BATCH, "L_k", "d_k")),
                                 "v": Tensor((BATCH, "L_k", "d_v")), "block_size": Size("block"), "causal": None}),
}
