"""Cython matching kernels (no rule logic here).

- :class:`coscore._fast.lcs.LcsScorer` -- OP: max LCS(k, s) / len(k)
- :class:`coscore._fast.jaccard.JaccardScorer` -- CS: character multiset Jaccard
- :class:`coscore._fast.substring.SubstringScanner` -- SM: ordered option walk

They work on the code points of Python ``str`` objects and release the GIL
in their loops.
"""
