import ast
from IPython.core.inputtransformer2 import TransformerManager
from grader.grading.submission import python_source
tm = TransformerManager()
cells = {
 "autocall_semicolon": ";help scale_scores\n",
 "autocall_slash": "/print 1\n",
 "autocall_comma": ",print a b\n",
 "help_call": "scale_scores?\n",
 "help_paren": "torch.nn.functional.softmax??\n",
 "help_wild": "torch.*max*?\n",
 "help_after_code_paren": "x = 1\nprint?  \n",
 "help_pinfo_psearch": "%psearch torch.*max*\n",
 "magic_indented_block": "for i in range(2):\n    %time x = i\n",
 "cellmagic_indented": "  %%time\ndef f(): return 1\n",
 "cellmagic_after_blank": "\n\n%%time\ndef f(): return 1\n",
 "cellmagic_after_comment": "# hi\n%%time\ndef f(): return 1\n",
 "assign_magic_attr": "a.b = %time 1\n",
 "assign_magic_tuple": "a, b = %time 1\n",
 "assign_shell_typed": "x: int = !ls\n",
 "double_bang": "!!ls\n",
 "system_in_paren_cont": "x = (1 +\n%d)\n",
 "escaped_quote_raw": "s = r'\\'\n%time 1\n",
 "line_cont_comment": "x = 1 # \\\n%time 1\n",
 "fstring_nested": "x = f\"{'%'}\"\n%time 1\n",
 "help_trailing_comment": "scale_scores? # look\n",
 "help_dunder": "scale_scores.__doc__?\n",
 "help_call_subscript": "a[0]?\n",
 "magic_after_decorator": "@torch.no_grad()\n%time\ndef f(): pass\n",
 "cellmagic_timeit_defs": "%%timeit\ndef g(): return 1\n",
 "cellmagic_capture_args": "%%capture out --no-stderr\ndef g(): return 1\n",
 "cellmagic_time_trailing": "%%time \ndef g(): return 1\n",
 "tab_indent_magic": "if 1:\n\t%time 1\n",
 "magic_in_triple_string": "s = '''\n%time\n'''\n",
 "bang_not_eq": "x = 1\n!= 2\n",
 "unicode_space_magic": "\u00a0%time 1\n",
 "formfeed_magic": "\x0c%time 1\n",
 "cr_line": "x = 1\r%time 1\n",
 "help_question_in_string_cont": "s = ('a'\n'b')?\n",
 "obj_help_with_spaces": "  scale_scores ?\n",
}
for name, cell in cells.items():
    try:
        ip = tm.transform_cell(cell)
        ipok = True
        try: ast.parse(ip)
        except SyntaxError as e: ipok = f"IPY-SYNTAX({e.msg})"
    except Exception as e:
        ip, ipok = None, f"IPY-ERR {type(e).__name__}"
    g = python_source(cell)
    if g is None: gok = "SKIPPED"
    else:
        try: ast.parse(g); gok = True
        except SyntaxError as e: gok = f"GRADER-SYNTAX({e.msg})"
    print(f"{name:32} ipython={ipok!s:20} grader={gok!s:28} ip={ip!r:.70} | g={g!r:.60}")
