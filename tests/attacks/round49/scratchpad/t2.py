import sys
sys.path.insert(0, "/work/scratch20")
from grader.sandbox import reach
names = """_mask _scale _shape _reshape _linear _init _reset _heads _cat _split _tril _dim _size _pad _repeat _expand
_flatten _unflatten _project _attend _attention _scores _weights _normalize _max _min _sum _exp _log _div _t _T _grow
_capacity _len _length _pos _position _cache _k _v _keys _values _buffer _storage _data _ensure _validate _to _copy
_clone _device _dtype _type _is_causal _causal _apply _block _blocks _tile _chunk _chunks _online _running_max _lse
_broadcast _check_shapes _as_tensor _float _make_mask _build_mask _neg_inf _NEG_INF _EPS _eps _finfo _contiguous
_transpose _swap _rearrange _merge _group _groups _n_rep _num_heads _head_dim _d_k _scale_factor _init_weights
_reset_parameters _forward _step _prev _prev_token _induction _layer _layers _embed _unembed _cost _flops _count
_offset _start _end _fill _filled _full _used _seen _next _ptr _index _idx _q _queries _kv _kv_cache _past _mem
_memory _max_len _max_length _allocate _alloc _resize _append _update _get _set _view _views _out _output _state
_w _b _wq _wk _wv _wo _W_Q _W_K _W_V _W_O _parameters _buffers _modules _name _names _scores_mask _logits _probs
_attn _attn_weights _rows _cols _tol _atol _rtol _dtype_min _min_value _big _huge _sqrt _rsqrt _inv_sqrt _debug
_verbose _log_level _logger _seed _rng _generator _gen _matmul _bmm _einsum _softmax_rows _safe_softmax _stable
_masked_fill _where _zeros _ones _empty _arange _range _positions _streams _tensor _tensors _batch _batched""".split()
src = "import torch\nimport math\nimport torch.nn as nn\nimport torch.nn.functional as F\nclass C:\n" + "".join(
    f"    def {n}(self):\n        return self.{n}x\n" for n in names) + "    def f(self):\n" + "".join(f"        self.{n}()\n" for n in names)
r = reach.reaches(src)
print([x.names for x in r])
