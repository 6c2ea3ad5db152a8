"""Report writers: one module per format (text, html, json_report, gradescope, junit; formats.py
lists those --format offers, class_page.py the class report), each reading the verdict or a saved
report checked by schema.py."""
