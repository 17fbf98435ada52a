"""The README's Python examples run as written, in order, from the repository root."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)


def test_python_examples_run_and_print_what_they_say(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__readme__"}
    for index, code in enumerate(BLOCKS):
        if "# not run by the tests" in code:
            continue
        exec(compile(code, f"README.md python block {index}", "exec"), namespace)  # our documentation, not rule text
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        # a print(...) followed by "# expected output" on the same line must print that line
        for line in code.splitlines():
            if line.startswith("print(") and "# " in line:
                assert line.split("# ", 1)[1].strip() in printed, (index, line, printed)
