"""Report writers: one module per format (text, HTML), each reading the verdict or a saved report."""
