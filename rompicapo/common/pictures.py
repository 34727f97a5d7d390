"""What every family's pictures share: an SVG document with its title, PNG bytes, and the
pair Jupyter takes from a ``_repr_png_`` (the image and its alternative text).

The drawing itself stays in each family's ``render`` module; this module only wraps it.

```pycon
>>> svg = svg_document(20, 10, "a grey bar", ['<rect width="20" height="10" fill="grey"/>'])
>>> svg.splitlines()[1]
'<title>a grey bar</title>'
>>> from PIL import Image
>>> data, meta = png_with_alt(Image.new("RGB", (4, 2)), "a black strip")
>>> Image.open(io.BytesIO(data)).text["Description"], meta
('a black strip', {'alt': 'a black strip'})

```"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

__all__ = ["png_bytes", "png_with_alt", "svg_document"]


def svg_document(width: float, height: float, title: str, body: list[str]) -> str:
    """An SVG document ``width`` x ``height`` (pixels) with a white background, ``title`` as its
    ``<title>`` (what a screen reader says, and the alternative text of the picture on the
    documentation site), then the elements of ``body``.

    ```pycon
    >>> print(svg_document(20, 10, "a grey bar", ['<rect width="20" height="10" fill="grey"/>']))
    <svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 20 10" role="img">
    <title>a grey bar</title>
    <rect width="20" height="10" fill="white"/>
    <rect width="20" height="10" fill="grey"/>
    </svg>

    ```"""
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


def png_bytes(image, description: str = "") -> bytes:
    """A Pillow image encoded as PNG, with ``description`` (what it shows) in the file's
    standard ``Description`` text chunk when given.

    ```pycon
    >>> import io
    >>> from PIL import Image
    >>> data = png_bytes(Image.new("RGB", (4, 2)), "a black strip")
    >>> data[:8], Image.open(io.BytesIO(data)).text
    (b'\\x89PNG\\r\\n\\x1a\\n', {'Description': 'a black strip'})

    ```"""
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    if description:
        info.add_itxt("Description", description)
    buf = io.BytesIO()
    image.save(buf, format="PNG", pnginfo=info)
    return buf.getvalue()


def png_with_alt(image, alt: str) -> tuple[bytes, dict[str, str]]:
    """What a ``_repr_png_`` returns so that the picture keeps its alternative text: the PNG
    (``alt`` in its ``Description`` chunk, which the documentation site reads) and
    ``{"alt": alt}``, the output's metadata in the notebook.

    ```pycon
    >>> import io
    >>> from PIL import Image
    >>> data, meta = png_with_alt(Image.new("RGB", (4, 2)), "a black strip")
    >>> Image.open(io.BytesIO(data)).text["Description"], meta
    ('a black strip', {'alt': 'a black strip'})

    ```"""
    return png_bytes(image, alt), {"alt": alt}
