"""Diagnosis: what a failure shows. The stepwise reference and its misconceptions (the mutants), the matcher that
weighs an exercise's failures against them, and the generic analysers of a wrong value's structure."""
