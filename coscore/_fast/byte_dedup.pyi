"""Deduplication of byte strings and dictionary codes in C for the Arrow reader (compiled
only; its functions are cimported by ``arrow``, not called from Python)."""
