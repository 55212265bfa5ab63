"""Adversarial searches and the runners that drive them against model adapters."""
