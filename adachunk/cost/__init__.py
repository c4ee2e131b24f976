"""Cut costs: what each candidate cut position costs under a profile's rules.

:mod:`.punishments` holds the shapes of a rule's cost across a region, :mod:`.lattice` sums
every rule into the integer cost array the solver reads (:mod:`.reference` is its readable twin).
"""
