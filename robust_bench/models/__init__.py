"""The model layer: one resolver for every model spec (:mod:`~robust_bench.models.resolve`), one loader
(:mod:`~robust_bench.models.loader`), and one adapter per interface: sequence classifier, token
classifier, encoder, dependency parser, coreference predictor, causal LM; and the tiny models tests
and demos train."""
