"""The HTML pages' templates (``templates/`` beside this module), rendered with autoescape: every value a template
shows is escaped unless it is ``Markup`` made by one of the filters below, which escape the text first."""

from __future__ import annotations

import base64
import re
from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup, escape

from autograder.report.table import score_text

CODE = re.compile(r"`([^`\n]+)`")
LINE_BREAK = re.compile(r"(?<=>)\n\s*|(?<=[%#]})\n\s*|\n\s*(?=<|{%|{#)")
WRAPPED_TEXT = re.compile(r"\n\s*")


class OneLinePages(Extension):
    """A page template is written over many lines for the reader; the page keeps no line break between its tags. In
    an ``.html`` template a line break and the next line's indent are dropped beside a tag, a statement or a comment
    (``{% %}``, ``{# #}``), and read as one space anywhere else (between words and ``{{ values }}``)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if not (name or "").endswith(".html"):
            return source
        return WRAPPED_TEXT.sub(" ", LINE_BREAK.sub("", source.rstrip("\n")))


def text_html(text: str) -> Markup:
    """Plain text as HTML: escaped, and a `name` in backticks (how messages quote code) set as code."""
    return Markup(CODE.sub(r"<code>\1</code>", str(escape(text))))


def png_data(png: bytes) -> str:
    """A PNG as the ``src`` of an embedded image."""
    return f"data:image/png;base64,{base64.b64encode(png).decode()}"


def percent(x: float) -> str:
    """A share as the similarity pages write it: ``42 %``."""
    return f"{100 * x:.0f} %"


def share(x: float) -> str:
    """A share as the summary writes it: ``42%``."""
    return f"{x:.0%}"


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("autograder.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, keep_trailing_newline=True, extensions=[OneLinePages])
    env.filters.update(text=text_html, score=score_text, png=png_data, percent=percent, share=share)
    return env


def render(template: str, **values) -> str:
    """The page ``template`` shows ``values`` in, ending with a line break."""
    return environment().get_template(template).render(**values) + "\n"
