"""Bad files of the kinds towns receive (issue 20), built in each test's tmp_path."""
from __future__ import annotations

import pytest


GOOD_ASSESSOR = ("PID,ADDR,OWNER,OWN_ST,OWN_CITY,LUC,UNITS,LOT\n"
                 "P-1,1 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",101,1,10000\n"
                 "P-2,3 Test St,Shops LLC,PO Box 1,\"Springfield, MA 01101\",325,,10000\n"
                 "P-3,5 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",104,2,8000\n")


@pytest.fixture
def good_assessor(tmp_path):
    p = tmp_path / "assessor.csv"
    p.write_text(GOOD_ASSESSOR)
    return p
