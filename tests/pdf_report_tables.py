"""Tables as public statistical and budget reports print them (issue 48), drawn with reportlab.

One builder per phenomenon that lost rows on real reports: overprinted ("fake bold") text, dot
leaders between a label and its figures, nil markers printed as "..." or "–", a grouped header
over two levels ("Plan" / "Non-Plan" over "Revenue Capital Total"), and a statistical page of
row groups with sub-totals and footnote markers whose columns only alignment separates. Words
are placed explicitly (``drawString`` / ``drawRightString``), so the expected table is known
exactly; each builder returns the PDF's path and the expected rows, header first.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

FONT, BOLD = "Helvetica", "Helvetica-Bold"
SIZE = 9.0
PITCH = 13.0  # points between baselines
Rows = list[list[str]]


def _canvas(path: Path) -> canvas.Canvas:
    return canvas.Canvas(str(path), pagesize=A4, invariant=1)


def _prose(c: canvas.Canvas, y: float, text: str) -> None:
    c.setFont(FONT, 10)
    c.drawString(60, y, text)


def _row(c: canvas.Canvas, y: float, label: str, figures: list[str], xs: list[float], *, font: str = FONT,
         overprint: bool = False, label_x: float = 60) -> None:
    """One table row: the label flush left, each figure right-aligned at its x. ``overprint``
    draws every string twice, 0.25 pt apart (how publishers fake a bold face)."""
    c.setFont(font, SIZE)
    for dx in (0.0, 0.25) if overprint else (0.0,):
        c.drawString(label_x + dx, y, label)
        for x, f in zip(xs, figures):
            c.drawRightString(x + dx, y, f)


def build_overprint(path: str | Path) -> tuple[Path, Rows]:
    """A harvest table whose heading and header row are overprinted, as are two body rows."""
    path = Path(path)
    c = _canvas(path)
    c.setFont(FONT, 14)
    for dx in (0.0, 0.3):
        c.drawString(60 + dx, 780, "BETTER VARIETIES")
    _prose(c, 755, "Harvest of the trial plots, tonnes per hectare, by season.")
    xs = [300, 380, 460]
    rows = [["Variety", "2012", "2013", "2014"], ["Harvest Gold", "4.2", "4.6", "5.1"],
            ["Red Baron", "3.9", "4.0", "4.4"], ["Summer Star", "5.0", "5.3", "5.2"],
            ["Early Dawn", "3.1", "3.3", "3.8"], ["All varieties", "4.1", "4.3", "4.6"]]
    y = 725.0
    for i, r in enumerate(rows):
        _row(c, y, r[0], r[1:], xs, font=BOLD if i in (0, 5) else FONT, overprint=i in (0, 2, 5))
        y -= PITCH
    _prose(c, y - 20, "The trial continues next season with two new varieties.")
    c.save()
    return path, rows


def build_leaders(path: str | Path) -> tuple[Path, Rows]:
    """Injury rates: each label ends in an unbroken run of dots up to its figures."""
    path = Path(path)
    c = _canvas(path)
    _prose(c, 780, "Table 3. Injury rates per 100 workers, by kind of injury.")
    xs = [420, 490]
    rows = [["Kind of injury", "2019", "2020"], ["Any injury", "1.9", "2.1"], ["Sprains and strains", "0.8", "0.9"],
            ["Cuts and lacerations", "0.4", "0.4"], ["Fractures", "0.2", "0.3"], ["Burns", "0.1", "0.1"],
            ["All other injuries", "0.4", "0.4"]]
    y = 750.0
    _row(c, y, rows[0][0], rows[0][1:], xs, font=BOLD)
    for r in rows[1:]:
        y -= PITCH
        c.setFont(FONT, SIZE)
        from reportlab.pdfbase.pdfmetrics import stringWidth

        label = r[0] + " "
        # dots from the label's end to a point short of the first figure: one word, no cell gap
        room = xs[0] - stringWidth(r[1], FONT, SIZE) - 3 - 60 - stringWidth(label, FONT, SIZE)
        dots = "." * int(room / stringWidth(".", FONT, SIZE))
        _row(c, y, label + dots, r[1:], xs)
    _prose(c, y - 30, "Rates are computed from the survey's weighted counts.")
    c.save()
    return path, rows


def build_nil(path: str | Path) -> tuple[Path, Rows]:
    """Imports by country: "..." (not available) and "–" (nil) printed in cells."""
    path = Path(path)
    c = _canvas(path)
    _prose(c, 780, "Table 7. Imports by country of origin, million dollars.")
    xs = [330, 410, 490]
    rows = [["Country", "2021", "2022", "2023"], ["Australia", "412.0", "398.5", "..."],
            ["Brazil", "\u2013", "12.4", "15.0"], ["Canada", "88.1", "\u2013", "\u2013"],
            ["Denmark", "...", "...", "..."], ["Estonia", "...", "3.9", "4.2"], ["Egypt", "7.7", "8.0", "8.3"]]
    y = 750.0
    for i, r in enumerate(rows):
        _row(c, y, r[0], r[1:], xs, font=BOLD if i == 0 else FONT)
        y -= PITCH
    _prose(c, y - 20, "... not available; \u2013 nil or less than half the unit shown.")
    c.save()
    return path, rows


def build_grouped_header(path: str | Path) -> tuple[Path, Rows]:
    """A budget statement: "Plan" and "Non-Plan" each over "Revenue Capital Total", then a
    grand "Total"; the expected header joins each group's name to its column's."""
    path = Path(path)
    c = _canvas(path)
    _prose(c, 790, "Statement 2. Expenditure by department, crore rupees.")
    xs = [230, 280, 330, 395, 445, 495, 550]
    c.setFont(BOLD, SIZE)
    c.drawCentredString((xs[0] - 20 + xs[2]) / 2, 762, "Plan")
    c.drawCentredString((xs[3] - 20 + xs[5]) / 2, 762, "Non-Plan")
    c.drawRightString(xs[6], 762, "Total")
    sub = ["Revenue", "Capital", "Total", "Revenue", "Capital", "Total", ""]
    _row(c, 749, "Department", sub, xs, font=BOLD)
    body = [["Agriculture", "120.5", "30.0", "150.5", "80.2", "5.0", "85.2", "235.7"],
            ["Education", "210.0", "45.5", "255.5", "310.4", "12.0", "322.4", "577.9"],
            ["Health", "180.3", "60.7", "241.0", "150.0", "8.5", "158.5", "399.5"],
            ["Irrigation", "95.0", "140.0", "235.0", "20.1", "2.0", "22.1", "257.1"],
            ["Roads", "60.0", "220.4", "280.4", "40.0", "15.6", "55.6", "336.0"]]
    y = 735.0
    for r in body:
        _row(c, y, r[0], r[1:], xs)
        y -= PITCH
    _prose(c, y - 20, "Figures for the budget year are estimates.")
    c.save()
    head = ["Department", "Plan Revenue", "Plan Capital", "Plan Total", "Non-Plan Revenue", "Non-Plan Capital",
            "Non-Plan Total", "Total"]
    return path, [head] + body


def build_statistical(path: str | Path) -> tuple[Path, Rows]:
    """A statistical page: row groups (a group label, indented members, a sub-total), footnote
    markers set small and raised after labels and figures, columns separated by alignment only."""
    path = Path(path)
    c = _canvas(path)
    c.setFont(BOLD, 11)
    c.drawString(60, 790, "Table 12. Arrests by offence and age group: 2009")
    c.setFont(FONT, 7)
    c.drawString(60, 778, "[In thousands. Represents arrests reported (not charged). See footnotes.]")
    xs = [330, 400, 470, 540]
    _row(c, 755, "Offence charged", ["Total", "Under 18", "18 to 24", "25 and over"], xs, font=BOLD)
    body = [("Violent crime", ["467.9", "69.1", "120.4", "278.4"], None, BOLD),
            ("  Murder", ["10.0", "0.9", "3.1", "6.0"], None, FONT),
            ("  Robbery", ["102.1", "25.5", "38.0", "38.6"], "1", FONT),
            ("  Aggravated assault", ["338.4", "40.1", "79.3", "219.0"], None, FONT),
            ("  Subtotal", ["450.5", "66.5", "120.4", "263.6"], None, FONT),
            ("Property crime", ["1,396.4", "338.7", "420.0", "637.7"], "2", BOLD),
            ("  Burglary", ["240.9", "60.3", "70.2", "110.4"], None, FONT),
            ("  Larceny-theft", ["1,080.1", "258.1", "330.0", "492.0"], None, FONT),
            ("  Subtotal", ["1,321.0", "318.4", "400.2", "602.4"], None, FONT),
            ("All other offences", ["9,198.7", "1,132.2", "2,611.5", "5,455.0"], None, BOLD)]
    y = 741.0
    rows = [["Offence charged", "Total", "Under 18", "18 to 24", "25 and over"]]
    for label, figs, note, font in body:
        indent = 8 if label.startswith("  ") else 0
        label = label.strip()
        _row(c, y, label, figs, xs, font=font, label_x=60 + indent)
        if note:  # a raised small footnote marker right after the label
            from reportlab.pdfbase.pdfmetrics import stringWidth

            c.setFont(FONT, 5.5)
            c.drawString(60 + indent + stringWidth(label, font, SIZE) + 1, y + 3.5, note)
        rows.append([f"{label} {note}" if note else label] + figs)
        y -= PITCH
    c.setFont(FONT, 7)
    c.drawString(60, y - 14, "1 Includes attempts. 2 Except arson. Source: a hypothetical crime report.")
    c.save()
    return path, rows


def build_partial_grid(path: str | Path) -> tuple[Path, Rows]:
    """A table ruled between its figure columns only (as R prints a data frame): no rule closes
    the label column on the left or the last column on the right."""
    path = Path(path)
    c = _canvas(path)
    _prose(c, 790, "Table 4. Fuel use by car model.")
    xs = [250, 300, 350, 400]
    rows = [["", "mpg", "cyl", "hp", "gear"], ["Mazda RX4", "21.0", "6", "110", "4"], ["Datsun 710", "22.8", "4", "93", "4"],
            ["Hornet 4 Drive", "21.4", "6", "110", "3"], ["Valiant", "18.1", "6", "105", "3"], ["Duster 360", "14.3", "8", "245", "3"]]
    y = 760.0
    c.setLineWidth(0.5)
    for i, r in enumerate(rows):
        _row(c, y, r[0], r[1:], xs)
        for x in [200] + xs[:-1]:  # rules left of each figure column, none after the last
            c.line(x + 5, y - 3, x + 5, y + 10)
        c.line(60, y - 3, 420, y - 3)
        y -= PITCH
    _prose(c, y - 20, "Source: a motoring magazine, 1974.")
    c.save()
    return path, rows


BUILDERS = {"overprint": build_overprint, "leaders": build_leaders, "nil": build_nil,
            "grouped_header": build_grouped_header, "statistical": build_statistical,
            "partial_grid": build_partial_grid}
