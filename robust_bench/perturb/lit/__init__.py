"""LIT contrast sets (Li et al., 2020): the UD backend, the ERG backend, pair transformations and label rules."""
