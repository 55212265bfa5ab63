"""Builder base class, registry, dataset repository (with the adversarial configs that attacks read and write) and citations."""
