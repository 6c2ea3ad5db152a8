# shared pieces pasted into each attack file (each file is self-contained; this is the template)
