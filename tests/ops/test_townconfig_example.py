"""town.example.toml and ``stormwater config check`` (issue 28): town.toml had no template — its settings were
scattered over docs and Python source — and a town's file could only be checked by starting the system, which
stopped at the first problem."""
from __future__ import annotations

import tomllib
from dataclasses import fields

from stormwater.rules.town import TownConfig, town_config_from
from stormwater.townconfig import config_check

from .conftest import REPO

EXAMPLE = REPO / "town.example.toml"


def test_the_example_lists_every_setting_at_its_default_with_its_reason():
    text = EXAMPLE.read_text()
    town = tomllib.loads(text)["town"]
    assert set(town) == {f.name for f in fields(TownConfig)}
    assert town_config_from(town) == TownConfig()
    lines = text.splitlines()
    for name in town:  # each setting's block of lines has a comment: the ordinance section or the reason
        i = next(n for n, line in enumerate(lines) if line.startswith(f"{name} = "))
        block = lines[:i]
        while block and block[-1].strip() and not block[-1].startswith("#"):
            block.pop()  # settings grouped under one comment
        assert block and block[-1].startswith("#"), name
    assert config_check(EXAMPLE) == ([], len(town))


def test_config_check_names_every_problem_of_a_bad_file(tmp_path):
    bad = tmp_path / "town.toml"
    bad.write_text('[town]\nstaff_idle_minutes = 0\nlien_certificate_fee = "abc"\ncolour = "blue"\n'
                   'totp_required_roles = ["director", "treasurer"]\nbill_run_second_approver = "yes"\n'
                   'payment_url_template = "http://pay.example/{account}"\n[extra]\nx = 1\n')
    problems, _ = config_check(bad)
    assert problems == ["[extra]: unknown table (the settings go under [town])",
                        "colour: unknown setting (town.example.toml lists every one)",
                        "bill_run_second_approver must be true or false",
                        "lien_certificate_fee must be a number",
                        "payment_url_template must start with https://",
                        "staff_idle_minutes must be between 1 and 1440",
                        "totp_required_roles: unknown role(s) treasurer; the roles are "
                        + ", ".join(__import__("stormwater.roles", fromlist=["Role"]).Role.values)]
    bad.write_text("[town\n")
    assert config_check(bad)[0][0].startswith(f"{bad}: not a readable TOML file")
    assert config_check(tmp_path / "none.toml")[0] == [f"{tmp_path / 'none.toml'}: no such file"]
