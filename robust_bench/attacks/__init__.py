"""Attacks on model adapters: the greedy, beam and genetic searches (``search``) and the
grammatical-error attack that drives them (``gec``, Yin et al., 2020), and the parser attack of the
adversarial treebanks (``treebanks``, Wang et al., 2021)."""
