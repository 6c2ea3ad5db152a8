# local survey (not a grading): which ways of summing/multiplying x's values the probe counts
import torch, torch.nn.functional as F
from grader.perf import probe
torch.manual_seed(0)
x = torch.randn(6, 8); w = torch.randn(8, 5); v = torch.randn(8)
routes = {
  "matmul": lambda: x @ w,
  "embedding_bag": lambda: F.embedding_bag(torch.arange(8).expand(6, 8), w, per_sample_weights=x, mode="sum"),
  "cdist": lambda: torch.cdist(x, w.T),
  "index_add": lambda: torch.zeros(1, 8).index_add(0, torch.zeros(6, dtype=torch.long), x),
  "scatter_add": lambda: torch.zeros(6, 1).scatter_add(1, torch.zeros(6, 8, dtype=torch.long), x),
  "scatter_reduce_amax": lambda: torch.full((6, 1), -1e9).scatter_reduce(1, torch.zeros(6, 8, dtype=torch.long), x, "amax"),
  "index_reduce_amax": lambda: torch.full((1, 8), -1e9).index_reduce(0, torch.zeros(6, dtype=torch.long), x, "amax"),
  "nll_loss_sum": lambda: F.nll_loss(x.T.reshape(-1, 1), torch.zeros(48, dtype=torch.long), reduction="sum"),
  "mse_loss_sum": lambda: F.mse_loss(x, torch.zeros_like(x), reduction="sum"),
  "l1_loss_sum": lambda: F.l1_loss(x, torch.zeros_like(x), reduction="sum"),
  "trace": lambda: torch.trace(x[:, :6]),
  "dist": lambda: torch.dist(x, torch.zeros_like(x), p=1),
  "avg_pool1d": lambda: F.avg_pool1d(x[:, None], 8),
  "max_pool1d": lambda: F.max_pool1d(x[:, None], 8),
  "adaptive_max_pool1d": lambda: F.adaptive_max_pool1d(x[:, None], 1),
  "lp_pool1d": lambda: F.lp_pool1d(x[:, None], 1.0, 8),
  "fft_rfft": lambda: torch.fft.rfft(x, dim=-1),
  "logcumsumexp": lambda: torch.logcumsumexp(x, -1),
  "cumsum": lambda: torch.cumsum(x, -1),
  "linalg_solve": lambda: torch.linalg.solve(torch.eye(8) + 0.01 * x.T @ x, w),
  "segment_reduce": lambda: torch.segment_reduce(x.reshape(-1), "sum", lengths=torch.full((6,), 8)),
  "histc": lambda: torch.histc(x, bins=4),
  "normalize": lambda: F.normalize(x, dim=-1),
  "renorm": lambda: torch.renorm(x, 2, 0, 1.0),
  "nuclear_norm": lambda: torch.linalg.matrix_norm(x, "fro"),
  "cosine_similarity": lambda: F.cosine_similarity(x, x, dim=-1),
  "pdist": lambda: F.pdist(x),
  "unique": lambda: torch.unique(x, dim=None),
  "interpolate_area": lambda: F.interpolate(x[:, None], size=1, mode="area"),
  "grid_sample": lambda: F.grid_sample(x[None, None], torch.zeros(1, 1, 1, 2)),
  "ctc/nan": lambda: torch.nan_to_num(x).sum(-1),
  "sparse_mm": lambda: torch.sparse.mm(x.to_sparse(), w),
  "gru_cell": lambda: torch.gru_cell(x, torch.zeros(6, 5), w.T.repeat(3, 1), torch.zeros(15, 5)),
  "rnn_tanh_cell": lambda: torch.rnn_tanh_cell(x, torch.zeros(6, 5), w.T, torch.zeros(5, 5)),
  "layer_norm": lambda: F.layer_norm(x, (8,)),
  "multi_head_attention": lambda: F.scaled_dot_product_attention(x[None], x[None], x[None]),
}
for name, f in routes.items():
    try:
        m = probe.measure(lambda x_: f(), (x,))
        print(f"{name:22s} products={m['products']} every={m['every_product']} red={m['reductions']} widest={m['widest']} ops={m['ops']} disabled={m['disabled']}")
    except Exception as e:
        print(f"{name:22s} ERR {type(e).__name__}: {str(e)[:80]}")
