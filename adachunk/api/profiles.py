"""Profile tooling and the case files profile authors test with (``adachunk profile``, ``adachunk test``)."""

from __future__ import annotations

from ..datafiles import data_dir
from ..profile.tooling import annotated_yaml, diff_profiles, display_file, json_schema, origins
from ..testing.casefiles import is_case_file, load_case_file, run_suite

__all__ = ["annotated_yaml", "data_dir", "diff_profiles", "display_file", "is_case_file", "json_schema", "load_case_file", "origins", "run_suite"]
