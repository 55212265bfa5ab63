"""Builder base class, registry (by discovery), dataset repository (built and derived configs, locked and journalled), citations and the Hub push."""
