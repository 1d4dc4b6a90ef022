"""The bill stub's scanline (issue 17): account and amount with a Luhn check digit, read back by receipting."""
from decimal import Decimal as D

import pytest

from stormwater.utility.scanline import (ScanlineError, Scanline, looks_like_scanline, luhn_check_digit,
                                         scanline_format, scanline_parse)


def test_the_luhn_digit_is_the_standard_one():
    assert luhn_check_digit("7992739871") == 3  # the textbook example
    assert luhn_check_digit("0") == 0


@pytest.mark.parametrize("account,amount", [("SW-02-01-1", D("1414.06")), ("SW-01-01-1", D("53.16")),
                                            ("SW-03-07-2-U12", D("0.01")), ("SW-09-09-9", D("0"))])
def test_a_scanline_reads_back_to_its_account_and_amount(account, amount):
    line = scanline_format(account, amount)
    assert looks_like_scanline(line)
    assert scanline_parse(line) == Scanline(account, amount)
    assert scanline_parse("  " + line.replace(" ", "   ") + "\n") == Scanline(account, amount)


def test_the_format_is_account_ten_digits_of_cents_and_a_check_digit():
    line = scanline_format("SW-02-01-1", D("1414.06"))
    account, cents, check = line.split(" ")
    assert (account, cents) == ("SW-02-01-1", "0000141406") and check.isdigit() and len(check) == 1


def test_one_wrong_digit_or_two_swapped_digits_are_caught():
    line = scanline_format("SW-02-01-1", D("1414.06"))
    account, cents, check = line.split(" ")
    for i in range(len(cents)):
        wrong = cents[:i] + str((int(cents[i]) + 1) % 10) + cents[i + 1:]
        with pytest.raises(ScanlineError, match="check digit"):
            scanline_parse(f"{account} {wrong} {check}")
    swapped = cents[:6] + cents[7] + cents[6] + cents[8:]  # 1406 → 1046... adjacent digits that differ
    if swapped != cents:
        with pytest.raises(ScanlineError, match="check digit"):
            scanline_parse(f"{account} {swapped} {check}")
    with pytest.raises(ScanlineError, match="check digit"):
        scanline_parse(f"SW-02-01-7 {cents} {check}")


@pytest.mark.parametrize("text", ["", "SW-02-01-1", "SW-02-01-1 141406 4", "SW-02-01-1 0000141406", "0000141406 4",
                                  "SW-02-01-1 00001414.6 4"])
def test_a_malformed_scanline_is_refused_saying_what_is_expected(text):
    assert not looks_like_scanline(text)
    with pytest.raises(ScanlineError, match="scanline: expected"):
        scanline_parse(text)
