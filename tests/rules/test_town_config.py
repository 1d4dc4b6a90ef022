"""The town configuration: defaults, overrides by name, refusal of unknown keys and wrong types."""
import pytest

from stormwater.rules.town import TownConfig, town_config_from


def test_defaults_are_longmeadow():
    assert TownConfig().name == "Town of Longmeadow"


def test_an_override_replaces_the_default():
    assert town_config_from({"name": "Town of Hampden"}).name == "Town of Hampden"


def test_an_unknown_key_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown setting.*colour"):
        town_config_from({"colour": "blue"})


def test_a_value_of_the_wrong_type_is_refused_by_name():
    with pytest.raises(ValueError, match="name must be a str"):
        town_config_from({"name": 3})


def test_the_data_folder_file_is_read(settings, tmp_path):
    from stormwater import townconfig

    settings.DATA_DIR = tmp_path
    (tmp_path / "town.toml").write_text('[town]\nname = "Town of Wilbraham"\n')
    townconfig.town_config.cache_clear()
    try:
        assert townconfig.town_config().name == "Town of Wilbraham"
        (tmp_path / "town.toml").write_text('[town]\nnmae = "x"\n')
        townconfig.town_config.cache_clear()
        with pytest.raises(RuntimeError, match="unknown setting.*nmae"):
            townconfig.town_config()
    finally:
        townconfig.town_config.cache_clear()


def test_two_factor_is_required_for_the_director_and_the_collector_by_default():
    assert TownConfig().totp_required_roles == ("director", "collector")
    assert town_config_from({"totp_required_roles": []}).totp_required_roles == ()
    with pytest.raises(ValueError, match="totp_required_roles must be a list of names"):
        town_config_from({"totp_required_roles": "director"})


def test_the_staff_idle_timeout_is_a_whole_number_of_minutes_in_range():
    assert TownConfig().staff_idle_minutes == 30
    assert town_config_from({"staff_idle_minutes": 15}).staff_idle_minutes == 15
    for bad in (0, 2000):
        with pytest.raises(ValueError, match="staff_idle_minutes must be between 1 and 1440"):
            town_config_from({"staff_idle_minutes": bad})
    for bad in (True, "30", 30.5):
        with pytest.raises(ValueError, match="staff_idle_minutes must be a whole number"):
            town_config_from({"staff_idle_minutes": bad})


def test_an_unknown_role_in_the_file_is_refused_naming_the_roles(settings, tmp_path):
    from stormwater import townconfig

    settings.DATA_DIR = tmp_path
    (tmp_path / "town.toml").write_text('[town]\ntotp_required_roles = ["directer"]\n')
    townconfig.town_config.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="unknown role.*directer.*the roles are director, staff"):
            townconfig.town_config()
    finally:
        townconfig.town_config.cache_clear()
