"""Tools for profile authors to test their policy, shipped with the package.

* :mod:`.casefiles`: YAML case files — a detector and the spans it must find, or a rule pack /
  profile and the cost its rules put on marked cuts (``adachunk test``).
* :mod:`.rulecases`: the rule half of the case files (texts with ``¦`` marks → expected costs).
* :mod:`.golden`: golden chunk snapshots — write, compare and diff a profile's chunks of a
  document, so that a profile change shows exactly which boundaries moved.
"""
