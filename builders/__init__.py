"""Dataset builders, one module per perturbation family (mapped to ``robust_bench.builders``).

Each module registers its builder with :func:`robust_bench.data.registry.register_builder`; the
registry imports every module here. A new family is its builder here, its engine in
``robust_bench/perturb/``, its evaluation in ``robust_bench/evaluations/`` (metrics, report pairs) and a
suite task in ``benchmarks/``, at least four files (the README's "Families and their files").
"""
