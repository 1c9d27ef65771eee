"""The HTML of `odcnsim report`'s page: numbers as the page writes them, tables, figures as data URIs, sections
and the page around them. No network, no script: everything the page shows is in the one file."""
import base64
import html
import math

GENERATOR = "odcnsim report"
STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 72em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.8em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; vertical-align: top; }
th { background: #f4f4f4; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 0.8em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; } p.note { color: #666; font-style: italic; }
nav a { margin-right: 0.8em; } div.wide { overflow-x: auto; }
"""


def number(v):
    """A value as the page writes it: null as n/a, true/false, an integer (or an integral float below 10^15)
    without a decimal point, any other float to 6 significant digits (Python's `{:.6g}`), text as it is."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.6g}"
    return str(v)


def esc(text):
    return html.escape(str(text), quote=True)


def attrs(pairs):
    """` key="value"` for each pair whose value is not None."""
    return "".join(f' {k}="{esc(v)}"' for k, v in pairs.items() if v is not None)


def table(header, rows, table_id=None, row_keys=None):
    """A table: `header` (texts, or None for a key-value table without one), `rows` (lists of cells; a cell is a value, or (value, {attribute: value})),
    numbers right-aligned; row i gets data-key="row_keys[i]" when given."""
    out = [f"<div class=\"wide\"><table{attrs({'id': table_id})}>"]
    if header:
        out.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead>")
    out.append("<tbody>")
    for i, row in enumerate(rows):
        key = row_keys[i] if row_keys else None
        cells = []
        for j, c in enumerate(row):
            value, extra = c if isinstance(c, tuple) else (c, {})
            tag = "th" if j == 0 else "td"
            cls = "num" if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            cells.append(f"<{tag}{attrs({'class': cls, **extra})}>{esc(number(value))}</{tag}>")
        out.append(f"<tr{attrs({'data-key': key})}>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def figure(png_path, alt, caption, fig_id):
    """The PNG file as an <img> with a data: URI, and its caption."""
    with open(png_path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return (f'<figure id="{esc(fig_id)}"><img src="data:image/png;base64,{data}" alt="{esc(alt)}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def section(section_id, title, body, level=2):
    return f'<section id="{esc(section_id)}">\n<h{level}>{esc(title)}</h{level}>\n{body}\n</section>'


def note(text):
    return f'<p class="note">{esc(text)}</p>'


def left_out(section_id, title, reason, level=2):
    """A section that does not apply: its heading and one line saying why (class "absent")."""
    return (f'<section id="{esc(section_id)}" class="absent">\n<h{level}>{esc(title)}</h{level}>\n'
            f"{note(reason)}\n</section>")


def page(title, sections):
    """The whole page: its title, a table of contents of the sections' ids and titles, the sections."""
    links = " ".join(f'<a href="#{esc(i)}">{esc(t)}</a>' for i, t, _ in sections)
    body = "\n".join(s for _, _, s in sections)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="generator" content="{GENERATOR}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{esc(title)}</h1>\n"
            f"<nav>{links}</nav>\n{body}\n</body>\n</html>\n")
