"""What every family's pictures share: an SVG document with its title, PNG bytes, and the
pair Jupyter takes from a ``_repr_png_`` (the image and its alternative text).

The drawing itself stays in each family's ``render`` module; this module only wraps it.

```pycon
>>> svg = svg_document(20, 10, "a grey bar", ['<rect width="20" height="10" fill="grey"/>'])
>>> svg.splitlines()[1]
'<title>a grey bar</title>'

```"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

__all__ = ["png_bytes", "png_with_alt", "svg_document"]


def svg_document(width: float, height: float, title: str, body: list[str]) -> str:
    """An SVG document ``width`` x ``height`` (pixels) with a white background, ``title`` as its
    ``<title>`` (what a screen reader says, and the alternative text of the picture on the
    documentation site), then the elements of ``body``."""
    return (
        "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
                f'viewBox="0 0 {width:g} {height:g}" role="img">',
                f"<title>{escape(title)}</title>",
                f'<rect width="{width:g}" height="{height:g}" fill="white"/>',
                *body,
                "</svg>",
            ]
        )
        + "\n"
    )


def png_bytes(image) -> bytes:
    """A Pillow image encoded as PNG."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def png_with_alt(data: bytes, alt: str) -> tuple[bytes, dict[str, str]]:
    """What a ``_repr_png_`` returns so that Jupyter keeps the picture's alternative text: the
    PNG bytes and ``{"alt": alt}`` (nbconvert writes it as the ``alt`` of the image)."""
    return data, {"alt": alt}
