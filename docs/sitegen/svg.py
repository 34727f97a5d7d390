"""SVG written as plain strings: the document and its text labels."""

from __future__ import annotations

from html import escape


def document(width: float, height: float, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{escape(label)}" '
        'font-family="sans-serif">\n' + "\n".join(body) + "\n</svg>\n"
    )


def text(x: float, y: float, text: object, size: float = 14, **attrs: object) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="middle" '
        f'dominant-baseline="central"{extra}>{escape(str(text))}</text>'
    )
