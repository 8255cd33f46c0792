"""Candidate parent sets: the shared structure, pruning rules, explorers and ``.jkl`` score caches."""

from .candidates import ParentSets
from .jkl import read_jkl, write_jkl
from .pruning import candidate_parent_sets

__all__ = ["ParentSets", "candidate_parent_sets", "read_jkl", "write_jkl"]
