"""The analysis: the kept units read by libcst, their scopes and values, and the detector's leak sites.

`analyse.py` is the entry; it imports libcst, so it is imported only when the prefilter keeps
something. `sites.py` (the kinds of site the rules declare) imports no parser.
"""
