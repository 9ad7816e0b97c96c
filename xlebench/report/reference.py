"""Published numbers the report plots beside ours (minutes of video per life log)."""

#: X-LeBench paper, Table 2: max / mean / min minutes per length category.
PAPER_TABLE2 = {"short": (580, 142, 23), "medium": (760, 319, 118), "long": (984, 516, 220)}
#: The authors' released annotation files (432 logs), audited: max / mean / min minutes.
RELEASE = {"short": (581, 140, 24), "medium": (754, 322, 121), "long": (927, 516, 228)}
