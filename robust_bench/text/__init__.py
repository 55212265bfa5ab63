"""Language utilities shared by the families: spaCy loading, inflection, pseudowords, trees."""
