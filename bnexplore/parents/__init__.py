"""Candidate parent sets: the shared structure, pruning rules and explorers."""

from .candidates import ParentSets
from .pruning import candidate_parent_sets

__all__ = ["ParentSets", "candidate_parent_sets"]
