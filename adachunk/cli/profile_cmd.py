"""``adachunk profile check|show|fingerprint|diff|schema``."""

from __future__ import annotations

import json
import sys

from ..errors import ProfileErrors
from .common import output_to, print_error


def add_parsers(sub) -> list[str]:
    """Register ``profile check|show|fingerprint|diff|schema``."""
    p = sub.add_parser("profile", help="check, show, fingerprint, diff a profile or export its JSON Schema")
    psub = p.add_subparsers(dest="action", required=True)
    for action, help_text in (("check", "validate; print every error, one per line"),
                              ("show", "print the effective profile after extends and rule packs"),
                              ("fingerprint", "print the profile fingerprint")):
        q = psub.add_parser(action, help=help_text)
        q.add_argument("profile", metavar="NAME_OR_PATH")
        if action == "show":
            q.add_argument("--origins", action="store_true",
                           help="annotate every value with the file:line it comes from ('default': the schema)")
    q = psub.add_parser("diff", help="semantic diff of two resolved profiles (rules by name, structures by label)")
    q.add_argument("a", metavar="A", help="first profile (builtin name or YAML path)")
    q.add_argument("b", metavar="B", help="second profile")
    q.add_argument("--exit-code", action="store_true", help="exit 1 when the profiles differ (default: 0)")
    q = psub.add_parser("schema", help="JSON Schema of profile files (or rule packs) for editor completion")
    q.add_argument("-o", "--output", help="write to this file (default: stdout)")
    q.add_argument("--pack", action="store_true", help="the schema of rule pack files (rules/*.yaml)")
    return ["profile"]


def _resolve(name: str):
    """Resolve a profile, or print its errors (one per line) and return None."""
    from ..api import resolve

    try:
        return resolve(name)
    except ProfileErrors as err:
        for e in err.errors:
            print_error(e)
        return None


def run(args) -> int:
    """Dispatch the profile sub-commands (profile errors: one per line, exit 2)."""
    if args.action == "schema":
        return _schema(args)
    if args.action == "diff":
        return _diff(args)
    rp = _resolve(args.profile)
    if rp is None:
        return 2
    if args.action == "check":
        for warning in rp.warnings:  # legal but risky settings, e.g. a remote LLM endpoint
            print(warning, file=sys.stderr)
        print(f"ok: {rp.name} ({len(rp.policy.detectors)} structures, {len(rp.policy.rules)} rules, "
              f"fingerprint {rp.fingerprint[:16]})")
    elif args.action == "fingerprint":
        print(rp.fingerprint)
    else:
        _show(rp, getattr(args, "origins", False))
    return 0


def _show(rp, with_origins: bool) -> None:
    from ..api.profiles import annotated_yaml, display_file, origins

    print(f"# effective profile '{rp.name}' from {', '.join(display_file(str(f)) for f in rp.files)}")
    print(f"# fingerprint {rp.fingerprint}")
    if with_origins:
        print("# after each value: the file:line that sets it, or 'default' (the schema's default)")
    print(annotated_yaml(rp.policy.data, origins(rp) if with_origins else None), end="")


def _diff(args) -> int:
    from ..api.profiles import diff_profiles

    a, b = _resolve(args.a), _resolve(args.b)
    if a is None or b is None:
        return 2
    changes = diff_profiles(a, b)
    print(f"--- {args.a} (profile '{a.name}', fingerprint {a.fingerprint[:12]})")
    print(f"+++ {args.b} (profile '{b.name}', fingerprint {b.fingerprint[:12]})")
    for change in changes:
        print(change.render())
    counts = {k: sum(c.kind == k for c in changes) for k in ("added", "removed", "changed")}
    print(f"{len(changes)} difference(s): {counts['added']} added, {counts['removed']} removed, "
          f"{counts['changed']} changed" if changes else "no differences")
    return 1 if changes and args.exit_code else 0


def _schema(args) -> int:
    from ..api.profiles import json_schema

    schema = json_schema("pack" if args.pack else "profile")
    with output_to(args.output) as out:
        out.write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return 0
