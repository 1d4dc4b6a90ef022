"""Property classes from the definitions of Ch. 295 Art. IV (and exemptions ¶B(1))."""
import pytest

from stormwater.rules.classes import ClassificationError, PropertyClass as PC, classify


@pytest.mark.parametrize("use,units,expected", [
    ("101", 1, PC.SMALL_RESIDENTIAL), ("104", 2, PC.SMALL_RESIDENTIAL), ("105", 3, PC.SMALL_RESIDENTIAL),
    ("102", 3, PC.SMALL_RESIDENTIAL), ("111", 4, PC.LARGE_RESIDENTIAL), ("112", 48, PC.LARGE_RESIDENTIAL),
    ("102", 12, PC.LARGE_RESIDENTIAL), ("121", 1, PC.LARGE_RESIDENTIAL),
    ("013", 1, PC.NONRESIDENTIAL), ("031", 2, PC.NONRESIDENTIAL),  # mixed use per the Assessors
    ("325", None, PC.NONRESIDENTIAL), ("401", None, PC.NONRESIDENTIAL), ("903", None, PC.NONRESIDENTIAL),
    ("130", 0, PC.NONRESIDENTIAL), ("101", 0, PC.NONRESIDENTIAL),
])
def test_class_from_assessor_data(use, units, expected):
    assert classify(land_use_code=use, dwelling_units=units).property_class is expected


def test_public_ways_are_exempt_but_road_maintenance_property_is_not():
    assert classify(land_use_code="903", dwelling_units=None, public_way=True).property_class is PC.EXEMPT
    c = classify(land_use_code="903", dwelling_units=None, public_way=True, road_maintenance=True)
    assert c.property_class is PC.NONRESIDENTIAL and "not exempt" in c.reason


def test_public_property_other_than_ways_pays():
    assert classify(land_use_code="901", dwelling_units=None).property_class is PC.NONRESIDENTIAL


def test_unknown_dwelling_units_on_a_residential_code_is_an_error_not_a_guess():
    with pytest.raises(ClassificationError, match="dwelling units is unknown"):
        classify(land_use_code="101", dwelling_units=None)


def test_a_code_that_is_not_a_code_is_an_error():
    with pytest.raises(ClassificationError):
        classify(land_use_code="", dwelling_units=1)
