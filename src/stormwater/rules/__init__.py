"""Pure rules: computations the ordinances define. No Django import here (tests/test_purity.py)."""
