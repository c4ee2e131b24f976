"""Profiles: YAML policies loaded (``loader``), validated (``schema``) and resolved into a policy (``resolve``)."""
