"""Reports shown inline in Jupyter."""

import html


def inline_html(document, height_px=640):
    """The report's HTML page in an iframe: its styles stay out of the notebook's, and it scrolls."""
    return (f'<iframe srcdoc="{html.escape(document, quote=True)}" '
            f'style="width:100%;height:{height_px}px;border:1px solid #ddd"></iframe>')
