"""Builder base class, registry, dataset repository and citations."""
