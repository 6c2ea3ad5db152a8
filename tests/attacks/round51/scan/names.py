import sys
sys.path.insert(0, "/work/scratch20")
from grader.sandbox.reach import reaches
names = """_split_heads _merge_heads _shape _reshape _mask _causal_mask _attention _attn _project _proj _heads _scale
_dtype _device _len _length _pos _position _keys _values _k _v _cache _storage _max_len _size _ensure_fits _validate
_check_shapes _repeat_kv _apply_mask _rotate _buffer _tensor _linear _dropout _logger _log _EPS _NEG_INF _init_weights
_reset_parameters _forward _impl _compute _scores _weights _softmax_rows _normalize _count _n _t _end _start _offset
_full _capacity _store _cached _step _data _key_cache _value_cache _ks _vs _seq_len _num_tokens _filled _used
_head_dim _d_head _n_heads _n_rep _groups _kv_heads _flatten _unflatten _transpose _expand _make_mask _build_mask
_tril _triu _neg_inf _minus_inf _zero _ones _eye _arange _range _index _indices _slice _view _contiguous _clone _copy
_detach _grad _requires_grad _backward _hooks _modules _parameters _buffers _name _names _state _config _cfg _args
_kwargs _opts _options _debug _verbose _timer _time _profile _trace _stats _info _repr _str _fmt _format _parse
_lock _thread _queue _pool _registry _REGISTRY _cache_size _lru _memo _seen _visited _queries _q _o _out _output
_result _results _y _x _inputs _input _outputs _prepare _setup _init _build _make _create _get _set _update _append
_write _read _load _save _dump _compile _jit _script _trace_fn _run _call _apply _map _reduce _sum _mean _max _min
_exp _log_softmax _logsumexp _stable_softmax _safe_softmax _masked_softmax _online_softmax _tile _tiles _block _blocks
_chunk _chunks _split _cat _concat _pad _unpad _dtype_of _as_float _to _cast _float _half _is_causal _causal _bias
_weight _w _b _W _q_proj _k_proj _v_proj _o_proj _proj_q _qkv _fused _wqkv _weights_cat _packed _pattern _patterns""".split()
bad = []
for n in names:
    for tpl in ("import torch\nclass C:\n    def __init__(self):\n        self.{n} = 1\n    def f(self):\n        return self.{n}\n",
                "import torch\nclass C:\n    def {n}(self):\n        return 1\n    def f(self):\n        return self.{n}()\n",
                "import torch\n{n} = 1\ndef f():\n    return {n}\n"):
        r = reaches(tpl.format(n=n))
        if r:
            bad.append((n, tpl.split("\n")[3].strip()[:20], r))
for b in bad: print(b)
