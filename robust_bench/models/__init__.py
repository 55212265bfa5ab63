"""The model layer: one loader and one adapter per task (classifier, tagger, encoder, causal LM)."""
