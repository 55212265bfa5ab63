"""Experiments over model adapters: probes, probing runs, baselines and reports."""
