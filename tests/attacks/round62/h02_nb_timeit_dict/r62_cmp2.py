import ast
from IPython.core.inputtransformer2 import TransformerManager
from grader.grading.submission import python_source
tm = TransformerManager()
G = 'if __name__ == "__main__":\n'
cells = {
 "guard_semicolon": G + "    ;help scale_scores\n",
 "guard_slash": G + "    /help scale_scores\n",
 "guard_tuple_assign": G + "    out, = !ls\n",
 "guard_sub_assign": G + "    d['t'] = %timeit -o scale_scores(1, 4)\n",
 "guard_ann_assign": G + "    t: object = %timeit -o scale_scores(1, 4)\n",
 "guard_attr_call_help": G + "    scale_scores(1,4)?\n",
 "guard_pinfo_call": G + "    torch.Tensor.view?\n",
 "guard_help_space": G + "    ? scale_scores\n",
 "guard_help_sp2": G + "    scale_scores ??\n",
 "top_help_alone_percent": "%time?\n",
 "guard_magic_aug": G + "    x += !ls\n",
 "guard_ansi": G + "    x = !ls | wc\n",
 "guard_magic_star": G + "    a, *b = !ls\n",
 "guard_cell_bang_bang": G + "    !!ls\n",
}
for name, cell in cells.items():
    try:
        ip = tm.transform_cell(cell)
        try: ast.parse(ip); ipok = True
        except SyntaxError as e: ipok = f"IPY-SYNTAX({e.msg})"
    except Exception as e:
        ip, ipok = None, f"IPY-ERR {type(e).__name__}"
    g = python_source(cell)
    try: ast.parse(g); gok = True
    except SyntaxError as e: gok = f"GRADER-SYNTAX({e.msg})"
    print(f"{name:24} ipython={ipok!s:10} grader={gok!s:28} ip={ip[len(G):]!r:.80}")
