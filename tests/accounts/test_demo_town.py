"""The demo town (`stormwater demo_load`, `bin/run`): its printed logins work with the password alone, because
it writes its own town.toml; a real town's default requires two-factor for the Director and the Collector."""
import io

import pytest
from django.core.management import call_command
from django.test import Client

from stormwater import townconfig
from stormwater.demo import DEMO_PASSWORD

from .conftest import sign_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def data_folder(settings, tmp_path, monkeypatch):
    """An empty data folder; the demo's parcels and GIS import (minutes, and tested in tests/test_web.py) are
    replaced by its users alone: what matters here is what the command writes and prints."""
    from stormwater.accounts.models import User
    from stormwater.demo import DEMO_USERS

    def users_only(**kw):
        for username, role, first, last in DEMO_USERS:
            User.objects.create_user(username=username, password=DEMO_PASSWORD, role=role,
                                     email=f"{username}@longmeadow.example")
        return {"loaded": True, "parcels": 0, "bill_run": None}

    monkeypatch.setattr("stormwater.pages.management.commands.demo_load.demo_load", users_only)
    settings.DATA_DIR = tmp_path
    townconfig.town_config.cache_clear()
    yield tmp_path
    townconfig.town_config.cache_clear()


def test_the_demo_logins_work_with_the_password_alone(data_folder):
    out = io.StringIO()
    call_command("demo_load", stdout=out)
    assert "totp_required_roles = []" in (data_folder / "town.toml").read_text()
    assert "Two-factor sign-in is not required in this demo" in out.getvalue()
    for name in ("director", "collector", "staff"):
        assert sign_in(Client(), name, DEMO_PASSWORD).url == "/", name


def test_the_demo_leaves_an_existing_town_configuration_alone(data_folder):
    (data_folder / "town.toml").write_text('[town]\nname = "Town of Longmeadow"\n')
    out = io.StringIO()
    call_command("demo_load", stdout=out)
    assert (data_folder / "town.toml").read_text() == '[town]\nname = "Town of Longmeadow"\n'
    assert "Two-factor sign-in is required for: director, collector" in out.getvalue()
    assert sign_in(Client(), "director", DEMO_PASSWORD).url == "/login/two-factor/set-up/"
