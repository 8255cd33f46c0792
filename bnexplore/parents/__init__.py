"""Candidate parent sets: the shared structure, pruning rules and explorers."""

from .candidates import ParentSets

__all__ = ["ParentSets"]
