"""``adachunk profile check|show|fingerprint``."""

from __future__ import annotations

import yaml

from ..errors import ProfileErrors
from ..profile.resolve import resolve
from .common import print_error


def add_parsers(sub) -> list[str]:
    """Register ``profile check|show|fingerprint``."""
    p = sub.add_parser("profile", help="check, show or fingerprint a profile")
    psub = p.add_subparsers(dest="action", required=True)
    for action, help_text in (("check", "validate; print every error, one per line"),
                              ("show", "print the effective profile after extends and rule packs"),
                              ("fingerprint", "print the profile fingerprint")):
        q = psub.add_parser(action, help=help_text)
        q.add_argument("profile", metavar="NAME_OR_PATH")
        if action == "show":
            q.add_argument("--origins", action="store_true", help="annotate values with file:line")
    return ["profile"]


def run(args) -> int:
    """Dispatch the profile sub-commands (errors: one per line, exit 2)."""
    try:
        rp = resolve(args.profile)
    except ProfileErrors as err:
        for e in err.errors:
            print_error(e)
        return 2
    if args.action == "check":
        print(f"ok: {rp.name} ({len(rp.policy.detectors)} structures, {len(rp.policy.rules)} rules, "
              f"fingerprint {rp.fingerprint[:16]})")
    elif args.action == "fingerprint":
        print(rp.fingerprint)
    else:
        text = yaml.safe_dump(rp.policy.data, sort_keys=False, allow_unicode=True, width=110)
        print(f"# effective profile '{rp.name}' from {', '.join(str(f) for f in rp.files)}")
        print(f"# fingerprint {rp.fingerprint}")
        print(text, end="")
        if getattr(args, "origins", False):
            print("# origins (key: file:line)")
            for key, (f, line, _col) in _origins(rp.data):
                print(f"#   {key}: {f}:{line}")
    return 0


def _origins(data, prefix: str = ""):
    marks = getattr(data, "marks", {})
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        path = f"{prefix}.{key}" if prefix else str(key)
        if key in marks and not isinstance(value, (dict, list)):
            yield path, marks[key]
        yield from _origins(value, path)
