"""A spec saved as Latin-1: the byte 0xe9 on line 3 is not UTF-8."""

# Owner: Renée
fleet = None
