"""Experiments over model adapters: probe models and their training (``probes``), the Jabberwocky
probing run (``jabberwocky``), the Path and Majority tree baselines (``baselines``), and blind
validity audits of any built config (``audit``)."""
