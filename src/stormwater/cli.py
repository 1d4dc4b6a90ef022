"""The ``stormwater`` command.

``stormwater calc fee|split|runoff|retention|noaa-plus|peak|bmp`` read one JSON object on stdin
and print one JSON object (exit 2 with {"error": ...} on bad input, never a traceback). Every other subcommand is
a Django management command (``stormwater migrate``, ``stormwater demo_load``, ``stormwater
bill_run``, ``stormwater runserver`` ...).
"""
from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    import django

    django.setup()


def _resolution_today():
    """The rate resolution in force today, or None when there is no database (or none in it)."""
    data_dir = Path(os.environ.get("STORMWATER_DATA_DIR") or (Path.cwd() / "data"))
    if not os.environ.get("DATABASE_URL") and not (data_dir / "stormwater.sqlite3").exists():
        return None
    try:
        _setup_django()
        from stormwater.utility.selectors import resolution_in_force

        return resolution_in_force(date.today())
    except Exception:  # noqa: BLE001 - an unmigrated or unreachable database must not stop the calculator
        return None


def _terms_in_force():
    """Fee terms of the resolution in force today; the shipped town defaults without one."""
    from stormwater.rules.town import demo_terms

    res = _resolution_today()
    return res.fee_terms() if res else demo_terms()


def _interest_rate_in_force():
    """The resolution's interest rate; 12 % per annum (Ch. 295 Art. IV billing ¶C) without one."""
    from stormwater.rules.town import DEMO_INTEREST_RATE_PERCENT

    res = _resolution_today()
    return res.interest_rate_percent if res else DEMO_INTEREST_RATE_PERCENT


def _bmp_tables_in_force() -> tuple:
    """Official BMP performance tables loaded by DPW (stormwater.review), most recent first; none without a
    database. The shipped RBEROST fits stay the provisional last resort inside calc_bmp."""
    from django.apps import apps

    if not apps.ready:
        data_dir = Path(os.environ.get("STORMWATER_DATA_DIR") or (Path.cwd() / "data"))
        if not os.environ.get("DATABASE_URL") and not (data_dir / "stormwater.sqlite3").exists():
            return ()
    try:
        _setup_django()
        from stormwater.review.selectors import performance_tables_in_force

        return performance_tables_in_force()[1]
    except Exception:  # noqa: BLE001 - an unmigrated or unreachable database must not stop the calculator
        return ()


def _emit(obj: dict, code: int = 0) -> int:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")
    return code


def _calculators() -> dict:
    """name → function(payload) of every calculator (the same table serves /api/calc/<name>)."""
    from stormwater.engineering import calc as eng
    from stormwater.utility.calc import calc_fee, calc_interest, calc_split
    from stormwater.relief.calc import calc_deadline  # Ch. 295 Art. IV relief and billing clocks (issue 5)

    return {"fee": lambda p: calc_fee(p, terms=_terms_in_force()), "split": calc_split,
            "interest": lambda p: calc_interest(p, rate_percent=_interest_rate_in_force()),
            "runoff": eng.calc_runoff, "retention": eng.calc_retention, "noaa-plus": eng.calc_noaa_plus,
            "peak": eng.calc_peak, "bmp": lambda p: eng.calc_bmp(p, tables=_bmp_tables_in_force()),
            "deadline": calc_deadline}


def calc(argv: list[str]) -> int:
    from stormwater.engineering.calc import CalcInputError as EngineeringInputError
    from stormwater.utility.calc import CalcInputError

    what = argv[0] if argv else ""
    calculators = _calculators()
    if what not in calculators:
        return _emit({"error": f"usage: stormwater calc {'|'.join(calculators)} < input.json"}, 2)
    from stormwater.web.jsonapi import BadInput, parse_json  # the API's reader: size, nesting, NaN refused

    try:
        text = sys.stdin.read()
        payload = parse_json(text) if text.strip() else None
        return _emit(calculators[what](payload))
    except BadInput as e:
        return _emit({"error": str(e), **e.json_detail()}, 2)
    except (CalcInputError, EngineeringInputError) as e:
        return _emit({"error": str(e)}, 2)


# Commands that only read: the settings they build write nothing into the data folder (ops.startup.WRITE_NOTHING).
READ_ONLY_COMMANDS = {"help", "--help", "-h"}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "calc":
        from django.core.exceptions import ImproperlyConfigured

        from stormwater.ops.startup import load_env_files

        try:
            load_env_files()  # .env may name the database the calculators read the rates from
        except ImproperlyConfigured as e:
            return _emit({"error": str(e)}, 2)
        return calc(argv[1:])
    if argv[:1] in (["--version"], ["version"]):  # the system's release, not Django's (issue 28)
        from stormwater import __version__

        sys.stdout.write(f"stormwater {__version__}\n")
        return 0
    if not argv or argv[0] in READ_ONLY_COMMANDS or argv[:2] == ["config", "check"]:
        from stormwater.ops import startup

        startup.WRITE_NOTHING = True  # a new server's first --help must leave no file behind (issue 28)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # builds the settings: .env, the data folder, production's refusals
    except ImproperlyConfigured as e:  # a clear message for the administrator, not a traceback
        sys.stderr.write(f"stormwater: {e}\n")
        return 2
    try:
        execute_from_command_line(["stormwater", *argv])
    except Exception as e:
        from stormwater.ops.dbwait import describe, is_unreachable

        if not is_unreachable(e):
            raise
        sys.stderr.write(f"stormwater: {describe(e)}\n")  # one line, not a traceback (issue 28)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
