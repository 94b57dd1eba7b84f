"""The numbers btb reports, as rows of the tidy table of :mod:`pluralign.paper`."""

NUMBERS: list[dict] = []
