"""Issue 26, BMP performance tables (``stormwater bmp_table_load``; each written failing first): a removal over
100 %, a negative infiltration rate, "90" among fractions, an unknown BMP, a removal falling as storage grows and a
cut-off last row are refused naming the row and column; a UTF-16 file is read. Nothing stored when refused."""
import pytest
from dbunchanged import nothing_changed
from django.core.management import CommandError, call_command

from stormwater.review.models import BmpTable

pytestmark = pytest.mark.django_db
HEAD = "bmp,pollutant,infiltration_rate_in_hr,storage_depth_in,removal\n"
GOOD = HEAD + "infiltration_trench,TSS,0.5,0.1,0.60\ninfiltration_trench,TSS,0.5,2.0,0.95\n"


def load(tmp_path, text, *, encoding="utf-8"):
    f = tmp_path / "table.csv"
    f.write_bytes(text.encode(encoding))
    call_command("bmp_table_load", str(f), "--name", "T", "--source", "tests")


@pytest.mark.parametrize("text, match", [
    (GOOD.replace("0.95", "150"), r"row 2 \(removal\): 150 is outside 0-100 %"),
    (GOOD.replace("0.95", "1.5"), r"removal written both as fractions \(0-1, rows 1\) and as percent \(rows 2\)"),
    (GOOD.replace(",0.95", ",90"), r"both as fractions .* and as percent \(rows 2\)"),
    (GOOD.replace("0.5,2.0", "-0.5,2.0").replace("0.5,0.1", "-0.5,0.1"),
     r"row 1 \(infiltration_rate_in_hr\): -0.5 in/hr is negative"),
    (GOOD.replace("infiltration_trench,TSS,0.5,2.0", "magic_box,TSS,0.5,2.0"),
     r"row 2 \(bmp\): 'magic_box' is not an EPA Region 1 BMP category"),
    (GOOD.replace("0.95", "0.40"), r"infiltration_trench TSS rate 0.5: removal falls as storage grows \(row 2\)"),
    (GOOD.rstrip("\n")[:-5], r"table: row 2: 4 fields where the header has 5"),
])
def test_an_implausible_table_is_refused_naming_the_row(tmp_path, text, match):
    with nothing_changed(), pytest.raises(CommandError, match=match):
        load(tmp_path, text)


def test_a_utf16_table_loads(tmp_path):
    load(tmp_path, GOOD, encoding="utf-16")
    assert BmpTable.objects.get().summary["curves"] == 1
