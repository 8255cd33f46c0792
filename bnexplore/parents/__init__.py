"""Candidate parent sets: the shared structure, pruning rules, explorers and score caches (``.jkl``, ``.pss``)."""

from .candidates import ParentSets
from .jkl import read_jkl, write_jkl
from .pruning import candidate_parent_sets
from .pss import read_pss, write_pss

__all__ = ["ParentSets", "candidate_parent_sets", "read_jkl", "read_pss", "write_jkl", "write_pss"]
