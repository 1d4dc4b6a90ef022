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
