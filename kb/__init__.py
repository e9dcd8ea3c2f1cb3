"""triage-kb: a knowledge base of large-model training failures, and a matcher that diagnoses tracebacks."""

__version__ = "0.1.0"
