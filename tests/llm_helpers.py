"""Kept for tests that import it: the scripted backend now lives in pluralign.llm.scripted."""

from pluralign.llm.scripted import ScriptedBackend

__all__ = ["ScriptedBackend"]
