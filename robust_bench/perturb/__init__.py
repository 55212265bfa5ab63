"""One perturbation engine per family, and the validity checks they share.

* ``gec`` (with ``confusions``, learner confusion sets fitted from M2): grammatical
  errors, Yin et al. (2020);
* ``names`` (with ``organisations``, the company and institution lists): named-entity swaps,
  Balasubramanian et al. (2020);
* ``treebanks``: the generators and filters of the parser attack behind the adversarial
  treebanks, Wang et al. (2021) (its searches are in :mod:`robust_bench.attacks`);
* ``lit/``: LIT contrast sets, Li et al. (2020), on a UD parse (``ud``) or the ERG (``erg``), with
  the label rules (``rules``, ``pairs``);
* ``jabberwocky``: pseudowords that keep the gold trees, Hall Maudslay & Cotterell (2021);
* ``checks``: the build-time validity checks every family uses (``../shared/VALIDITY.md``).
"""
