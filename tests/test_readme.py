"""The README opens with exactly the two set-up commands, and its Python example runs."""

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_starts_with_the_two_commands() -> None:
    title, rest = README.read_text(encoding="utf-8").split("\n", 1)
    assert title.startswith("# ")
    first_block = re.match(r"\s*```sh\n(.*?)```", rest, re.S)
    assert first_block is not None, "the README must open with the set-up commands"
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make play", "make test"]


def test_readme_python_example() -> None:
    example = "\n".join(re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(example, {}, "README", str(README), 0)
    assert test.examples, "the README has a Python example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
