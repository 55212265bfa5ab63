"""One perturbation engine per family (Jabberwocky, grammatical errors, LIT contrast sets)."""
