"""`epochlint audit`: the check pipeline as a Spark job over many analysis units.

Only `epochlint.audit.job` (and the modules it alone imports) touch PySpark; everything else here is
plain Python, so `check` and the command-line parser never load it.
"""
