"""The Go-template evaluator of the tests, and fleetgen's escaping, against Go's text/template.

Runs a small Go program (text/template, missingkey=error) where a ``go`` toolchain is on PATH
and is skipped elsewhere. The evaluator must agree with Go on every template it accepts, and
every `go_text` escape must render to its input in Go itself.
"""

from __future__ import annotations

import json
import random
import shutil
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fleetgen.emit.argocd.common import go_text
from tests.gotemplate import TemplateError, Unsupported, render

GO_PROGRAM = """package main

import (
	"encoding/json"
	"os"
	"strings"
	"text/template"
)

type Case struct {
	Template string                 `json:"template"`
	Data     map[string]interface{} `json:"data"`
}

func main() {
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	results := make([]map[string]string, len(cases))
	for i, c := range cases {
		var out strings.Builder
		t, err := template.New("t").Option("missingkey=error").Parse(c.Template)
		if err == nil {
			err = t.Execute(&out, c.Data)
		}
		results[i] = map[string]string{"out": out.String()}
		if err != nil {
			results[i]["err"] = err.Error()
		}
	}
	json.NewEncoder(os.Stdout).Encode(results)
}
"""
PIECES = [
    "{{",
    "}}",
    "{",
    "}",
    '"',
    "'",
    "`",
    "\n",
    "\r",
    "\t",
    " ",
    "\\",
    "{{-",
    " -}}",
    "/*",
    "{{ .name }}",
    '{{ "x" }}',
    "\x00",
    "\x7f",
    "é",
    "😀",
    "\u2028",
    "\\u0041",
    "\\x41",
]
ACTIONS = [".name", " ", 'index .m "k"', "`raw`", '"\\t"', '"\\101"', ".m.k", ".nope"]
DATA = {"name": "N", "m": {"k": "K"}}


def go_render(
    tmp_path: Path, cases: list[dict[str, Any]], program: str = GO_PROGRAM
) -> list[dict[str, str]]:
    """Each case rendered by ``program`` (default: `GO_PROGRAM`), a Go program that reads the
    cases as JSON on stdin and writes a result per case."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("no Go toolchain on PATH")
    (tmp_path / "main.go").write_text(program)
    result = subprocess.run(
        [go, "run", "main.go"],
        cwd=tmp_path,
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    results: list[dict[str, str]] = json.loads(result.stdout)
    return results


def mixed(rng: random.Random, parts: list[str], size: int) -> str:
    return "".join(rng.choice(parts) for _ in range(rng.randint(0, size)))


def test_escapes_and_evaluator_agree_with_go(tmp_path: Path) -> None:
    rng = random.Random(3)
    texts = [mixed(rng, PIECES + list(string.printable), 12) for _ in range(1500)]
    escaped = [go_text(text) + "{{ .name }}" + go_text(text) for text in texts]
    raw = [mixed(rng, PIECES + ACTIONS, 8) for _ in range(1500)]
    templates = escaped + raw
    results = go_render(tmp_path, [{"template": t, "data": DATA} for t in templates])
    for text, result in zip(texts, results, strict=False):
        assert result == {"out": text + "N" + text}, text
    accepted = 0
    for template, result in zip(templates, results, strict=True):
        try:
            mine = render(template, DATA)
        except Unsupported:
            continue
        except TemplateError:
            assert "err" in result, template
            continue
        accepted += 1
        assert result == {"out": mine}, template
    assert accepted > len(escaped)  # the evaluator judged raw templates too, not only escapes
