"""The pure cores (rules, and later engineering) import no Django (DESIGN.md "Pure cores first")."""
import ast
import subprocess
import sys
from pathlib import Path

import stormwater

PKG = Path(stormwater.__file__).parent
PURE = ["rules", "engineering"]


def _modules():
    for name in PURE:
        d = PKG / name
        if d.exists():
            yield from sorted(d.rglob("*.py"))


def test_pure_cores_exist():
    assert (PKG / "rules" / "fees.py").exists()


def test_no_pure_module_imports_django_or_the_apps():
    offenders = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for n in names:
                top = n.split(".")
                if top[0] == "django" or (top[0] == "stormwater" and len(top) > 1 and top[1] not in PURE):
                    offenders.append(f"{path.relative_to(PKG)} imports {n}")
    assert offenders == []


def test_importing_the_pure_cores_loads_no_django():
    mods = ", ".join(f"stormwater.{p.relative_to(PKG).with_suffix('').as_posix().replace('/', '.')}"
                     for p in _modules() if p.name != "__init__.py")
    code = f"import sys, importlib\nfor m in '{mods}'.split(', '): importlib.import_module(m)\n" \
           "bad = [m for m in sys.modules if m == 'django' or m.startswith('django.')]\nprint(bad)\nassert not bad"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
