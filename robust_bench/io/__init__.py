"""Readers and writers of source formats, source resolution and atomic files: the first step of the data flow."""
