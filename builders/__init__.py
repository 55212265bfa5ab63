"""Dataset builders, one module per perturbation family (mapped to ``robust_bench.builders``).

Each module registers its builder with :func:`robust_bench.data.registry.register_builder`; the
registry imports every module here, so a new family is one new file.
"""
